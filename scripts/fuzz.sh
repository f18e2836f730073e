#!/usr/bin/env bash
# Builds LumaScan's libFuzzer targets (Fuzz/targets) with clang++ -fsanitize=fuzzer,address,undefined and runs each
# for a bounded time, starting from its committed seed corpus (Fuzz/corpus/<target>, made by Fuzz/make-seeds.sh) and
# the corpus earlier runs grew (.build-fuzz/corpus/<target>). A crash, a sanitizer report, a timeout (10 s for one
# input), memory above 1 GiB, or fewer inputs than the minimum fails the script; a failing input is saved under
# .build-fuzz/crashes/<target>/ and its path printed. Rerun one with: .build-fuzz/bin/<target> <that path>
#
# Targets: one per image decoder of CSupport/CLumaVision/codecs*.cpp (image-png, image-jpeg, image-webp, image-tiff,
# image-gif, image-bmp, image-pnm), mjpeg (MJPEG-to-luma, CSupport/CLumaCapture/jpeg.c), barcode (lv_barcode_scan
# and lv_barcode_scan_still on arbitrary luma planes), meter (lv_meter_read in each mode), configuration (the strict JSON scan, cutout decoding and
# geometry) and recording (the recording reader), the last two built with swiftc -sanitize=fuzzer,address.
# scripts/test.sh runs them all, beside its VM step: about 6 minutes on 2 cores.
#
# Usage: scripts/fuzz.sh [target...]        (default: every target)
# Environment: LUMASCAN_FUZZ_SECONDS   seconds per target (default 12; the barcode and meter targets run to a count)
#              LUMASCAN_FUZZ_MIN_RUNS  inputs each target must run in its time (default 10000)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${LUMASCAN_FUZZ_SECONDS:-12}
min_runs=${LUMASCAN_FUZZ_MIN_RUNS:-10000}
clang_bin=/opt/swift/usr/bin
[[ -x $clang_bin/clang++ ]] || clang_bin=$(dirname "$(command -v clang++)")
CC=$clang_bin/clang
CXX=$clang_bin/clang++
out=.build-fuzz
mkdir -p "$out/obj" "$out/bin" "$out/crashes"

image_formats=(png jpeg webp tiff gif bmp pnm)
all_targets=("${image_formats[@]/#/image-}" mjpeg barcode meter configuration recording)
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")

# Objects are instrumented for coverage (fuzzer-no-link) and checked by the sanitizers; undefined behaviour aborts.
# The meter reader's arithmetic kernels are left out of the coverage instrumentation (Fuzz/coverage-ignore.txt says why).
sanitize=(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1
  -fsanitize-coverage-ignorelist=Fuzz/coverage-ignore.txt)
includes=(-ICSupport/CLumaVision/include -ICSupport/CLumaVision -ICSupport/OpenCV/include
  -ICSupport/CLumaCapture/include $(pkg-config --cflags-only-I zbar libpng libturbojpeg libwebp libtiff-4))
libraries=(-lopencv_core -lopencv_imgproc -lopencv_dnn -lZXing -lzbar -lpng16 -lturbojpeg -lwebp -ltiff -lgif)

# The shim sources each target needs; assertion_guard.cpp replaces __assert_fail, as in the package.
vision=(codecs codecs_libs image common assertion_guard barcode barcode_qr barcode_merge barcode_regions barcode_text barcode_zxing qr_finder)
# The meter reader's, for the meter target (its model, meter_digits_model.c, is compiled without instrumentation: it is
# one 458 kB array).
meter=(meter meter_image meter_digital meter_drums meter_counter meter_templates meter_digits)

# Whether an object must be compiled again: it is missing, older than this script or its source, or older than any
# header its last compile read (the compiler's list, object.d). Without the headers, a changed struct in a header
# left objects of the old layout beside new ones, and the meter target crashed in its own constructor.
stale() {  # source object
  local source=$1 object=$2 dependency
  [[ ! -f $object || ! -f $object.d || $source -nt $object || scripts/fuzz.sh -nt $object ]] && return 0
  [[ Fuzz/coverage-ignore.txt -nt $object ]] && return 0
  for dependency in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$object.d"); do
    [[ $dependency -nt $object ]] && return 0
  done
  return 1
}

