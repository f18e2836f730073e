// libFuzzer target for one image decoder of CSupport/CLumaVision/codecs*.cpp, chosen at compile time with
// -DLV_FUZZ_FORMAT=<name> (png, jpeg, webp, tiff, gif, bmp, pnm): inputs without that format's signature are skipped,
// so each target's time goes to its own decoder. Decoding runs with a 1 MP budget, so a mutated header declaring a
// huge image is refused from the header (the budget check is under test too) instead of slowing the run down.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "lv_image.h"

namespace {

bool starts(const uint8_t *data, size_t size, const char *signature, size_t count) {
    return size >= count && std::memcmp(data, signature, count) == 0;
}

bool has_signature(const uint8_t *data, size_t size) {
    const char *format = LV_FUZZ_FORMAT;
    if (!std::strcmp(format, "png")) return starts(data, size, "\x89PNG\r\n\x1a\n", 8);
    if (!std::strcmp(format, "jpeg")) return starts(data, size, "\xFF\xD8\xFF", 3);
    if (!std::strcmp(format, "webp")) return size >= 12 && starts(data, size, "RIFF", 4) && !std::memcmp(data + 8, "WEBP", 4);
    if (!std::strcmp(format, "tiff"))
        return starts(data, size, "II*\0", 4) || starts(data, size, "MM\0*", 4) || starts(data, size, "II+\0", 4) ||
               starts(data, size, "MM\0+", 4);
    if (!std::strcmp(format, "gif")) return starts(data, size, "GIF87a", 6) || starts(data, size, "GIF89a", 6);
    if (!std::strcmp(format, "bmp")) return starts(data, size, "BM", 2);
    if (!std::strcmp(format, "pnm")) return size >= 3 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6';
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!has_signature(data, size)) return -1;  // -1: not added to the corpus
    lv_image *image = nullptr;
    const int status = lv_image_decode_grey_within(data, size, 1 << 20, &image);
    if (status == 0) {
        // Touch every pixel, so a decoder that reports a size larger than it filled is caught by AddressSanitizer.
        const int width = lv_image_width(image), height = lv_image_height(image);
        const uint8_t *pixels = lv_image_pixels(image);
        unsigned sum = 0;
        for (long i = 0; i < long(width) * height; ++i) sum += pixels[i];
        if (width <= 0 || height <= 0 || long(width) * height > (1 << 20)) __builtin_trap();
        (void)sum;
    } else if (image != nullptr) {
        __builtin_trap();  // a failure must leave no image
    }
    lv_image_destroy(image);
    return 0;
}
