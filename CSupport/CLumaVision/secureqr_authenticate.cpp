// Secure QR authenticity behind lv_secureqr.h: the seed from the issuer's key (HMAC-SHA256, OpenSSL's libcrypto) and
// the comparison of a captured secure graphic with the CDP regenerated from that seed. See docs/secure-qr.md,
// "Authenticity", for the method and its reasons.
#include "lv_secureqr.h"
#include "lv_shim.hpp"
#include "secureqr_internal.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

using lv::guarded;  // lv_shim.hpp: the one exception guard of every extern "C" entry point
using lv::sqr::apply;
using lv::sqr::rectify;
using lv::reuse;

/// Pixels per CDP cell at which the secure graphic and the finder pattern are rectified and compared.
constexpr int kCellPx = 4;
/// Cells of search margin around each tile: how far the homography may misplace the secure graphic.
constexpr int kSearchCells = 2;
/// The tiles' nominal side in cells; each tile finds its own offset, which absorbs a homography that is a little off
/// in scale or rotation (hybrid fingerprint zones lie outside the patterns the homography was fitted on).
constexpr int kTileCells = 16;
/// The Gaussian blurs (sigma, in cells) tried on the finder pattern; the one that matches best is the capture's.
constexpr double kBlurSteps[] = {0, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.1, 1.3, 1.5};

}  // namespace

struct lv_sqr_authenticator {
    cv::Mat big;                                  // supersampling scratch of lv::sqr::rectify
    cv::Mat finder, finder_float;                 // the rectified finder pattern
    cv::Mat finder_template, finder_blurred;      // its ideal image, and blurred
    cv::Mat region, region_float;                 // the rectified secure graphic with kSearchCells of margin
    cv::Mat cdp_template, cdp_blurred;            // the regenerated CDP, and blurred to match
    cv::Mat coarse_region, coarse_template;       // both at half resolution, for the coarse search
    cv::Mat shifted;                              // a template tile moved to its sub-pixel offset
    std::vector<uint8_t> cells;                   // the CDP's cells
    std::vector<float> samples;                   // one tile's cell samples
};

namespace {

/// The Gaussian blur of `source` into `out` by `sigma` pixels (a copy when sigma is 0).
void blur(const cv::Mat &source, cv::Mat &out, double sigma) {
    if (sigma <= 0) {
        source.copyTo(out);
    } else {
        cv::GaussianBlur(source, out, cv::Size(0, 0), sigma, sigma, cv::BORDER_REPLICATE);
    }
}

/// Sums of a float image: of its values and of their squares (float per row, which keeps full precision over the
/// short rows of 0 ... 1 values here and lets the compiler vectorise).
struct Sums {
    double sum = 0, squares = 0;
    explicit Sums(const cv::Mat &m) {
        for (int y = 0; y < m.rows; ++y) {
            const float *p = m.ptr<float>(y);
            float r = 0, rr = 0;
            for (int x = 0; x < m.cols; ++x) {
                r += p[x];
                rr += p[x] * p[x];
            }
            sum += r;
            squares += rr;
        }
    }
};

/// The normalised cross-correlation of a window `a` with a template `b` of the same size whose sums are `bs` (0 when
/// either is flat), summed directly: the windows compared here are small, where cv::matchTemplate's DFT costs
/// milliseconds per call.
double correlation(const cv::Mat &a, const cv::Mat &b, const Sums &bs) {
    double sa = 0, sab = 0, saa = 0;
    for (int y = 0; y < a.rows; ++y) {
        const float *pa = a.ptr<float>(y), *pb = b.ptr<float>(y);
        float ra = 0, rab = 0, raa = 0;
        for (int x = 0; x < a.cols; ++x) {
            ra += pa[x];
            rab += pa[x] * pb[x];
            raa += pa[x] * pa[x];
        }
        sa += ra;
        sab += rab;
        saa += raa;
    }
    double n = double(a.rows) * a.cols;
    double cov = sab - sa * bs.sum / n, va = saa - sa * sa / n, vb = bs.squares - bs.sum * bs.sum / n;
    return va > 1e-9 && vb > 1e-9 ? cov / std::sqrt(va * vb) : 0;
}

double correlation(const cv::Mat &a, const cv::Mat &b) { return correlation(a, b, Sums(b)); }

/// The offset (x, y) within `search` at which `tile` correlates best, among `candidates` offsets from (x0, y0) in each
/// axis (clamped to the search window); with `scores`, also the correlations around it (3 x 3, row-major, -2 outside
/// the window) for a sub-pixel refinement.
double best_offset(const cv::Mat &search, const cv::Mat &tile, int x0, int y0, int candidates, cv::Point &at,
                   double *scores) {
    const Sums sums(tile);
    const int max_x = search.cols - tile.cols, max_y = search.rows - tile.rows;
    // Scores computed so far, over the candidates and one offset around them (at most 19 x 19 here).
    constexpr int kMemo = 20;
    double memo[kMemo * kMemo];
    const int span = std::min(candidates + 2, kMemo);
    std::fill(memo, memo + span * span, -3.0);
    auto score_at = [&](int x, int y) {
        if (x < 0 || y < 0 || x > max_x || y > max_y) return -2.0;
        int mx = x - x0 + 1, my = y - y0 + 1;
        bool cached = mx >= 0 && my >= 0 && mx < span && my < span;
        if (cached && memo[my * span + mx] > -3) return memo[my * span + mx];
        double score = correlation(search(cv::Rect(x, y, tile.cols, tile.rows)), tile, sums);
        if (cached) memo[my * span + mx] = score;
        return score;
    };
    double best = -2;
    at = cv::Point(std::max(0, std::min(max_x, x0)), std::max(0, std::min(max_y, y0)));
    for (int y = std::max(0, y0); y <= std::min(max_y, y0 + candidates - 1); ++y)
        for (int x = std::max(0, x0); x <= std::min(max_x, x0 + candidates - 1); ++x) {
            double score = score_at(x, y);
            if (score > best) {
                best = score;
                at = cv::Point(x, y);
            }
        }
    if (scores)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) scores[(dy + 1) * 3 + dx + 1] = score_at(at.x + dx, at.y + dy);
    return best;
}

