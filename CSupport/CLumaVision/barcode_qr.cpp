// The QR pass over camera frames (lv_barcode_scan): zbar on a shrunk plane, around the finder patterns the prefilter
// (qr_finder.hpp) located, small codes read again at full resolution, and the codes seen but not read noted for
// lv_barcode_scanner_unread_qr. Still images take barcode.cpp's passes.
#include "barcode_internal.hpp"
#include "lv_mat.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace lv::barcode;

namespace {

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

/// A finder pattern counts towards a group only when this many rows of the shrunk plane confirmed it: a real finder's
/// centre band spans at least 3 modules (4-7 rows at 2 px per module measured on simulated captures), a texture's
/// chance 1:1:3:1:1 run mostly one or two.
constexpr int kGroupMinHits = 2;
/// At most this many groups are read at full resolution per frame, so a frame of false candidates costs a bounded
/// amount.
constexpr int kMaxGroups = 2;

/// How well three finder candidates (`corner` the top-left one) make the corner of a QR code: the sides to the other
/// two similar in length (within 1:1.7, a 30-degree tilt foreshortens one side by 13 %) and at 60-120 degrees, at
/// least 7 and at most 180 modules long, the module sizes within 1:1.6. Lower is better; negative when they do not.
double corner_score(const lv::qr_finder::Candidate &corner, const lv::qr_finder::Candidate &a,
                    const lv::qr_finder::Candidate &b) {
    float ax = a.x - corner.x, ay = a.y - corner.y, bx = b.x - corner.x, by = b.y - corner.y;
    double la = std::hypot(ax, ay), lb = std::hypot(bx, by);
    double module = (corner.module + a.module + b.module) / 3;
    double smallest = std::min({corner.module, a.module, b.module});
    double largest = std::max({corner.module, a.module, b.module});
    if (la <= 0 || lb <= 0 || largest > 1.6 * smallest) return -1;
    if (std::min(la, lb) < 7 * module || std::max(la, lb) > 180 * module) return -1;
    double ratio = std::max(la, lb) / std::min(la, lb);
    double cosine = (ax * bx + ay * by) / (la * lb);
    if (ratio > 1.7 || std::fabs(cosine) > 0.5) return -1;
    return std::fabs(cosine) + std::log(ratio);
}

/// A code-shaped group of three finder candidates (indices into `s->finder.candidates`, `corner` the one at the
/// right angle).
struct FinderGroup {
    int corner = -1, a = -1, b = -1;
};

/// Picks up to kMaxGroups triples of the finder candidates in `s->finder` that make a code's corner (corner_score;
/// best first, no candidate used twice, each confirmed on kGroupMinHits rows or more) into `groups`; returns how many.
int finder_groups(lv_barcode_scanner *s, FinderGroup *groups) {
    const auto &all = s->finder.candidates;
    int count = 0;
    std::vector<bool> &used = s->finder_used;
    used.assign(all.size(), false);
    for (int round = 0; round < kMaxGroups; ++round) {
        double best = -1;
        FinderGroup found;
        for (size_t c = 0; c < all.size(); ++c) {
            if (used[c] || all[c].hits < kGroupMinHits) continue;
            for (size_t a = 0; a < all.size(); ++a) {
                if (a == c || used[a] || all[a].hits < kGroupMinHits) continue;
                for (size_t b = a + 1; b < all.size(); ++b) {
                    if (b == c || used[b] || all[b].hits < kGroupMinHits) continue;
                    double score = corner_score(all[c], all[a], all[b]);
                    if (score >= 0 && (best < 0 || score < best)) {
                        best = score;
                        found = FinderGroup{int(c), int(a), int(b)};
                    }
                }
            }
        }
        if (best < 0) break;
        used[size_t(found.corner)] = used[size_t(found.a)] = used[size_t(found.b)] = true;
        groups[count++] = found;
    }
    return count;
}

/// Notes the code each group would be (lv_barcode_scanner_unread_qr) on the plane whose ROI part `area` the finder
/// search ran on, `map` taking that plane's pixels to the frame's: the three finder centres are a code's module
/// centres (3.5, 3.5), (n - 3.5, 3.5) and (3.5, n - 3.5), so its corners lie 3.5 modules beyond them along both sides.
void note_unread_groups(lv_barcode_scanner *s, const FinderGroup *groups, int count, cv::Point area, Mapping map) {
    const auto &all = s->finder.candidates;
    s->unread_qr_count = 0;
    for (int g = 0; g < count && g < 2; ++g) {
        const auto &c = all[size_t(groups[g].corner)], &a = all[size_t(groups[g].a)], &b = all[size_t(groups[g].b)];
        const double module = (c.module + a.module + b.module) / 3;
        const double ux = a.x - c.x, uy = a.y - c.y, vx = b.x - c.x, vy = b.y - c.y;
        const double lu = std::hypot(ux, uy), lv = std::hypot(vx, vy);
        // Half a finder (3.5 modules) along each side, as a share of the side between the centres.
        const double ku = 3.5 * module / lu, kv = 3.5 * module / lv;
        const double xs[4] = {c.x - ku * ux - kv * vx, a.x + ku * ux - kv * vx, a.x + b.x - c.x + ku * ux + kv * vx,
                              b.x - ku * ux + kv * vx};
        const double ys[4] = {c.y - ku * uy - kv * vy, a.y + ku * uy - kv * vy, a.y + b.y - c.y + ku * uy + kv * vy,
                              b.y - ku * uy + kv * vy};
        float *out = s->unread_qr[s->unread_qr_count++];
        for (int i = 0; i < 4; ++i) {
            out[2 * i] = map.x(xs[i] + area.x);
            out[2 * i + 1] = map.y(ys[i] + area.y);
        }
        out[8] = float(module * map.scale_x);
    }
}

/// Reads the full-resolution frame (`width` x `height`) around `groups` of the shrunk plane's finder candidates (in
/// `s->finder`, found on the ROI shrunk by `f`): each cropped with its fourth corner and 6 modules around, read by
/// zbar and, when zbar reads nothing there, by ZXing-C++. Returns the number of codes read.
int read_finder_groups(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride, cv::Rect roi,
                       int f, const FinderGroup *best, int groups) {
    const auto &all = s->finder.candidates;
    int read = 0;
    for (int g = 0; g < groups; ++g) {
        const auto &c = all[size_t(best[g].corner)], &a = all[size_t(best[g].a)], &b = all[size_t(best[g].b)];
        float module = (c.module + a.module + b.module) / 3;
        float reach = 6.0f * module + 2.0f;
        float xs[4] = {c.x, a.x, b.x, a.x + b.x - c.x}, ys[4] = {c.y, a.y, b.y, a.y + b.y - c.y};
        float left = *std::min_element(xs, xs + 4) - reach, right = *std::max_element(xs, xs + 4) + reach;
        float top = *std::min_element(ys, ys + 4) - reach, bottom = *std::max_element(ys, ys + 4) + reach;
        // Shrunk-plane coordinates (pixel centres at +0.5 of the plane's pixels) to frame pixels.
        cv::Rect full(cv::Point(int(std::floor(left * float(f))), int(std::floor(top * float(f)))),
                      cv::Point(int(std::ceil(right * float(f))) + f, int(std::ceil(bottom * float(f))) + f));
        full = (full + roi.tl()) & roi;
        if (full.width < 16 || full.height < 16) continue;
        int n = scan_full(s, s->qr, luma, width, height, stride, full, kZBar);
        if (n == 0)
            n = zxing_read(s, luma + size_t(full.y) * stride + size_t(full.x), full.width, full.height, stride,
                           ZXingKind::kQR, false, Mapping{1, 1, double(full.x), double(full.y), 0}, roi, kZXing);
        if (n < 0) return n;
        read += n;
    }
    return read;
}

}  // namespace

