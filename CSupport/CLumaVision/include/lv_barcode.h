#ifndef LV_BARCODE_H
#define LV_BARCODE_H
// CLumaVision barcode scanning: zbar and ZXing-C++ behind an opaque handle.
//
// Every function returns 0 or a count on success and a negative errno-style code on failure (-EINVAL for bad
// arguments, -ENOMEM when memory ran out, -EIO for any other failure inside zbar or OpenCV). Nothing throws.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Symbologies, numbered as zbar's `zbar_symbol_type_t` where zbar has one (the shim checks this with
/// static_asserts); the symbologies only ZXing-C++ reads take numbers zbar does not use.
enum {
    LV_SYM_EAN8 = 8,
    LV_SYM_UPCE = 9,
    LV_SYM_ISBN10 = 10,
    LV_SYM_UPCA = 12,
    LV_SYM_EAN13 = 13,
    LV_SYM_ISBN13 = 14,
    LV_SYM_I25 = 25,
    LV_SYM_DATABAR = 34,
    LV_SYM_DATABAR_EXP = 35,
    LV_SYM_CODABAR = 38,
    LV_SYM_CODE39 = 39,
    LV_SYM_QRCODE = 64,
    LV_SYM_CODE93 = 93,
    LV_SYM_CODE128 = 128,
    LV_SYM_PDF417 = 57,      ///< zbar's number; zbar 0.23 does not decode it, ZXing-C++ does
    LV_SYM_MICROQR = 66,     ///< ZXing-C++ only
    LV_SYM_DATAMATRIX = 67,  ///< ZXing-C++ only
    LV_SYM_AZTEC = 68,       ///< ZXing-C++ only
    LV_SYM_MAXICODE = 69,    ///< ZXing-C++ only
};

/// Orientation of a symbol, as zbar reports it.
enum {
    LV_ORIENT_UNKNOWN = -1,  ///< unknown
    LV_ORIENT_UP = 0,        ///< upright, read left to right
    LV_ORIENT_RIGHT = 1,     ///< sideways, read top to bottom
    LV_ORIENT_DOWN = 2,      ///< upside down, read right to left
    LV_ORIENT_LEFT = 3,      ///< sideways, read bottom to top
};

/// Corners in a result's polygon.
#define LV_BARCODE_MAX_POINTS 4

/// The decoders a result came from (`lv_barcode_result.decoders`, a bit mask).
enum {
    LV_DECODER_ZBAR = 1,   ///< zbar 0.23
    LV_DECODER_ZXING = 2,  ///< ZXing-C++ 1.4
};

/// Flags of a result (`lv_barcode_result.flags`).
enum {
    /// Another decoder or pass read a different payload of the same symbology family at the same place: neither
    /// reading can be trusted (reported as a disagreement, not as a code).
    LV_RESULT_CONFLICT = 1,
    /// The payload was read by more than one decoder or pass (independent confirmation).
    LV_RESULT_CONFIRMED = 2,
    /// The payload was found only after preprocessing (upscaling, smoothing, inversion, another binarizer).
    LV_RESULT_PREPROCESSED = 4,
    /// The text was decoded by an ECI the code carries (otherwise by the symbology's default or a guess).
    LV_RESULT_ECI = 8,
    /// Other readings of the same bars disagreed (flagged LV_RESULT_CONFLICT), and this one won: zbar read it on two
    /// scan lines or in two passes, and none of the others.
    LV_RESULT_DISPUTED = 16,
};

