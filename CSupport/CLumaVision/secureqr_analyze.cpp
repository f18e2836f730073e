// Secure QR analyzer behind lv_secureqr.h: from zbar's polygon to located patterns, a homography from module
// coordinates, and measurements of the secure graphic. See docs/secure-qr.md for the method and its reasons.
#include "lv_secureqr.h"
#include "lv_shim.hpp"
#include "secureqr_internal.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <new>
#include <vector>

namespace {

using lv::guarded;  // lv_shim.hpp: the one exception guard of every extern "C" entry point
using lv::sqr::apply;  // secureqr_internal.hpp: geometry shared with the authenticity scorer
using lv::sqr::quad_area;
using lv::sqr::rectify;
using lv::reuse;

/// Pixels per module of the patch the alignment pattern is searched in (after rectification).
constexpr int kPatchModulePx = 4;
/// Half the side, in modules, of the square searched around the predicted alignment centre.
constexpr double kAlignmentSearch = 2.0;
/// Lowest normalised correlation accepted for the alignment pattern.
constexpr double kAlignmentMinCorrelation = 0.55;
/// Pixels per CDP cell of the rectified secure graphic that is measured.
constexpr int kCellPx = 2;

struct Finder {
    bool ok = false;
    cv::Point2d centre;
    double module = 0;  // module side in pixels, from the pattern's area
};

double cross(cv::Point2d a, cv::Point2d b) { return a.x * b.y - a.y * b.x; }

/// The homography taking `from[i]` to `to[i]`; false when the points are degenerate.
bool fit(const cv::Point2d from[4], const cv::Point2d to[4], cv::Matx33d &h) {
    cv::Point2f a[4], b[4];
    for (int i = 0; i < 4; ++i) {
        a[i] = cv::Point2f(float(from[i].x), float(from[i].y));
        b[i] = cv::Point2f(float(to[i].x), float(to[i].y));
    }
    cv::Mat m = cv::getPerspectiveTransform(a, b, cv::DECOMP_SVD);
    if (m.empty() || !cv::checkRange(m)) return false;
    h = cv::Matx33d(m);
    return std::fabs(h(2, 2)) > 1e-12;
}

/// Bilinear sample at frame coordinates (pixel centres at integers); -1 outside the frame.
double sample(const cv::Mat &frame, cv::Point2d p) {
    if (!(p.x >= 0 && p.y >= 0 && p.x <= frame.cols - 1 && p.y <= frame.rows - 1)) return -1;
    int x0 = std::min(int(p.x), frame.cols - 2 < 0 ? 0 : frame.cols - 2);
    int y0 = std::min(int(p.y), frame.rows - 2 < 0 ? 0 : frame.rows - 2);
    int x1 = std::min(x0 + 1, frame.cols - 1), y1 = std::min(y0 + 1, frame.rows - 1);
    double fx = p.x - x0, fy = p.y - y0;
    const uint8_t *r0 = frame.ptr<uint8_t>(y0), *r1 = frame.ptr<uint8_t>(y1);
    double top = r0[x0] * (1 - fx) + r0[x1] * fx;
    double bottom = r1[x0] * (1 - fx) + r1[x1] * fx;
    return top * (1 - fy) + bottom * fy;
}

double median(std::vector<double> &values) {
    if (values.empty()) return -1;
    auto middle = values.begin() + long(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

}  // namespace

struct lv_sqr_analyzer {
    cv::Mat window;  // binarised search window (finders)
    std::vector<std::vector<cv::Point>> contours;
    std::vector<cv::Vec4i> hierarchy;
    cv::Mat patch, match;  // alignment search
    cv::Mat alignment_template;
    cv::Mat big, rectified, normalised, gx, gy;  // secure-graphic measurement
    std::vector<double> samples;

    lv_sqr_analyzer() {
        // The alignment pattern (5 x 5 modules: dark ring, light ring, dark centre) at kPatchModulePx.
        int side = 5 * kPatchModulePx;
        alignment_template.create(side, side, CV_8UC1);
        for (int v = 0; v < side; ++v)
            for (int u = 0; u < side; ++u) {
                double dx = std::fabs((u + 0.5) / kPatchModulePx - 2.5);
                double dy = std::fabs((v + 0.5) / kPatchModulePx - 2.5);
                double ring = std::max(dx, dy);
                alignment_template.at<uint8_t>(v, u) = (ring >= 1.5 || ring < 0.5) ? 0 : 255;
            }
        samples.reserve(64);
        contours.reserve(256);
        hierarchy.reserve(256);
    }
};

namespace {

/// Looks for a finder pattern near the polygon corner `c`, whose neighbours along the code's edges are `a` and `b`:
/// binarises (Otsu) the window spanning 42 % of each edge from the corner, and takes the contour nested three deep
/// (dark ring, light ring, dark core) whose area ratios fit 7:5:3 modules and that lies nearest to where a finder's
/// centre would be.
Finder find_finder(lv_sqr_analyzer *s, const cv::Mat &frame, cv::Point2d c, cv::Point2d a, cv::Point2d b) {
    Finder result;
    cv::Point2d ea = a - c, eb = b - c;
    double edge = std::min(std::hypot(ea.x, ea.y), std::hypot(eb.x, eb.y));
    if (edge < 12) return result;
    double lo = -0.06, hi = 0.42;
    cv::Point2d corners[4] = {c + lo * ea + lo * eb, c + hi * ea + lo * eb, c + hi * ea + hi * eb, c + lo * ea + hi * eb};
    double min_x = 1e18, min_y = 1e18, max_x = -1e18, max_y = -1e18;
    for (auto &p : corners) {
        min_x = std::min(min_x, p.x);
        min_y = std::min(min_y, p.y);
        max_x = std::max(max_x, p.x);
        max_y = std::max(max_y, p.y);
    }
    cv::Rect rect(int(std::floor(min_x)), int(std::floor(min_y)), int(std::ceil(max_x - min_x)) + 2,
                  int(std::ceil(max_y - min_y)) + 2);
    rect &= cv::Rect(0, 0, frame.cols, frame.rows);
    if (rect.width < 8 || rect.height < 8) return result;
    cv::Mat binary = reuse(s->window, rect.height, rect.width, CV_8UC1);
    cv::threshold(frame(rect), binary, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
    s->contours.clear();
    s->hierarchy.clear();
    cv::findContours(binary, s->contours, s->hierarchy, cv::RETR_TREE, cv::CHAIN_APPROX_SIMPLE);

    cv::Point2d expected = c + 0.11 * (ea + eb) - cv::Point2d(rect.x, rect.y);
    double best = 0.2 * edge;
    const auto &h = s->hierarchy;
    for (size_t i = 0; i < s->contours.size(); ++i) {
        if (h[i][2] < 0) continue;
        double outer = cv::contourArea(s->contours[i]);
        double module = (std::sqrt(outer) + 1) / 7;
        if (module < 1 || 7 * module > 0.5 * edge || 7 * module < 0.03 * edge) continue;
        cv::Moments mo = cv::moments(s->contours[i]);
        if (mo.m00 <= 0) continue;
        cv::Point2d centre(mo.m10 / mo.m00, mo.m01 / mo.m00);
        double distance = std::hypot(centre.x - expected.x, centre.y - expected.y);
        if (distance >= best) continue;
        for (int j = h[i][2]; j >= 0; j = h[size_t(j)][0]) {
            if (h[size_t(j)][2] < 0) continue;
            double hole = cv::contourArea(s->contours[size_t(j)]);
            if (hole <= 0 || outer / hole < 1.15 || outer / hole > 3.2) continue;
            bool matched = false;
            for (int k = h[size_t(j)][2]; k >= 0; k = h[size_t(k)][0]) {
                double core = cv::contourArea(s->contours[size_t(k)]);
                if (core < 2 || hole / core < 1.4 || hole / core > 7.5) continue;
                cv::Moments mk = cv::moments(s->contours[size_t(k)]);
                if (mk.m00 <= 0) continue;
                cv::Point2d inner(mk.m10 / mk.m00, mk.m01 / mk.m00);
                if (std::hypot(inner.x - centre.x, inner.y - centre.y) > 1.0 * module + 1) continue;
                matched = true;
                break;
            }
            if (!matched) continue;
            best = distance;
            result.ok = true;
            result.centre = centre + cv::Point2d(rect.x, rect.y);
            result.module = module;
            break;
        }
    }
    return result;
}

/// The share of timing-pattern modules (row 6 and column 6 between the finders) that read as they must for a code of
/// `n` modules mapped by `h`, thresholded at the samples' own mean (the pattern is half dark).
double timing_score(lv_sqr_analyzer *s, const cv::Mat &frame, const cv::Matx33d &h, int n) {
    auto &values = s->samples;
    values.clear();
    for (int j = 8; j <= n - 9; ++j) values.push_back(sample(frame, apply(h, j + 0.5, 6.5)));
    for (int j = 8; j <= n - 9; ++j) values.push_back(sample(frame, apply(h, 6.5, j + 0.5)));
    double sum = 0;
    int count = 0;
    for (double v : values)
        if (v >= 0) {
            sum += v;
            ++count;
        }
    if (count < 4) return 0;
    double threshold = sum / count;
    int correct = 0;
    int per_line = n - 16;
    for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] < 0) continue;
        int j = 8 + int(i) % per_line;
        bool dark = values[i] < threshold;
        if (dark == (j % 2 == 0)) ++correct;
    }
    return double(correct) / count;
}

/// Searches the alignment pattern within kAlignmentSearch modules of module coordinates (cx, cy) by normalised
/// correlation with its template on a patch rectified through `h`. Stores the centre in module coordinates.
bool find_alignment(lv_sqr_analyzer *s, const cv::Mat &frame, const cv::Matx33d &h, double cx, double cy,
                    cv::Point2d &found) {
    const double half = 2.5 + kAlignmentSearch;
    double x0 = cx - half, y0 = cy - half;
    int side = int(std::lround(2 * half * kPatchModulePx));
    cv::Mat patch = reuse(s->patch, side, side, CV_8UC1);
    cv::Matx33d t(1.0 / kPatchModulePx, 0, x0 + 0.5 / kPatchModulePx, 0, 1.0 / kPatchModulePx,
                  y0 + 0.5 / kPatchModulePx, 0, 0, 1);
    cv::Matx33d m = h * t;
    cv::warpPerspective(frame, patch, cv::Mat(m), patch.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                        cv::BORDER_REPLICATE);
    int result_side = side - s->alignment_template.cols + 1;
    cv::Mat match = reuse(s->match, result_side, result_side, CV_32FC1);
    cv::matchTemplate(patch, s->alignment_template, match, cv::TM_CCOEFF_NORMED);
    double peak;
    cv::Point at;
    cv::minMaxLoc(match, nullptr, &peak, nullptr, &at);
    if (!(peak >= kAlignmentMinCorrelation)) return false;
    // Sub-pixel peak: a parabola through the peak and its neighbours on each axis.
    auto offset = [](float left, float centre, float right) {
        float d = left - 2 * centre + right;
        return std::fabs(d) < 1e-6f ? 0.0 : double(0.5f * (left - right) / d);
    };
    double px = at.x, py = at.y;
    if (at.x > 0 && at.x < match.cols - 1)
        px += offset(match.at<float>(at.y, at.x - 1), match.at<float>(at.y, at.x), match.at<float>(at.y, at.x + 1));
    if (at.y > 0 && at.y < match.rows - 1)
        py += offset(match.at<float>(at.y - 1, at.x), match.at<float>(at.y, at.x), match.at<float>(at.y + 1, at.x));
    found = cv::Point2d(x0 + px / kPatchModulePx + 2.5, y0 + py / kPatchModulePx + 2.5);
    return true;
}

/// Measures the rectified secure graphic (kCellPx per cell; its module grid starts half a module in).
void measure(lv_sqr_analyzer *s, const cv::Mat &region, int cells_per_module, lv_sqr_analysis *out) {
    double contrast = std::max(1.0, out->light - out->dark);
    cv::Mat r = reuse(s->normalised, region.rows, region.cols, CV_32FC1);
    region.convertTo(r, CV_32F, 1.0 / contrast, -out->dark / contrast);
    out->mean_level = cv::mean(r)[0];

    int block = kCellPx * cells_per_module;
    int start = block / 2;
    int bx = (r.cols - start) / block, by = (r.rows - start) / block;
    double sum = 0, sum2 = 0, within = 0;
    int count = 0;
    for (int j = 0; j < by; ++j)
        for (int i = 0; i < bx; ++i) {
            cv::Scalar mean, deviation;
            cv::meanStdDev(r(cv::Rect(start + i * block, start + j * block, block, block)), mean, deviation);
            sum += mean[0];
            sum2 += mean[0] * mean[0];
            within += deviation[0] * deviation[0];
            ++count;
        }
    if (count > 0) {
        double m = sum / count;
        out->module_energy = std::max(0.0, sum2 / count - m * m);
        out->cell_energy = within / count;
    }

    cv::Mat gx = reuse(s->gx, r.rows, r.cols, CV_32FC1);
    cv::Mat gy = reuse(s->gy, r.rows, r.cols, CV_32FC1);
    cv::Sobel(r, gx, CV_32F, 1, 0, 3, 1.0 / 8, 0, cv::BORDER_REPLICATE);
    cv::Sobel(r, gy, CV_32F, 0, 1, 3, 1.0 / 8, 0, cv::BORDER_REPLICATE);
    if (r.cols > 2 && r.rows > 2) {
        cv::Rect inner(1, 1, r.cols - 2, r.rows - 2);
        double energy = gx(inner).dot(gx(inner)) + gy(inner).dot(gy(inner));
        out->sharpness = energy / double(inner.area());
    }
}

int analyze(lv_sqr_analyzer *s, const cv::Mat &frame, const float *polygon, const lv_sqr_design &design,
            lv_sqr_analysis *out) {
    cv::Point2d q[4];
    for (int i = 0; i < 4; ++i) q[i] = cv::Point2d(polygon[2 * i], polygon[2 * i + 1]);

    // 1. A finder pattern at three of the polygon's corners; the fourth corner is the bottom-right one.
    Finder finders[4];
    int count = 0;
    for (int i = 0; i < 4; ++i) {
        finders[i] = find_finder(s, frame, q[i], q[(i + 1) % 4], q[(i + 3) % 4]);
        if (finders[i].ok) ++count;
    }
    // zbar lists a QR code's corners starting at the top-left one and going round the code (either way); with four
    // candidates, trust that order.
    int missing = -1;
    if (count == 4) {
        missing = 2;
    } else if (count == 3) {
        for (int i = 0; i < 4; ++i)
            if (!finders[i].ok) missing = i;
    }
    if (missing < 0) {
        // Report what was found by zbar's corner order (top-left first, bottom-right opposite).
        int bits = 0;
        if (finders[0].ok) bits |= LV_SQR_FOUND_TOP_LEFT;
        if (finders[1].ok || finders[3].ok) bits |= LV_SQR_FOUND_TOP_RIGHT;
        if (finders[1].ok && finders[3].ok) bits |= LV_SQR_FOUND_BOTTOM_LEFT;
        out->found = bits;
        return 0;
    }
    int tl = (missing + 2) % 4;
    int na = (tl + 1) % 4, nb = (tl + 3) % 4;
    // In the image (y down), top-right then bottom-left turn clockwise as seen: the cross product is positive.
    int tr = na, bl = nb;
    if (cross(finders[na].centre - finders[tl].centre, finders[nb].centre - finders[tl].centre) < 0) std::swap(tr, bl);
    const Finder &ftl = finders[tl], &ftr = finders[tr], &fbl = finders[bl];
    out->found = LV_SQR_FOUND_TOP_LEFT | LV_SQR_FOUND_TOP_RIGHT | LV_SQR_FOUND_BOTTOM_LEFT;
    cv::Point2d corner_br = q[missing];

    // 2. The version: modules between finder centres from the finders' own module size, confirmed on the timing
    // patterns through a homography fitted on the three finder centres and zbar's bottom-right corner.
    double n1 = std::hypot(ftr.centre.x - ftl.centre.x, ftr.centre.y - ftl.centre.y) / ((ftl.module + ftr.module) / 2);
    double n2 = std::hypot(fbl.centre.x - ftl.centre.x, fbl.centre.y - ftl.centre.y) / ((ftl.module + fbl.module) / 2);
    double estimate = (n1 + n2) / 2 + 7;
    int v0 = int(std::lround((estimate - 17) / 4));
    int best_n = 0;
    double best_score = 0;
    cv::Matx33d best_h;
    for (int dv : {0, -1, 1, -2, 2}) {
        int v = v0 + dv;
        if (v < 1 || v > 40) continue;
        int n = 17 + 4 * v;
        cv::Point2d from[4] = {{3.5, 3.5}, {n - 3.5, 3.5}, {3.5, n - 3.5}, {double(n), double(n)}};
        cv::Point2d to[4] = {ftl.centre, ftr.centre, fbl.centre, corner_br};
        cv::Matx33d h;
        if (!fit(from, to, h)) continue;
        double score = timing_score(s, frame, h, n);
        if (score > best_score + 1e-9) {
            best_score = score;
            best_n = n;
            best_h = h;
        }
    }
    if (best_n == 0 || best_score < 0.8) return 0;
    out->modules = best_n;
    out->version = (best_n - 17) / 4;
    int n = best_n;
    out->centres[0] = ftl.centre.x;
    out->centres[1] = ftl.centre.y;
    out->centres[2] = ftr.centre.x;
    out->centres[3] = ftr.centre.y;
    out->centres[4] = fbl.centre.x;
    out->centres[5] = fbl.centre.y;
    if (n < 25) return 0;  // version 1 has no alignment pattern

    // 3. The bottom-right alignment pattern, then the homography on the four centres.
    cv::Point2d alignment_module;
    if (!find_alignment(s, frame, best_h, n - 6.5, n - 6.5, alignment_module)) return 0;
    cv::Point2d alignment = apply(best_h, alignment_module.x, alignment_module.y);
    cv::Point2d from[4] = {{3.5, 3.5}, {n - 3.5, 3.5}, {3.5, n - 3.5}, {n - 6.5, n - 6.5}};
    cv::Point2d to[4] = {ftl.centre, ftr.centre, fbl.centre, alignment};
    cv::Matx33d h;
    if (!fit(from, to, h)) return 0;
    out->found = LV_SQR_FOUND_ALL;
    out->centres[6] = alignment.x;
    out->centres[7] = alignment.y;
    for (int i = 0; i < 9; ++i) out->homography[i] = h(i / 3, i % 3);
    const double code_corners[4][2] = {{0, 0}, {double(n), 0}, {double(n), double(n)}, {0, double(n)}};
    for (int i = 0; i < 4; ++i) {
        cv::Point2d p = apply(h, code_corners[i][0], code_corners[i][1]);
        out->code[2 * i] = p.x;
        out->code[2 * i + 1] = p.y;
    }

    // 4. The secure graphic's place and scale.
    lv_sqr_layout layout;
    if (lv_sqr_layout_for(n, &design, &layout) != 0) return 0;
    out->layout = layout;
    const double *rg = layout.region;
    cv::Point2d region[4] = {apply(h, rg[0], rg[1]), apply(h, rg[0] + rg[2], rg[1]),
                             apply(h, rg[0] + rg[2], rg[1] + rg[3]), apply(h, rg[0], rg[1] + rg[3])};
    bool inside = true;
    for (int i = 0; i < 4; ++i) {
        out->region[2 * i] = region[i].x;
        out->region[2 * i + 1] = region[i].y;
        if (!(region[i].x >= 0 && region[i].y >= 0 && region[i].x <= frame.cols - 1 && region[i].y <= frame.rows - 1))
            inside = false;
    }
    out->module_px = lv::sqr::module_pixels(h, rg[0], rg[1], rg[2], rg[3]);

    // 5. Dark and light levels: the finders' 3 x 3 cores, and the quiet zone 1.5 modules beside the finders (the
    // separators inside the code when the quiet zone is out of the frame).
    auto &values = s->samples;
    values.clear();
    const double cores[3][2] = {{3.5, 3.5}, {n - 3.5, 3.5}, {3.5, n - 3.5}};
    for (auto &core : cores)
        for (double dy : {-0.7, 0.0, 0.7})
            for (double dx : {-0.7, 0.0, 0.7}) {
                double v = sample(frame, apply(h, core[0] + dx, core[1] + dy));
                if (v >= 0) values.push_back(v);
            }
    out->dark = median(values);
    values.clear();
    for (int k = 0; k < 7; ++k) {
        double t = k + 0.5;
        const double points[4][2] = {{-1.5, t}, {t, -1.5}, {n - 7 + t, -1.5}, {-1.5, n - 7 + t}};
        for (auto &p : points) {
            double v = sample(frame, apply(h, p[0], p[1]));
            if (v >= 0) values.push_back(v);
        }
    }
    if (values.size() < 6) {
        values.clear();
        for (int k = 0; k < 7; ++k) {
            double t = k + 0.5;
            const double points[3][2] = {{7.5, t}, {n - 7.5, t}, {t, n - 7.5}};
            for (auto &p : points) {
                double v = sample(frame, apply(h, p[0], p[1]));
                if (v >= 0) values.push_back(v);
            }
        }
    }
    out->light = median(values);
    if (!inside || out->dark < 0 || out->light < 0) return 0;

    // 6. The secure graphic rectified at kCellPx per cell, half a module in from its edges (so that misregistration
    // does not mix in the modules or paper around it), anti-aliased when the frame has more pixels per cell.
    double inset = std::min(0.5, std::min(rg[2], rg[3]) / 4);
    double w = rg[2] - 2 * inset, hh = rg[3] - 2 * inset;
    int ppm = kCellPx * design.cells_per_module;
    int cols = int(std::lround(w * ppm)), rows = int(std::lround(hh * ppm));
    if (cols < 4 || rows < 4) return 0;
    cv::Mat rectified = reuse(s->rectified, rows, cols, CV_8UC1);
    int k = int(out->module_px / ppm);
    rectify(s->big, frame, h, rg[0] + inset, rg[1] + inset, w, hh, rectified, k);
    measure(s, rectified, design.cells_per_module, out);
    out->measured = 1;
    return 0;
}

}  // namespace

