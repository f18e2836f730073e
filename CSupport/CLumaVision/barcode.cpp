// zbar scanning behind lv_barcode.h: one zbar_image_scanner_t and one reusable zbar_image_t per handle.
#include "lv_barcode.h"

#include "guard.hpp"
#include "qr_finder.hpp"

#include <zbar.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
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

namespace {

constexpr int kSymbols[] = {LV_SYM_EAN8,    LV_SYM_UPCE,    LV_SYM_ISBN10, LV_SYM_UPCA,        LV_SYM_EAN13,
                            LV_SYM_ISBN13,  LV_SYM_I25,     LV_SYM_DATABAR, LV_SYM_DATABAR_EXP, LV_SYM_CODABAR,
                            LV_SYM_CODE39,  LV_SYM_QRCODE,  LV_SYM_CODE93, LV_SYM_CODE128};
/// Symbologies zbar does not decode: read by the ZXing-C++ backend only.
constexpr int kZXingOnly[] = {LV_SYM_PDF417, LV_SYM_MICROQR, LV_SYM_DATAMATRIX, LV_SYM_AZTEC, LV_SYM_MAXICODE};
constexpr int kSymbolSlots = 129;  // zbar_symbol_type_t values we use are below 129

bool known_symbol(int symbology) {
    return std::find(std::begin(kSymbols), std::end(kSymbols), symbology) != std::end(kSymbols);
}

/// Where the pixels handed to zbar sit in the frame: frame = (zbar + 0.5) * scale - 0.5 + offset, per axis (a
/// pixel of a plane shrunk by `scale` covers `scale` frame pixels, centred on their middle).
struct Mapping {
    double scale_x = 1;
    double scale_y = 1;
    double offset_x = 0;
    double offset_y = 0;
    float x(int zx) const { return float((zx + 0.5) * scale_x - 0.5 + offset_x); }
    float y(int zy) const { return float((zy + 0.5) * scale_y - 0.5 + offset_y); }
};

struct Output {
    lv_barcode_result *results;
    int max_results;
    uint8_t *data;
    size_t data_capacity;
    int count = 0;
    size_t data_used = 0;
};

/// One zbar image scanner and the zbar image it scans.
struct ZBar {
    zbar_image_scanner_t *scanner = nullptr;
    zbar_image_t *image = nullptr;

    ZBar() = default;
    ZBar(const ZBar &) = delete;
    ZBar &operator=(const ZBar &) = delete;

    bool create() {
        scanner = zbar_image_scanner_create();
        image = zbar_image_create();
        if (!scanner || !image) return false;
        zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
        // Start from nothing: zbar enables most symbologies, SQ code and EAN add-ons by default.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
        return true;
    }
    void density(int x, int y) {
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, x);
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, y);
    }
    ~ZBar() {
        if (image) zbar_image_destroy(image);
        if (scanner) zbar_image_scanner_destroy(scanner);
    }
};

}  // namespace

// Two zbar scanners: linear symbologies and QR codes are read on different planes (see scan_frame), and a scanner
// reads every symbology enabled in it on whatever it is given.
struct lv_barcode_scanner {
    ZBar linear;
    ZBar qr;
    bool enabled[kSymbolSlots] = {};
    int min_length[kSymbolSlots] = {};
    int max_length[kSymbolSlots] = {};  // 0: no upper bound
    int density_x = 1;
    int density_y = 1;
    int qr_downscale = 1;
    bool qr_prefilter = true;
    // Scratch planes, allocated the first time a path needs them and grown only when a larger frame arrives, so no
    // plane is reallocated per frame. (Inside a scan, OpenCV's resize and blur still take small temporary buffers,
    // and zbar's QR finder allocates when it sees finder-like patterns: measured 1-2 and 0-11 per 1080p frame.)
    cv::Mat rows_plane;
    cv::Mat columns_plane;
    cv::Mat qr_plane;
    cv::Mat still_plane;
    std::vector<cv::Point2f> points;
    lv::qr_finder::Scratch finder;
};

