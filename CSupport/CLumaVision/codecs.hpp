// Image file codecs for CLumaVision, internal to the target (lv_image.h is the public C API).
//
// They replace OpenCV's imgcodecs module, which LumaScan used only to read images as 8-bit grey and to write grey
// PNGs, and which drags about 140 shared libraries (GDAL, OpenEXR, ...) into every binary: each process start paid
// for resolving them (seconds under the integration VM's software emulation). PNG goes through libpng's simplified
// API, JPEG through TurboJPEG, WebP through libwebp, TIFF through libtiff, GIF through giflib; PGM/PPM/PBM and BMP are
// parsed here.
#ifndef LV_CODECS_HPP
#define LV_CODECS_HPP

// OpenCV is found through the CSupport/OpenCV/include link (see Package.swift), not through pkg-config, so SwiftPM
// cannot name the missing package itself.
#if !__has_include(<opencv2/core.hpp>)
#error "OpenCV's headers are missing from /usr/include/opencv4: install libopencv-dev (scripts/deps.sh does)"
#endif
#include <opencv2/core.hpp>

#include "lv_image.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lv::codecs {

/// Decodes an encoded image (PNG, JPEG, WebP, TIFF, GIF, PGM/PPM/PBM or BMP, told apart by their signatures, not by a
/// file name) into `out` as 8-bit grey (CV_8UC1, continuous). Colour is converted with the ITU-R BT.601 weights OpenCV
/// uses (0.299 R + 0.587 G + 0.114 B), 16-bit samples are scaled to 8 bits, alpha is dropped (not composited), and a
/// JPEG's EXIF orientation is applied, as cv::imread(IMREAD_GRAYSCALE) did: grey 8-bit files, JPEGs, PGM/PPM and BMP
/// decode to the same pixels, colour and 16-bit PNGs within one grey level. A TIFF's first page and a GIF's first
/// frame are read. Every decoder reads the size from the header and refuses an image over the pixel budget
/// (`max_pixels`; 0 for LV_IMAGE_DEFAULT_MAX_PIXELS; at most LV_IMAGE_MAX_PIXELS_LIMIT) before allocating its pixels. Returns 0, or the codes lv_image.h documents: -EMEDIUMTYPE (no format's signature),
/// -ENOTSUP (a variant not read), -EBADMSG (truncated or corrupt), -EFBIG (over the budget), -ENOMEM. May throw
/// std::bad_alloc; callers catch.
int decode_grey(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t max_pixels);

/// How hard encode_png compresses.
enum class PNGEffort {
    /// zlib level 1 without row filters, like OpenCV's default compression level: flat images (a generated code)
    /// shrink many times over.
    balanced,
    /// Huffman coding only (Z_HUFFMAN_ONLY), for a camera's image (a completed meter reading's crop): two to three
    /// times as fast as `balanced`, 8-15 % larger on a camera's crop.
    fastest,
};

/// Encodes a grey image (`height` rows of `width` bytes, `stride` bytes apart) as PNG into `png` (replacing its
/// contents), without row filters, as hard as `effort` says. Returns 0 or -EIO.
int encode_png(const uint8_t *luma, int width, int height, size_t stride, std::vector<uint8_t> &png,
               PNGEffort effort);

/// Writes a grey image to the file `path` as PNG; on failure no file is left behind. Returns 0 or -EIO.
int write_png(const char *path, const uint8_t *luma, int width, int height, size_t stride);

}  // namespace lv::codecs

#endif
