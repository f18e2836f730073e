// libFuzzer target for the meter reader (lv_meter_read in CSupport/CLumaVision/include/lv_meter.h: the seven-segment
// and the roller-counter readers, the drum search, the digit network and the carry rule) on arbitrary grey planes.
// The first 4 bytes choose the plane's width (16...271) and height (16...143), the mode (digital, counter, auto) and
// the stride's padding; the rest are the pixels, repeated to fill the plane, which is allocated to its exact size so
// that a read past it is an AddressSanitizer report. One reader per mode lives for the process, as in a recognizer.
// OpenCV runs on the calling thread only: its TBB workers spun on the second core for a few hundred microseconds of
// work per input, which one recognition thread in the engine would not see, and cost the fuzzer inputs.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <opencv2/core.hpp>

#include "lv_meter.h"

namespace {

lv_meter *reader(int mode) {
    static lv_meter *readers[3] = {nullptr, nullptr, nullptr};
    lv_meter *&slot = readers[mode - 1];
    if (slot == nullptr && lv_meter_create(mode, &slot) != 0) abort();  // the embedded model must always load
    return slot;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    cv::setNumThreads(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 5) return -1;
    const int width = 16 + data[0] % 256, height = 16 + data[1] % 128;
    const int mode = 1 + data[2] % 3;
    const size_t stride = size_t(width) + data[3] % 8;
    const uint8_t *pixels = data + 4;
    const size_t count = size - 4;
    std::vector<uint8_t> plane(stride * size_t(height - 1) + size_t(width));
    for (size_t i = 0; i < plane.size(); ++i) plane[i] = pixels[i % count];
    lv_meter_result result;
    const int digits = lv_meter_read(reader(mode), plane.data(), width, height, stride, &result);
    // -ENOMEM can happen (the fuzzer's allocator returns NULL above its limit); -EIO would be an OpenCV exception,
    // which is a bug in the reader's arithmetic on this input.
    if (digits == -ENOMEM) return 0;
    if (digits < 0 || digits > LV_METER_MAX_DIGITS || digits != result.digit_count) abort();
    if (digits > 0 && (result.box_x < 0 || result.box_y < 0 || result.box_x + result.box_width > width ||
                       result.box_y + result.box_height > height))
        abort();  // the reading's box lies in the plane
    return 0;
}