namespace {

using lv::guarded;

/// A `rows` x `cols` plane in `mat`'s memory, reallocating only when it must grow (cv::Mat::create would reallocate
/// whenever the shape changes).
cv::Mat reuse(cv::Mat &mat, int rows, int cols) {
    size_t needed = size_t(rows) * size_t(cols);
    size_t have = mat.empty() ? 0 : mat.total();
    if (have < needed) mat.create(1, int(std::max(needed, have * 5 / 4)), CV_8UC1);
    return cv::Mat(rows, cols, CV_8UC1, mat.data);
}

bool linear_enabled(const lv_barcode_scanner *s) {
    for (int sym : kSymbols)
        if (sym != LV_SYM_QRCODE && s->enabled[sym]) return true;
    return false;
}

bool already_found(const Output &out, int type, const char *data, unsigned length) {
    for (int i = 0; i < out.count; ++i) {
        const lv_barcode_result &r = out.results[i];
        if (r.symbology == type && r.data_length == length && std::memcmp(out.data + r.data_offset, data, length) == 0)
            return true;
    }
    return false;
}

/// Runs `z` over `zbar_w` x `zbar_h` bytes at `pixels` (rows of `zbar_w` bytes), reading only `crop`, and appends
/// what it finds (mapped back to frame pixels, centred inside `roi`, not found by an earlier pass) to `out`.
int scan_plane(lv_barcode_scanner *s, ZBar &z, const uint8_t *pixels, int zbar_w, int zbar_h, cv::Rect crop,
               Mapping map, cv::Rect roi, Output &out) {
    zbar_image_set_size(z.image, unsigned(zbar_w), unsigned(zbar_h));
    // NULL cleanup handler: zbar borrows the memory for the duration of the scan and never frees it.
    zbar_image_set_data(z.image, pixels, size_t(zbar_w) * size_t(zbar_h), nullptr);
    // zbar_image_set_size resets the crop, so it is set after.
    zbar_image_set_crop(z.image, unsigned(crop.x), unsigned(crop.y), unsigned(crop.width), unsigned(crop.height));
    int n = zbar_scan_image(z.scanner, z.image);
    if (n < 0) return -EIO;
    int found = 0;
    for (const zbar_symbol_t *sym = zbar_image_first_symbol(z.image); sym; sym = zbar_symbol_next(sym)) {
        int type = int(zbar_symbol_get_type(sym));
        if (type <= 0 || type >= kSymbolSlots || !known_symbol(type) || !s->enabled[type]) continue;
        unsigned length = zbar_symbol_get_data_length(sym);
        const char *payload = zbar_symbol_get_data(sym);
        if (int(length) < s->min_length[type]) continue;
        if (s->max_length[type] > 0 && int(length) > s->max_length[type]) continue;
        if (already_found(out, type, payload, length)) continue;
        if (out.count >= out.max_results) break;
        if (out.data_used + length + 1 > out.data_capacity) continue;

        lv_barcode_result &r = out.results[out.count];
        r.symbology = type;
        r.quality = zbar_symbol_get_quality(sym);
        r.orientation = int(zbar_symbol_get_orientation(sym));
        unsigned loc = zbar_symbol_get_loc_size(sym);
        s->points.clear();
        for (unsigned i = 0; i < loc; ++i)
            s->points.emplace_back(map.x(zbar_symbol_get_loc_x(sym, i)), map.y(zbar_symbol_get_loc_y(sym, i)));
        if (s->points.size() <= LV_BARCODE_MAX_POINTS) {
            r.point_count = int(s->points.size());
            for (size_t i = 0; i < s->points.size(); ++i) {
                r.points[2 * i] = s->points[i].x;
                r.points[2 * i + 1] = s->points[i].y;
            }
        } else {
            // Linear codes carry one point per scan-line crossing; the enclosing rotated rectangle is their extent.
            cv::Point2f corners[4];
            cv::minAreaRect(s->points).points(corners);
            r.point_count = 4;
            for (int i = 0; i < 4; ++i) {
                r.points[2 * i] = corners[i].x;
                r.points[2 * i + 1] = corners[i].y;
            }
        }
        if (r.point_count > 0) {
            float cx = 0, cy = 0;
            for (int i = 0; i < r.point_count; ++i) {
                cx += r.points[2 * i];
                cy += r.points[2 * i + 1];
            }
            cx /= float(r.point_count);
            cy /= float(r.point_count);
            // QR finder lines come from the cropped scan, but the decoder samples the whole plane zbar was given, so a
            // code straddling the ROI's edge can decode: keep only codes centred inside the ROI.
            if (cx < float(roi.x) - 0.5f || cy < float(roi.y) - 0.5f || cx > float(roi.x + roi.width) - 0.5f ||
                cy > float(roi.y + roi.height) - 0.5f)
                continue;
        }
        r.data_offset = uint32_t(out.data_used);
        r.data_length = length;
        std::memcpy(out.data + out.data_used, payload, length);
        out.data[out.data_used + length] = 0;
        out.data_used += length + 1;
        out.count += 1;
        found += 1;
    }
    return found;
}

cv::Rect clamp_roi(int width, int height, int x, int y, int w, int h) {
    cv::Rect frame(0, 0, width, height);
    if (w <= 0 || h <= 0) return frame;
    return cv::Rect(x, y, w, h) & frame;
}

bool valid_frame(const uint8_t *luma, int width, int height, size_t stride) {
    return luma && width > 0 && height > 0 && stride >= size_t(width);
}

cv::Mat roi_mat(const uint8_t *luma, size_t stride, cv::Rect roi) {
    // OpenCV wants a non-const pointer; the ROI is only read.
    return cv::Mat(roi.height, roi.width, CV_8UC1, const_cast<uint8_t *>(luma + roi.y * stride + roi.x), stride);
}

/// Scans the ROI at full resolution with zbar's own sampling density, choosing the cheapest correct way to hand it
/// to zbar (which has no row stride).
int scan_full(lv_barcode_scanner *s, ZBar &z, const uint8_t *luma, int width, int height, size_t stride,
              cv::Rect roi, Output &out) {
    if (stride == size_t(width) || roi.y + roi.height < height) {
        // No copy: zbar is handed the ROI's band of whole rows with the row stride as its width, and a crop to the
        // ROI's columns; its scan lines read only the crop. The band is in bounds: with a tight stride it ends at
        // the frame's end; otherwise it ends before the last row, the only row that may be shorter than a stride (a
        // view holds stride * (height - 1) + width bytes).
        Mapping map{1, 1, 0, double(roi.y)};
        return scan_plane(s, z, luma + size_t(roi.y) * stride, int(stride), roi.height,
                          cv::Rect(roi.x, 0, roi.width, roi.height), map, roi, out);
    }
    // Padded rows down to the last row: copy the ROI tight into scratch (reused across frames) so zbar never reads
    // past the caller's buffer. Cheap next to the scan itself (one memcpy per row).
    cv::Mat tight = reuse(s->still_plane, roi.height, roi.width);
    roi_mat(luma, stride, roi).copyTo(tight);
    Mapping map{1, 1, double(roi.x), double(roi.y)};
    return scan_plane(s, z, tight.data, tight.cols, tight.rows, cv::Rect(0, 0, tight.cols, tight.rows), map, roi, out);
}

/// The part of a `cols` x `rows` plane zbar's QR reader must scan to see the finder patterns `candidates`: their
/// bounding box, each centre widened by 9 modules and 4 px (the pattern's half-size, 3.5 modules, then quiet zone
/// for zbar's edge detector to settle on), so that zbar's horizontal and vertical scan lines cross every pattern
/// whole. zbar's decoder then samples the code wherever it lies. (A 6-module reach lost a perspective-tilted code at
/// 3.6 px per module in the secure QR corpus.)
cv::Rect finder_crop(const std::vector<lv::qr_finder::Candidate> &candidates, int cols, int rows) {
    float left = float(cols), top = float(rows), right = 0, bottom = 0;
    for (const auto &c : candidates) {
        float reach = 9.0f * c.module + 4.0f;
        left = std::min(left, c.x - reach);
        top = std::min(top, c.y - reach);
        right = std::max(right, c.x + reach);
        bottom = std::max(bottom, c.y + reach);
    }
    cv::Rect box(cv::Point(int(std::floor(left)), int(std::floor(top))),
                 cv::Point(int(std::ceil(right)) + 1, int(std::ceil(bottom)) + 1));
    return box & cv::Rect(0, 0, cols, rows);
}

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
int scan_frame(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride, cv::Rect roi,
               Output &out) {
    int n = 0;
    if (linear_enabled(s)) {
        if (s->density_x == 1 && s->density_y == 1) {
            s->linear.density(1, 1);
            n = scan_full(s, s->linear, luma, width, height, stride, roi, out);
            if (n < 0) return n;
        } else {
            cv::Mat source = roi_mat(luma, stride, roi);
            int dy = s->density_y;
            if (dy > 0 && roi.height / dy >= 1) {
                s->linear.density(0, 1);
                if (dy == 1) {
                    n = scan_full(s, s->linear, luma, width, height, stride, roi, out);
                } else {
                    cv::Mat rows = reuse(s->rows_plane, roi.height / dy, roi.width);
                    cv::resize(source(cv::Rect(0, 0, roi.width, rows.rows * dy)), rows, rows.size(), 0, 0,
                               cv::INTER_AREA);
                    Mapping map{1, double(dy), double(roi.x), double(roi.y)};
                    n = scan_plane(s, s->linear, rows.data, rows.cols, rows.rows, cv::Rect(0, 0, rows.cols, rows.rows),
                                   map, roi, out);
                }
                if (n < 0) return n;
            }
            int dx = s->density_x;
            if (dx > 0 && roi.width / dx >= 1) {
                s->linear.density(1, 0);
                if (dx == 1) {
                    n = scan_full(s, s->linear, luma, width, height, stride, roi, out);
                } else {
                    cv::Mat columns = reuse(s->columns_plane, roi.height, roi.width / dx);
                    cv::resize(source(cv::Rect(0, 0, columns.cols * dx, roi.height)), columns, columns.size(), 0, 0,
                               cv::INTER_AREA);
                    Mapping map{double(dx), 1, double(roi.x), double(roi.y)};
                    n = scan_plane(s, s->linear, columns.data, columns.cols, columns.rows,
                                   cv::Rect(0, 0, columns.cols, columns.rows), map, roi, out);
                }
                if (n < 0) return n;
            }
        }
    }
    if (s->enabled[LV_SYM_QRCODE]) {
        int f = s->qr_downscale;
        s->qr.density(1, 1);
        if (f > 1 && (roi.width / f < 32 || roi.height / f < 32)) f = 1;
        // The plane zbar reads QR codes on, the part of it that is the ROI, and how its pixels map to the frame's.
        cv::Mat plane;
        cv::Rect area;
        Mapping map{double(f), double(f), double(roi.x), double(roi.y)};
        if (f == 1) {
            // Full resolution as it is: smoothing (a 3x3 Gaussian or median) lost a 3 px-module code here. As in
            // scan_full, zbar is given the ROI's band of whole rows, or a tight copy when rows are padded down to the
            // frame's last row.
            if (stride == size_t(width) || roi.y + roi.height < height) {
                plane = cv::Mat(roi.height, int(stride), CV_8UC1, const_cast<uint8_t *>(luma + size_t(roi.y) * stride));
                area = cv::Rect(roi.x, 0, roi.width, roi.height);
                map = Mapping{1, 1, 0, double(roi.y)};
            } else {
                plane = reuse(s->still_plane, roi.height, roi.width);
                roi_mat(luma, stride, roi).copyTo(plane);
                area = cv::Rect(0, 0, plane.cols, plane.rows);
            }
        } else {
            plane = reuse(s->qr_plane, roi.height / f, roi.width / f);
            cv::resize(roi_mat(luma, stride, roi)(cv::Rect(0, 0, plane.cols * f, plane.rows * f)), plane,
                       plane.size(), 0, 0, cv::INTER_AREA);
            // A light 3x3 Gaussian (sigma 0.9) on the shrunk plane removes most of the noise edges (measured: -30%
            // time on noisy 1080p frames, every corpus code still read).
            cv::GaussianBlur(plane, plane, cv::Size(3, 3), 0.9, 0.9, cv::BORDER_REPLICATE);
            area = cv::Rect(0, 0, plane.cols, plane.rows);
        }
        cv::Rect crop = area;
        if (s->qr_prefilter) {
            int found = lv::qr_finder::locate(plane(area), s->finder);
            if (found == 0) return out.count;  // no finder pattern: zbar's QR reader would find none either
            if (found >= 3) crop = finder_crop(s->finder.candidates, area.width, area.height) + area.tl();
        }
        n = scan_plane(s, s->qr, plane.data, plane.cols, plane.rows, crop, map, roi, out);
        if (n < 0) return n;
    }
    return out.count;
}

/// A still image (or an upscaled or enhanced copy of one, as `map` says) at density 1, with both scanners.
int scan_still_plane(lv_barcode_scanner *s, const uint8_t *pixels, int w, int h, Mapping map, cv::Rect roi,
                     Output &out) {
    s->linear.density(1, 1);
    s->qr.density(1, 1);
    int n = 0;
    if (linear_enabled(s)) n = scan_plane(s, s->linear, pixels, w, h, cv::Rect(0, 0, w, h), map, roi, out);
    if (n >= 0 && s->enabled[LV_SYM_QRCODE])
        n = scan_plane(s, s->qr, pixels, w, h, cv::Rect(0, 0, w, h), map, roi, out);
    return n < 0 ? n : out.count;
}

ZBar &scanner_for(lv_barcode_scanner *s, int symbology) { return symbology == LV_SYM_QRCODE ? s->qr : s->linear; }

}  // namespace

