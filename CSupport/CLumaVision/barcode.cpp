// Barcode scanning behind lv_barcode.h: the C API, zbar's passes, and the order of the passes over camera frames
// and still images. The QR pass over camera frames (finder patterns, small codes) is in barcode_qr.cpp, ZXing-C++'s
// passes in barcode_zxing.cpp, the merging and checking of what the passes read in barcode_merge.cpp.
#include "barcode_internal.hpp"
#include "lv_mat.hpp"
#include "lv_shim.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <new>
#include <sched.h>
#include <system_error>
#include <thread>
#include <vector>

// zbar.h declares its C API inside namespace zbar when compiled as C++.
using namespace zbar;

static_assert(LV_SYM_EAN8 == ZBAR_EAN8 && LV_SYM_UPCE == ZBAR_UPCE && LV_SYM_ISBN10 == ZBAR_ISBN10 &&
                  LV_SYM_UPCA == ZBAR_UPCA && LV_SYM_EAN13 == ZBAR_EAN13 && LV_SYM_ISBN13 == ZBAR_ISBN13 &&
                  LV_SYM_I25 == ZBAR_I25 && LV_SYM_DATABAR == ZBAR_DATABAR &&
                  LV_SYM_DATABAR_EXP == ZBAR_DATABAR_EXP && LV_SYM_CODABAR == ZBAR_CODABAR &&
                  LV_SYM_CODE39 == ZBAR_CODE39 && LV_SYM_QRCODE == ZBAR_QRCODE && LV_SYM_CODE93 == ZBAR_CODE93 &&
                  LV_SYM_CODE128 == ZBAR_CODE128,
              "LV_SYM_* must equal zbar_symbol_type_t");
static_assert(LV_ORIENT_UNKNOWN == ZBAR_ORIENT_UNKNOWN && LV_ORIENT_UP == ZBAR_ORIENT_UP &&
                  LV_ORIENT_RIGHT == ZBAR_ORIENT_RIGHT && LV_ORIENT_DOWN == ZBAR_ORIENT_DOWN &&
                  LV_ORIENT_LEFT == ZBAR_ORIENT_LEFT,
              "LV_ORIENT_* must equal zbar_orientation_t");

using lv::guarded;
using namespace lv::barcode;

