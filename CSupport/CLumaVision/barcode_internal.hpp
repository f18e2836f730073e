// The barcode scanner's internals, shared by its files (internal to CLumaVision; lv_barcode.h is the C API):
// barcode.cpp (the C API, zbar, the live and still-image passes), barcode_qr.cpp (the live QR pass), barcode_zxing.cpp (ZXing-C++), barcode_merge.cpp
// (what several passes read, merged, checked and written out) and barcode_text.cpp (character sets).
#ifndef LV_BARCODE_INTERNAL_HPP
#define LV_BARCODE_INTERNAL_HPP

#include "lv_barcode.h"
#include "qr_finder.hpp"

#include <opencv2/core.hpp>
#include <zbar.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lv::barcode {

/// zbar_symbol_type_t values we use are below this, and so are the LV_SYM_* numbers of ZXing-only symbologies.
constexpr int kSymbolSlots = 129;

/// Where the pixels handed to a decoder sit in the frame, per axis: frame = (pixel + centre) * scale - centre +
/// offset. zbar reports pixel indices, whose centres are at +0.5 (`centre` 0.5); ZXing-C++ reports coordinates whose
/// integer values are pixel edges (`centre` 0).
struct Mapping {
    double scale_x = 1;
    double scale_y = 1;
    double offset_x = 0;
    double offset_y = 0;
    double centre = 0.5;
    float x(double px) const { return float((px + centre) * scale_x - centre + offset_x); }
    float y(double py) const { return float((py + centre) * scale_y - centre + offset_y); }
};

/// One distinct code read by one or more passes over a frame. Slots are recycled from frame to frame, so their
/// strings keep their capacity and a frame allocates nothing once it has seen codes of that size.
struct Found {
    int symbology = 0;
    std::string bytes;    ///< raw payload (for EAN/UPC without the add-on)
    std::string text;     ///< UTF-8 text
    std::string charset;  ///< what `text` was decoded from
    std::string addon;    ///< EAN-2/EAN-5 add-on digits
    std::string sequence_id;
    int sequence_index = -1;
    int sequence_count = -1;
    float points[2 * LV_BARCODE_MAX_POINTS] = {};
    int point_count = 0;
    int quality = 0;
    int orientation = LV_ORIENT_UNKNOWN;
    int decoders = 0;
    uint32_t passes = 0;  ///< bit per pass (`Pass`)
    bool plain = false;   ///< read by a pass without preprocessing
    bool eci = false;
    bool conflict = false;
    bool disputed = false;  ///< won a disagreement (see finish)
    int zbar_quality = 0;   ///< zbar's own quality, when zbar read it
};

/// The passes a frame can get; each is one bit of `Found::passes`.
enum Pass : uint32_t {
    kZBar = 0,              ///< zbar on the frame as it is (plain)
    kZXing = 1,             ///< ZXing-C++ on the frame as it is, its default local-average binarizer (plain)
    kZXingGlobal = 2,       ///< ZXing-C++ with its global-histogram binarizer
    kZBarUpscaled = 3,      ///< zbar on a 2x upscale
    kZBarEnhanced = 4,      ///< zbar on a smoothed, contrast-stretched copy
    kZBarInverted = 5,      ///< zbar on the inverted frame
    kZXingInverted = 6,     ///< ZXing-C++ on the inverted frame
    kZXingUpscaled = 7,     ///< ZXing-C++ on a 2x upscale
    kZXingDownscaled = 8,   ///< ZXing-C++ on a half-size copy
};

/// Whether `pass` reads the frame as it is (no preprocessing).
inline bool is_plain(Pass pass) { return pass == kZBar || pass == kZXing; }

/// What the passes over one frame found, before the checks of `finish`.
struct Collector {
    std::vector<Found> slots;
    size_t count = 0;
    /// A payload on its way into a slot (kept for its capacity).
    std::string scratch;
    void clear() { count = 0; }
    /// A recycled slot, reset; grows `slots` only past the most codes a frame has held so far.
    Found &next();
};