extern "C" lv_barcode_scanner *lv_barcode_scanner_create(void) {
    try {
        auto *s = new lv_barcode_scanner();
        if (!s->linear.create() || !s->qr.create()) {
            delete s;
            return nullptr;
        }
        for (int sym : kSymbols) {
            zbar_image_scanner_set_config(scanner_for(s, sym).scanner, zbar_symbol_type_t(sym), ZBAR_CFG_ENABLE, 1);
            s->enabled[sym] = true;
        }
        return s;
    } catch (...) {
        return nullptr;
    }
}

extern "C" void lv_barcode_scanner_destroy(lv_barcode_scanner *scanner) {
    try {
        delete scanner;
    } catch (...) {
    }
}

extern "C" int lv_barcode_scanner_disable_all(lv_barcode_scanner *s) {
    return guarded([&] {
        if (!s) return -EINVAL;
        zbar_image_scanner_set_config(s->linear.scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
        zbar_image_scanner_set_config(s->qr.scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
        std::fill(std::begin(s->enabled), std::end(s->enabled), false);
        return 0;
    });
}

extern "C" int lv_barcode_scanner_configure(lv_barcode_scanner *s, int symbology, int enable, int min_length,
                                            int max_length) {
    return guarded([&] {
        if (!s) return -EINVAL;
        if (std::find(std::begin(kZXingOnly), std::end(kZXingOnly), symbology) != std::end(kZXingOnly)) {
            s->enabled[symbology] = enable != 0;
            if (min_length >= 0) s->min_length[symbology] = min_length;
            if (max_length >= 0) s->max_length[symbology] = max_length;
            return 0;
        }
        if (!known_symbol(symbology)) return -EINVAL;
        auto type = zbar_symbol_type_t(symbology);
        zbar_image_scanner_t *z = scanner_for(s, symbology).scanner;
        if (zbar_image_scanner_set_config(z, type, ZBAR_CFG_ENABLE, enable ? 1 : 0) != 0) return -EINVAL;
        s->enabled[symbology] = enable != 0;
        // zbar decodes UPC-A and ISBNs only as special cases of EAN-13 (a leading 0, a 978/979 prefix): with EAN-13
        // disabled it reads none of them. So zbar's EAN-13 decoder runs whenever any of the four is wanted, and
        // scan_plane drops EAN-13 results unless EAN-13 itself is wanted.
        bool ean_family = s->enabled[LV_SYM_EAN13] || s->enabled[LV_SYM_UPCA] || s->enabled[LV_SYM_ISBN10] ||
                          s->enabled[LV_SYM_ISBN13];
        zbar_image_scanner_set_config(s->linear.scanner, ZBAR_EAN13, ZBAR_CFG_ENABLE, ean_family ? 1 : 0);
        // zbar accepts lengths only for its variable-length decoders and refuses them (non-zero) for the others;
        // those are enforced by our own filter in scan_plane, so the refusal is ignored.
        if (min_length >= 0) {
            zbar_image_scanner_set_config(z, type, ZBAR_CFG_MIN_LEN, min_length);
            s->min_length[symbology] = min_length;
        }
        if (max_length >= 0) {
            zbar_image_scanner_set_config(z, type, ZBAR_CFG_MAX_LEN, max_length);
            s->max_length[symbology] = max_length;
        }
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

extern "C" int lv_barcode_scanner_set_qr_prefilter(lv_barcode_scanner *s, int enable) {
    return guarded([&] {
        if (!s) return -EINVAL;
        s->qr_prefilter = enable != 0;
        return 0;
    });
}

extern "C" int lv_barcode_scan(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride,
                               int roi_x, int roi_y, int roi_w, int roi_h, lv_barcode_result *results,
                               int max_results, uint8_t *data, size_t data_capacity) {
    return guarded([&] {
        if (!s || !valid_frame(luma, width, height, stride) || !results || max_results < 0 || !data) return -EINVAL;
        cv::Rect roi = clamp_roi(width, height, roi_x, roi_y, roi_w, roi_h);
        if (roi.empty()) return 0;
        Output out{results, max_results, data, data_capacity};
        return scan_frame(s, luma, width, height, stride, roi, out);
    });
}

extern "C" int lv_barcode_scan_still(lv_barcode_scanner *s, const uint8_t *luma, int width, int height,
                                     size_t stride, int roi_x, int roi_y, int roi_w, int roi_h,
                                     lv_barcode_result *results, int max_results, uint8_t *data,
                                     size_t data_capacity) {
    return guarded([&] {
        if (!s || !valid_frame(luma, width, height, stride) || !results || max_results < 0 || !data) return -EINVAL;
        cv::Rect roi = clamp_roi(width, height, roi_x, roi_y, roi_w, roi_h);
        if (roi.empty()) return 0;
        Output out{results, max_results, data, data_capacity};
        // Full resolution, every row and column: a tight copy of the ROI (stills are not a hot path).
        cv::Mat source = roi_mat(luma, stride, roi);
        cv::Mat tight = reuse(s->still_plane, roi.height, roi.width);
        source.copyTo(tight);
        int n = scan_still_plane(s, tight.data, tight.cols, tight.rows, Mapping{1, 1, double(roi.x), double(roi.y)},
                                 roi, out);
        if (n != 0) return n;
        // Small codes: zbar's edge detector needs a few pixels per module; a bilinear 2x upscale gives it that.
        // Bounded so a large photo does not become a huge scratch plane.
        if (double(roi.width) * roi.height <= 4096.0 * 4096.0 / 4) {
            cv::Mat big = reuse(s->rows_plane, roi.height * 2, roi.width * 2);
            cv::resize(source, big, big.size(), 0, 0, cv::INTER_LINEAR);
            n = scan_still_plane(s, big.data, big.cols, big.rows, Mapping{0.5, 0.5, double(roi.x), double(roi.y)}, roi,
                                 out);
            if (n != 0) return n;
        }
        // Dim, washed-out or noisy photos: smooth sensor noise, then stretch the histogram to the full range.
        cv::Mat enhanced = reuse(s->columns_plane, roi.height, roi.width);
        cv::GaussianBlur(source, enhanced, cv::Size(0, 0), 1.0);
        cv::normalize(enhanced, enhanced, 0, 255, cv::NORM_MINMAX);
        return scan_still_plane(s, enhanced.data, enhanced.cols, enhanced.rows,
                                Mapping{1, 1, double(roi.x), double(roi.y)}, roi, out);
    });
}

extern "C" const char *lv_barcode_symbology_name(int symbology) {
    try {
        return zbar_get_symbol_name(zbar_symbol_type_t(symbology));
    } catch (...) {
        return "";
    }
}
