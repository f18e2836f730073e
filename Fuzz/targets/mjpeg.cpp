// libFuzzer target for MJPEG-to-luma (CSupport/CLumaCapture/jpeg.c), as the capture thread runs it on every camera or
// recording frame: the first 4 bytes are the frame format's width and height (1...512 each, little-endian 16 bits),
// the rest is the frame's bytes, decoded into a plane of exactly that size.
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" {
#include "CLumaCapture.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static lc_jpeg_decoder *decoder = [] {
        lc_jpeg_decoder *created = nullptr;
        return lc_jpeg_decoder_create(&created) == 0 ? created : nullptr;
    }();
    if (size < 4) return -1;
    const int width = 1 + (data[0] | data[1] << 8) % 512, height = 1 + (data[2] | data[3] << 8) % 512;
    // The plane is exactly width x height (stride = width), so any write past it is an AddressSanitizer report.
    std::vector<uint8_t> plane(size_t(width) * height);
    const int status = lc_jpeg_decode_grey(decoder, data + 4, size - 4, plane.data(), size_t(width), width, height);
    if (status > 0) __builtin_trap();
    (void)lc_jpeg_decoder_error(decoder);
    return 0;
}