namespace {

constexpr int kZBarSymbols[] = {LV_SYM_EAN8,    LV_SYM_UPCE,   LV_SYM_ISBN10,  LV_SYM_UPCA,        LV_SYM_EAN13,
                                LV_SYM_ISBN13,  LV_SYM_I25,    LV_SYM_DATABAR, LV_SYM_DATABAR_EXP, LV_SYM_CODABAR,
                                LV_SYM_CODE39,  LV_SYM_QRCODE, LV_SYM_CODE93,  LV_SYM_CODE128};

bool zbar_reads(int symbology) {
    return std::find(std::begin(kZBarSymbols), std::end(kZBarSymbols), symbology) != std::end(kZBarSymbols);
}

bool known_symbol(int symbology) { return zbar_reads(symbology) || zxing_only(symbology); }

bool linear_enabled(const lv_barcode_scanner *s) {
    for (int sym : kZBarSymbols)
        if (sym != LV_SYM_QRCODE && s->enabled[sym]) return true;
    return false;
}

bool matrix_enabled(const lv_barcode_scanner *s) {
    for (int sym = 0; sym < kSymbolSlots; ++sym)
        if (zxing_only(sym) && s->enabled[sym]) return true;
    return false;
}

ZBar &scanner_for(lv_barcode_scanner *s, int symbology) { return symbology == LV_SYM_QRCODE ? s->qr : s->linear; }

/// Applies the enabled symbologies and lengths to both zbar scanners (after create or a still image's fresh start).
void configure_zbar(lv_barcode_scanner *s) {
    for (ZBar *z : {&s->linear, &s->qr}) zbar_image_scanner_set_config(z->scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    for (int sym : kZBarSymbols) {
        zbar_image_scanner_t *z = scanner_for(s, sym).scanner;
        auto type = zbar_symbol_type_t(sym);
        zbar_image_scanner_set_config(z, type, ZBAR_CFG_ENABLE, s->enabled[sym] ? 1 : 0);
        // zbar accepts lengths only for its variable-length decoders and refuses them (non-zero) for the others;
        // those are enforced by our own filter in finish(), so the refusal is ignored.
        if (s->min_length[sym] > 0) zbar_image_scanner_set_config(z, type, ZBAR_CFG_MIN_LEN, s->min_length[sym]);
        if (s->max_length[sym] > 0) zbar_image_scanner_set_config(z, type, ZBAR_CFG_MAX_LEN, s->max_length[sym]);
    }
    // zbar decodes UPC-A and ISBNs only as special cases of EAN-13 (a leading 0, a 978/979 prefix): with EAN-13
    // disabled it reads none of them. So zbar's EAN-13 decoder runs whenever any of the four is wanted, and finish()
    // drops EAN-13 results unless EAN-13 itself is wanted.
    bool ean_family = s->enabled[LV_SYM_EAN13] || s->enabled[LV_SYM_UPCA] || s->enabled[LV_SYM_ISBN10] ||
                      s->enabled[LV_SYM_ISBN13];
    zbar_image_scanner_set_config(s->linear.scanner, ZBAR_EAN13, ZBAR_CFG_ENABLE, ean_family ? 1 : 0);
    // Raw bytes, not zbar's own guess of a QR code's character set (which turns Shift_JIS half-width katakana into
    // Chinese): barcode_text.cpp decodes them as ZXing-C++ would.
    zbar_image_scanner_set_config(s->qr.scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1);
}

cv::Rect clamp_roi(int width, int height, int x, int y, int w, int h) {
    cv::Rect frame(0, 0, width, height);
    if (w <= 0 || h <= 0) return frame;
    // Clamped in 64 bits: a region far outside the frame (x near INT_MAX) must not overflow on its way to empty.
    int64_t left = std::clamp<int64_t>(x, 0, width), top = std::clamp<int64_t>(y, 0, height);
    int64_t right = std::clamp<int64_t>(int64_t(x) + w, 0, width), bottom = std::clamp<int64_t>(int64_t(y) + h, 0, height);
    if (right <= left || bottom <= top) return cv::Rect();
    return cv::Rect(int(left), int(top), int(right - left), int(bottom - top));
}

}  // namespace

namespace lv::barcode {

/// Runs `z` over `zbar_w` x `zbar_h` bytes at `pixels` (rows of `zbar_w` bytes), reading only `crop`, and collects
/// what it finds (mapped back to frame pixels, centred inside `roi`) as `pass`. Returns the number of codes read.
int scan_plane(lv_barcode_scanner *s, ZBar &z, const uint8_t *pixels, int zbar_w, int zbar_h, cv::Rect crop,
               Mapping map, cv::Rect roi, Pass pass) {
    if (zbar_scan(z, pixels, zbar_w, zbar_h, crop) < 0) return -EIO;
    return harvest(s, z, map, roi, pass);
}

int zbar_scan(ZBar &z, const uint8_t *pixels, int zbar_w, int zbar_h, cv::Rect crop) {
    zbar_image_set_size(z.image, unsigned(zbar_w), unsigned(zbar_h));
    // NULL cleanup handler: zbar borrows the memory for the duration of the scan and never frees it.
    zbar_image_set_data(z.image, pixels, size_t(zbar_w) * size_t(zbar_h), nullptr);
    // zbar_image_set_size resets the crop, so it is set after.
    zbar_image_set_crop(z.image, unsigned(crop.x), unsigned(crop.y), unsigned(crop.width), unsigned(crop.height));
    return zbar_scan_image(z.scanner, z.image);
}

int harvest(lv_barcode_scanner *s, ZBar &z, Mapping map, cv::Rect roi, Pass pass) {
    int found = 0;
    bool qr = false;
    std::string &payload = s->collector.scratch;
    for (const zbar_symbol_t *sym = zbar_image_first_symbol(z.image); sym; sym = zbar_symbol_next(sym)) {
        int type = int(zbar_symbol_get_type(sym));
        qr = qr || type == ZBAR_QRCODE;
        if (type <= 0 || type >= kSymbolSlots || !zbar_reads(type)) continue;
        payload.assign(zbar_symbol_get_data(sym), zbar_symbol_get_data_length(sym));
        unsigned loc = zbar_symbol_get_loc_size(sym);
        s->points.clear();
        for (unsigned i = 0; i < loc; ++i)
            s->points.emplace_back(map.x(zbar_symbol_get_loc_x(sym, i)), map.y(zbar_symbol_get_loc_y(sym, i)));
        float points[2 * LV_BARCODE_MAX_POINTS];
        int count;
        if (s->points.size() <= LV_BARCODE_MAX_POINTS) {
            count = int(s->points.size());
            for (int i = 0; i < count; ++i) {
                points[2 * i] = s->points[size_t(i)].x;
                points[2 * i + 1] = s->points[size_t(i)].y;
            }
        } else {
            // Linear codes carry one point per scan-line crossing; the enclosing rotated rectangle is their extent.
            cv::Point2f corners[4];
            cv::minAreaRect(s->points).points(corners);
            count = 4;
            for (int i = 0; i < 4; ++i) {
                points[2 * i] = corners[i].x;
                points[2 * i + 1] = corners[i].y;
            }
        }
        found += collect(s, type, payload, points, count, roi, pass, LV_DECODER_ZBAR, zbar_symbol_get_quality(sym),
                         int(zbar_symbol_get_orientation(sym)), nullptr);
    }
    // Linear symbols are recycled and reused without allocating; QR symbols never are (ZBar::free_results).
    if (qr) z.free_results();
    return found;
}

cv::Mat roi_mat(const uint8_t *luma, size_t stride, cv::Rect roi) {
    // OpenCV wants a non-const pointer; the ROI is only read.
    return cv::Mat(roi.height, roi.width, CV_8UC1, const_cast<uint8_t *>(luma + roi.y * stride + roi.x), stride);
}

/// Scans the ROI at full resolution with zbar's own sampling density, choosing the cheapest correct way to hand it
/// to zbar (which has no row stride).
int scan_full(lv_barcode_scanner *s, ZBar &z, const uint8_t *luma, int width, int height, size_t stride,
              cv::Rect roi, Pass pass) {
    if (stride == size_t(width) || roi.y + roi.height < height) {
        // No copy: zbar is handed the ROI's band of whole rows with the row stride as its width, and a crop to the
        // ROI's columns; its scan lines read only the crop. The band is in bounds: with a tight stride it ends at
        // the frame's end; otherwise it ends before the last row, the only row that may be shorter than a stride (a
        // view holds stride * (height - 1) + width bytes).
        Mapping map{1, 1, 0, double(roi.y)};
        return scan_plane(s, z, luma + size_t(roi.y) * stride, int(stride), roi.height,
                          cv::Rect(roi.x, 0, roi.width, roi.height), map, roi, pass);
    }
    // Padded rows down to the last row: copy the ROI tight into scratch (reused across frames) so zbar never reads
    // past the caller's buffer. Cheap next to the scan itself (one memcpy per row).
    cv::Mat tight = lv::reuse(s->still_plane, roi.height, roi.width);
    roi_mat(luma, stride, roi).copyTo(tight);
    Mapping map{1, 1, double(roi.x), double(roi.y)};
    return scan_plane(s, z, tight.data, tight.cols, tight.rows, cv::Rect(0, 0, tight.cols, tight.rows), map, roi,
                      pass);
}

}  // namespace lv::barcode

namespace {

/// One pass over a camera frame.
///
/// Linear codes: zbar's own density skips rows and columns, and every noisy pixel it reads is an edge its decoders
/// chew on. Instead, each horizontal scan line is the average of `density_y` rows (and each vertical one of
/// `density_x` columns): the ROI is box-shrunk along one axis into a plane that zbar reads along the other axis
/// only. Bars stay sharp along the scan line, sensor noise drops by sqrt(density) and zbar reads 1/density of the
/// pixels per direction; a bar tilted by a few degrees smears by density * tan(tilt) pixels at most.
///
/// QR codes need a 2D image (zbar binarises it and samples modules), so they are read on the ROI box-shrunk by
/// `qr_downscale` in both axes and lightly smoothed, at zbar's density 1: every pixel contributes and noise averages
/// out. (Skipping rows instead, zbar density 2 on the shrunk plane, lost a 30°-rotated code at 3 px per module.)
/// zbar's cost there is per pixel whatever the frame holds, so the QR finder prefilter (qr_finder.hpp) first looks
/// for finder patterns: zbar scans only around them, or not at all.
int scan_frame(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride, cv::Rect roi) {
    int n = 0;
    if (linear_enabled(s)) {
        if (s->density_x == 1 && s->density_y == 1) {
            s->linear.density(1, 1);
            n = scan_full(s, s->linear, luma, width, height, stride, roi, kZBar);
            if (n < 0) return n;
        } else {
            cv::Mat source = roi_mat(luma, stride, roi);
            int dy = s->density_y;
            if (dy > 0 && roi.height / dy >= 1) {
                s->linear.density(0, 1);
                if (dy == 1) {
                    n = scan_full(s, s->linear, luma, width, height, stride, roi, kZBar);
                } else {
                    cv::Mat rows = lv::reuse(s->rows_plane, roi.height / dy, roi.width);
                    cv::resize(source(cv::Rect(0, 0, roi.width, rows.rows * dy)), rows, rows.size(), 0, 0,
                               cv::INTER_AREA);
                    Mapping map{1, double(dy), double(roi.x), double(roi.y)};
                    n = scan_plane(s, s->linear, rows.data, rows.cols, rows.rows, cv::Rect(0, 0, rows.cols, rows.rows),
                                   map, roi, kZBar);
                }
                if (n < 0) return n;
            }
            int dx = s->density_x;
            if (dx > 0 && roi.width / dx >= 1) {
                s->linear.density(1, 0);
                if (dx == 1) {
                    n = scan_full(s, s->linear, luma, width, height, stride, roi, kZBar);
                } else {
                    cv::Mat columns = lv::reuse(s->columns_plane, roi.height, roi.width / dx);
                    cv::resize(source(cv::Rect(0, 0, columns.cols * dx, roi.height)), columns, columns.size(), 0, 0,
                               cv::INTER_AREA);
                    Mapping map{double(dx), 1, double(roi.x), double(roi.y)};
                    n = scan_plane(s, s->linear, columns.data, columns.cols, columns.rows,
                                   cv::Rect(0, 0, columns.cols, columns.rows), map, roi, kZBar);
                }
                if (n < 0) return n;
            }
        }
    }
    if (s->enabled[LV_SYM_QRCODE]) {
        n = scan_frame_qr(s, luma, width, height, stride, roi);
        if (n < 0) return n;
    }
    // ZXing-C++: the linear codes on a few rows (about 0.3 ms at 1080p; it reads EAN-2/EAN-5 add-ons, which zbar's
    // pass does not), and the 2D codes zbar does not read only where the frame looks like one.
    if (linear_enabled(s)) {
        n = zxing_read(s, luma + size_t(roi.y) * stride + size_t(roi.x), roi.width, roi.height, stride,
                       ZXingKind::kLinearFast, false, Mapping{1, 1, double(roi.x), double(roi.y), 0}, roi, kZXing);
        if (n < 0) return n;
    }
    if (matrix_enabled(s)) {
        n = zxing_read_likely_regions(s, luma, width, height, stride, roi);
        if (n < 0) return n;
    }
    return 0;
}

/// Whether this process may run on more than one CPU (its affinity mask, which `taskset` and cgroups narrow).
bool several_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 1;
}

/// Runs `work` on a second thread while `here` runs on this one, and returns once both are done. On one CPU, or when
/// no thread can be started, runs `work`, then `here`, on this one.
template <class Work, class Here>
void alongside(Work &&work, Here &&here) {
    std::thread worker;
    if (several_cpus()) {
        try {
            worker = std::thread([&work] { work(); });
        } catch (const std::system_error &) {
            work();
        }
    } else {
        work();
    }
    struct Join {
        std::thread &thread;
        ~Join() {
            if (thread.joinable()) thread.join();
        }
    } join{worker};
    here();
}

/// Every pass over a still image, at full density, from a fresh zbar state; see lv_barcode_scan_still.
int scan_still(lv_barcode_scanner *s, const uint8_t *luma, size_t stride, cv::Rect roi) {
    // A fresh zbar state per image: zbar's decoders keep state between scans (DataBar Expanded segments, for one),
    // so an image would otherwise be read differently after another.
    if (!s->linear.create() || !s->qr.create()) return -ENOMEM;
    configure_zbar(s);
    s->linear.density(1, 1);
    s->qr.density(1, 1);
    const bool zbar_wanted = linear_enabled(s) || s->enabled[LV_SYM_QRCODE];
    cv::Mat source = roi_mat(luma, stride, roi);
    cv::Mat tight = lv::reuse(s->still_plane, roi.height, roi.width);
    source.copyTo(tight);
    const Mapping at_roi{1, 1, double(roi.x), double(roi.y)};
    const Mapping zxing_at_roi{1, 1, double(roi.x), double(roi.y), 0};
    auto settled = [&] {
        for (size_t i = 0; i < s->collector.count; ++i)
            if (settled_still(s->collector.slots[i])) return true;
        return false;
    };
    // What ZXing-C++ adds to a pass of zbar's: its decoding mapped by `map`, with the global-histogram binarizer or
    // not, collected as `pass`.
    struct ZXingPass {
        Mapping map;
        bool global;
        Pass pass;
    };
    // One pass of zbar over `plane` (`zbar_on`: its linear reader, then its QR reader) and optionally ZXing-C++'s.
    // zbar's linear scan, the longest part (about 110 ms of a 1080p plane), runs on a second thread beside zbar's QR
    // scan and ZXing-C++'s decoding; the readings are then collected in the order the readers ran in one after
    // another, so the result is the same as theirs.
    //
    // zbar's QR reader costs about as much as its linear one on every pass over a photo, whatever the photo holds,
    // and it decodes only codes whose three finder patterns it sees; a plane in which the finder locator (which finds
    // every finder pattern zbar accepts) sees no three that make a code's corner is not read by it. The plane is
    // still read whole when it sees one (or too many candidates to count).
    auto pass_over = [&](const cv::Mat &plane, Mapping map, Pass zbar_pass, bool zbar_on, const ZXingPass *zx) {
        const cv::Rect all(0, 0, plane.cols, plane.rows);
        const bool linear = zbar_on && linear_enabled(s);
        const bool qr = zbar_on && s->enabled[LV_SYM_QRCODE];
        int linear_status = 0, qr_status = 0;
        bool qr_scanned = false;
        alongside(
            [&] {
                if (linear) linear_status = zbar_scan(s->linear, plane.data, plane.cols, plane.rows, all);
            },
            [&] {
                if (qr && (!s->qr_prefilter || may_hold_qr(plane, s->finder))) {
                    qr_scanned = true;
                    qr_status = zbar_scan(s->qr, plane.data, plane.cols, plane.rows, all);
                }
                if (zx) zxing_decode(s, plane.data, plane.cols, plane.rows, plane.step[0], ZXingKind::kHard, zx->global);
            });
        int n = 0;
        if (linear) n = linear_status < 0 ? -EIO : harvest(s, s->linear, map, roi, zbar_pass);
        if (n >= 0 && qr_scanned) n = qr_status < 0 ? -EIO : harvest(s, s->qr, map, roi, zbar_pass);
        if (n >= 0 && zx) n = zxing_collect(s, zx->map, roi, zx->pass);
        return n;
    };
    auto zxing = [&](const cv::Mat &plane, Mapping map, bool global, Pass pass) {
        return zxing_read(s, plane.data, plane.cols, plane.rows, plane.step[0], ZXingKind::kHard, global, map, roi,
                          pass);
    };
    // The plain passes: zbar as zbarimg runs it, ZXing-C++ as ZXingReader runs it.
    const ZXingPass plain{zxing_at_roi, false, kZXing};
    int n = pass_over(tight, at_roi, kZBar, zbar_wanted, &plain);
    if (n < 0) return n;
    // The harder passes, while no code is settled, on photos where a code is likely somewhere
    // (find_likely_regions: 2D or linear edge density; a photo without any ends here): each adds readings, and a
    // second pass reading the same payload confirms a weak-check reading that only one pass made (finish()
    // decides).
    if (settled()) return 0;
    find_likely_regions(s, tight.data, tight.step[0], cv::Rect(0, 0, roi.width, roi.height), true, 540);
    if (s->regions.empty()) return 0;
    // The passes read the whole image: run on the regions alone, they cut codes whose ends the search missed
    // (motion blur thins a code's edges), and zbar then read half an EAN-13 as an EAN-8.
    const Mapping at = at_roi, zat = zxing_at_roi;
    n = zxing(tight, zat, true, kZXingGlobal);
    if (n < 0) return n;
    if (!settled()) {
        cv::Mat inverted = lv::reuse(s->columns_plane, roi.height, roi.width);
        cv::bitwise_not(tight, inverted);
        const ZXingPass zx{zat, false, kZXingInverted};
        n = pass_over(inverted, at, kZBarInverted, zbar_wanted, &zx);
        if (n < 0) return n;
    }
    // Small codes: zbar's edge detector and ZXing's sampling want a few pixels per module; a bilinear 2x upscale
    // gives them that. Bounded so a large photo does not become a huge scratch plane.
    if (!settled() && double(roi.width) * roi.height <= 4096.0 * 4096.0 / 4) {
        cv::Mat big = lv::reuse(s->rows_plane, roi.height * 2, roi.width * 2);
        cv::resize(tight, big, big.size(), 0, 0, cv::INTER_LINEAR);
        // ZXing-C++ only when zbar's readings left no code settled: on a 4x plane it is not worth doing for nothing.
        n = pass_over(big, Mapping{0.5, 0.5, double(roi.x), double(roi.y)}, kZBarUpscaled, zbar_wanted, nullptr);
        if (n >= 0 && !settled())
            n = zxing(big, Mapping{0.5, 0.5, double(roi.x), double(roi.y), 0}, false, kZXingUpscaled);
        if (n < 0) return n;
    }
    // ZXing-C++ at half size, where big codes' modules and blur shrink to what its detectors expect (what its own
    // pyramid would do; see barcode_zxing.cpp for why that is not used): 1.4's local-average binarizer loses a PDF417
    // at 5 px per module that it reads at half size.
    if (!settled() && roi.width >= 128 && roi.height >= 64) {
        cv::Mat half = lv::reuse(s->qr_plane, roi.height / 2, roi.width / 2);
        cv::resize(tight(cv::Rect(0, 0, half.cols * 2, half.rows * 2)), half, half.size(), 0, 0, cv::INTER_AREA);
        n = zxing(half, Mapping{2, 2, double(roi.x), double(roi.y), 0}, false, kZXingDownscaled);
        if (n < 0) return n;
    }
    // Dim, washed-out or noisy photos: smooth sensor noise, then stretch the histogram to the full range.
    if (!settled() && zbar_wanted) {
        cv::Mat enhanced = lv::reuse(s->columns_plane, roi.height, roi.width);
        cv::GaussianBlur(tight, enhanced, cv::Size(0, 0), 1.0);
        cv::normalize(enhanced, enhanced, 0, 255, cv::NORM_MINMAX);
        n = pass_over(enhanced, at, kZBarEnhanced, true, nullptr);
        if (n < 0) return n;
    }
    return 0;
}

}  // namespace