extern "C" int lv_sqr_analyzer_create(lv_sqr_analyzer **out) {
    if (!out) return -EINVAL;
    *out = nullptr;
    return guarded([&] {
        *out = new lv_sqr_analyzer();
        return 0;
    });
}

extern "C" void lv_sqr_analyzer_destroy(lv_sqr_analyzer *analyzer) { delete analyzer; }

extern "C" int lv_sqr_analyze(lv_sqr_analyzer *analyzer, const uint8_t *luma, int width, int height, size_t stride,
                              const float *polygon, int point_count, const lv_sqr_design *design,
                              lv_sqr_analysis *out) {
    return guarded([&] {
        if (!analyzer || !luma || width <= 0 || height <= 0 || stride < size_t(width) || !polygon || !design || !out)
            return -EINVAL;
        std::memset(out, 0, sizeof *out);
        if (design->cells_per_module < 1 || design->cells_per_module > 16) return -EINVAL;
        if (point_count != 4) return 0;
        for (int i = 0; i < 8; ++i)
            if (!std::isfinite(polygon[i])) return -EINVAL;
        // OpenCV wants a non-const pointer; the frame is only read.
        cv::Mat frame(height, width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
        return analyze(analyzer, frame, polygon, *design, out);
    });
}

extern "C" int lv_sqr_rectify(lv_sqr_analyzer *analyzer, const uint8_t *luma, int width, int height, size_t stride,
                              const double *homography, double x, double y, double w, double h, uint8_t *out,
                              int out_width, int out_height, size_t out_stride) {
    return guarded([&] {
        if (!analyzer || !luma || width <= 0 || height <= 0 || stride < size_t(width) || !homography || !out ||
            out_width <= 0 || out_height <= 0 || out_stride < size_t(out_width) || !(w > 0) || !(h > 0) ||
            !std::isfinite(x) || !std::isfinite(y))
            return -EINVAL;
        cv::Matx33d m;
        for (int i = 0; i < 9; ++i) {
            if (!std::isfinite(homography[i])) return -EINVAL;
            m(i / 3, i % 3) = homography[i];
        }
        cv::Mat frame(height, width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
        cv::Mat target(out_height, out_width, CV_8UC1, out, out_stride);
        // Frame pixels per output pixel, from the mapped output's area.
        cv::Point2d q[4] = {apply(m, x, y), apply(m, x + w, y), apply(m, x + w, y + h), apply(m, x, y + h)};
        double scale = std::sqrt(quad_area(q) / (double(out_width) * out_height));
        rectify(analyzer->big, frame, m, x, y, w, h, target, int(scale));
        return 0;
    });
}
