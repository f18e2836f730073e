// The QR finder-pattern locator behind qr_finder.hpp.
#include "qr_finder.hpp"

#include "lv_barcode.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace lv::qr_finder {
namespace {

/// Grey levels between a finder's dark centre and the light rings beside it, at the least. Sensor noise left after
/// the smoothing the scanner applies (σ 1-2) moves a run's mean by a few levels; a printed code under a camera
/// shows tens of levels even when dim.
constexpr int kMinContrast = 20;

/// Dark/light classification of a plane against its local threshold, looked up on the shrunk threshold plane.
struct Classifier {
    const cv::Mat &plane;
    const cv::Mat &threshold;
    int shift;  // log2 of the threshold plane's shrink factor

    bool dark(int x, int y) const {
        return plane.ptr<uint8_t>(y)[x] < threshold.ptr<uint8_t>(y >> shift)[x >> shift];
    }
};

/// Whether five consecutive runs (dark, light, dark, light, dark) are in a finder pattern's 1:1:3:1:1 proportion:
/// with a unit of total / 7, each 1-unit run within 0.75 unit of it and the centre within 1.5 units of 3. (Integer
/// arithmetic: the row scan asks this at many dark-run ends of a noisy plane.)
bool finder_proportion(const int runs[5]) {
    if (runs[2] < 3) return false;
    int total = runs[0] + runs[1] + runs[2] + runs[3] + runs[4];
    // |run - total/7| < 0.75 total/7  <=>  |28 run - 4 total| < 3 total
    for (int i : {0, 1, 3, 4})
        if (runs[i] == 0 || std::abs(28 * runs[i] - 4 * total) >= 3 * total) return false;
    // |centre - 3 total/7| < 1.5 total/7  <=>  |14 centre - 6 total| < 3 total
    return std::abs(14 * runs[2] - 6 * total) < 3 * total;
}

/// Whether the five runs ending before column `end` of `row` are a printed pattern rather than noise or a soft
/// texture around the local threshold: the centre run's mean is at least kMinContrast grey levels below the mean of the
/// two light runs beside it.
bool contrasted(const uint8_t *row, int end, const int runs[5]) {
    int light_start = end - runs[4] - runs[3] - runs[2] - runs[1];
    int centre_start = light_start + runs[1];
    int centre_end = centre_start + runs[2];
    int light = 0, centre = 0;
    for (int x = light_start; x < centre_start; ++x) light += row[x];
    for (int x = centre_start; x < centre_end; ++x) centre += row[x];
    for (int x = centre_end; x < centre_end + runs[3]; ++x) light += row[x];
    return light * runs[2] - centre * (runs[1] + runs[3]) >= kMinContrast * runs[2] * (runs[1] + runs[3]);
}

/// Measures the five runs of a finder pattern along the line through (x, y) in direction (dx, dy), starting inside
/// the centre run; each run may be at most `limit` pixels long. On success, `centre` is the position of the centre
/// run's middle along the line (as an offset from (x, y)) and `total` the pattern's length.
bool cross_check(const Classifier &c, int x, int y, int dx, int dy, int limit, float &centre, int &total) {
    int cols = c.plane.cols;
    int rows = c.plane.rows;
    auto inside = [&](int i) { return x + i * dx >= 0 && x + i * dx < cols && y + i * dy >= 0 && y + i * dy < rows; };
    auto dark = [&](int i) { return c.dark(x + i * dx, y + i * dy); };
    if (!dark(0)) return false;
    // Backwards: the rest of the centre run, a light run, a dark run.
    int back[3] = {0, 0, 0};
    int i = 0;
    while (inside(i) && dark(i) && back[0] <= limit) back[0]++, i--;
    while (inside(i) && !dark(i) && back[1] <= limit) back[1]++, i--;
    while (inside(i) && dark(i) && back[2] <= limit) back[2]++, i--;
    int forward[3] = {0, 0, 0};
    i = 1;
    while (inside(i) && dark(i) && forward[0] <= limit) forward[0]++, i++;
    while (inside(i) && !dark(i) && forward[1] <= limit) forward[1]++, i++;
    while (inside(i) && dark(i) && forward[2] <= limit) forward[2]++, i++;
    int runs[5] = {back[2], back[1], back[0] + forward[0], forward[1], forward[2]};
    for (int run : runs)
        if (run > limit) return false;
    if (!finder_proportion(runs)) return false;
    // The centre run covers offsets -(back[0] - 1) ... forward[0].
    centre = float(forward[0] - back[0] + 1) / 2.0f;
    total = runs[0] + runs[1] + runs[2] + runs[3] + runs[4];
    return true;
}

/// Adds a confirmed pattern to the candidates, merging it with one found on a nearby row. False when the list is
/// full.
bool add(std::vector<Candidate> &candidates, float x, float y, float module) {
    for (Candidate &known : candidates) {
        float reach = 2.0f * std::max(known.module, module);
        if (std::fabs(known.x - x) <= reach && std::fabs(known.y - y) <= reach) {
            float weight = float(known.hits);
            known.x = (known.x * weight + x) / (weight + 1);
            known.y = (known.y * weight + y) / (weight + 1);
            known.module = (known.module * weight + module) / (weight + 1);
            known.hits += 1;
            return true;
        }
    }
    if (candidates.size() >= kMaxCandidates) return false;
    candidates.push_back(Candidate{x, y, module, 1});
    return true;
}

/// Averages `plane` over blocks of 2^shift x 2^shift pixels (partial blocks at the right and bottom edges over the
/// pixels they hold) into `out`, rows of `out_cols` bytes.
void shrink_average(const cv::Mat &plane, int shift, uint8_t *out, int out_cols, std::vector<uint32_t> &sums) {
    int block = 1 << shift;
    int full = plane.cols >> shift;  // output columns whose block is whole
    sums.assign(size_t(out_cols), 0);
    uint32_t *sum = sums.data();
    for (int y = 0; y < plane.rows; ++y) {
        const uint8_t *p = plane.ptr<uint8_t>(y);
        if (block == 4) {
            for (int x = 0; x < full; ++x) sum[x] += uint32_t(p[4 * x] + p[4 * x + 1] + p[4 * x + 2] + p[4 * x + 3]);
            for (int x = full << 2; x < plane.cols; ++x) sum[x >> 2] += p[x];
        } else {
            for (int x = 0; x < plane.cols; ++x) sum[x >> shift] += p[x];
        }
        bool last = y + 1 == plane.rows;
        if ((y + 1) % block != 0 && !last) continue;
        int rows = y % block + 1;
        uint8_t *o = out + size_t(y >> shift) * size_t(out_cols);
        for (int x = 0; x < out_cols; ++x) {
            int cols = std::min(block, plane.cols - (x << shift));
            o[x] = uint8_t(sum[x] / uint32_t(rows * cols));
            sum[x] = 0;
        }
    }
}

/// The running `op` (min or max) over windows of 2r+1 samples of a row of `n` samples, written to `out`, the ends
/// repeated outwards; van Herk/Gil-Werman, three `op`s per sample whatever the window.
template <typename Op>
void running_row(const uint8_t *in, uint8_t *out, int n, int r, Op op, Scratch &scratch) {
    int w = 2 * r + 1;
    int padded = (n + 2 * r + w - 1) / w * w;
    scratch.line.resize(size_t(padded));
    scratch.prefix.resize(size_t(padded));
    scratch.suffix.resize(size_t(padded));
    uint8_t *e = scratch.line.data(), *g = scratch.prefix.data(), *h = scratch.suffix.data();
    for (int i = 0; i < padded; ++i) e[i] = in[std::clamp(i - r, 0, n - 1)];
    for (int b = 0; b < padded; b += w) {
        g[b] = e[b];
        for (int i = b + 1; i < b + w; ++i) g[i] = op(g[i - 1], e[i]);
        h[b + w - 1] = e[b + w - 1];
        for (int i = b + w - 2; i >= b; --i) h[i] = op(h[i + 1], e[i]);
    }
    for (int x = 0; x < n; ++x) out[x] = op(h[x], g[x + w - 1]);
}

/// The running `op` over (2r+1) x (2r+1) boxes of a `rows` x `cols` plane (tight rows), edges repeated outwards:
/// along each row, then down the columns a whole row at a time (each output row the `op` of 2r+1 rows, combined
/// pairwise so the loop over a row vectorises).
template <typename Op>
void box_filter(const uint8_t *in, uint8_t *out, int rows, int cols, int r, Op op, Scratch &scratch) {
    uint8_t *pass = scratch.pass.data();
    for (int y = 0; y < rows; ++y)
        running_row(in + ptrdiff_t(y) * cols, pass + ptrdiff_t(y) * cols, cols, r, op, scratch);
    for (int y = 0; y < rows; ++y) {
        uint8_t *o = out + ptrdiff_t(y) * cols;
        std::copy(pass + ptrdiff_t(std::max(0, y - r)) * cols, pass + ptrdiff_t(std::max(0, y - r) + 1) * cols, o);
        for (int k = y - r + 1; k <= y + r; ++k) {
            const uint8_t *q = pass + ptrdiff_t(std::clamp(k, 0, rows - 1)) * cols;
            for (int x = 0; x < cols; ++x) o[x] = op(o[x], q[x]);
        }
    }
}

}  // namespace