namespace lv::barcode {

bool ZBar::create() {
    release();
    scanner = zbar_image_scanner_create();
    image = zbar_image_create();
    if (!scanner || !image) return false;
    zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
    // Start from nothing: zbar enables most symbologies, SQ code and EAN add-ons by default.
    zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    return true;
}

void ZBar::release() {
    if (image) zbar_image_destroy(image);
    if (scanner) zbar_image_scanner_destroy(scanner);
    image = nullptr;
    scanner = nullptr;
}

void ZBar::free_results() {
    const zbar_symbol_set_t *results = zbar_image_get_symbols(image);
    if (!results) return;
    zbar_symbol_set_ref(results, 1);
    // The scanner and the image drop their references; ours is then the last, and releasing it frees the set.
    zbar_image_scanner_recycle_image(scanner, image);
    zbar_symbol_set_ref(results, -1);
}

void ZBar::density(int x, int y) {
    zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, x);
    zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, y);
}

}  // namespace lv::barcode

extern "C" int lv_barcode_scanner_create(lv_barcode_scanner **out) {
    if (!out) return -EINVAL;
    *out = nullptr;
    return guarded([&] {
        auto scanner = std::make_unique<lv_barcode_scanner>();
        if (!scanner->linear.create() || !scanner->qr.create()) return -ENOMEM;
        scanner->zxing = zxing_create();
        for (int sym = 0; sym < kSymbolSlots; ++sym) scanner->enabled[sym] = known_symbol(sym);
        configure_zbar(scanner.get());
        *out = scanner.release();
        return 0;
    });
}