namespace lv::barcode {

/// Whether `plane` may hold a QR code zbar can read: the finder locator finds too many candidates to tell, or three
/// that make a code's corner (corner_score; a photo's text and texture give single candidates, rarely a corner).
bool may_hold_qr(const cv::Mat &plane, lv::qr_finder::Scratch &finder) {
    const int found = lv::qr_finder::locate(plane, finder);
    if (found < 0) return true;
    const auto &all = finder.candidates;
    for (size_t c = 0; c < all.size(); ++c)
        for (size_t a = 0; a < all.size(); ++a)
            for (size_t b = a + 1; b < all.size(); ++b)
                if (a != c && b != c && corner_score(all[c], all[a], all[b]) >= 0) return true;
    return false;
}

/// zbar's QR pass over a camera frame's ROI (see scan_frame).
int scan_frame_qr(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride, cv::Rect roi) {
    int n = 0;
    {
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
                plane = lv::reuse(s->still_plane, roi.height, roi.width);
                roi_mat(luma, stride, roi).copyTo(plane);
                area = cv::Rect(0, 0, plane.cols, plane.rows);
            }
        } else {
            plane = lv::reuse(s->qr_plane, roi.height / f, roi.width / f);
            cv::resize(roi_mat(luma, stride, roi)(cv::Rect(0, 0, plane.cols * f, plane.rows * f)), plane,
                       plane.size(), 0, 0, cv::INTER_AREA);
            // A light 3x3 Gaussian (sigma 0.9) on the shrunk plane removes most of the noise edges (measured: -30%
            // time on noisy 1080p frames, every corpus code still read).
            cv::GaussianBlur(plane, plane, cv::Size(3, 3), 0.9, 0.9, cv::BORDER_REPLICATE);
            area = cv::Rect(0, 0, plane.cols, plane.rows);
        }
        cv::Rect crop = area;
        int found = -1;
        if (s->qr_prefilter) {
            found = lv::qr_finder::locate(plane(area), s->finder);
            if (found == 0) return 0;  // no finder pattern: zbar's QR reader would find none either
            if (found >= 3) crop = finder_crop(s->finder.candidates, area.width, area.height) + area.tl();
        }
        n = scan_plane(s, s->qr, plane.data, plane.cols, plane.rows, crop, map, roi, kZBar);
        FinderGroup groups[kMaxGroups];
        int group_count = 0, read_groups = 0;
        if (n == 0 && found >= 3 && s->qr_full_resolution) {
            group_count = finder_groups(s, groups);
            // Small codes (see lv_barcode_scanner_set_qr_full_resolution): each code-shaped group of finder patterns
            // read again at full resolution.
            if (f > 1) {
                n = read_finder_groups(s, luma, width, height, stride, roi, f, groups, group_count);
                read_groups = group_count;
            }
        }
        if (n == 0 && found >= 3 && read_groups == 0) {
            // Finder patterns but no code: ZXing-C++ reads the full-resolution crop around them. It decodes what zbar
            // does not: a structured-append part on its own (zbar keeps parts until it sees the whole sequence in
            // one frame), and codes whose modules the shrunk plane blurred away.
            cv::Rect full((crop.x - area.x) * f + roi.x, (crop.y - area.y) * f + roi.y, crop.width * f,
                          crop.height * f);
            full &= roi;
            if (!full.empty())
                n = zxing_read(s, luma + size_t(full.y) * stride + size_t(full.x), full.width, full.height, stride,
                               ZXingKind::kQR, false, Mapping{1, 1, double(full.x), double(full.y), 0}, roi, kZXing);
        }
        if (n == 0 && group_count > 0) note_unread_groups(s, groups, group_count, area.tl(), map);
    }
    return n;
}

}  // namespace lv::barcode
