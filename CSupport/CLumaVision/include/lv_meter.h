#ifndef LV_METER_H
#define LV_METER_H
// Meter reading (seven-segment displays and roller counters) with OpenCV, and a synthetic meter generator for tests
// and benchmarks. Pure C; the implementation is C++ (meter.cpp, meter_templates.cpp, meter_synth.cpp) and catches
// every exception at this boundary. Functions return 0 (or a count) on success and a negative LV_METER_E* code on
// failure.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An argument is invalid (null pointer, bad size or stride, unknown mode).
#define LV_METER_EINVAL (-22)
/// Memory could not be allocated.
#define LV_METER_ENOMEM (-12)
/// A file (font) could not be read.
#define LV_METER_EIO (-5)
/// OpenCV or the C++ runtime failed in an unexpected way.
#define LV_METER_EINTERNAL (-1000)

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
} lv_meter_result;

/// A meter reader: the mode, scratch images and digit templates, reused from frame to frame.
typedef struct lv_meter lv_meter;

/// Creates a reader for `mode` (an LV_METER_MODE_* value) into `*out`. Returns 0 or a negative code.
int lv_meter_create(int mode, lv_meter **out);

/// Destroys a reader made by lv_meter_create; NULL is ignored.
void lv_meter_destroy(lv_meter *meter);

/// Reads the meter shown in an 8-bit grey image, borrowed (not copied) through `pixels`, `width`, `height` and
/// `stride` (bytes from one row to the next). Fills `*result`. Returns the number of digits read (0 when none) or a
/// negative code. Not thread-safe for one reader: use one reader per thread.
int lv_meter_read(lv_meter *meter, const void *pixels, int width, int height, int stride, lv_meter_result *result);

/// Encodes an 8-bit grey image as PNG (fast compression) into the reader's own buffer; `*bytes` and `*count` describe
/// it until the next call on this reader. Returns 0 or a negative code.
int lv_meter_encode_png(
    lv_meter *meter, const void *pixels, int width, int height, int stride, const uint8_t **bytes, size_t *count);

// MARK: - Synthetic meters (tests and benchmarks)

/// A seven-segment display (LCD or LED).
#define LV_METER_SYNTH_DIGITAL 1
/// A roller counter.
#define LV_METER_SYNTH_COUNTER 2

/// The most characters (digits and one '.') a synthetic reading holds.
#define LV_METER_SYNTH_MAX_TEXT 15