/// How `finish` judges what the passes found.
struct Policy {
    /// Camera frames: every reading is reported (the recognizer counts reads across frames). Still images: a reading
    /// of a symbology with a weak check (EAN/UPC, ITF, Codabar, Code 39) must be confirmed unless a plain pass read it
    /// (see `finish`).
    bool still = false;
};

/// Where results are written: the caller's result array and payload buffer.
struct Output {
    lv_barcode_result *results;
    int max_results;
    uint8_t *data;
    size_t data_capacity;
    int count = 0;
    size_t data_used = 0;
};

}  // namespace lv::barcode

/// ZXing-C++'s reader options and scratch, kept opaque here so that only barcode_zxing.cpp includes its headers.
struct lv_zxing_state;

namespace lv::barcode {

/// One zbar image scanner and the zbar image it scans.
struct ZBar {
    zbar::zbar_image_scanner_t *scanner = nullptr;
    zbar::zbar_image_t *image = nullptr;

    ZBar() = default;
    ZBar(const ZBar &) = delete;
    ZBar &operator=(const ZBar &) = delete;
    ~ZBar() { release(); }

    /// Creates the scanner and image (releasing any earlier ones) with every symbology disabled; false when memory
    /// ran out.
    bool create();
    void release();
    void density(int x, int y);
    /// Frees the last scan's results instead of leaving them to zbar's recycling. zbar 0.23 keeps a scan's symbols
    /// for reuse in buckets by the size of their data, but its QR decoder always asks for a symbol without data and
    /// fills in the data itself: a QR symbol, once recycled, sits in a bucket no QR decode takes from, so every QR
    /// decode grew the scanner by about 176 bytes until it was destroyed (a kiosk reading one code all day grew
    /// without bound). Holding a reference on the results while zbar lets go of them makes zbar free them.
    void free_results();
};

}  // namespace lv::barcode

/// Two zbar image scanners (linear codes, QR codes), ZXing-C++'s options, their configuration and scratch.
struct lv_barcode_scanner {
    using ZBar = lv::barcode::ZBar;
    ZBar linear;
    ZBar qr;
    bool enabled[lv::barcode::kSymbolSlots] = {};
    int min_length[lv::barcode::kSymbolSlots] = {};
    int max_length[lv::barcode::kSymbolSlots] = {};  // 0: no upper bound
    int density_x = 1;
    int density_y = 1;
    int qr_downscale = 1;
    bool qr_prefilter = true;
    bool qr_full_resolution = false;  // lv_barcode_scanner_set_qr_full_resolution
    // Scratch planes, allocated the first time a path needs them and grown only when a larger frame arrives, so no
    // plane is reallocated per frame. (Inside a scan, OpenCV's resize and blur still take small temporary buffers,
    // and zbar's QR finder allocates when it sees finder-like patterns: measured 1-2 and 0-11 per 1080p frame.)
    cv::Mat rows_plane;
    cv::Mat columns_plane;
    cv::Mat qr_plane;
    cv::Mat still_plane;
    cv::Mat gate_plane;
    cv::Mat region_plane;
    std::vector<cv::Point2f> points;
    lv::qr_finder::Scratch finder;
    std::vector<bool> finder_used;  // candidates already in a group (finder_groups)
    // Code-shaped groups of finder patterns where the last scan read no QR code (lv_barcode_scanner_unread_qr): the
    // code's four corners (x y, frame pixels) and the module size, for each of the first unread_qr_count.
    float unread_qr[2][9] = {};
    int unread_qr_count = 0;
    lv::barcode::Collector collector;
    std::vector<cv::Rect> regions;
    std::vector<uint8_t> region_marks;
    std::vector<int> region_stack;  // the region search's flood fill
    lv_zxing_state *zxing = nullptr;
};

