#ifndef LV_METER_SYNTH_H
#define LV_METER_SYNTH_H
// The bench kit's synthetic meters (OpenCV, with FreeType for the counter digits): random seven-segment displays and
// roller counters in a camera frame, with their readings as ground truth, for the meter reader's tests and
// benchmarks. Not part of the LumaScan library product. The shims' one convention (CLumaVision's lv_common.h): 0 on
// success or a negative errno code; nothing throws.
#include <stddef.h>
#include <stdint.h>

#include "lv_meter.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    /// The meter turned about its vertical axis, as a display seen from the side: its right edge this fraction taller
    /// than its middle and its left edge as much shorter (negative: the left edge taller). Never drawn by
    /// lv_meter_synth_sample (0); set it to show the seven-segment reader's rectified reading.
    float yaw;
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
/// DejaVuSansMono-Bold.ttf). Returns 0, -ENOENT when a font cannot be read, or another negative errno code.
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
int lv_meter_synth_render(lv_meter_synth *synth, const lv_meter_synth_params *params, uint8_t *pixels, size_t stride);

/// Renders the ten digit templates ('0'...'9', ink 255 on 0, each LV_METER_TEMPLATE_WIDTH x LV_METER_TEMPLATE_HEIGHT,
/// one after another) from font `font` (0 regular, 1 bold) into `pixels` (10 * width * height bytes). This is how the
/// templates built into the reader were made; tests compare the two. Returns 0 or a negative code.
int lv_meter_synth_templates(lv_meter_synth *synth, int font, uint8_t *pixels);

#ifdef __cplusplus
}
#endif
#endif
