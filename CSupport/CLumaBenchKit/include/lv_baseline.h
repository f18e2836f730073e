#ifndef LV_BASELINE_H
#define LV_BASELINE_H
// The bench kit's baselines (CLumaBenchKit, not in the library product): raw zbar and raw ZXing-C++, configured as their own tools configure them, to measure
// LumaScan's recognizers against on the same frames. Nothing LumaScan adds (scan density, row binning, QR
// downscaling, regions, filters, the misread guard) is applied here.
//
// Every function returns 0 or a count on success and a negative errno-style code on failure (-EINVAL for bad
// arguments, -ENOMEM when memory ran out, -EIO for any other failure inside zbar). Nothing throws.
#include <stddef.h>
#include <stdint.h>

#include "lv_barcode.h"

#ifdef __cplusplus
extern "C" {
#endif

/// One zbar image scanner and one reusable zbar image. Use it from one thread at a time.
typedef struct lv_zbar_baseline lv_zbar_baseline;

/// Creates a scanner with zbar's default configuration: every symbology and feature zbar has enabled
/// (`zbar_image_scanner_set_config(scanner, 0, ZBAR_CFG_ENABLE, 1)`, as `zbarimg` does), density 1, 1, zbar's own
/// lengths. Stores it in `*out` and returns 0, or returns -EINVAL (NULL `out`) or -ENOMEM, leaving `*out` NULL.
int lv_zbar_baseline_create(lv_zbar_baseline **out);

/// Destroys a scanner; NULL is ignored.
void lv_zbar_baseline_destroy(lv_zbar_baseline *baseline);

/// Restricts the scanner to the symbologies in `symbologies` (`LV_SYM_*`, `count` of them), as
/// `zbarimg --set '*.enable=0' --set <name>.enable=1 ...` does; everything else stays at zbar's defaults.
int lv_zbar_baseline_restrict(lv_zbar_baseline *baseline, const int *symbologies, int count);

/// Runs `zbar_scan_image` once over the frame and returns the number of symbols zbar decoded (all of them, also those
/// beyond `max_results` or of symbologies LumaScan does not name).
///
/// `luma` holds `stride * (height - 1) + width` bytes and is only read. With `stride == width` zbar borrows it as it
/// is (no copy); with padded rows it is first copied tight into scratch memory the scanner keeps, because zbar takes
/// no row stride and its QR decoder may sample any pixel of the image it is given.
///
/// Up to `max_results` results are written to `results` (`point_count` 0: no polygons), their payloads to `data`
/// (capacity `data_capacity`, each NUL-terminated); `results` may be NULL when `max_results` is 0.
int lv_zbar_baseline_scan(lv_zbar_baseline *baseline, const uint8_t *luma, int width, int height, size_t stride,
                          lv_barcode_result *results, int max_results, uint8_t *data, size_t data_capacity);

/// Raw ZXing-C++ as its own reader runs it: `ZXing::ReadBarcodes` with default hints (every format, try harder, try
/// rotate, try downscale, local-average binarizer) over the whole frame, borrowing the luma plane (no copy). Use it
/// from one thread at a time.
typedef struct lv_zxing_baseline lv_zxing_baseline;

/// Creates a baseline reading every format ZXing-C++ has. Stores it in `*out` and returns 0, or returns -EINVAL (NULL
/// `out`) or -ENOMEM, leaving `*out` NULL.
int lv_zxing_baseline_create(lv_zxing_baseline **out);

/// Destroys a baseline; NULL is ignored.
void lv_zxing_baseline_destroy(lv_zxing_baseline *baseline);

/// Restricts the baseline to the formats of `symbologies` (`LV_SYM_*`, `count` of them; UPC-A and the ISBNs read
/// through EAN-13), as `ZXingReader -format …` does. -EINVAL for a symbology ZXing-C++ does not read.
int lv_zxing_baseline_restrict(lv_zxing_baseline *baseline, const int *symbologies, int count);

/// Runs `ReadBarcodes` once over the frame and returns the number of valid results (all of them). Up to
/// `max_results` are written to `results` (`symbology` as `LV_SYM_*`, 0 for a format LumaScan does not name;
/// `point_count` 0), their payloads to `data` (capacity `data_capacity`, each NUL-terminated). Returns -EFAULT when
/// ZXing-C++ failed one of its own assertions on this frame (Debian keeps them; lv_shim.hpp): the read counts as
/// nothing, where ZXingReader itself would have aborted.
int lv_zxing_baseline_scan(lv_zxing_baseline *baseline, const uint8_t *luma, int width, int height, size_t stride,
                           lv_barcode_result *results, int max_results, uint8_t *data, size_t data_capacity);

#ifdef __cplusplus
}
#endif
#endif