/// The capture's blur in cells: the sigma whose blurred ideal finder pattern (modules -1 ... 8, quiet zone and
/// separator light) correlates best with the rectified top-left finder pattern.
double measure_blur(lv_sqr_authenticator *s, const cv::Mat &frame, const cv::Matx33d &h, int cells_per_module,
                    int supersample) {
    int module_px = kCellPx * cells_per_module;
    int side = 9 * module_px;
    cv::Mat finder = reuse(s->finder, side, side, CV_8UC1);
    rectify(s->big, frame, h, -1, -1, 9, 9, finder, supersample);
    cv::Mat measured = reuse(s->finder_float, side, side, CV_32FC1);
    finder.convertTo(measured, CV_32F, 1.0 / 255);
    cv::Mat ideal = reuse(s->finder_template, side, side, CV_32FC1);
    for (int v = 0; v < side; ++v) {
        float *row = ideal.ptr<float>(v);
        for (int u = 0; u < side; ++u) {
            double mx = (u + 0.5) / module_px - 1, my = (v + 0.5) / module_px - 1;
            double ring = std::max(std::fabs(mx - 3.5), std::fabs(my - 3.5));
            bool dark = ring < 3.5 && (ring >= 2.5 || ring < 1.5);
            row[u] = dark ? 0.0f : 1.0f;
        }
    }
    cv::Mat blurred = reuse(s->finder_blurred, side, side, CV_32FC1);
    double best = -2, best_sigma = 0;
    for (double sigma : kBlurSteps) {
        blur(ideal, blurred, sigma * kCellPx);
        double score = correlation(measured, blurred);
        if (score > best) {
            best = score;
            best_sigma = sigma;
        }
    }
    return best_sigma;
}

