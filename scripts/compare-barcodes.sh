#!/usr/bin/env bash
# Compares zbarimg, ZXingReader and lumascan on the same barcode photos, side by side per folder: images where each
# read a true code, its misreads (results not in the image), and the peers' union.
#
# Usage: scripts/compare-barcodes.sh [DIR]
#   DIR  a folder of images (in subfolders, any depth) with a truth.tsv: one line per code,
#        path<TAB>symbology<TAB>text<TAB>add-on, paths relative to DIR, symbologies by LumaScan's names (ean13, upca,
#        qr, datamatrix, ...), and `path<TAB>-<TAB><TAB>` for an image with no code. A real corpus works the same way.
#   Without DIR the generated corpus (Tests/LumaScanTestSupport/BarcodeRealWorldCorpus.swift) is written to
#   $CORPUS_DIR (default: a new folder under /tmp) and measured.
#
# zbarimg and ZXingReader run once per image, as their users run them (ZXingReader 1.4 aborts on some images, which
# would lose the rest of a batch; an abort counts as reading nothing); lumascan runs once over DIR
# (`lumascan scan --input DIR`, still-image mode, every symbology). Prints the table, misread examples and times.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi
for tool in swift zbarimg ZXingReader; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "compare-barcodes: $tool is missing (bash scripts/deps.sh --test installs zbarimg and ZXingReader)" >&2
    exit 1
  }
done

cd "$root"
# SWIFT_CONFIGURATION=release measures an optimised lumascan (a longer build); debug is what the tests build.
configuration=${SWIFT_CONFIGURATION:-debug}
swift build -c "$configuration" --product lumascan >&2
swift build -c "$configuration" --product barcode-corpus >&2
bin=$(swift build -c "$configuration" --show-bin-path)

if [[ $# -ge 1 ]]; then
  dir=$1
  [[ -f "$dir/truth.tsv" ]] || { echo "compare-barcodes: $dir/truth.tsv is missing" >&2; exit 2; }
else
  dir=${CORPUS_DIR:-$(mktemp -d /tmp/lumascan-corpus.XXXXXX)}
  "$bin/barcode-corpus" write "$dir"
fi
dir=$(cd "$dir" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The images, in truth.tsv's order, once each.
grep -v '^#' "$dir/truth.tsv" | cut -f1 | awk 'NF && !seen[$0]++' >"$work/images"
count=$(wc -l <"$work/images")

now() { date +%s.%N; }
# run READER OUT: runs READER on each image from DIR, writing `@@ path`, its output and `@@aborted` after a signal.
run() {
  local reader=$1 out=$2 path status
  : >"$out"
  while IFS= read -r path; do
    echo "@@ $path" >>"$out"
    status=0
    case $reader in
      zbarimg) (cd "$dir" && zbarimg -q "$path" 2>/dev/null) >>"$out" || status=$? ;;
      ZXingReader) (cd "$dir" && ZXingReader -1 "$path" 2>/dev/null) >>"$out" || status=$? ;;
    esac
    if ((status > 128)); then echo "@@aborted" >>"$out"; fi
  done <"$work/images"
}

start=$(now)
run zbarimg "$work/zbarimg"
zbar_seconds=$(awk -v a="$(now)" -v b="$start" 'BEGIN { print a - b }')
start=$(now)
run ZXingReader "$work/zxingreader"
zxing_seconds=$(awk -v a="$(now)" -v b="$start" 'BEGIN { print a - b }')
start=$(now)
"$bin/lumascan" scan --input "$dir" --results-only >"$work/lumascan.jsonl" 2>"$work/lumascan.log" || {
  echo "compare-barcodes: lumascan failed:" >&2
  tail -5 "$work/lumascan.log" >&2
  exit 1
}
lumascan_seconds=$(awk -v a="$(now)" -v b="$start" 'BEGIN { print a - b }')

echo "$count images in $dir"
"$bin/barcode-corpus" score "$dir" "$work/zbarimg" "$work/zxingreader" "$work/lumascan.jsonl"
printf 'seconds: lumascan %.1f (one process), zbarimg %.1f, ZXingReader %.1f (a process per image)\n' \
  "$lumascan_seconds" "$zbar_seconds" "$zxing_seconds"