/// One code read from a frame. Offsets point into the caller's data buffer, each non-empty string NUL-terminated
/// there; an empty one has offset and length 0.
typedef struct lv_barcode_result {
    /// The symbology (`LV_SYM_*`).
    int32_t symbology;
    /// zbar's quality (for linear codes roughly how many scan lines decoded it; 1 for QR); for ZXing-only results
    /// the number of lines that agreed (linear) or 1.
    int32_t quality;
    /// `LV_ORIENT_*`.
    int32_t orientation;
    /// How many of `points` are set (0...LV_BARCODE_MAX_POINTS).
    int32_t point_count;
    /// Where the raw payload bytes start in the caller's data buffer.
    uint32_t data_offset;
    /// The raw payload's length in bytes (the code's data bytes as encoded, no character set applied).
    uint32_t data_length;
    /// Corners in frame pixels, `x0, y0, x1, y1, ...`: the decoder's own four corners for 2D codes; for linear codes
    /// read by zbar the rotated rectangle enclosing every scan-line point zbar located.
    float points[2 * LV_BARCODE_MAX_POINTS];
    /// Where the payload as UTF-8 text starts in the data buffer: decoded by the code's ECI when it has one, else by
    /// the symbology's rules (QR: UTF-8 when the bytes are valid UTF-8, else Shift_JIS when they are valid
    /// Shift_JIS, else ISO-8859-1, as ZXing-C++ guesses), converted with iconv or by ZXing-C++.
    uint32_t text_offset;
    /// The text's length in bytes.
    uint32_t text_length;
    /// The character set the text was decoded from (`"UTF-8"`, `"Shift_JIS"`, `"ISO-8859-1"`, `"ECI"`,
    /// `"ASCII"`, ...), NUL-terminated.
    char charset[16];
    /// Where an EAN-2/EAN-5 add-on's digits start in the data buffer (read with its EAN/UPC main code).
    uint32_t addon_offset;
    /// The add-on's length: 0 (none), 2 or 5.
    uint32_t addon_length;
    /// `LV_DECODER_*` bits: which decoders read this payload.
    int32_t decoders;
    /// How many distinct passes (decoder, scale, binarizer, polarity) read this payload.
    int32_t passes;
    /// `LV_RESULT_*` bits.
    int32_t flags;
    /// Structured append: this symbol's position (0-based) in its sequence, or -1 when it is not part of one.
    int32_t sequence_index;
    /// Structured append: how many symbols the sequence has, or -1.
    int32_t sequence_count;
    /// Structured append: where the sequence's id (QR: the parity byte in decimal; Data Matrix / PDF417 / Aztec:
    /// the file id) starts in the data buffer.
    uint32_t sequence_id_offset;
    /// The sequence id's length (0 when none).
    uint32_t sequence_id_length;
} lv_barcode_result;

/// Two zbar image scanners (linear codes, QR codes) and ZXing-C++'s options, with their scratch planes. Use one per
/// recognizer, from one thread at a time: zbar keeps per-scanner state and is not thread-safe for a shared scanner.
typedef struct lv_barcode_scanner lv_barcode_scanner;

/// Creates a scanner with every symbology this header names enabled (each read by zbar, ZXing-C++ or both), zbar's
/// default lengths, density 1, 1, QR downscale 1 and the QR finder prefilter on.
/// Stores it in `*out` and returns 0, or returns -EINVAL (NULL `out`) or -ENOMEM, leaving `*out` NULL.
int lv_barcode_scanner_create(lv_barcode_scanner **out);

/// Destroys a scanner; NULL is ignored.
void lv_barcode_scanner_destroy(lv_barcode_scanner *scanner);

/// Disables every symbology (call before enabling the ones wanted).
int lv_barcode_scanner_disable_all(lv_barcode_scanner *scanner);

/// Enables or disables `symbology` (`LV_SYM_*`) and sets the payload lengths it accepts.
///
/// `min_length` and `max_length` count payload bytes; a negative value keeps zbar's default for that bound, and
/// `max_length` 0 means no upper bound. zbar applies lengths itself to variable-length symbologies (I2of5, Codabar,
/// Code 39, Code 93, Code 128); the shim also filters every result by them, so fixed-length symbologies obey them too.
int lv_barcode_scanner_configure(lv_barcode_scanner *scanner, int symbology, int enable, int min_length,
                                 int max_length);