int authenticate(lv_sqr_authenticator *s, const cv::Mat &frame, const cv::Matx33d &h, int modules,
                 const lv_sqr_design &design, uint64_t seed, lv_sqr_authenticity *out) {
    lv_sqr_layout layout;
    int status = lv_sqr_layout_for(modules, &design, &layout);
    if (status != 0) return status;
    const int cpm = design.cells_per_module;
    const double *rg = layout.region;
    const double margin = double(kSearchCells) / cpm;
    // Everything compared must lie inside the frame: the secure graphic with its search margin, and the finder.
    const double extents[2][4] = {{rg[0] - margin, rg[1] - margin, rg[2] + 2 * margin, rg[3] + 2 * margin},
                                  {-1, -1, 9, 9}};
    for (const auto &e : extents) {
        const double corners[4][2] = {{e[0], e[1]}, {e[0] + e[2], e[1]}, {e[0] + e[2], e[1] + e[3]}, {e[0], e[1] + e[3]}};
        for (const auto &c : corners) {
            cv::Point2d p = apply(h, c[0], c[1]);
            if (!(p.x >= 0 && p.y >= 0 && p.x <= frame.cols - 1 && p.y <= frame.rows - 1)) return -ERANGE;
        }
    }
    out->pixels_per_cell = lv::sqr::module_pixels(h, rg[0], rg[1], rg[2], rg[3]) / cpm;
    const int supersample = int(out->pixels_per_cell / kCellPx);

    // 1. The capture's blur, on the finder pattern (which a copy reproduces as well as an original).
    out->blur = measure_blur(s, frame, h, cpm, supersample);

    // 2. The secure graphic with its margin, and the template blurred to match.
    const int cx = layout.cells_x, cy = layout.cells_y;
    const int cols = (cx + 2 * kSearchCells) * kCellPx, rows = (cy + 2 * kSearchCells) * kCellPx;
    cv::Mat region = reuse(s->region, rows, cols, CV_8UC1);
    rectify(s->big, frame, h, rg[0] - margin, rg[1] - margin, rg[2] + 2 * margin, rg[3] + 2 * margin, region,
            supersample);
    cv::Mat captured = reuse(s->region_float, rows, cols, CV_32FC1);
    region.convertTo(captured, CV_32F, 1.0 / 255);
    s->cells.resize(size_t(cx) * size_t(cy));
    status = lv_sqr_cdp_cells(seed, cx, cy, s->cells.data());
    if (status < 0) return status;
    cv::Mat sharp = reuse(s->cdp_template, cy * kCellPx, cx * kCellPx, CV_32FC1);
    for (int v = 0; v < sharp.rows; ++v) {
        float *row = sharp.ptr<float>(v);
        const uint8_t *cells = s->cells.data() + size_t(v / kCellPx) * size_t(cx);
        for (int u = 0; u < sharp.cols; ++u) row[u] = cells[u / kCellPx] ? 0.0f : 1.0f;
    }
    cv::Mat templ = reuse(s->cdp_blurred, sharp.rows, sharp.cols, CV_32FC1);
    blur(sharp, templ, out->blur * kCellPx);

    // 3. Tile by tile: the best offset within the search margin, its correlation, and the cells read there.
    cv::Mat coarse_captured = reuse(s->coarse_region, rows / 2, cols / 2, CV_32FC1);
    cv::resize(captured, coarse_captured, coarse_captured.size(), 0, 0, cv::INTER_AREA);
    cv::Mat coarse_templ = reuse(s->coarse_template, templ.rows / 2, templ.cols / 2, CV_32FC1);
    cv::resize(templ, coarse_templ, coarse_templ.size(), 0, 0, cv::INTER_AREA);
    const int tx = std::max(1, (cx + kTileCells / 2) / kTileCells), ty = std::max(1, (cy + kTileCells / 2) / kTileCells);
    double weighted = 0;
    long compared = 0, errors = 0;
    for (int j = 0; j < ty; ++j)
        for (int i = 0; i < tx; ++i) {
            const int a0 = cx * i / tx, a1 = cx * (i + 1) / tx, b0 = cy * j / ty, b1 = cy * (j + 1) / ty;
            const int tw = a1 - a0, th = b1 - b0;
            cv::Mat tile = templ(cv::Rect(a0 * kCellPx, b0 * kCellPx, tw * kCellPx, th * kCellPx));
            cv::Mat search = captured(cv::Rect(a0 * kCellPx, b0 * kCellPx, (tw + 2 * kSearchCells) * kCellPx,
                                               (th + 2 * kSearchCells) * kCellPx));
            // Coarse to fine: every offset within the margin at half resolution, then the three whole pixels
            // around it, then a fraction of a pixel (a parabola through the peak and its neighbours on each axis)
            // with the template tile moved there: at 4 pixels per cell, a whole-pixel offset can be an eighth of a
            // cell off.
            const int half = kCellPx / 2;
            cv::Mat coarse_tile = coarse_templ(cv::Rect(a0 * half, b0 * half, tw * half, th * half));
            cv::Mat coarse_search = coarse_captured(
                cv::Rect(a0 * half, b0 * half, (tw + 2 * kSearchCells) * half, (th + 2 * kSearchCells) * half));
            cv::Point coarse;
            double scores[9];
            best_offset(coarse_search, coarse_tile, 0, 0, 2 * kSearchCells * half + 1, coarse, nullptr);
            cv::Point at;
            double peak = best_offset(search, tile, 2 * coarse.x - 1, 2 * coarse.y - 1, 3, at, scores);
            auto offset = [](double left, double centre, double right) {
                if (left < -1 || right < -1) return 0.0;
                double d = left - 2 * centre + right;
                return std::fabs(d) < 1e-9 ? 0.0 : std::max(-0.5, std::min(0.5, 0.5 * (left - right) / d));
            };
            double dx = offset(scores[3], scores[4], scores[5]), dy = offset(scores[1], scores[4], scores[7]);
            if (dx != 0 || dy != 0) {
                cv::Mat shifted = reuse(s->shifted, tile.rows, tile.cols, CV_32FC1);
                cv::warpAffine(tile, shifted, cv::Matx23d(1, 0, dx, 0, 1, dy), shifted.size(), cv::INTER_LINEAR,
                               cv::BORDER_REPLICATE);
                double refined = correlation(search(cv::Rect(at.x, at.y, tile.cols, tile.rows)), shifted);
                if (refined > peak) peak = refined;
            }
            weighted += peak * tw * th;
            // Each cell's level: the mean of its central 2 x 2 pixels at the matched offset.
            auto &samples = s->samples;
            samples.clear();
            for (int b = 0; b < th; ++b)
                for (int a = 0; a < tw; ++a) {
                    int x = at.x + a * kCellPx + kCellPx / 2 - 1, y = at.y + b * kCellPx + kCellPx / 2 - 1;
                    const float *r0 = search.ptr<float>(y), *r1 = search.ptr<float>(y + 1);
                    samples.push_back(0.25f * (r0[x] + r0[x + 1] + r1[x] + r1[x + 1]));
                }
            // The CDP is about half dark: the tile's mean separates dark cells from light ones whatever the lighting.
            float threshold = 0;
            for (float v : samples) threshold += v;
            threshold /= float(samples.size());
            for (int b = 0; b < th; ++b)
                for (int a = 0; a < tw; ++a) {
                    bool dark = samples[size_t(b * tw + a)] < threshold;
                    bool expected = s->cells[size_t(b0 + b) * size_t(cx) + size_t(a0 + a)] != 0;
                    if (dark != expected) ++errors;
                }
            compared += long(tw) * th;
        }
    out->ncc = compared > 0 ? weighted / double(compared) : 0;
    out->bit_error_rate = compared > 0 ? double(errors) / double(compared) : 0.5;
    out->cells = int32_t(compared);
    out->tiles = tx * ty;
    return 0;
}

}  // namespace

