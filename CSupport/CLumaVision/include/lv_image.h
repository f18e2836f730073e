#ifndef LV_IMAGE_H
#define LV_IMAGE_H
// CLumaVision imaging: image files to and from 8-bit grey (libpng, TurboJPEG, libwebp, libtiff, giflib, and
// PGM/PPM/PBM and BMP read by the shim), behind a C API. The imaging operations test and benchmark generators need
// (resizing, warping, blur, noise, drawing) are the bench kit's (CLumaBenchKit's lv_draw.h), not the library's.
//
// Pixels are passed as a pointer plus width, height and stride (bytes from one row to the next, at least the width);
// a buffer holds `stride * (height - 1) + width` bytes. Every function returns 0 or a count on success and a negative
// errno code on failure, each with one meaning:
//   -EINVAL       bad arguments; for a file to read, a path that is neither a regular file nor a folder (a device, a
//                 FIFO, a socket)
//   -ENOENT       no such file (or a component of its path is missing or not a folder)
//   -EACCES       no permission to read the file (or to search a folder on its path)
//   -EISDIR       the path is a folder
//   -EMEDIUMTYPE  not in an image format LumaScan reads: no PNG, JPEG, WebP, TIFF, GIF, BMP or PGM/PPM/PBM
//                 signature (an empty file included)
//   -ENOTSUP      a format LumaScan reads, in a variant it does not: an RLE-compressed BMP, an animated WebP, a TIFF
//                 compression or photometric interpretation libtiff lacks
//   -EBADMSG      the image is truncated or corrupt
//   -EFBIG        the header declares more pixels than the caller's budget (`max_pixels`: 0 for
//                 LV_IMAGE_DEFAULT_MAX_PIXELS, 64 MP; never more than LV_IMAGE_MAX_PIXELS_LIMIT, 2^30), refused before
//                 any pixel memory is allocated
//   -EIO          reading the file failed (an I/O error), or writing a PNG failed
//   -ENOSPC       a caller's buffer is too small
//   -ENOMEM       memory ran out
// Nothing throws.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The pixel budget a `max_pixels` of 0 stands for: 64 MP (2^26, 8192 x 8192), about 64 MB of grey and 256 MB of
/// RGBA working memory at most, far above any camera or scan.
#define LV_IMAGE_DEFAULT_MAX_PIXELS 67108864
/// The largest budget a caller may give (larger ones are lowered to it): 2^30, OpenCV's CV_IO_MAX_IMAGE_PIXELS.
#define LV_IMAGE_MAX_PIXELS_LIMIT 1073741824

/// A decoded 8-bit grey image owned by the shim, with rows of exactly `width` bytes.
typedef struct lv_image lv_image;

/// Reads an image file as 8-bit grey: PNG, JPEG (applying its EXIF orientation), WebP (lossy and lossless), TIFF
/// (the first page, any photometric interpretation), GIF (the first frame), PGM/PPM/PBM (binary or ASCII) and
/// uncompressed BMP, recognised by their content, not their name. 16-bit and colour files are converted (BT.601
/// weights), alpha is ignored. An image whose header declares more than `max_pixels` pixels (0: the default budget)
/// is refused with -EFBIG before its pixels are allocated. On success stores a new image in `*out` (free it with
/// `lv_image_destroy`); on failure returns one of the codes above (-ENOENT, -EACCES, -EISDIR, -EINVAL, -EMEDIUMTYPE,
/// -ENOTSUP, -EBADMSG, -EFBIG, -EIO, -ENOMEM) and leaves `*out` NULL.
int lv_image_read_grey_within(const char *path, uint64_t max_pixels, lv_image **out);

/// `lv_image_read_grey_within` with the default budget (LV_IMAGE_DEFAULT_MAX_PIXELS).
int lv_image_read_grey(const char *path, lv_image **out);

/// Decodes an encoded image held in memory (`bytes`, `length`) as 8-bit grey, like `lv_image_read_grey_within`: 0, -EINVAL
/// (no bytes), -EMEDIUMTYPE, -ENOTSUP, -EBADMSG, -EFBIG (over `max_pixels`, 0 for the default) or -ENOMEM.
int lv_image_decode_grey_within(const void *bytes, size_t length, uint64_t max_pixels, lv_image **out);

/// `lv_image_decode_grey_within` with the default budget (LV_IMAGE_DEFAULT_MAX_PIXELS).
int lv_image_decode_grey(const void *bytes, size_t length, lv_image **out);

/// The image's width in pixels.
int lv_image_width(const lv_image *image);
/// The image's height in pixels.
int lv_image_height(const lv_image *image);
/// The image's pixels: `height` rows of `width` bytes, valid until `lv_image_destroy`.
const uint8_t *lv_image_pixels(const lv_image *image);
/// Frees an image; NULL is ignored.
void lv_image_destroy(lv_image *image);

/// Writes a grey image to `path` as PNG.
int lv_image_write_png(const char *path, const uint8_t *luma, int width, int height, size_t stride);

/// Encodes a grey image as PNG into `out` (capacity `capacity` bytes) and stores the PNG's size in `*length`.
/// Returns 0, or -ENOSPC when the PNG does not fit (then `*length` is the capacity needed).
int lv_image_encode_png(const uint8_t *luma, int width, int height, size_t stride, uint8_t *out, size_t capacity,
                        size_t *length);

/// `lv_image_encode_png` with Huffman coding only, for a camera's image: two to three times as fast (a noisy 1400x620
/// crop in 5.3 ms against 16.5, a 944x272 crop of a camera frame in 1.6 against 3.7), 8-15 % larger; a flat, generated
/// image shrinks far less than with `lv_image_encode_png`.
int lv_image_encode_png_fast(const uint8_t *luma, int width, int height, size_t stride, uint8_t *out,
                             size_t capacity, size_t *length);

#ifdef __cplusplus
}
#endif
#endif