extern "C" void lv_barcode_scanner_destroy(lv_barcode_scanner *scanner) {
    if (!scanner) return;
    zxing_destroy(scanner->zxing);
    delete scanner;
}

extern "C" int lv_barcode_scanner_disable_all(lv_barcode_scanner *s) {
    return guarded([&] {
        if (!s) return -EINVAL;
        std::fill(std::begin(s->enabled), std::end(s->enabled), false);
        configure_zbar(s);
        return 0;
    });
}

extern "C" int lv_barcode_scanner_configure(lv_barcode_scanner *s, int symbology, int enable, int min_length,
                                            int max_length) {
    return guarded([&] {
        if (!s || !known_symbol(symbology)) return -EINVAL;
        s->enabled[symbology] = enable != 0;
        if (min_length >= 0) s->min_length[symbology] = min_length;
        if (max_length >= 0) s->max_length[symbology] = max_length;
        configure_zbar(s);
        return 0;
    });
}

extern "C" int lv_barcode_scanner_set_density(lv_barcode_scanner *s, int x, int y) {
    return guarded([&] {
        if (!s || x < 0 || y < 0 || (x == 0 && y == 0)) return -EINVAL;
        s->density_x = x;
        s->density_y = y;
        return 0;
    });
}

extern "C" int lv_barcode_scanner_set_qr_downscale(lv_barcode_scanner *s, int factor) {
    return guarded([&] {
        if (!s || factor < 1 || factor > 4) return -EINVAL;
        s->qr_downscale = factor;
        return 0;
    });
}