extern "C" int lv_sqr_seed_from_key(const uint8_t *key, size_t key_length, const uint8_t *payload,
                                    size_t payload_length, uint64_t *seed) {
    return guarded([&] {
        if (!key || key_length == 0 || key_length > size_t(INT_MAX) || (!payload && payload_length > 0) || !seed)
            return -EINVAL;
        static const uint8_t empty = 0;
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int length = 0;
        if (!HMAC(EVP_sha256(), key, int(key_length), payload ? payload : &empty, payload_length, digest, &length) ||
            length < 8)
            return -EIO;
        uint64_t value = 0;
        for (int i = 0; i < 8; ++i) value = (value << 8) | digest[i];
        *seed = value;
        return 0;
    });
}

extern "C" int lv_sqr_authenticator_create(lv_sqr_authenticator **out) {
    if (!out) return -EINVAL;
    *out = nullptr;
    return guarded([&] {
        *out = new lv_sqr_authenticator();
        return 0;
    });
}

extern "C" void lv_sqr_authenticator_destroy(lv_sqr_authenticator *authenticator) { delete authenticator; }

extern "C" int lv_sqr_authenticate(lv_sqr_authenticator *authenticator, const uint8_t *luma, int width, int height,
                                   size_t stride, const double *homography, int modules, const lv_sqr_design *design,
                                   uint64_t seed, lv_sqr_authenticity *out) {
    return guarded([&] {
        if (!authenticator || !lv::valid(luma, width, height, stride) || !homography || !design || !out)
            return -EINVAL;
        std::memset(out, 0, sizeof *out);
        cv::Matx33d h;
        for (int i = 0; i < 9; ++i) {
            if (!std::isfinite(homography[i])) return -EINVAL;
            h(i / 3, i % 3) = homography[i];
        }
        // OpenCV wants a non-const pointer; the frame is only read.
        cv::Mat frame(height, width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
        return authenticate(authenticator, frame, h, modules, *design, seed, out);
    });
}
