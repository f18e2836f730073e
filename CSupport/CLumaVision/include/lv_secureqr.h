#ifndef LV_SECUREQR_H
#define LV_SECUREQR_H
// CLumaVision secure QR: the generator (QR encoding with libqrencode, copy-detection pattern, rendering) and the
// per-frame analyzer (finder and alignment patterns located with OpenCV, homography from module coordinates,
// measurements of the secure graphic). The design is documented in docs/secure-qr.md.
//
// Coordinates: "module coordinates" have their origin at the outer top-left corner of the QR code (quiet zone
// excluded), x to the right and y down in the code's own orientation, one unit per module; module (i, j) covers
// [i, i + 1) x [j, j + 1), so its centre is (i + 0.5, j + 0.5). Frame coordinates are pixels with the centre of the
// top-left pixel at (0, 0).
//
// Every function returns 0 or a count on success and a negative errno-style code on failure: -EINVAL for bad
// arguments, -ENOSPC when a payload or a caller's buffer is too small, -ENOMEM when memory ran out, -EIO for any other
// failure inside libqrencode or OpenCV. Nothing throws.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// QR error-correction levels (libqrencode's order).
enum {
    LV_SQR_EC_L = 0,  ///< about 7 % of codewords recoverable
    LV_SQR_EC_M = 1,  ///< about 15 %
    LV_SQR_EC_Q = 2,  ///< about 25 %
    LV_SQR_EC_H = 3,  ///< about 30 %
};

/// Modules per side of the largest QR code (version 40).
#define LV_SQR_MAX_MODULES 177

/// Where a family of secure QR codes carries its copy-detection pattern (CDP), shared by the generator and the
/// analyzer. Fingerprint-zone coordinates are affine in the code's module count N, so one design serves every
/// version: x = zone_x_per_n * N + zone_x, and likewise for y, width and height.
typedef struct lv_sqr_design {
    /// CDP cells per module side (1...16).
    int32_t cells_per_module;
    /// 0: the CDP is a square in the code's centre (standard code); 1: it fills the fingerprint zone (hybrid code).
    int32_t hybrid;
    /// Side of the centre CDP in modules, odd, at least 3; 0 picks the odd number nearest 0.22 * N (7 for version 4).
    int32_t centre_modules;
    int32_t reserved;
    /// Fingerprint zone (hybrid codes) in module coordinates: x = zone_x_per_n * N + zone_x, and so on.
    double zone_x_per_n, zone_x;
    double zone_y_per_n, zone_y;
    double zone_width_per_n, zone_width;
    double zone_height_per_n, zone_height;
} lv_sqr_design;

/// Fills `design` with the default design: 4 cells per module, standard code, automatic centre size, fingerprint zone
/// N x N modules at (N + 2, 0).
void lv_sqr_design_default(lv_sqr_design *design);

/// Where the secure graphic of a code with `modules` modules per side lies.
typedef struct lv_sqr_layout {
    /// Modules per side of the QR code (17 + 4 * version).
    int32_t modules;
    /// The QR version (1...40).
    int32_t version;
    /// CDP cells across and down.
    int32_t cells_x, cells_y;
    /// The secure graphic's rectangle in module coordinates: x, y, width, height.
    double region[4];
} lv_sqr_layout;

/// Computes the layout of a code with `modules` (21, 25, ..., 177) modules per side under `design`.
int lv_sqr_layout_for(int modules, const lv_sqr_design *design, lv_sqr_layout *out);

/// Encodes `length` bytes of `payload` (text without NUL bytes, encoded with libqrencode's mode optimisation, case
/// sensitive) as a QR code of at least version `min_version` (1...40) at error-correction level `ec_level`; libqrencode
/// picks a larger version when the payload does not fit. Writes N * N bytes (1 dark, 0 light, row by row) to
/// `modules` (capacity `capacity` bytes) and the version to `*version`. Returns N, or -ENOSPC when the payload does
/// not fit any version or `modules` is too small.
int lv_sqr_encode(const uint8_t *payload, size_t length, int min_version, int ec_level, uint8_t *modules,
                  size_t capacity, int *version);

/// Fills `cells` (cells_x * cells_y bytes, row by row) with the CDP of `seed`: cell k (row-major) is dark (1) when the
/// top bit of the k-th output of SplitMix64 seeded with `seed` is set, light (0) otherwise.
int lv_sqr_cdp_cells(uint64_t seed, int cells_x, int cells_y, uint8_t *cells);