/// Sets how densely linear codes are sampled in camera frames: one horizontal scan line per `y` rows and one
/// vertical scan line per `x` columns (0 disables that direction; 1, 1 is zbar's own full scan).
///
/// Above 1, a scan line is the average of the `y` rows (or `x` columns) it stands for, not one of them: the frame is
/// box-shrunk along one axis into a scratch plane that zbar reads along the other axis only. Bars stay sharp along
/// the line, sensor noise (each noisy pixel is an edge zbar's decoders must reject) drops by sqrt(density), and zbar
/// reads 1/density of the pixels per direction.
int lv_barcode_scanner_set_density(lv_barcode_scanner *scanner, int x, int y);

/// Sets the factor (1...4) by which QR codes are read on a box-shrunk, lightly smoothed copy of the frame, at zbar's
/// density 1. 2 quarters the pixels zbar reads and halves sensor noise; codes whose modules stay about 2 px wide
/// after shrinking still read. Default 1 (full resolution, no copy, no smoothing).
int lv_barcode_scanner_set_qr_downscale(lv_barcode_scanner *scanner, int factor);

/// Switches the QR finder prefilter of `lv_barcode_scan` on (the default) or off.
///
/// zbar's QR reader costs about the same per pixel whatever the frame holds, and most of a noisy frame's time. With
/// the prefilter, the plane QR codes are read on is first searched for finder patterns (dark/light against a local
/// min/max threshold, runs in the 1:1:3:1:1 proportion along a row with at least 20 grey levels of contrast,
/// confirmed along the column and the row through their centre, with wider tolerances than zbar's): with none,
/// zbar's QR reader is skipped; with three or more, it scans only their bounding box (each centre widened by 9
/// modules); with one or two, the whole plane. Still-image scans never use it.
int lv_barcode_scanner_set_qr_prefilter(lv_barcode_scanner *scanner, int enable);

/// Switches the full-resolution reading of small QR codes on or off (off by default; the secure-QR recognizer turns
/// it on).
///
/// With a QR downscale above 1 and the prefilter on, a frame whose shrunk plane shows finder patterns but reads no
/// code is read again at full resolution where the patterns make a code's corner: up to 2 groups of three candidates,
/// each confirmed on 2 rows or more, whose sides from the corner pattern are 7-180 modules long, within 1:1.7 of each
/// other and at 60-120 degrees, their module sizes within 1:1.6. Each group's crop (the three patterns, the fourth
/// corner and 6 modules around) is read by zbar at full resolution and, when zbar reads nothing there, by ZXing-C++,
/// instead of the plain ZXing-C++ read of all candidates' bounding box (which stays for frames without such a group).
/// Codes whose modules the shrunk plane blurred away (about 4-6 px per module at full resolution) then still decode;
/// a frame without finder patterns costs nothing more.
int lv_barcode_scanner_set_qr_full_resolution(lv_barcode_scanner *scanner, int enable);

/// The QR codes the last lv_barcode_scan saw but could not read, with the full-resolution reading on
/// (lv_barcode_scanner_set_qr_full_resolution): when its QR pass read nothing, the code-shaped groups of three finder
/// patterns it found (at most 2, best first). Writes up to `max_codes` of them to `out` as 9 floats each: the code's
/// four corners (x0 y0 ... x3 y3, frame pixels, starting at the corner by the right-angle finder and going round),
/// extrapolated 3.5 modules beyond the finder centres, then the module size in frame pixels. Returns how many there
/// are (0 after a scan that read a QR code, found no such group, or had the full-resolution reading off, and after a
/// still-image scan), or -EINVAL. Allocates nothing. The secure-QR recognizer measures these for blur ("hold still"
/// for a code too blurred to decode).
int lv_barcode_scanner_unread_qr(const lv_barcode_scanner *scanner, float *out, int max_codes);

/// Runs the QR finder prefilter's search alone on `luma` as given (no shrinking or smoothing), for tests and
/// diagnostics: writes up to `max_candidates` candidates as `x, y, module` triples (centre and module size in pixels)
/// to `out` and returns how many there are, which may exceed `max_candidates`. Returns -ERANGE when the plane holds
/// more candidates than the search keeps (too busy to narrow anything; the scan then reads the whole plane),
/// -EINVAL for bad arguments, -ENOMEM when memory ran out. Allocates its scratch on every call.
int lv_qr_finder_locate(const uint8_t *luma, int width, int height, size_t stride, float *out, int max_candidates);