/// How to draw one synthetic meter into a frame. lv_meter_synth_sample fills it from a seed; callers may change it
/// before rendering. Lengths are frame pixels unless said otherwise.
typedef struct lv_meter_synth_params {
    /// LV_METER_SYNTH_DIGITAL or LV_METER_SYNTH_COUNTER.
    int32_t kind;
    /// The frame's size.
    int32_t frame_width, frame_height;
    /// Where the display is meant to be: the cutout rectangle.
    int32_t target_x, target_y, target_width, target_height;
    /// The ground truth: the reading a person would write down, digits with at most one '.', NUL-terminated.
    char text[LV_METER_SYNTH_MAX_TEXT + 1];
    /// Leading digit positions that are blank (seven-segment displays) before the first digit of `text`.
    int32_t blank_leading;
    /// Counter: each drum's roll past the digit it reads, in digit pitches (0 aligned, 0.5 half-way to the next
    /// digit, negative: just short of it), one per digit of `text`.
    float roll[LV_METER_SYNTH_MAX_TEXT];
    /// 1: light digits on a dark ground (LED, white-on-black drums); 0: dark on light (LCD, black-on-white drums).
    int32_t light_on_dark;
    /// Display (digit row with its panel) width as a fraction of the target width, and its centre's offset as a
    /// fraction of the target's size.
    float fill, shift_x, shift_y;
    /// Digit width / digit height (seven-segment), digit pitch / digit width.
    float digit_aspect, spacing;
    /// Seven-segment stroke width and segment gap, as fractions of the digit height.
    float stroke, gap;
    /// Seven-segment italic slant (horizontal shift of the top per unit of height; 0 upright).
    float slant;
    /// Seven-segment variants: bit 0 draws 6 with its top segment, bit 1 draws 7 with its upper-left segment, bit 2
    /// draws 9 with its bottom segment.
    int32_t variants;
    /// Digits' contrast against their ground (grey levels), and unlit segments' contrast as a fraction of it.
    float contrast, unlit;
    /// Grey level of the display's ground, of the meter body around it and of the frame's background.
    float ground, body, background;
    /// Glare: a bright spot of `glare` grey levels at its peak, centred at (glare_x, glare_y) as fractions of the
    /// display's size, with a radius of `glare_radius` display heights.
    float glare, glare_x, glare_y, glare_radius;
    /// Gaussian blur sigma and Gaussian noise sigma (grey levels).
    float blur, noise;
    /// Perspective: each corner of the meter moves by up to this fraction of its size; rotation in degrees.
    float perspective, rotation;
    /// Counter: drum pitch (distance between consecutive digits on a drum) / digit height; shading strength of the
    /// drum's curvature (0-1); window height / digit height.
    float drum_pitch, shading, window;
    /// Counter: 0 draws digits with DejaVu Sans Mono, 1 with DejaVu Sans Mono Bold; trailing drums in a second shade
    /// (red decimal drums in luma) and that shade's grey level.
    int32_t font, decimal_drums;
    float decimal_ground;
    /// Draws a small "kWh" or "m3" label near the digits when non-zero.
    int32_t label;
    /// Seeds the layout details: the meter body's margins, background clutter, perspective, segment shading.
    uint64_t layout_seed;
    /// Seeds the sensor noise only, so that frames of one meter can differ as video frames do.
    uint64_t noise_seed;
} lv_meter_synth_params;

/// A synthetic meter generator: the fonts' glyphs, rendered once.
typedef struct lv_meter_synth lv_meter_synth;

/// Creates a generator that draws counter digits with the TrueType fonts in `font_directory` (DejaVuSansMono.ttf and
/// DejaVuSansMono-Bold.ttf). Returns 0, LV_METER_EIO when a font cannot be read, or another negative code.
int lv_meter_synth_create(const char *font_directory, lv_meter_synth **out);

/// Destroys a generator; NULL is ignored.
void lv_meter_synth_destroy(lv_meter_synth *synth);

/// Draws random parameters for one meter of `kind` from `seed` (the same seed gives the same meter), to be placed in a
/// frame of the given size with the display where the target rectangle (the cutout) expects it. Returns 0 or a
/// negative code.
int lv_meter_synth_sample(
    uint64_t seed, int kind, int frame_width, int frame_height, int target_x, int target_y, int target_width,
    int target_height, lv_meter_synth_params *params);

/// Renders a meter into an 8-bit grey frame of params->frame_width x params->frame_height pixels with row stride
/// `stride`. Not thread-safe for one generator. Returns 0 or a negative code.
int lv_meter_synth_render(lv_meter_synth *synth, const lv_meter_synth_params *params, uint8_t *pixels, int stride);

/// The side of the digit templates the counter reader uses (LV_METER_TEMPLATE_WIDTH x LV_METER_TEMPLATE_HEIGHT).
#define LV_METER_TEMPLATE_WIDTH 32
#define LV_METER_TEMPLATE_HEIGHT 48

/// The digit templates built into the counter reader for `font` (0 regular, 1 bold), in the layout
/// lv_meter_synth_templates writes; `*pixels` points into static storage. Returns 0 or LV_METER_EINVAL.
int lv_meter_templates(int font, const uint8_t **pixels);

/// Renders the ten digit templates ('0'...'9', ink 255 on 0, each LV_METER_TEMPLATE_WIDTH x LV_METER_TEMPLATE_HEIGHT,
/// one after another) from font `font` (0 regular, 1 bold) into `pixels` (10 * width * height bytes). This is how the
/// templates built into the reader were made; tests compare the two. Returns 0 or a negative code.
int lv_meter_synth_templates(lv_meter_synth *synth, int font, uint8_t *pixels);

#ifdef __cplusplus
}
#endif
#endif