/// Flags for lv_sqr_render.
enum {
    LV_SQR_RENDER_NO_CDP = 1,  ///< leave the secure graphic out (a plain QR code with the design's geometry)
};

/// The size of a rendered code: the code and, for hybrid designs, the fingerprint zone, with `quiet_zone` light
/// modules all around, at `module_px` pixels per module. `*origin_x`, `*origin_y` receive where module coordinate
/// (0, 0) lies in the image, in pixels from its top-left corner.
int lv_sqr_image_size(int modules, const lv_sqr_design *design, int module_px, int quiet_zone, int *width,
                      int *height, int *origin_x, int *origin_y);

/// Renders `modules` (N * N bytes from lv_sqr_encode) with the secure graphic of `seed` into `out` (a `width` x
/// `height` image from lv_sqr_image_size, row stride `stride`): dark 0, light 255. Cell edges fall on whole pixels
/// (cell k of a module starts at round(k * module_px / cells_per_module)).
int lv_sqr_render(const uint8_t *modules, int n, const lv_sqr_design *design, uint64_t seed, int module_px,
                  int quiet_zone, int flags, uint8_t *out, int width, int height, size_t stride);

/// Patterns lv_sqr_analyze located (bits of lv_sqr_analysis.found).
enum {
    LV_SQR_FOUND_TOP_LEFT = 1,     ///< the top-left finder pattern
    LV_SQR_FOUND_TOP_RIGHT = 2,    ///< the top-right finder pattern
    LV_SQR_FOUND_BOTTOM_LEFT = 4,  ///< the bottom-left finder pattern
    LV_SQR_FOUND_ALIGNMENT = 8,    ///< the bottom-right alignment pattern
    LV_SQR_FOUND_ALL = 15,         ///< all four
};

/// What lv_sqr_analyze measured in one frame.
typedef struct lv_sqr_analysis {
    /// LV_SQR_FOUND_* bits; the geometry below is valid only when all four are set.
    int32_t found;
    /// The version and modules per side read from the finder spacing and confirmed on the timing patterns; 0 when
    /// unknown.
    int32_t version, modules;
    /// 1 when the secure-graphic region lies inside the frame and the measurements below were taken.
    int32_t measured;
    /// Pattern centres in frame pixels: top-left, top-right, bottom-left finder, alignment (x, y each).
    double centres[8];
    /// The homography from module coordinates to frame pixels, row-major, fitted on the four centres.
    double homography[9];
    /// The code's outer corners (module coordinates (0, 0), (N, 0), (N, N), (0, N)) in frame pixels.
    double code[8];
    /// The secure graphic's corners (its rectangle's top-left, top-right, bottom-right, bottom-left) in frame pixels.
    double region[8];
    /// The secure graphic's layout in module coordinates.
    lv_sqr_layout layout;
    /// Mean module side in frame pixels over the secure-graphic region.
    double module_px;
    /// Luma of the code's dark modules (finder cores) and light modules (quiet zone beside the finders).
    double dark, light;
    /// The rectified region's mean luma, 0 at `dark` and 1 at `light`.
    double mean_level;
    /// Variance of module-sized block means of the rectified region, in units of (light - dark)^2.
    double module_energy;
    /// Mean variance inside module-sized blocks (the texture finer than a module), in units of (light - dark)^2.
    double cell_energy;
    /// Tenengrad sharpness of the region rectified at 2 px per CDP cell: the mean squared Sobel gradient (Sobel / 8,
    /// so a gradient of one contrast unit per pixel counts 1), in units of (light - dark)^2 per pixel^2.
    double sharpness;
} lv_sqr_analysis;

/// Scratch buffers for analysing frames; one per recognizer, used from one thread at a time.
typedef struct lv_sqr_analyzer lv_sqr_analyzer;

/// Creates an analyzer: stores it in `*out` and returns 0, or returns -EINVAL (NULL `out`) or -ENOMEM, leaving `*out`
/// NULL.
int lv_sqr_analyzer_create(lv_sqr_analyzer **out);

/// Destroys an analyzer; NULL is ignored.
void lv_sqr_analyzer_destroy(lv_sqr_analyzer *analyzer);