extern "C" int lv_barcode_scanner_set_qr_full_resolution(lv_barcode_scanner *s, int enable) {
    return guarded([&] {
        if (!s) return -EINVAL;
        s->qr_full_resolution = enable != 0;
        return 0;
    });
}

extern "C" int lv_barcode_scanner_unread_qr(const lv_barcode_scanner *s, float *out, int max_codes) {
    if (!s || (!out && max_codes > 0) || max_codes < 0) return -EINVAL;
    const int count = std::min(max_codes, s->unread_qr_count);
    for (int i = 0; i < count; ++i) std::copy(s->unread_qr[i], s->unread_qr[i] + 9, out + 9 * i);
    return s->unread_qr_count;
}

extern "C" int lv_barcode_scanner_set_qr_prefilter(lv_barcode_scanner *s, int enable) {
    return guarded([&] {
        if (!s) return -EINVAL;
        s->qr_prefilter = enable != 0;
        return 0;
    });
}

namespace {

/// The body both scan entry points share: argument checks, the ROI, the passes, the merge.
template <typename Passes>
int run_scan(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride, int roi_x, int roi_y,
             int roi_w, int roi_h, lv_barcode_result *results, int max_results, uint8_t *data, size_t data_capacity,
             bool still, Passes passes) {
    return guarded([&] {
        if (!s || !lv::valid(luma, width, height, stride) || (!results && max_results > 0) || max_results < 0 ||
            !data)
            return -EINVAL;
        s->unread_qr_count = 0;
        cv::Rect roi = clamp_roi(width, height, roi_x, roi_y, roi_w, roi_h);
        if (roi.empty()) return 0;
        s->collector.clear();
        int n = passes(roi);
        if (n < 0) return n;
        Output out{results, max_results, data, data_capacity};
        return finish(s, Policy{still}, out);
    });
}

}  // namespace