compile() {  # source object compiler flags...
  local source=$1 object=$2
  shift 2
  if stale "$source" "$object"; then
    "$@" "${sanitize[@]}" "${includes[@]}" -MMD -MF "$object.d" -c "$source" -o "$object"
  fi
}

started=$SECONDS
echo "fuzz: building with $CXX"
pids=()
for name in "${vision[@]}"; do
  compile "CSupport/CLumaVision/$name.cpp" "$out/obj/lv-$name.o" "$CXX" -std=c++17 &
  pids+=($!)
  # Two compilers at a time: CI has two cores.
  if ((${#pids[@]} >= 2)); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for name in "${meter[@]}"; do
  compile "CSupport/CLumaVision/$name.cpp" "$out/obj/lv-$name.o" "$CXX" -std=c++17 &
  pids+=($!)
  if ((${#pids[@]} >= 2)); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
if [[ ! -f $out/obj/lv-model.o || CSupport/CLumaVision/meter_digits_model.c -nt $out/obj/lv-model.o ]]; then
  "$CC" -std=c11 -O0 -c CSupport/CLumaVision/meter_digits_model.c -o "$out/obj/lv-model.o"
fi
compile CSupport/CLumaCapture/jpeg.c "$out/obj/lc-jpeg.o" "$CC" -std=c11 &
pids+=($!)
for format in "${image_formats[@]}"; do
  compile Fuzz/targets/image.cpp "$out/obj/target-image-$format.o" "$CXX" -std=c++17 "-DLV_FUZZ_FORMAT=\"$format\"" &
  pids+=($!)
  if ((${#pids[@]} >= 2)); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for target in mjpeg barcode meter; do
  compile "Fuzz/targets/$target.cpp" "$out/obj/target-$target.o" "$CXX" -std=c++17 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

link() {  # target objects...
  local target=$1
  shift
  "$CXX" -fsanitize=fuzzer,address,undefined -fuse-ld=lld "$@" "${libraries[@]}" -o "$out/bin/$target"
}
# The Swift targets: LumaScanCore (which imports only the system) and swift-log as static modules, then the target's
# sources and Fuzz/targets/<target>.swift as one module. Rebuilt when a source is newer than the binary.
# One package name for every module, as SwiftPM gives them: LumaScanCore's `package` declarations (Lock) are used by
# the modules built on it.
swift_flags=(-sanitize=fuzzer,address -parse-as-library -g -Onone -I "$out/swift" -L "$out/swift" -package-name lumascan)
quiet_swiftc() {  # arguments...: swiftc, its output shown only when it fails (its linker warns about ASan's symbols)
  "$clang_bin/swiftc" "$@" >"$out/swiftc.log" 2>&1 || { cat "$out/swiftc.log" >&2; return 1; }
}
swift_module() {  # module sources...
  local module=$1
  shift
  if [[ ! -f $out/swift/lib$module.a || -n $(find "$@" -newer "$out/swift/lib$module.a") ]]; then
    quiet_swiftc "${swift_flags[@]}" -module-name "$module" -emit-library -static \
      -emit-module -emit-module-path "$out/swift/$module.swiftmodule" "$@" -o "$out/swift/lib$module.a"
  fi
}
swift_target() {  # target module libraries sources...
  local target=$1 module=$2 libraries=$3
  shift 3
  mkdir -p "$out/swift"
  [[ -d .build/checkouts/swift-log ]] || swift package resolve
  swift_module Logging $(find .build/checkouts/swift-log/Sources/Logging -name '*.swift')
  local core=(Sources/LumaScanCore/*.swift)
  # The configuration target is compiled into LumaScanCore itself; the others import it.
  if [[ $module == LumaScanCore ]]; then set -- "${core[@]}" "$@"; else swift_module LumaScanCore "${core[@]}"; fi
  if [[ ! -x $out/bin/$target || -n $(find "$@" "Fuzz/targets/$target.swift" -newer "$out/bin/$target") ]]; then
    # shellcheck disable=SC2086 # the libraries are separate words
    quiet_swiftc "${swift_flags[@]}" -module-name "$module" "$@" "Fuzz/targets/$target.swift" $libraries \
      -o "$out/bin/$target"
  fi
}

vision_objects=("${vision[@]/#/$out/obj/lv-}")
vision_objects=("${vision_objects[@]/%/.o}")
meter_objects=("${meter[@]/#/$out/obj/lv-}")
meter_objects=("${meter_objects[@]/%/.o}" "$out/obj/lv-model.o")
for target in "${targets[@]}"; do
  case $target in
    image-*) link "$target" "$out/obj/target-$target.o" "${vision_objects[@]}" ;;
    mjpeg) link mjpeg "$out/obj/target-mjpeg.o" "$out/obj/lc-jpeg.o" ;;
    barcode) link barcode "$out/obj/target-barcode.o" "${vision_objects[@]}" ;;
    meter) link meter "$out/obj/target-meter.o" "${meter_objects[@]}" "${vision_objects[@]}" ;;
    configuration) swift_target configuration LumaScanCore "" ;;
    recording)
      swift_target recording LumaScanCapture "-lLumaScanCore -lLogging" \
        Sources/LumaScanCapture/{RecordingSource,RecordingFormat,RecordingWriter,CaptureError}.swift
      ;;
    *) echo "fuzz: unknown target '$target' (known: ${all_targets[*]})" >&2; exit 2 ;;
  esac
done
echo "fuzz: built ${#targets[@]} target(s) in $((SECONDS - started)) s"

failed=()
for target in "${targets[@]}"; do
  seeds=Fuzz/corpus/$target
  corpus=$out/corpus/$target
  crashes=$out/crashes/$target
  mkdir -p "$corpus" "$crashes"
  log=$out/$target.log
  begun=$SECONDS
  budget=$seconds
  # The barcode scanner runs zbar and ZXing-C++ on every plane, the still path's harder passes too: about 100 inputs
  # a second once its corpus has grown (78 beside the VM step, which scripts/test.sh runs at the same time), against
  # 10,000 or more for the decoders. It runs until it has done half as many again as the minimum, with 25 times the
  # time as the bound, so a slower machine still reaches the minimum instead of failing for it (here: 145-190 s;
  # with 12 times, 144 s, it stopped at 11,312 beside the VM on 2026-11-27).
  runs=-1
  minimum=$min_runs
  if [[ $target == barcode ]]; then
    budget=$((seconds * 25))
    runs=$((min_runs * 3 / 2))
  elif [[ $target == meter ]]; then
    # The meter reader runs its digit network (OpenCV's DNN: native code, about 0.4 ms a drum window here) on the 30
    # to 40 drum windows it tries per input: 9 to 20 inputs a second here as the corpus grows, and about a quarter of
    # that on the machine CI ran on 2026-11-27. Like the barcode target it runs until it has done half as many again
    # as its minimum (a twentieth of the others'), with twenty times the time as the bound: 40-85 s here.
    budget=$((seconds * 20))
    minimum=$((min_runs / 20))
    runs=$((minimum * 3 / 2))
  fi
  # Leak checks stay off: zbar and OpenCV keep caches for the process' life, and the ZXing assertion guard leaks
  # what the failed call had allocated by design (lv_shim.hpp); crashes, memory errors and UB are what fails.
  status=0
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$out/bin/$target" "$corpus" "$seeds" -max_total_time="$budget" -runs="$runs" -timeout=10 -rss_limit_mb=1024 \
    -max_len=65536 -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1 || status=$?
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if ((status != 0)); then
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    echo "fuzz: $target FAILED after ${executed:-?} inputs; input saved at ${artifact:-$crashes} (log: $log)" >&2
    grep -m 12 -E "ERROR|SUMMARY|runtime error|#[0-9]+ 0x" "$log" >&2 || true
    failed+=("$target")
  elif ((${executed:-0} < minimum)); then
    echo "fuzz: $target ran only ${executed:-0} inputs in $budget s, fewer than $minimum (log: $log)" >&2
    failed+=("$target")
  else
    echo "fuzz: $target ok: $executed inputs in $((SECONDS - begun)) s, corpus $(ls "$corpus" | wc -l) + $(ls "$seeds" | wc -l) seeds"
  fi
done
echo "fuzz: ${#targets[@]} target(s) in $((SECONDS - started)) s"
if ((${#failed[@]})); then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
