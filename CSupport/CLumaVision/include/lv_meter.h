#ifndef LV_METER_H
#define LV_METER_H
// Meter reading (seven-segment displays and roller counters) with OpenCV. Pure C; the implementation is C++ (meter.cpp
// and the files meter_internal.hpp lists) and catches every exception at this boundary. The synthetic meter generator
// of tests and benchmarks is the bench kit's (CLumaBenchKit's lv_meter_synth.h). Like every CLumaVision function (lv_common.h), these return 0 (or a count) on
// success and a negative errno code on failure: -EINVAL for an invalid argument (null pointer, bad size or stride,
// unknown mode), -ENOMEM when memory could not be allocated, -ENOENT when a font could not be read, -EIO when OpenCV
// or the C++ runtime failed in an unexpected way.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Read seven-segment LCD and LED digits.
#define LV_METER_MODE_DIGITAL 1
/// Read roller counters with printed digits.
#define LV_METER_MODE_COUNTER 2
/// Read both ways and keep the more confident reading.
#define LV_METER_MODE_AUTO 3

/// The most digits one reading holds.
#define LV_METER_MAX_DIGITS 16

/// One reading of a meter image.
typedef struct lv_meter_result {
    /// Digits read, left to right; 0 when none was found.
    int32_t digit_count;
    /// How many digits stand before the decimal point; -1 when the reading has no decimal point.
    int32_t decimal_after;
    /// The reader that produced the reading: LV_METER_MODE_DIGITAL or LV_METER_MODE_COUNTER (0 when none).
    int32_t mode;
    /// 1 when the digits are lighter than their background (LED, white-on-black drums), else 0.
    int32_t light_on_dark;
    /// The digits as ASCII '0'...'9', NUL-terminated.
    char digits[LV_METER_MAX_DIGITS + 1];
    /// Each digit's confidence, 0-100.
    float confidence[LV_METER_MAX_DIGITS];
    /// The reading's confidence, 0-100: its least confident digit's (0 when no digit was read).
    float reading_confidence;
    /// The digit row's bounds in the pixels of the image read (zero when no digit was found).
    int32_t box_x, box_y, box_width, box_height;
    /// Bit i set: digit i is a roller counter's drum caught between two digits that the carry rule cannot explain
    /// (lv_meter_digits.h, lv_drum_reading.ambiguous), so neither digit can be told, whatever its confidence.
    uint32_t ambiguous;
    /// 1 when the reading confirms the last frame's counter reading on its drums' grid, read again without a search
    /// (counter mode, right after a sure reading; its confidences are at most the last frame's), else 0.
    int32_t tracked;
    /// 1 when the reading is that of the display rectified (the reading as the camera saw it not sure): a
    /// seven-segment display seen from the side (the digits' heights changing along the row), or a roller counter
    /// seen from the side or rolled (its window's edges closer at one end, or tilted), else 0. The box is still in
    /// the pixels of the image read.
    int32_t rectified;
} lv_meter_result;

/// A meter reader: the mode, scratch images and digit templates, reused from frame to frame.
typedef struct lv_meter lv_meter;

/// Creates a reader for `mode` (an LV_METER_MODE_* value) into `*out`. Returns 0 or a negative code.
int lv_meter_create(int mode, lv_meter **out);

/// Destroys a reader made by lv_meter_create; NULL is ignored.
void lv_meter_destroy(lv_meter *meter);

/// Forgets what the reader carries from one frame to the next (in counter mode, the row of the last confident reading,
/// which it scans in a frame that shows no row of its own), so that the next frame is read as a new reader would read
/// it. Returns 0, or -EINVAL for NULL.
int lv_meter_reset(lv_meter *meter);

/// Reads the meter shown in an 8-bit grey image, borrowed (not copied) through `luma`, `width`, `height` and
/// `stride` (bytes from one row to the next). Fills `*result`. Returns the number of digits read (0 when none) or a
/// negative errno code. Not thread-safe for one reader: use one reader per thread.
int lv_meter_read(lv_meter *meter, const uint8_t *luma, int width, int height, size_t stride, lv_meter_result *result);

/// The side of the digit templates the counter reader uses (LV_METER_TEMPLATE_WIDTH x LV_METER_TEMPLATE_HEIGHT).
#define LV_METER_TEMPLATE_WIDTH 32
#define LV_METER_TEMPLATE_HEIGHT 48

/// The digit templates built into the counter reader for `font` (0 regular, 1 bold), in the layout
/// the bench kit's lv_meter_synth_templates writes; `*pixels` points into static storage. Returns 0 or -EINVAL.
int lv_meter_templates(int font, const uint8_t **pixels);

#ifdef __cplusplus
}
#endif
#endif