namespace lv::barcode {

// ---- barcode.cpp -------------------------------------------------------------------------------------------------

/// Runs `z` over `zbar_w` x `zbar_h` bytes at `pixels` (rows of `zbar_w` bytes), reading only `crop`, and collects
/// what it finds (mapped back to frame pixels by `map`, centred inside `roi`) as `pass`. Returns the number of codes
/// read, or a negative errno.
int scan_plane(lv_barcode_scanner *s, ZBar &z, const uint8_t *pixels, int zbar_w, int zbar_h, cv::Rect crop,
               Mapping map, cv::Rect roi, Pass pass);
/// The two halves of `scan_plane`: zbar's scan, its symbols left in `z.image` (it touches nothing but `z`, so two
/// scanners can scan on two threads; zbar's result, negative on failure), then adding them to `s->collector`.
int zbar_scan(ZBar &z, const uint8_t *pixels, int zbar_w, int zbar_h, cv::Rect crop);
int harvest(lv_barcode_scanner *s, ZBar &z, Mapping map, cv::Rect roi, Pass pass);
/// The ROI of a grey plane as a cv::Mat over its memory (read only).
cv::Mat roi_mat(const uint8_t *luma, size_t stride, cv::Rect roi);
/// Scans the ROI with `z` at full resolution, handing zbar (which has no row stride) the ROI without a copy where it
/// can. Returns the number of codes read, or a negative errno.
int scan_full(lv_barcode_scanner *s, ZBar &z, const uint8_t *luma, int width, int height, size_t stride,
              cv::Rect roi, Pass pass);

// ---- barcode_qr.cpp ----------------------------------------------------------------------------------------------

/// zbar's QR pass over a camera frame's ROI: on the plane shrunk by `s->qr_downscale`, around the finder patterns the
/// prefilter located; small codes read again at full resolution; codes seen but not read noted for
/// lv_barcode_scanner_unread_qr. Returns the number of codes read, or a negative errno.
int scan_frame_qr(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride, cv::Rect roi);
/// Whether `plane` may hold a QR code zbar can read: the finder locator finds too many candidates to tell, or three
/// that make a code's corner.
bool may_hold_qr(const cv::Mat &plane, lv::qr_finder::Scratch &finder);

// ---- barcode_zxing.cpp --------------------------------------------------------------------------------------------

/// Creates ZXing-C++'s state; throws std::bad_alloc when memory runs out.
lv_zxing_state *zxing_create();
/// Frees it (nullptr is ignored).
void zxing_destroy(lv_zxing_state *state);
/// ZXing-C++'s BarcodeFormat (its bit value) for `symbology` (`LV_SYM_*`; the ISBNs read as EAN-13), or 0 for one
/// it does not read. The one mapping of the two, shared with the raw ZXing-C++ baseline (baseline_zxing.cpp).
uint32_t zxing_format_of(int symbology);
/// The `LV_SYM_*` of a ZXing-C++ BarcodeFormat (its bit value), or 0 for one LumaScan does not name.
int symbology_of_zxing_format(uint32_t format);
/// Whether `symbology` is a 2D (or stacked) code that only ZXing-C++ reads: Data Matrix, Aztec, PDF417, Micro QR,
/// MaxiCode.
bool zxing_only(int symbology);

/// What a ZXing-C++ read looks for.
enum class ZXingKind {
    kLinearFast,  ///< linear codes, a few rows, no rotation (cheap: the live path)
    kMatrix,      ///< the 2D codes zbar does not read, no rotation or downscaling tries (a live region)
    kQR,          ///< QR and Micro QR codes around finder patterns zbar did not decode (a live region)
    kHard,        ///< every enabled symbology, try harder, rotations, downscaling (still images)
};

/// Reads `w` x `h` pixels at `pixels` (rows `stride` bytes apart) with ZXing-C++ as `kind` says, with the local-average
/// (`global` false) or global-histogram binarizer, and adds what it reads (mapped to frame pixels by `map`, centred
/// inside `roi`) to `s->collector` as `pass`. Returns the number of codes added or merged, or a negative errno.
int zxing_read(lv_barcode_scanner *s, const uint8_t *pixels, int w, int h, size_t stride, ZXingKind kind, bool global,
               Mapping map, cv::Rect roi, Pass pass);

/// The two halves of `zxing_read`: decoding into `s->zxing`'s results (it reads the settings of `s` and writes nothing
/// else, so a zbar scanner of `s` can scan on another thread meanwhile), then adding them to `s->collector`.
void zxing_decode(lv_barcode_scanner *s, const uint8_t *pixels, int w, int h, size_t stride, ZXingKind kind,
                  bool global);
int zxing_collect(lv_barcode_scanner *s, Mapping map, cv::Rect roi, Pass pass);

/// Finds the parts of `roi` where a code is likely, into `s->regions` (ROI-relative, largest first): blocks of a
/// plane shrunk to about `rows` rows (never enlarged) whose rows and columns cross many strong edges (2D codes), grouped with
/// neighbouring blocks with edges along one axis only (PDF417's bars; with `linear`, such blocks also start a group,
/// for linear codes), each group widened by two blocks. Allocates only when a frame holds more regions than before.
void find_likely_regions(lv_barcode_scanner *s, const uint8_t *luma, size_t stride, cv::Rect roi, bool linear,
                         int rows = 270);

/// Finds the parts of a camera frame's ROI where a 2D code is likely (dense dark/light edges across both axes, on a
/// plane shrunk to about 270 rows) and reads them with `zxing_read(kMatrix)` at full resolution. At most 4 regions
/// and a quarter of the ROI's area are read per frame, so a busy frame costs a bounded amount.
int zxing_read_likely_regions(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride,
                              cv::Rect roi);

// ---- barcode_merge.cpp --------------------------------------------------------------------------------------------

/// Adds a reading to the collector, or merges it into the slot holding the same symbology and payload (its pass,
/// decoder and quality added; ZXing-C++'s text, character set, add-on and sequence preferred). `points` are in frame
/// pixels. Readings centred outside `roi` are dropped (a decoder samples past the region it was cropped to). Returns
/// 1 when added or merged, 0 when dropped.
int collect(lv_barcode_scanner *s, int symbology, const std::string &bytes, const float *points, int point_count,
            cv::Rect roi, Pass pass, int decoder, int quality, int orientation, Found **slot);

/// Whether a still image's reading is settled: trusted by the misread guard, and for EAN/UPC read by zbar too (a
/// reading only ZXing-C++ made waits for zbar's harder passes). The still path stops trying once one is.
bool settled_still(const Found &f);

/// Judges what the passes found (symbology and length filters, the misread guard for still images, disagreements)
/// and writes the results to `out`. Returns the number written.
int finish(lv_barcode_scanner *s, const Policy &policy, Output &out);

// ---- barcode_text.cpp ---------------------------------------------------------------------------------------------

/// Decodes raw payload bytes without an ECI into UTF-8 `text`, with the character set's name in `charset`: UTF-8
/// when the bytes are valid UTF-8, else Shift_JIS when iconv converts them as such (only for QR-family symbologies,
/// `kanji_possible`), else ISO-8859-1 (each byte its code point), as ZXing-C++ guesses for QR codes without an ECI.
void decode_text(const std::string &bytes, bool kanji_possible, std::string &text, std::string &charset);

/// Converts GS1 human-readable text ("(01)98898765432106(3202)012345") into the raw element string zbar reports
/// ("0198898765432106320201234515…"), with a GS (0x1D) after each variable-length field that another follows.
/// Returns false when `hri` is not in that form (then `raw` is unspecified).
bool gs1_hri_to_raw(const std::string &hri, std::string &raw);

}  // namespace lv::barcode

#endif
