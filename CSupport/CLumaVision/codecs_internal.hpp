// Internal to CLumaVision's image codecs (codecs.cpp, codecs_libs.cpp): the pixel helpers and size check every
// decoder shares, and the decoders of the formats whose libraries are linked by name.
#ifndef LV_CODECS_INTERNAL_HPP
#define LV_CODECS_INTERNAL_HPP

#include "codecs.hpp"

#include <cerrno>
#include <cstring>

namespace lv::codecs::detail {

/// ITU-R BT.601 luma in 14-bit fixed point with rounding: the weights and rounding of cv::cvtColor(COLOR_RGB2GRAY).
inline uint8_t grey(uint32_t r, uint32_t g, uint32_t b) {
    return uint8_t((r * 4899 + g * 9617 + b * 1868 + (1u << 13)) >> 14);
}

/// The same weights as libpng's png_set_rgb_to_gray(0.299, 0.587) in 15-bit fixed point, truncated, which OpenCV's
/// PNG reader asked libpng for: colour PNGs read as before.
inline uint8_t png_grey(uint32_t r, uint32_t g, uint32_t b) { return uint8_t((r * 9798 + g * 19235 + b * 3735) >> 15); }

/// A sample of `maxval` full scale, scaled to 0...255 with rounding.
inline uint8_t scale(uint32_t value, uint32_t maxval) {
    if (maxval == 255) return uint8_t(value);
    if (value >= maxval) return 255;
    return uint8_t((value * 255 + maxval / 2) / maxval);
}

/// The one check of an image's size, made by every decoder as soon as its header gives the size and before any pixel
/// memory is allocated: 0 for a size to decode, -EBADMSG for an empty one (a side of 0), -EFBIG beyond `budget`
/// pixels (the caller's, at most LV_IMAGE_MAX_PIXELS_LIMIT, 2^30, OpenCV's CV_IO_MAX_IMAGE_PIXELS), so a corrupt or
/// hostile header is refused instead of costing gigabytes. Within the budget each side fits an int, as cv::Mat needs.
inline int check_size(uint64_t width, uint64_t height, uint64_t budget) {
    if (width == 0 || height == 0) return -EBADMSG;
    return width > budget || height > budget || width * height > budget ? -EFBIG : 0;
}

inline bool starts_with(const uint8_t *bytes, size_t length, const char *signature, size_t count) {
    return length >= count && std::memcmp(bytes, signature, count) == 0;
}

/// WebP (libwebp), TIFF's first page (libtiff) and GIF's first frame (giflib) to 8-bit grey, each refusing an image
/// over `budget` pixels from its header (check_size) before allocating; the return codes of decode_grey.
int decode_webp(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t budget);
int decode_tiff(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t budget);
int decode_gif(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t budget);

}  // namespace lv::codecs::detail

#endif
