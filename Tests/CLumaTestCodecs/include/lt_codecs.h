#ifndef LT_CODECS_H
#define LT_CODECS_H
// Test-only image encoders: WebP (libwebp), TIFF (libtiff) and GIF (giflib) files made by the libraries themselves,
// so the tests of CLumaVision's decoders read images no code of ours wrote. Never linked into the library.
//
// Pixels are passed as a pointer plus width, height and stride (bytes from one row to the next). Every function
// writes the file at `path` (replacing it) and returns 0, -EINVAL for bad arguments, -ENOMEM, or -EIO when the
// library fails.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Writes RGB pixels (3 bytes a pixel, R G B) as WebP: lossless when `quality` is negative, else lossy at `quality`
/// (0...100).
int lt_write_webp_rgb(const char *path, const uint8_t *rgb, int width, int height, int stride, float quality);

/// Writes RGBA pixels (4 bytes a pixel, R G B A) as lossless WebP with an alpha channel.
int lt_write_webp_rgba(const char *path, const uint8_t *rgba, int width, int height, int stride);

/// Writes a TIFF of one page: `channels` 1 (grey, PHOTOMETRIC_MINISBLACK) or 3 (RGB, PHOTOMETRIC_RGB) interleaved
/// samples of `bits` 8 or 16 (16-bit samples as native-endian uint16_t, `stride` in bytes), compressed with the
/// libtiff `compression` scheme (1 none, 5 LZW, 8 Deflate), `rows_per_strip` rows a strip.
int lt_write_tiff(const char *path, const void *samples, int width, int height, size_t stride, int channels, int bits,
                  int compression, int rows_per_strip);

/// Writes a one-frame GIF89a of palette indices (1 byte a pixel) with the palette `rgb` (`colours` R G B triples,
/// 2...256, padded to a power of two with black), interlaced when `interlace` is non-zero.
int lt_write_gif(const char *path, const uint8_t *indices, int width, int height, int stride, const uint8_t *rgb,
                 int colours, int interlace);

#ifdef __cplusplus
}
#endif
#endif