/// Scans one camera frame for codes inside the region of interest `roi_*` (clamped to the frame; a zero width or
/// height means the whole frame): the live path, which stays real-time.
///
/// - zbar reads the linear codes on averaged scan lines (the configured density) and QR codes on the plane the QR
///   downscale gives, only around finder patterns the prefilter found; where it found finder patterns but decoded
///   nothing, ZXing-C++ reads the full-resolution crop around them (structured-append parts, small modules).
/// - ZXing-C++ reads the linear codes on a few rows (EAN-2/EAN-5 add-ons included), and the 2D codes zbar does not
///   read (Data Matrix, Aztec, PDF417, Micro QR, MaxiCode) only in the parts of the frame where a 2D code is likely
///   (dense edges across both axes on a plane shrunk to about 270 rows): at most 4 regions and a quarter of the ROI.
///
/// `luma` holds `stride * (height - 1) + width` bytes and is only read. Payloads, texts and add-ons are copied into
/// `data` (capacity `data_capacity` bytes); up to `max_results` results are written to `results`. A code whose
/// strings do not fit is dropped, as is a code centred outside the region. A code read by several passes is one
/// result with its decoders and passes counted. An EAN/UPC reading zbar did not make is not reported (ZXing-C++
/// 1.4 misreads some small ones the same way in every frame). Weak-check readings over the same bars that disagree are flagged
/// LV_RESULT_CONFLICT, except one that zbar confirmed on its own (two scan lines or two passes) when no other is:
/// it is flagged LV_RESULT_DISPUTED and reported. Returns the number of results.
///
/// Scratch planes are allocated once and grown only for a larger frame; inside a scan, OpenCV (resize, blur), zbar
/// (QR finder) and ZXing-C++ (its binarized image, results) may still take temporary buffers. Nothing the caller
/// sees is allocated.
int lv_barcode_scan(lv_barcode_scanner *scanner, const uint8_t *luma, int width, int height, size_t stride,
                    int roi_x, int roi_y, int roi_w, int roi_h, lv_barcode_result *results, int max_results,
                    uint8_t *data, size_t data_capacity);

/// Scans a still image hard: the still-image path, for photos and scans.
///
/// Each image starts from a fresh zbar state, so an image reads the same whatever was scanned before it. The passes:
/// zbar at full resolution (as zbarimg) and ZXing-C++ trying harder with rotations (as ZXingReader, without its own
/// downscaling, which aborts Debian's 1.4 on some linear codes); then, while no reading is settled, ZXing-C++ with
/// its global-histogram binarizer, both decoders on the inverted image, both on a 2x bilinear upscale (up to 16
/// megapixels), ZXing-C++ on a half-size copy (codes with large modules), and zbar on a smoothed, contrast-stretched copy.
///
/// The misread guard: a reading of a symbology with a weak check (EAN/UPC, ISBN, ITF, Codabar, Code 39) is reported
/// only when two passes read the same payload, or a plain pass read it with its own confirmation (ZXing-C++ on two
/// rows, zbar on two scan lines or more); a strong check (QR, Data Matrix, Aztec, PDF417, MaxiCode, Micro QR,
/// Code 128, Code 93, DataBar) is enough on its own. Disagreements are flagged as in `lv_barcode_scan`.
int lv_barcode_scan_still(lv_barcode_scanner *scanner, const uint8_t *luma, int width, int height, size_t stride,
                          int roi_x, int roi_y, int roi_w, int roi_h, lv_barcode_result *results, int max_results,
                          uint8_t *data, size_t data_capacity);

/// zbar's name for a symbology (`"EAN-13"`, `"QR-Code"`, ...), static storage.
const char *lv_barcode_symbology_name(int symbology);

#ifdef __cplusplus
}
#endif
#endif
