#ifndef LV_DRAW_H
#define LV_DRAW_H
// The bench kit's imaging (OpenCV imgproc) for the scenes tests and benchmarks draw: resizing, rotating, warping,
// blur, noise, polygons, rectangles and text on 8-bit grey images. Not part of the LumaScan library product.
// The shims' one convention (CLumaVision's lv_common.h): 0 on success or a negative errno code (-EINVAL for bad
// arguments, -ENOMEM, -EIO); pixels as a pointer plus width, height and stride; nothing throws.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Interpolation for `lv_image_resize`.
enum {
    LV_INTERP_NEAREST = 0,  ///< nearest neighbour (keeps hard edges)
    LV_INTERP_LINEAR = 1,   ///< bilinear
    LV_INTERP_AREA = 2,     ///< pixel-area averaging (best for shrinking)
};

/// Resizes `src` into `dst` (whose size is the target size).
int lv_image_resize(const uint8_t *src, int src_width, int src_height, size_t src_stride, uint8_t *dst,
                    int dst_width, int dst_height, size_t dst_stride, int interpolation);

/// Rotates `src` by `degrees` (counter-clockwise, as the image is displayed) about its centre into `dst`, whose
/// centre the source centre lands on; uncovered pixels get `border` (0...255), or keep their value when `border` is
/// negative (to paste onto a background). Bilinear. When `matrix` is not NULL it
/// receives the 2x3 affine map from source to destination pixels (row-major), for mapping known points.
int lv_image_rotate(const uint8_t *src, int src_width, int src_height, size_t src_stride, uint8_t *dst,
                    int dst_width, int dst_height, size_t dst_stride, double degrees, int border,
                    double *matrix);

/// Warps `src` into `dst` with the perspective transform that maps `src_quad` (4 points, x0 y0 ... x3 y3, in source
/// pixels) onto `dst_quad` (in destination pixels); uncovered pixels get `border` (0...255), or keep their value when
/// `border` is negative (to paste onto a background). Bilinear. When `matrix` is not
/// NULL it receives the 3x3 homography from source to destination (row-major).
int lv_image_warp_perspective(const uint8_t *src, int src_width, int src_height, size_t src_stride, uint8_t *dst,
                              int dst_width, int dst_height, size_t dst_stride, const double *src_quad,
                              const double *dst_quad, int border, double *matrix);

/// Blurs an image in place with a Gaussian of standard deviation `sigma` pixels (0 leaves it unchanged).
int lv_image_gaussian_blur(uint8_t *luma, int width, int height, size_t stride, double sigma);

/// Adds zero-mean Gaussian noise of standard deviation `sigma` in place, saturating at 0 and 255. The same `seed`
/// gives the same noise.
int lv_image_add_noise(uint8_t *luma, int width, int height, size_t stride, double sigma, uint64_t seed);

/// Fills the polygon with `count` corners (`xy` = x0 y0 x1 y1 ..., pixels) with `value`; anti-aliased when
/// `antialias` is non-zero.
int lv_image_fill_polygon(uint8_t *luma, int width, int height, size_t stride, const double *xy, int count,
                          uint8_t value, int antialias);

/// Fills the rectangle at `x`, `y` of `rect_width` x `rect_height` pixels (clipped to the image) with `value`.
int lv_image_fill_rect(uint8_t *luma, int width, int height, size_t stride, int x, int y, int rect_width,
                       int rect_height, uint8_t value);

/// Draws UTF-8 `text` (OpenCV's Hershey simplex font: ASCII only) with its baseline starting at `x`, `y`; `scale`
/// is the font scale (1.0 is about 22 px tall), `thickness` the stroke width in pixels. Anti-aliased.
int lv_image_draw_text(uint8_t *luma, int width, int height, size_t stride, const char *text, int x, int y,
                       double scale, int thickness, uint8_t value);

#ifdef __cplusplus
}
#endif
#endif