/// Analyses the QR code zbar located at `polygon` (`point_count` corners, x0 y0 x1 y1 ..., frame pixels) in a frame:
/// locates the three finder patterns and the alignment pattern on the luma image, reads the version, fits the
/// homography and, when the secure graphic lies inside the frame, rectifies it and measures it. Always fills `*out`
/// (with `found` saying how far it got) and returns 0 unless the arguments are invalid or memory ran out.
///
/// Once the scratch buffers have grown, an analysis allocates only OpenCV's contour lists and a few 3 x 3 matrices.
/// An invalid design (cells_per_module outside 1...16) returns -EINVAL; a design that does not fit the code read
/// leaves `measured` at 0.
int lv_sqr_analyze(lv_sqr_analyzer *analyzer, const uint8_t *luma, int width, int height, size_t stride,
                   const float *polygon, int point_count, const lv_sqr_design *design, lv_sqr_analysis *out);

/// Rectifies the module-coordinate rectangle `x`, `y`, `w`, `h` of a frame through `homography` (module coordinates to
/// frame pixels, row-major) into `out` (`out_width` x `out_height`, row stride `out_stride`), bilinear, with pixels
/// outside the frame replicated from its edge. When the output has fewer pixels per module than the frame, each output
/// pixel averages several samples (anti-aliased).
int lv_sqr_rectify(lv_sqr_analyzer *analyzer, const uint8_t *luma, int width, int height, size_t stride,
                   const double *homography, double x, double y, double w, double h, uint8_t *out, int out_width,
                   int out_height, size_t out_stride);


/// Derives a code's CDP seed from the issuer's secret key: the first 8 bytes of HMAC-SHA256(key, payload) (OpenSSL's
/// libcrypto), read big-endian, stored in `*seed`. Returns 0, or -EINVAL for a NULL or empty key, a NULL payload with
/// a non-zero length or a NULL `seed`, or -EIO when libcrypto fails.
int lv_sqr_seed_from_key(const uint8_t *key, size_t key_length, const uint8_t *payload, size_t payload_length,
                         uint64_t *seed);

/// How closely a captured secure graphic matches the CDP regenerated from its seed (see docs/secure-qr.md,
/// "Authenticity").
typedef struct lv_sqr_authenticity {
    /// Normalised cross-correlation of the rectified secure graphic with the regenerated template, blurred by `blur`:
    /// the mean over tiles of each tile's peak within two cells of where the homography puts it (refined to a fraction
    /// of a pixel), weighted by cells.
    double ncc;
    /// The share of cells whose level, sampled at the cell's centre where its tile matched best and thresholded at the
    /// tile's mean, differs from the template's.
    double bit_error_rate;
    /// The capture's Gaussian blur in CDP cells (sigma), matched on the top-left finder pattern (0 ... 1.5).
    double blur;
    /// Frame pixels per CDP cell over the secure graphic.
    double pixels_per_cell;
    /// Cells compared, and the tiles they were matched in.
    int32_t cells, tiles;
} lv_sqr_authenticity;

/// Scratch buffers for scoring authenticity; one per recognizer, used from one thread at a time.
typedef struct lv_sqr_authenticator lv_sqr_authenticator;

/// Creates an authenticator: stores it in `*out` and returns 0, or returns -EINVAL (NULL `out`) or -ENOMEM, leaving
/// `*out` NULL.
int lv_sqr_authenticator_create(lv_sqr_authenticator **out);

/// Destroys an authenticator; NULL is ignored.
void lv_sqr_authenticator_destroy(lv_sqr_authenticator *authenticator);

/// Compares the secure graphic of a located code (`homography` from module coordinates to frame pixels, row-major, as
/// lv_sqr_analysis gives it; `modules` per side) with the CDP of `seed`: measures the capture's blur on the top-left
/// finder pattern, rectifies the secure graphic at 4 pixels per cell, correlates it tile by tile with the template
/// blurred to match, and counts cell errors. Returns 0 and fills `*out`, -EINVAL for bad arguments, -ERANGE when the
/// secure graphic or the finder pattern is not inside the frame, -ENOMEM or -EIO. Once its scratch buffers have grown
/// to a code's size, a call allocates only OpenCV's small per-call matrices.
int lv_sqr_authenticate(lv_sqr_authenticator *authenticator, const uint8_t *luma, int width, int height, size_t stride,
                        const double *homography, int modules, const lv_sqr_design *design, uint64_t seed,
                        lv_sqr_authenticity *out);

#ifdef __cplusplus
}
#endif
#endif