extern "C" int lv_barcode_scan(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride,
                               int roi_x, int roi_y, int roi_w, int roi_h, lv_barcode_result *results,
                               int max_results, uint8_t *data, size_t data_capacity) {
    return run_scan(s, luma, width, height, stride, roi_x, roi_y, roi_w, roi_h, results, max_results, data,
                    data_capacity, false,
                    [&](cv::Rect roi) { return scan_frame(s, luma, width, height, stride, roi); });
}

extern "C" int lv_barcode_scan_still(lv_barcode_scanner *s, const uint8_t *luma, int width, int height,
                                     size_t stride, int roi_x, int roi_y, int roi_w, int roi_h,
                                     lv_barcode_result *results, int max_results, uint8_t *data,
                                     size_t data_capacity) {
    return run_scan(s, luma, width, height, stride, roi_x, roi_y, roi_w, roi_h, results, max_results, data,
                    data_capacity, true, [&](cv::Rect roi) { return scan_still(s, luma, stride, roi); });
}

extern "C" const char *lv_barcode_symbology_name(int symbology) {
    switch (symbology) {
        case LV_SYM_PDF417: return "PDF417";
        case LV_SYM_MICROQR: return "Micro-QR";
        case LV_SYM_DATAMATRIX: return "DataMatrix";
        case LV_SYM_AZTEC: return "Aztec";
        case LV_SYM_MAXICODE: return "MaxiCode";
        default: return zbar_get_symbol_name(zbar::zbar_symbol_type_t(symbology));
    }
}
