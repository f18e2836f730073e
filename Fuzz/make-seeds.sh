#!/usr/bin/env bash
# Rewrites the committed seed corpora (Fuzz/corpus/<target>/) with Fuzz/make-seeds.cpp, and the recording target's
# with `lumascan record` (build it first: swift build --product lumascan). Not part of CI: the seeds are committed; run
# this after changing the generator. The configuration target's seeds (Fuzz/corpus/configuration/) are written by
# hand and left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=/opt/swift/usr/bin/clang++
[[ -x $CXX ]] || CXX=clang++
out=.build-fuzz/make-seeds
mkdir -p "$out"
for target in image-png image-jpeg image-webp image-tiff image-gif image-bmp image-pnm mjpeg barcode meter recording; do
  rm -rf "Fuzz/corpus/$target"
  mkdir -p "Fuzz/corpus/$target"
done
"${CXX%++}" -O1 -ITests/CLumaTestCodecs/include -c Tests/CLumaTestCodecs/codecs.c -o "$out/lt_codecs.o"
"$CXX" -std=c++17 -O1 -ICSupport/CLumaVision/include -ICSupport/CLumaVision -ICSupport/OpenCV/include \
  -ITests/CLumaTestCodecs/include Fuzz/make-seeds.cpp "$out/lt_codecs.o" \
  CSupport/CLumaVision/{codecs,codecs_libs,image,common,assertion_guard}.cpp \
  -lopencv_core -lopencv_imgproc -lpng16 -lturbojpeg -lwebp -ltiff -lgif -o "$out/make-seeds"
"$out/make-seeds" Fuzz/corpus
lumascan=.build/debug/lumascan
"$lumascan" record --input Fuzz/corpus/image-pnm/grey.pgm --out Fuzz/corpus/recording/grey-1-frame.lsrec
"$lumascan" record --input Fuzz/corpus/image-pnm/grey.pgm --repeat 3 --fps 5 \
  --out Fuzz/corpus/recording/grey-3-frames.lsrec
find Fuzz/corpus -type f | sort | xargs ls -l | awk '{print $5, $9}'