int locate(const cv::Mat &plane, Scratch &scratch) {
    scratch.candidates.clear();
    if (scratch.candidates.capacity() < kMaxCandidates) scratch.candidates.reserve(kMaxCandidates);
    if (plane.empty() || plane.type() != CV_8UC1) return 0;
    // The local threshold, on a 4x-shrunk copy: halfway between the darkest and the lightest grey near the pixel.
    // "Near" is first a 3x3 box of the shrunk copy (12 px): beside a finder's outer ring it sees the code's quiet
    // zone, which may be darker than a white page further away (against the page, the quiet zone would count as
    // dark and merge with the ring). Where that box holds less than kMinContrast, as inside a module wider than it,
    // a box of an eighth of the shorter side decides, wider than a finder pattern at any module size a camera frame
    // holds. (A local mean fails the same way as the wide box alone.) Min and max filters are written out here, not
    // taken from OpenCV, whose morphology allocates its filter engine on every call.
    int shift = plane.rows >= 64 && plane.cols >= 64 ? 2 : 0;
    int small_rows = ((plane.rows - 1) >> shift) + 1;
    int small_cols = ((plane.cols - 1) >> shift) + 1;
    size_t needed = size_t(small_rows) * size_t(small_cols);
    for (std::vector<uint8_t> *v : {&scratch.shrunk, &scratch.low, &scratch.high, &scratch.threshold, &scratch.pass})
        v->resize(needed);
    shrink_average(plane, shift, scratch.shrunk.data(), small_cols, scratch.sums);
    int wide = std::max(2, std::min(small_rows, small_cols) / 16);
    auto darker = [](uint8_t a, uint8_t b) { return std::min(a, b); };
    auto lighter = [](uint8_t a, uint8_t b) { return std::max(a, b); };
    box_filter(scratch.shrunk.data(), scratch.low.data(), small_rows, small_cols, wide, darker, scratch);
    box_filter(scratch.shrunk.data(), scratch.high.data(), small_rows, small_cols, wide, lighter, scratch);
    // Where even the wide box holds less than kMinContrast, no pattern can pass the contrast test: the threshold is 0
    // there, every pixel is light, and the row scan runs through without a transition (rather than through one at
    // every other pixel of sensor noise around a flat grey).
    for (size_t i = 0; i < needed; ++i) {
        int low = scratch.low[i], high = scratch.high[i];
        scratch.threshold[i] = high - low >= kMinContrast ? uint8_t((low + high + 1) / 2) : 0;
    }
    box_filter(scratch.shrunk.data(), scratch.low.data(), small_rows, small_cols, 1, darker, scratch);
    box_filter(scratch.shrunk.data(), scratch.high.data(), small_rows, small_cols, 1, lighter, scratch);
    for (size_t i = 0; i < needed; ++i)
        if (scratch.high[i] - scratch.low[i] >= kMinContrast)
            scratch.threshold[i] = uint8_t((scratch.low[i] + scratch.high[i] + 1) / 2);
    cv::Mat threshold(small_rows, small_cols, CV_8UC1, scratch.threshold.data());

    Classifier c{plane, threshold, shift};
    int cols = plane.cols;
    for (int y = 0; y < plane.rows; ++y) {
        const uint8_t *p = plane.ptr<uint8_t>(y);
        const uint8_t *m = threshold.ptr<uint8_t>(y >> shift);
        // The last five completed runs, oldest (r0) first, kept in registers; colours alternate, so when the newest
        // is dark the five are dark-light-dark-light-dark.
        int r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0;
        int completed = 0;
        bool run_dark = p[0] < m[0];
        int run_start = 0;
        for (int x = 1; x <= cols; ++x) {
            bool d = x < cols ? p[x] < m[x >> shift] : !run_dark;
            if (d == run_dark) continue;
            r0 = r1, r1 = r2, r2 = r3, r3 = r4, r4 = x - run_start;
            completed += 1;
            bool ended_dark = run_dark;
            run_dark = d;
            run_start = x;
            if (!ended_dark || completed < 5 || r2 < 3) continue;
            const int runs[5] = {r0, r1, r2, r3, r4};
            if (!finder_proportion(runs) || !contrasted(p, x, runs)) continue;
            int total = r0 + r1 + r2 + r3 + r4;
            int centre_x = x - r4 - r3 - (r2 + 1) / 2;
            float vertical_offset = 0;
            int vertical_total = 0;
            if (!cross_check(c, centre_x, y, 0, 1, total, vertical_offset, vertical_total) ||
                vertical_total * 2 < total || vertical_total > total * 2)
                continue;
            int centre_y = int(std::lround(float(y) + vertical_offset));
            float horizontal_offset = 0;
            int horizontal_total = 0;
            if (!cross_check(c, centre_x, centre_y, 1, 0, total * 2, horizontal_offset, horizontal_total)) continue;
            float module = float(horizontal_total + vertical_total) / 14.0f;
            if (!add(scratch.candidates, float(centre_x) + horizontal_offset, float(centre_y), module)) return -1;
        }
    }
    return int(scratch.candidates.size());
}

}  // namespace lv::qr_finder

extern "C" int lv_qr_finder_locate(const uint8_t *luma, int width, int height, size_t stride, float *out,
                                   int max_candidates) {
    if (!luma || width <= 0 || height <= 0 || stride < size_t(width) || max_candidates < 0 ||
        (max_candidates > 0 && !out))
        return -EINVAL;
    try {
        // OpenCV wants a non-const pointer; the plane is only read.
        cv::Mat plane(height, width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
        lv::qr_finder::Scratch scratch;
        int found = lv::qr_finder::locate(plane, scratch);
        if (found < 0) return -ERANGE;
        for (int i = 0; i < std::min(found, max_candidates); ++i) {
            const auto &c = scratch.candidates[size_t(i)];
            out[3 * i] = c.x;
            out[3 * i + 1] = c.y;
            out[3 * i + 2] = c.module;
        }
        return found;
    } catch (const std::bad_alloc &) {
        return -ENOMEM;
    } catch (...) {
        return -EIO;
    }
}
