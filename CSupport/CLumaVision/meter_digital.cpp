// The meter reader's seven-segment reader (meter_internal.hpp): digit boxes in the binary stroke map, each read by
// probing its seven segments.
#include "meter_internal.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#ifdef LV_METER_CELL_HOOK
/// scripts/seven-segment/compare.sh builds its harness with this defined (never the library): it receives each cell
/// of a reading, the working image (after deslanting), the cell's box and the segment probes' digit and confidence.
void LV_METER_CELL_HOOK(const cv::Mat &image, bool lightOnDark, int index, int count, double left, double top,
                        double width, double height, int digit, double confidence);
#endif

namespace lv_meter_detail {

// MARK: Seven-segment displays

/// The slant of the digits of `row` in the binary stroke map: the shear (horizontal shift per pixel up from the row's
/// centre line; positive when the digits lean right) under which the row's stroke pixels pile up into the fewest,
/// fullest columns. Vertical segments then stand upright; horizontal ones fill the same columns under any shear.
/// Out of line so that the fuzz build can leave this arithmetic kernel out of its coverage (Fuzz/coverage-ignore.txt).
[[gnu::noinline]] static double findSlant(lv_meter &m, const Row &row) {
    if (row.members.empty()) return 0;
    const int x0 = std::max(0, row.members.front().x);
    const int x1 = std::min(m.binary.cols, row.members.back().x + row.members.back().w);
    const int height = int(std::ceil(row.height));
    if (x1 - x0 < 4 || height < 4) return 0;
    const int margin = int(std::ceil(kMaxSlant * height / 2)) + 1;
    // The lit pixels along the (tilted) row, gathered once: each one's column in m.slantColumns before the shear and
    // its height above the row's centre line. Rounding half away from zero, as std::lround, without its call.
    m.slantPixels.clear();
    for (int x = x0; x < x1; ++x) {
        const double yc = row.centre + row.shift(x);
        const int y0 = std::max(0, int(yc - row.height / 2)), y1 = std::min(m.binary.rows, y0 + height);
        for (int y = y0; y < y1; ++y)
            if (m.binary.at<uint8_t>(y, x)) m.slantPixels.push_back({x - x0 + margin, yc - y});
    }
    double best = -1, bestShear = 0;
    for (int k = -2; k <= kSlantSteps; ++k) {
        const double shear = kMaxSlant * k / kSlantSteps;
        m.slantColumns.assign(size_t(x1 - x0 + 2 * margin), 0);
        for (const SlantPixel &p : m.slantPixels) {
            const double offset = shear * p.above;
            ++m.slantColumns[size_t(p.column - (offset >= 0 ? int(offset + 0.5) : -int(0.5 - offset)))];
        }
        double score = 0;
        for (const int c : m.slantColumns) score += double(c) * c;
        if (score > best) {
            best = score;
            bestShear = shear;
        }
    }
    return bestShear;
}

/// The bounding box of the blob of lit pixels (8-connected) of the binary stroke map through `seed`, traced within
/// `window` only; empty when `seed` is not lit. The map is left as it was (visited pixels are marked, then restored).
static cv::Rect traceBlob(lv_meter &m, cv::Point seed, cv::Rect window) {
    constexpr uint8_t kVisited = 1;  // the map holds 0 and 255
    int area = 0;
    const cv::Rect box = flood(m, m.binary, seed, 255, kVisited, window, area);
    const int cols = m.binary.cols;
    if (!box.empty())
        for (const int index : m.traced) m.binary.at<uint8_t>(index / cols, index % cols) = 255;
    return box;
}

/// A least-squares line y = at0 + slope x through the points added.
struct LineFit {
    double n = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
    void add(double x, double y) {
        n += 1;
        sx += x;
        sxx += x * x;
        sy += y;
        sxy += x * y;
    }
    /// The line, into `slope` and `at0`; false (both left as they were) through fewer than two distinct x.
    bool solve(double &slope, double &at0) const {
        const double det = n * sxx - sx * sx;
        if (n < 2 || det <= 1e-9) return false;
        slope = (n * sxy - sx * sy) / det;
        at0 = (sy - slope * sx) / n;
        return true;
    }
};

/// The homography that rectifies a display seen from the side, into m.rectification: the lines along the tops and the
/// bottoms of `row`'s digits bound a trapezoid that it maps onto a rectangle as tall as the digits' mean height, level
/// about the row's centre. The lines are fitted by least squares to the members as tall as digits (kPerspectiveDigits
/// or more, or kFewPerspectiveDigits whose widths grow with their heights), then again without those more than a
/// tenth of the row's height off either line (a point joined below a digit, a "4" or a "7" whose blob ends short of a
/// line). False when the digits are nearly equally tall from end to end (kMinPerspective), too few, or the lines fit
/// them badly.
[[gnu::noinline]] static bool findPerspective(lv_meter &m, const Row &row) {
    double topSlope = 0, topAt0 = 0, bottomSlope = 0, bottomAt0 = 0;
    // A member's distance from the top line and from the bottom line.
    auto off = [&](const Blob &b, double &top, double &bottom) {
        top = b.y - (topAt0 + topSlope * b.cx());
        bottom = b.y + b.h - (bottomAt0 + bottomSlope * b.cx());
    };
    // Fits both lines to the members as tall as digits, and with `trim`, only to those near the lines fitted before;
    // returns how many it fitted them to (0 when they cannot be fitted).
    auto fit = [&](bool trim) {
        LineFit tops, bottoms;
        for (const Blob &b : row.members) {
            if (b.h < 0.7 * row.height) continue;
            double top, bottom;
            off(b, top, bottom);
            if (trim && std::max(std::fabs(top), std::fabs(bottom)) > 0.1 * row.height) continue;
            tops.add(b.cx(), b.y);
            bottoms.add(b.cx(), b.y + b.h);
        }
        if (!tops.solve(topSlope, topAt0) || !bottoms.solve(bottomSlope, bottomAt0)) return 0;
        return int(tops.n);
    };
    const int fitted = fit(false);
    if (fitted < kFewPerspectiveDigits) return false;
    const int trimmed = fit(true);
    if (trimmed < kFewPerspectiveDigits - 1) return false;
    // The ends and the fit, over the members near the lines fitted now, and the widths of those that are no "1".
    double first = 1e18, last = -1e18, residual = 0;
    int near = 0;
    LineFit widths;
    for (const Blob &b : row.members) {
        double top, bottom;
        off(b, top, bottom);
        if (b.h < 0.7 * row.height || std::max(std::fabs(top), std::fabs(bottom)) > 0.1 * row.height) continue;
        first = std::min(first, b.cx());
        last = std::max(last, b.cx());
        residual += top * top + bottom * bottom;
        ++near;
        if (b.w >= 0.35 * row.height) widths.add(b.cx(), b.w);
    }
    if (near < kFewPerspectiveDigits - 1) return false;
    const double h0 = (bottomAt0 + bottomSlope * first) - (topAt0 + topSlope * first);
    const double h1 = (bottomAt0 + bottomSlope * last) - (topAt0 + topSlope * last);
    if (h0 <= 0 || h1 <= 0 || last - first < row.height) return false;
    const double mean = (h0 + h1) / 2;
    if (std::fabs(h1 - h0) < kMinPerspective * mean || std::sqrt(residual / (2 * near)) > 0.08 * mean) return false;
    // Perspective widens the near digits as much as it makes them taller (more: they are foreshortened less), and
    // few members tell it only when their widths agree: heights that change along a row of equally wide digits are
    // a point joined under a digit or strokes lost to the threshold (2.994: the 2 with its point taller, the 4
    // shorter, as wide; rectified, the 2 read as a 1).
    if (fitted < kPerspectiveDigits || trimmed < kPerspectiveDigits - 1 || near < kPerspectiveDigits - 1) {
        double slope = 0, at0 = 0;
        if (!widths.solve(slope, at0)) return false;
        const double w0 = at0 + slope * first, w1 = at0 + slope * last;
        const double taller = (h1 - h0) / (h0 + h1), wider = (w1 - w0) / (w0 + w1);
        if ((taller > 0 ? wider : -wider) < kPerspectiveWidth * std::fabs(taller)) return false;
    }
    const double centre = ((topAt0 + bottomAt0) + (topSlope + bottomSlope) * (first + last) / 2) / 2;
    const cv::Point2d from[4] = {{first, topAt0 + topSlope * first},
                                 {last, topAt0 + topSlope * last},
                                 {last, bottomAt0 + bottomSlope * last},
                                 {first, bottomAt0 + bottomSlope * first}};
    const cv::Point2d to[4] = {
        {first, centre - mean / 2}, {last, centre - mean / 2}, {last, centre + mean / 2}, {first, centre + mean / 2}};
    m.rectification = homography(from, to);
    return true;
}

/// Reads the seven-segment row of the current binary map into `out`, or with `rectified`, of the working image warped
/// by m.rectification (which the reading without it found); returns whether the row's digits show a display seen
/// from the side (findPerspective, which leaves its homography in m.rectification), for the reading without it.
static bool readRow(lv_meter &m, bool lightOnDark, Reading &out, bool rectified) {
    out = Reading();
    out.mode = LV_METER_MODE_DIGITAL;
    out.lightOnDark = lightOnDark;
    Row &row = m.row;
    // Slanted digits are read upright: the working image sheared about the row's centre line, for this reading only
    // (the other polarity and the counter reader start from the image as it was).
    struct Restore {
        lv_meter &m;
        bool swapped = false, rectified = false;
        ~Restore() {
            if (swapped) std::swap(m.smooth, m.upright);
            if (rectified) std::swap(m.smooth, m.rectified);
        }
    } restore{m};
    // A display seen from the side, read rectified: its far digits as tall as its near ones, on one level row.
    if (rectified) {
        cv::warpPerspective(m.smooth, m.rectified, m.rectification, m.smooth.size(), cv::INTER_LINEAR,
                            cv::BORDER_REPLICATE);
        std::swap(m.smooth, m.rectified);
        restore.rectified = true;
        out.rectified = true;
        strokeMap(m, lightOnDark, odd(0.6 * m.smooth.rows), 0);
        binarise(m);
    }
    if (!findRow(m, row, true, 0.0, 0.95, 0.25, 4.0)) return false;
    const bool perspective = !rectified && findPerspective(m, row);
    const double slant = findSlant(m, row);
    m.firstBlobs.clear();
    if (perspective) m.firstBlobs.assign(m.blobs.begin(), m.blobs.end());
    if (std::fabs(slant) >= kMinSlant) {
        const double yc = (row.top + row.bottom) / 2;
        const cv::Matx23d shear(1, slant, -slant * yc, 0, 1, 0);
        for (Blob &b : m.firstBlobs) b.x = int(std::lround(b.x + slant * (b.cy() - yc)));
        cv::warpAffine(m.smooth, m.upright, shear, m.smooth.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        std::swap(m.smooth, m.upright);
        restore.swapped = true;
    }
    // Again with the background also closed by a square a little wider than the strokes, now that their size is
    // known: glare on the display, which the row-wise closing leaves in, joins digits into one blob or hides them
    // under the threshold. (The row-wise closing is the caller's, still in m.closed, unless the image was sheared.)
    strokeMap(m, lightOnDark, restore.swapped ? odd(0.6 * m.smooth.rows) : 0, 0, odd(kSquare * row.height));
    binarise(m);
    if (!findRow(m, row, true, 0.0, 0.95, 0.25, 4.0)) return perspective;
    // The display's border is no segment: a roll or a tilt brings it into the top or bottom segment's probe of a
    // digit at one end (a 4 under it read as a 9, a 1 as a 7). Its pixels leave the stroke map that the probes read;
    // the binary map keeps them, where the edges beside the digits refuse a "1".
    if (m.hasBorder) {
        cv::subtract(m.binary, m.borderless, m.borderMask);
        m.strokes.setTo(0, m.borderMask);
    }
    const double h = row.height;
    // Each member's right edge above the decimal point's height: a lit point next to a digit joins its blob.
    for (Blob &b : row.members) {
        const double shift = row.shift(b.cx());
        const int top = std::max(b.y, int(row.top + shift)), bottom = int(row.bottom + shift - kPointHeight * h);
        if (bottom <= top) continue;
        cv::reduce(m.binary(cv::Rect(b.x, top, b.w, bottom - top)), m.boxed, 0, cv::REDUCE_MAX);
        const uint8_t *columns = m.boxed.ptr<uint8_t>(0);
        int right = b.w;
        while (right > 1 && !columns[right - 1]) --right;
        b.w = right;
    }
    // Digit width: the median of the members that are not a narrow "1"; of a row of ones, a usual digit's (digits
    // are 0.4-0.7 as wide as tall), wide enough that ones a pitch apart are one digit apart.
    m.scratch.clear();
    for (const Blob &b : row.members)
        if (b.w > 0.35 * h) m.scratch.push_back(b.w);
    const double wd = m.scratch.empty() ? kOnesWidth * h : median(m.scratch);
    // Digit pitch: the median step between right edges of neighbours one digit apart.
    m.scratch.clear();
    for (size_t i = 1; i < row.members.size(); ++i) {
        const double step = (row.members[i].x + row.members[i].w) - (row.members[i - 1].x + row.members[i - 1].w);
        if (step > wd && step < 2 * wd) m.scratch.push_back(step);
    }
    const double pitch = m.scratch.empty() ? 1.3 * wd : median(m.scratch);

    // Cells: each member's right edge is its digit's (every digit lights b or c); members wider than a digit are
    // neighbours that touch, split at the pitch.
    struct Cell {
        double left;
        bool split;        // one of the digits a wide member was split into
        double inset = 0;  // how far left of `left` its digit is read (a near, wide digit: centred on it)
        double at() const { return left - inset; }
    };
    constexpr int kMaxCandidates = 2 * LV_METER_MAX_DIGITS;
    Cell candidates[kMaxCandidates];
    int candidateCount = 0;
    for (const Blob &b : row.members) {
        const double right = b.x + b.w;
        int n = 1;
        // A member much wider than a digit holds two or more that touch (a "1" next to a lit point and the next
        // digit, say): one more digit for each pitch or part of one beyond the digit's width. A member taller than
        // the row is a near digit that perspective makes larger, as much wider: split, its left strokes read as a
        // "1" of their own before it.
        // Perspective widens the near end's digits more than the median: a member no wider than 1.25 times its
        // nearest neighbour of a digit's width (not a "1") is one digit too (a near 6 split as "16").
        double near = std::clamp(b.h / h, 1.0, 1.4);
        {
            const size_t at = size_t(&b - row.members.data());
            double neighbour = 0;
            for (const size_t k : {at - 1, at + 1})
                if (k < row.members.size() && row.members[k].w > 0.35 * h)
                    neighbour = neighbour > 0 ? std::min(neighbour, double(row.members[k].w)) : row.members[k].w;
            near = std::max(near, std::min(1.4, neighbour / wd));
        }
        if (b.w > 1.25 * wd * near) n = 1 + int(std::ceil((b.w - 1.25 * wd * near) / pitch));
        // A near digit, wider than the median one and its strokes as tall as the row, that no other digit was
        // split from, is read from a cell centred on it: one flush with its right edge would leave its left strokes
        // outside the left probes (a near 8 read as a 3). A member widened by a lit point before the digit is not:
        // its left columns are lit only at the bottom.
        auto leftStrokeTall = [&] {
            const int x1 = b.x + std::max(1, b.w / 6);
            int top = b.y + b.h, bottom = b.y - 1;
            for (int y = b.y; y < b.y + b.h; ++y)
                for (int x = b.x; x < x1; ++x)
                    if (m.binary.at<uint8_t>(y, x)) {
                        top = std::min(top, y);
                        bottom = std::max(bottom, y);
                    }
            return bottom - top + 1 >= 0.6 * b.h;
        };
        const bool wideNear = b.h >= 0.95 * h && b.w > kNearWidth * wd && leftStrokeTall();
        int kept = 0;
        for (int k = n - 1; k >= 0 && candidateCount < kMaxCandidates; --k) {
            const double inset = k == 0 && kept == 0 && wideNear ? std::min(0.5 * (b.w - wd), kNearInset * wd) : 0;
            const Cell cell{right - k * pitch - wd, k > 0, inset};
            // A split-off digit where the previous member already put one (a wide member that is a digit joined
            // with a lit point or glare beside it) is that digit.
            if (candidateCount > 0 && cell.left - candidates[candidateCount - 1].left < 0.5 * pitch) {
                if (cell.split) continue;
                if (candidates[candidateCount - 1].split) --candidateCount;
            }
            candidates[candidateCount++] = cell;
            kept += k > 0;
        }
    }
    // The digits of a reading are consecutive, one pitch apart: cells a whole number of pitches apart belong to one
    // run (a digit whose blob was lost in between gets a cell of its own), and the run with the most cells is the
    // reading; cells off that grid (a blob in the background, beside the display) are not part of it.
    int bestStart = 0, bestEnd = 0, bestCells = 0;
    for (int start = 0; start < candidateCount;) {
        int end = start + 1;
        while (end < candidateCount) {
            const double steps = (candidates[end].left - candidates[end - 1].left) / pitch;
            const double whole = std::round(steps);
            if (whole < 1 || whole > 3 || std::fabs(steps - whole) > 0.3) break;
            ++end;
        }
        if (end - start > bestCells) {
            bestCells = end - start;
            bestStart = start;
            bestEnd = end;
        }
        start = end;
    }
    Cell cells[LV_METER_MAX_DIGITS];
    int cellCount = 0;
    for (int i = bestStart; i < bestEnd && cellCount < LV_METER_MAX_DIGITS; ++i) {
        if (i > bestStart) {
            const double step = candidates[i].left - candidates[i - 1].left;
            const int whole = int(std::lround(step / pitch));
            for (int k = 1; k < whole && cellCount < LV_METER_MAX_DIGITS; ++k)
                cells[cellCount++] = Cell{candidates[i - 1].left + k * step / whole, false};
        }
        if (cellCount < LV_METER_MAX_DIGITS) cells[cellCount++] = candidates[i];
    }
    // Stroke width: the median of the short vertical runs of stroke pixels across the members' middle columns, which
    // cross the horizontal segments.
    m.scratch.clear();
    for (const Blob &b : row.members) {
        if (b.w < 0.35 * h) continue;  // a "1" has no horizontal segment
        for (int x = b.x + b.w / 3; x < b.x + b.w - b.w / 3; ++x) {
            int run = 0;
            for (int y = b.y; y <= b.y + b.h; ++y) {
                if (y < b.y + b.h && m.binary.at<uint8_t>(y, x)) {
                    ++run;
                } else {
                    if (run > 0 && run < 0.3 * h) m.scratch.push_back(run);
                    run = 0;
                }
            }
        }
    }
    const double stroke = std::clamp(m.scratch.empty() ? 0.13 * h : median(m.scratch), 0.06 * h, 0.22 * h);
    // Segment probes (fractions of the cell), in the order a b c d e f g; the last value says whether the segment is
    // horizontal. A horizontal segment's probe spans only the columns between the vertical segments, and a vertical
    // one's only the rows between the horizontal segments, with a pixel to spare: with thick strokes and narrow
    // digits, fixed probes reach into the neighbouring segments (a "0" read as "8", a "5" as "9").
    double segmentProbe[7][5];
    {
        const double inU = std::min(0.42, (stroke + 1) / wd + 0.03), inV = (stroke + 1) / h + 0.02;
        const double upper0 = std::min(0.24, inV), upper1 = std::max(0.32, 0.5 - (stroke / 2 + 1) / h - 0.02);
        const double lower0 = 1 - upper1, lower1 = 1 - upper0;
        const double probes[7][5] = {
            {inU, -0.06, 1 - inU, 0.26, 1},
            {0.55, upper0, 1 + kProbeOverhang, upper1, 0},
            {0.55, lower0, 1 + kProbeOverhang, lower1, 0},
            {inU, 0.74, 1 - inU, 1.06, 1},
            {-kProbeOverhang, lower0, 0.45, lower1, 0},
            {-kProbeOverhang, upper0, 0.45, upper1, 0},
            {inU, 0.34, 1 - inU, 0.66, 1},
        };
        std::memcpy(segmentProbe, probes, sizeof segmentProbe);
    }
    // A digit's box: the cell whose left edge is at `left`, on the row (cellBox), or a blob's own box.
    struct Box {
        double left, top, width, height;
        cv::Rect part(double u0, double v0, double u1, double v1) const {
            return cellRect(left, top, width, height, u0, v0, u1, v1);
        }
    };
    auto cellBox = [&](double left) { return Box{left, row.top + row.shift(left + wd / 2), wd, h}; };
    // The seven segment probes of a box, into `values`.
    auto probeBox = [&](const Box &box, double *values) {
        for (int s = 0; s < 7; ++s) {
            const double *p = segmentProbe[s];
            values[s] = probe(m, box.part(p[0], p[1], p[2], p[3]), p[4] != 0);
        }
    };
    auto probeCell = [&](double left, double *values) { probeBox(cellBox(left), values); };
    double value[LV_METER_MAX_DIGITS][7];
    m.values.clear();
    for (int i = 0; i < cellCount; ++i) {
        probeCell(cells[i].at(), value[i]);
        m.values.insert(m.values.end(), value[i], value[i] + 7);
    }
    if (m.values.empty()) return perspective;
    // The lit level: most digits light most segments, so the 85th percentile of all probes is a lit one.
    std::sort(m.values.begin(), m.values.end());
    const double lit = std::max(1.0, m.values[size_t(0.85 * double(m.values.size() - 1))]);

    // Reads one cell from its probe values: the digit, its confidence, and whether the cell is blank (no segment
    // lit) or has a lit hole.
    struct CellReading {
        int digit = -1;
        double confidence = 0, own = 0;
        int segments = 0;  // how many segments are lit
        int mask = 0;      // which are lit (kA ... kG)
        bool blank = false, holeLit = false, exact = false;
    };
    auto classifyBox = [&](const double *values, const Box &box) {
        CellReading r;
        for (int s = 0; s < 7; ++s) r.own = std::max(r.own, values[s]);
        const double level = std::max(0.6 * lit, std::min(lit, r.own));
        const double threshold = 0.5 * level;
        int segments = 0;
        double margin[7];
        for (int s = 0; s < 7; ++s) {
            margin[s] = std::min(1.0, std::fabs(values[s] - threshold) / threshold);
            if (values[s] > threshold) segments |= 1 << s;
        }
        // Each digit's pattern costs the margins of the segments that disagree with it; the cheapest is the reading
        // (exact when nothing disagrees), as sure as the segments that would make it another digit are clear: a
        // faint segment whose loss makes no digit at all (glare across an 8's bottom segment, a 3's top) leaves it
        // sure, one whose loss makes another digit (an 8's lower left, a 9) does not.
        double cost[std::size(kPatterns)];
        size_t best = 0;
        for (size_t k = 0; k < std::size(kPatterns); ++k) {
            cost[k] = 0;
            for (int s = 0; s < 7; ++s)
                if (((kPatterns[k].segments ^ segments) >> s) & 1) cost[k] += margin[s];
            if (cost[k] < cost[best]) best = k;
        }
        double rival = 1e9;
        for (size_t k = 0; k < std::size(kPatterns); ++k)
            if (kPatterns[k].digit != kPatterns[best].digit) rival = std::min(rival, cost[k]);
        r.digit = kPatterns[best].digit;
        r.exact = kPatterns[best].segments == segments;
        r.confidence = std::min(clamp01(1 - cost[best] / 0.5), clamp01((rival - cost[best]) / 0.45));
        r.confidence *= clamp01(r.own / (0.6 * lit));  // a digit much fainter than the others is doubtful
        // The two holes of the figure eight (between a, b, g, f and between g, c, d, e) are unlit in every digit:
        // a stroke across either means the cell holds a blob or texture, not a seven-segment digit.
        const double upperHole = probe(m, box.part(0.38, 0.27, 0.62, 0.33), true);
        const double lowerHole = probe(m, box.part(0.38, 0.67, 0.62, 0.73), true);
        r.holeLit = std::max(upperHole, lowerHole) > threshold;
        if (r.holeLit) r.confidence = 0;
        r.blank = segments == 0;
        r.mask = segments;
        for (int s = 0; s < 7; ++s) r.segments += (segments >> s) & 1;
        return r;
    };
    auto classify = [&](const double *values, double left) { return classifyBox(values, cellBox(left)); };
    // A whole pattern of five segments or more, sure and as bright as the digits, with no lit hole: a digit, whatever
    // lies about it.
    auto wholeDigit = [&](const CellReading &r) {
        return !r.holeLit && r.exact && r.segments >= 5 && r.confidence >= 0.5 && r.own >= 0.8 * lit;
    };
    CellReading readings[LV_METER_MAX_DIGITS];
    for (int i = 0; i < cellCount; ++i) readings[i] = classify(value[i], cells[i].at());
    // A doubtful cell read again a little to either side (kCellShift, then twice that): a neighbour's stroke, or a lit
    // point in the gap, that reaches into a probe at the cell's edge leaves it there, while the cell's own strokes stay
    // under the probes (each spans about half the cell). A side counts when both of its readings show a whole pattern
    // of the same digit and no probe grew brighter (moving onto something else); the surer side's less sure reading
    // replaces the cell's when it is surer still. One lucky position alone, in noise, does not. A cell with a lit hole
    // is read again a little higher and lower the same way (below); if that fails, it is off its digit or no digit,
    // and the run's ends and the extension below deal with it.
    auto rereadMoved = [&](int i, CellReading &r, auto moved) {
        CellReading best = r;
        for (const int side : {-1, 1}) {
            CellReading read[2];
            bool usable = true;
            for (int k = 0; k < 2 && usable; ++k) {
                const Box box = moved(side, k + 1);
                double values[7];
                probeBox(box, values);
                for (int s = 0; s < 7; ++s) usable = usable && values[s] <= value[i][s] + 0.1 * lit;
                read[k] = classifyBox(values, box);
                usable = usable && read[k].exact && !read[k].holeLit && !read[k].blank;
            }
            if (!usable || read[0].digit != read[1].digit) continue;
            const CellReading &lessSure = read[0].confidence <= read[1].confidence ? read[0] : read[1];
            if (lessSure.confidence > best.confidence) best = lessSure;
        }
        r = best;
    };
    for (int i = 0; i < cellCount; ++i) {
        CellReading &r = readings[i];
        if (r.blank) continue;
        if (!r.holeLit && r.confidence < 1) {
            rereadMoved(i, r,
                        [&](int side, int step) { return cellBox(cells[i].at() + side * step * kCellShift * wd); });
        } else if (r.holeLit) {
            // A cell with a lit hole (its confidence 0) read again a little higher and lower (kCellShift of the
            // height, then twice that): a digit that sits off the row's line by more than the holes' margin (a "4",
            // which has no top segment, below a row that the other digits' tops level) puts its middle segment in a
            // hole's probe.
            const Box box = cellBox(cells[i].at());
            rereadMoved(i, r, [&](int side, int step) {
                return Box{box.left, box.top + side * step * kCellShift * h, box.width, box.height};
            });
        }
    }
    // Nothing above or below a digit may go on from it: the display's edge and the meter body's, which read as a "1"
    // (or, with a corner or glare beside them, as a 7 or a 5), reach past the digits' top and bottom. For a "1"
    // (`strict`), a stroke in two columns or more of the band above or below the cell, its right edge included,
    // refuses it: the display's edge may end a little past the digits. For another digit, only strokes through most
    // rows of the band (kThroughBand) in a tenth of its columns do: a line across the band (the display's bezel close
    // above or below the digits, or tilted into the band by the roll or the perspective) crosses a few rows only, and
    // says nothing about the cell. (Before, any stroke refused every digit, and the last digit of a display whose bezel
    // runs close above it was never read.)
    auto clearAboveBelow = [&](double left, bool strict) {
        // (Measured from the joined blobs' extent, a little beyond the digits': a digit's own blurred edge is no
        // stroke above or below it.)
        const double top = row.top + row.shift(left + wd / 2) - row.grown, tall = h + 2 * row.grown;
        for (const double v : {-0.2, 1.05}) {
            const cv::Rect r = cellRect(left, top, wd, tall, 0.1, v, 1.05, v + 0.15) &
                               cv::Rect(0, 0, m.binary.cols, m.binary.rows);
            if (r.empty()) return false;
            int across = 0;
            if (strict) {
                cv::reduce(m.binary(r), m.boxed, 0, cv::REDUCE_MAX);
                across = cv::countNonZero(m.boxed);
            } else {
                cv::reduce(m.binary(r), m.columnSums, 0, cv::REDUCE_SUM, CV_32S);
                const int *sums = m.columnSums.ptr<int>(0);
                for (int x = 0; x < r.width; ++x) across += sums[x] >= 255 * kThroughBand * r.height;
            }
            if (across > (strict ? 1 : 0.1 * r.width)) return false;
        }
        return true;
    };
    // A "1" whose stroke is a blob of its own, no taller than a digit and within the row's band: a line across the
    // band above or below it (the display's border, tilted into the band) is not the display's edge going on.
    auto isolatedOne = [&](double left) {
        const double top = row.top + row.shift(left + wd / 2);
        const cv::Rect c = cellRect(left, top, wd, h, 0.55, 0.55, 1 + kProbeOverhang, 0.9) &
                           cv::Rect(0, 0, m.binary.cols, m.binary.rows);
        if (c.empty()) return false;
        // The lit pixel of the lower right segment nearest the middle of its probe.
        cv::Point seed(-1, -1);
        const int y = c.y + c.height / 2;
        for (int x = c.x; x < c.x + c.width && seed.x < 0; ++x)
            if (m.binary.at<uint8_t>(y, x)) seed = cv::Point(x, y);
        if (seed.x < 0) return false;
        const cv::Rect window = cv::Rect(int(left - 0.5 * wd), int(top - 0.5 * h), int(2 * wd), int(2 * h)) &
                                cv::Rect(0, 0, m.binary.cols, m.binary.rows);
        const cv::Rect blob = traceBlob(m, seed, window);
        return blob.height <= 1.15 * h && blob.y >= top - 0.1 * h && blob.y + blob.height <= top + 1.1 * h &&
               blob.width <= 0.6 * wd;
    };
    auto clearOne = [&](double left) { return clearAboveBelow(left, true) || isolatedOne(left); };
    // A cell that shows a whole digit pattern as bright as the others, and is no edge, holds a digit of the display.
    auto solid = [&](const CellReading &r, double left) {
        return r.exact && !r.blank && !r.holeLit && r.own >= 0.6 * lit && r.confidence >= 0.5 &&
               (r.digit != 1 || clearOne(left));
    };
    // A reading that is only part of the display's digits is never a confident one: a missing digit makes another
    // number, and the recognizer would complete it. So is a reading of one digit (an edge or a ring reads as a "1"
    // or a "0"), and one of only eights (a blank LCD's unlit segments, or a display's segment test).
    bool partial = false;
    // A cell with no lit segment (a blank position, or the ground between the display and a blob beside it) ends
    // the reading: its digits are consecutive. The run with the most digits, then the most confident, is the reading.
    {
        int runStart = 0, runEnd = 0;
        double runScore = -1;
        for (int start = 0; start < cellCount;) {
            if (readings[start].blank) {
                ++start;
                continue;
            }
            int end = start;
            while (end < cellCount && !readings[end].blank) ++end;
            // Cells with a lit hole at the run's ends are what lies beside the display (its edge, a blob).
            int first = start, last = end;
            while (first < last && readings[first].holeLit) ++first;
            while (last > first && readings[last - 1].holeLit) --last;
            double sum = 0;
            for (int i = first; i < last; ++i) sum += readings[i].confidence;
            const double score = (last - first) * 1000.0 + sum;
            if (score > runScore) {
                runScore = score;
                runStart = first;
                runEnd = last;
            }
            start = end;
        }
        if (runEnd == runStart) return perspective;
        // Another run of digits on the row: a blank cell, or a cell that is no digit, split the display's digits.
        for (int i = 0; i < cellCount && !partial; ++i)
            if ((i < runStart || i >= runEnd) && solid(readings[i], cells[i].at())) partial = true;
        cellCount = runEnd - runStart;
        for (int i = 0; i < cellCount; ++i) {
            cells[i] = cells[runStart + i];
            readings[i] = readings[runStart + i];
        }
    }
    // A "1" at either end whose stroke is taller than the digits, or reaches above or below them, is the display's
    // edge, not a digit: the reading is partial (the bezel's edge before the digits, read as a leading "1": 1364158
    // for 364158). (A stroke that ends well above the digits' bottom may be a far digit's, perspective making it
    // smaller than the row: not counted.) The member may be as wide as a digit: the bezel's corners, joined to its
    // side, widen it (0543 read 05431). So is one read less surely than kSureEndOne: the border's inner edge, a line
    // rather than a segment (46170070 read 146170070 with its "1" at 0.57-0.61).
    for (const int i : {0, cellCount - 1}) {
        if (readings[i].digit != 1) continue;
        if (cellCount > 1 && readings[i].confidence < kSureEndOne) partial = true;
        for (const Blob &b : row.members) {
            if (b.w > 1.25 * wd || std::fabs(b.x + b.w - (cells[i].left + wd)) > 0.3 * wd) continue;
            const double top = row.top + row.shift(b.cx());
            if (b.h > 1.15 * h || b.y < top - 0.1 * h || b.y + b.h > top + 1.15 * h) partial = true;
        }
    }
    // A digit at either end whose blob was lost (joined to the display's edge, to glare or to something above or
    // below it) is one pitch beyond the run: a cell there that shows a whole digit pattern as bright as the others
    // is part of the reading (a solid one).
    auto extend = [&](double left, CellReading &r) {
        r = CellReading();
        r.blank = true;
        if (left < 0 || left + wd > m.strokes.cols) return false;
        // A member of the row there whose right edge is not the cell's is a digit off the grid of pitches (a near
        // digit, larger in perspective): the cell would read part of it, and the reading lacks it.
        for (const Blob &b : row.members) {
            // A member that starts under the probes of the cell's right segments (which reach a little past the
            // cell) and goes on well beyond it is the next digit: its left strokes would read as a "1" here.
            if (b.x >= left + 0.5 * wd && b.x <= left + (1 + kProbeOverhang) * wd + 1 && b.x + b.w > left + 1.3 * wd)
                return false;
            const double overlap = std::min(double(b.x + b.w), left + wd) - std::max(double(b.x), left);
            if (overlap > 0.3 * wd && std::fabs(b.x + b.w - left - wd) > 0.3 * wd) {
                partial = true;
                return false;
            }
        }
        double values[7];
        probeCell(left, values);
        r = classify(values, left);
        // Any digit, not only a "1", must have nothing above or below it: a display's corner and the ground's
        // edge beside glare read as a 7 or a 5.
        return solid(r, left) && (r.digit == 1 || clearAboveBelow(left, false));
    };
    // Every digit but a "1" has a horizontal segment as wide as most of its cell. A cell beyond an end whose strokes
    // span a narrow band of its columns holds a single upright stroke: left of the cell's middle, where a "1" is not,
    // or going on through the bands above and below the digits, as a "1" does not, it is the display's bezel close
    // beside the digits (which lights the probes of every segment it crosses), not a digit. (Beyond a "1", `lost`
    // still counts it: that "1" may be the same bezel's inner edge.)
    auto bezel = [&](double left) {
        const cv::Rect bounds(0, 0, m.binary.cols, m.binary.rows);
        const double top = row.top + row.shift(left + wd / 2);
        const cv::Rect c = cellRect(left, top, wd, h, 0.0, 0.0, 1.0, 1.0) & bounds;
        int first = -1, last = -1, columns = 0;
        for (int x = c.x; x < c.x + c.width; ++x) {
            int y = c.y;
            while (y < c.y + c.height && !m.binary.at<uint8_t>(y, x)) ++y;
            if (y == c.y + c.height) continue;
            if (first < 0) first = x;
            last = x;
            ++columns;
        }
        if (columns == 0 || columns >= 0.45 * wd) return false;
        if (first + last < 2 * c.x + c.width) return true;
        const double tall = h + 2 * row.grown;
        for (const double v : {-0.1, 1.0}) {
            const cv::Rect band =
                cv::Rect(first, int(top - row.grown + v * tall), last - first + 1, std::max(1, int(0.1 * tall))) &
                bounds;
            if (band.empty()) return false;
            int rows = 0;
            for (int y = band.y; y < band.y + band.height; ++y) {
                const uint8_t *on = m.binary.ptr<uint8_t>(y);
                rows += std::any_of(on + band.x, on + band.x + band.width, [](uint8_t p) { return p != 0; });
            }
            if (rows < 0.8 * band.height) return false;
        }
        return true;
    };
    // Beyond either end, after the digits found: a cell with lit segments as bright as the digits', no lit hole
    // and nothing above or below it (which the display's edge would have), or a whole pattern other than a "1" (an
    // edge) that no line crosses the bands above and below of (a display's corner, which reads as a 7), is a digit
    // that could not be read. So is a cell with a lit hole that lights a horizontal segment and two
    // more nearly as bright as the digits (kLostLevel): a digit off the cell, after a lit point or where perspective
    // shrinks the pitch, which would otherwise leave a confident reading one digit short. The display's bezel is
    // neither.
    auto lost = [&](const CellReading &r, double left, const CellReading &end) {
        if (r.blank || r.own < 0.6 * lit) return false;
        if (end.digit != 1 && bezel(left)) return false;
        // (A whole pattern of five segments or more, as bright as the digits, is a digit whatever lies above or below
        // it: a near digit, larger than the row, reaches into the bands.)
        if (!r.holeLit)
            return wholeDigit(r) ||
                   (r.exact && r.digit != 1 && r.confidence >= 0.5 && clearAboveBelow(left, false)) ||
                   (r.segments >= 2 && clearAboveBelow(left, true));
        return (r.mask & (kA | kD | kG)) && r.segments >= 3 && r.own >= kLostLevel * lit &&
               clearAboveBelow(left, false);
    };
    // Where the cell one digit beyond either end lies: one median pitch on (stepped), or where the cells' positions,
    // fitted as a quadratic function of their index (a straight line for fewer than four cells), put it (beyond):
    // perspective stretches the pitch towards the display's near end and shrinks it towards the far one.
    auto stepped = [&](int index) { return index < 0 ? cells[0].left - pitch : cells[cellCount - 1].left + pitch; };
    auto beyond = [&](int index) {
        if (cellCount < 2) return stepped(index);
        double sum[5] = {}, rhs[3] = {};
        for (int i = 0; i < cellCount; ++i) {
            double power = 1;
            for (int k = 0; k < 5; ++k, power *= i) sum[k] += power;
            rhs[0] += cells[i].left;
            rhs[1] += i * cells[i].left;
            rhs[2] += double(i) * i * cells[i].left;
        }
        double predicted;
        if (cellCount >= 4) {
            const cv::Matx33d normal(sum[0], sum[1], sum[2], sum[1], sum[2], sum[3], sum[2], sum[3], sum[4]);
            const cv::Vec3d c = normal.solve(cv::Vec3d(rhs[0], rhs[1], rhs[2]), cv::DECOMP_SVD);
            predicted = c[0] + c[1] * index + c[2] * index * index;
        } else {
            const double slope = (sum[0] * rhs[1] - sum[1] * rhs[0]) / (sum[0] * sum[2] - sum[1] * sum[1]);
            predicted = (rhs[0] - slope * sum[1]) / sum[0] + slope * index;
        }
        // The fit's pitch there stays near the median's: a wild fit (cells off the grid) falls back to it.
        const double step = index < 0 ? cells[0].left - predicted : predicted - cells[cellCount - 1].left;
        return step < 0.7 * pitch || step > 1.4 * pitch ? stepped(index) : predicted;
    };
    // A digit beyond an end is looked for where the fit puts it, then one median pitch on; the cell there decides
    // whether a digit that could not be read is there (lost).
    auto extendBeyond = [&](int index, CellReading &found, double &at) {
        at = beyond(index);
        if (std::fabs(at - stepped(index)) > 0.1 * pitch && extend(at, found)) return true;
        at = stepped(index);
        return extend(at, found);
    };
    CellReading r;
    double at = 0;
    while (cellCount < LV_METER_MAX_DIGITS && extendBeyond(-1, r, at)) {
        for (int i = cellCount; i > 0; --i) {
            cells[i] = cells[i - 1];
            readings[i] = readings[i - 1];
        }
        cells[0] = Cell{at, false};
        readings[0] = r;
        ++cellCount;
    }
    if (cellCount < LV_METER_MAX_DIGITS && lost(r, at, readings[0])) partial = true;
    while (cellCount < LV_METER_MAX_DIGITS && extendBeyond(cellCount, r, at)) {
        cells[cellCount] = Cell{at, false};
        readings[cellCount] = r;
        ++cellCount;
    }
    if (cellCount < LV_METER_MAX_DIGITS && lost(r, at, readings[cellCount - 1])) partial = true;
    // A blob on the row's line, about as tall as the digits (a display seen from the side makes its far digits
    // smaller, its near ones larger) and within their band, near the reading but centred outside it, is a digit the
    // reading lacks: one whose cell fell off the grid of pitches (which perspective stretches), or was dropped as no
    // digit. The display's edges reach past the digits' band. So is a blob up to 1.45 times the digits' height,
    // centred on their line, whose own box, probed and read as a cell, is a whole digit: a near digit that
    // perspective makes larger than the row (a leading "3" left out of 37443.4).
    // (`apart`: a blob of the first row search's map, below, up to 1.8 times the digits' height.)
    auto largerDigit = [&](const Blob &b, double top, bool apart) {
        const double most = apart ? 1.8 : 1.45;
        if (b.h < h || b.h > most * h || b.w < 0.5 * wd * b.h / h || b.w > 1.4 * wd * b.h / h) return false;
        if (std::fabs(b.y + 0.5 * b.h - (top + 0.5 * h)) > 0.2 * h + 0.5 * (b.h - h)) return false;
        const Box box{double(b.x), double(b.y), double(b.w), double(b.h)};
        double values[7];
        probeBox(box, values);
        const CellReading r = classifyBox(values, box);
        // Up to 1.45 times the row's height, the box of a near digit is its cell. A larger one is a trapezoid, its far
        // side shorter than its box, whose upright segments fall short of their probes, and its strokes, thicker than
        // those the stroke map was made for, stand out less (at 480p the near "3" of 04719.3 at 0.58 of the digits'
        // level): its three horizontal segments lit, at half the digits' level or more, are a digit there (a bezel's
        // edge or corner lights one at most). Such a digit only makes the reading doubtful.
        return wholeDigit(r) || (apart && !r.holeLit && (r.mask & (kA | kD | kG)) == (kA | kD | kG) &&
                                 r.own >= 0.5 * lit);
    };
    {
        const double from = cells[0].left - kStrayPitches * pitch;
        const double to = cells[cellCount - 1].left + wd + kStrayPitches * pitch;
        const double first = cells[0].left, last = cells[cellCount - 1].left + wd;
        // Near the reading but centred outside it, within kStrayPitches of either end.
        auto beside = [&](double cx) { return (cx < first && cx > from) || (cx > last && cx < to); };
        for (const Blob &b : m.blobs) {
            const double cx = b.cx(), top = row.top + row.shift(cx);
            if (!beside(cx)) continue;
            if (b.h >= 0.6 * h && b.y >= top - 0.12 * h && b.y + b.h <= top + 1.12 * h) partial = true;
            else if (largerDigit(b, top, false)) partial = true;
        }
        // A display seen from the side steeply: its near digit, up to 1.8 times the row's height, has its segments
        // too far apart to join into one blob in the map the digits are read from, and it is neither a member nor a
        // blob above. The first row search's map joined them (04719.3 read as a confident 04719 at the bench kit's
        // yaw 0.3, its near "3" 1.5 times the row's height).
        for (const Blob &b : m.firstBlobs) {
            const double cx = b.cx();
            if (beside(cx) && largerDigit(b, row.top + row.shift(cx), true)) partial = true;
        }
    }
#ifdef LV_METER_CELL_HOOK
    for (int i = 0; i < cellCount; ++i)
        LV_METER_CELL_HOOK(m.smooth, lightOnDark, i, cellCount, cells[i].at(), row.top + row.shift(cells[i].at() + wd / 2),
                           wd, h, readings[i].digit, readings[i].confidence);
#endif
    bool eights = true;
    for (int i = 0; i < cellCount; ++i) eights = eights && readings[i].digit == 8;
    // Strokes that stand out from the ground by only a few grey levels are an unlit display's ghost segments (or the
    // gaps between them, in the other polarity) or texture: a doubtful reading, whatever the segments spell.
    const bool faint = lit < kFaintStrokes;
    const double doubt = partial || cellCount < kMinDigits || eights || faint ? kDoubtful : 1.0;
    for (int i = 0; i < cellCount; ++i) {
        out.digits[i] = char('0' + readings[i].digit);
        out.confidence[i] = float(100 * readings[i].confidence * doubt);
    }
    out.count = cellCount;
    // Decimal point: the strongest dot at the baseline in the middle of the gap between two digits, if it is lit and
    // stands out from the unlit points (which LCDs show faintly).
    // (Looked for from the joined blobs' extent, a little beyond the digits': perspective puts a point at the near
    // end a little below the row's line.)
    const double tall = h + 2 * row.grown;
    const int dot = std::max(1, int(std::lround(std::min(0.07 * tall, 0.5 * (pitch - wd)))));
    cv::boxFilter(m.strokes, m.boxed, -1, cv::Size(dot, dot));
    double dots[LV_METER_MAX_DIGITS] = {};
    double above[LV_METER_MAX_DIGITS] = {};  // the stroke map a point's width above each gap's spot
    double corner[LV_METER_MAX_DIGITS] = {};  // the spot, where it was taken for a corner by what lies above it
    double underStroke[LV_METER_MAX_DIGITS] = {};  // a bright spot (kDismissedPoint) with a stroke straight above it
    double bestDot = 0;
    int bestAfter = -1;
    bool dismissed = false;  // a bright spot taken for a corner may be a point (kDismissedPoint, kDismissedCorner)
    bool unseen = false;     // two digits so close that no gap between them shows where a point would be
    for (int i = 0; i + 1 < cellCount; ++i) {
        const double right = cells[i].left + wd, next = cells[i + 1].left;
        const double space = next - right;
        if (space < 1) {
            unseen = true;
            continue;
        }
        // Only the gap's middle: the point is centred in it, and near either digit a stroke of that digit (in a
        // cell placed a little off) would pass for a lit point.
        const double inset = std::min(std::max(dot / 2.0, 0.3 * space), std::max(0.0, (space - 1) / 2));
        const double bottom = row.bottom + row.grown + row.shift(right + space / 2);
        cv::Rect r(int(std::floor(right + inset)), int(std::floor(bottom - 0.2 * tall)),
                   std::max(1, int(std::lround(space - 2 * inset))), std::max(1, int(0.26 * tall)));
        r &= cv::Rect(0, 0, m.boxed.cols, m.boxed.rows);
        if (r.empty()) continue;
        double peak = 0;
        cv::Point at;
        cv::minMaxLoc(m.boxed(r), nullptr, &peak, nullptr, &at);
        // A stroke of the next digit's, not a point: a slanted or nearer digit's lower left corner reaching into the
        // gap (bright, and read as a point on a third of the seven-segment misreads). It is brightest in the gap's
        // half towards the next digit, and in the binary map (the row's blobs were found with the segments joined
        // vertically, which joins a point to the digit above it) it is part of a blob as tall as a digit that goes
        // on into the next cell without reaching back into this one. A lit point joined to the next digit (no gap
        // between digits) is brightest in the other half, or in a gap too narrow (under 4 px) to tell the halves.
        if (peak > kFaintPoint * lit && 2 * at.x >= r.width && r.width >= 4) {
            const cv::Rect window = cv::Rect(int(right - 0.5 * wd), int(row.top + row.shift(next) - 0.2 * h),
                                             int(next - right + 2 * wd), int(1.4 * h)) &
                                    cv::Rect(0, 0, m.binary.cols, m.binary.rows);
            const cv::Rect blob = traceBlob(m, cv::Point(r.x + at.x, r.y + at.y), window);
            if (blob.height >= 0.5 * h && blob.x + blob.width > next + 0.3 * wd && blob.x > right - 0.3 * wd) peak = 0;
        }
        // A stroke going up from the spot (a digit's lower left corner reaching into the gap, slanted or thick) is
        // no point: above a point lies the gap. (Not looked at beside it: a point may sit close to either digit.)
        if (peak > kFaintPoint * lit) {
            const int x = r.x + at.x, y = int(std::lround(r.y + at.y - (kPointReach * stroke + dot)));
            if (y >= 0 && m.boxed.at<uint8_t>(y, x) >= kStrokeAbove * peak) {
                if (peak >= kDismissedPoint * lit) underStroke[i] = peak;
                peak = 0;
            }
        }
        // What lies a point's width above the spot, straight up or to either side: the gap over a point, a stroke
        // over a digit's corner (a slanted segment moves aside as it rises, past the probe above).
        if (peak > 0) {
            const int x = r.x + at.x, y = std::max(0, r.y + at.y - dot);
            for (int k = -1; k <= 1; ++k) {
                const int side = std::clamp(x + k * dot, 0, m.boxed.cols - 1);
                above[i] = std::max(above[i], double(m.boxed.at<uint8_t>(y, side)));
            }
            if (above[i] >= kCornerAbove * peak) {
                corner[i] = peak;
                peak = 0;
            }
        }
        dots[i] = peak;
        if (peak > bestDot) {
            bestDot = peak;
            bestAfter = i + 1;
        }
    }
    // A spot that stands far out from the other gaps' as a faint lit point would.
    auto standsOutFrom = [&](double spot, double others) {
        return spot > kFaintPoint * lit && spot > 3 * std::max(others, 0.03 * lit);
    };
    // A spot taken for a corner by what lies above it, bright and leading every other gap's spot that may be a point
    // (the next digit's strokes left out), or standing far out from them, may yet be a lit point close beside the
    // digit before it. So may a bright spot under a stroke straight above that leads those and the other gaps'
    // spots under a stroke (a lit point right under a "1"); corners light several gaps alike.
    for (int i = 0; i + 1 < cellCount; ++i) {
        double otherSpots = 0, otherUnder = 0;
        for (int j = 0; j + 1 < cellCount; ++j) {
            if (j == i) continue;
            otherSpots = std::max({otherSpots, dots[j], corner[j]});
            otherUnder = std::max(otherUnder, underStroke[j]);
        }
        if ((corner[i] >= kDismissedCorner * lit && corner[i] >= kCornerLead * otherSpots) ||
            standsOutFrom(corner[i], otherSpots) ||
            (underStroke[i] > 0 && underStroke[i] >= kCornerLead * std::max(otherSpots, otherUnder)))
            dismissed = true;
    }
    double otherDots = 0;
    int spotted = 0;  // gaps with a spot at kDoubtfulPoint of the lit level or more
    for (int i = 0; i + 1 < cellCount; ++i) {
        if (i + 1 != bestAfter) otherDots = std::max(otherDots, dots[i]);
        spotted += dots[i] >= kDoubtfulPoint * lit;
    }
    // A small point, blurred, stays fainter than a segment in the stroke map: one that stands far out from the
    // unlit points, or is a good part as bright as the segments, may be lit, or not; either way the reading is
    // doubtful. So is a reading with a gap too narrow to look for a point in, or a bright spot taken for a corner,
    // unless a point was found elsewhere: a point missed there makes another number. (Spots in kAlikeGaps gaps or
    // more, the brightest leading the next by less than kPointLead, are what the gaps show, not a point. Two alike
    // may be a point and a corner.)
    // (A spot with nothing as bright above it, kIsolatedPoint, is a point at a lower level: a small one, blurred.)
    const bool isolated = bestAfter > 0 && above[bestAfter - 1] < kIsolatedPoint * bestDot &&
                          bestDot > kDoubtfulPoint * lit && bestDot > 2 * std::max(otherDots, 0.05 * lit);
    const bool bright = (bestDot > 0.5 * lit && bestDot > 1.6 * otherDots) || isolated;
    const bool standsOut = standsOutFrom(bestDot, otherDots);
    if (bestAfter > 0 && bright) {
        out.decimalAfter = bestAfter;
    } else if ((bestAfter > 0 && (standsOut || (bestDot >= kDoubtfulPoint * lit &&
                                                (bestDot >= kPointLead * otherDots || spotted < kAlikeGaps)))) ||
               unseen || dismissed) {
        out.doubt(float(kDoubtful));
        out.pointUnseen = unseen;
    }
    // How far the digits' strokes stand from the row's ground, on the side this polarity expects: large for the
    // right polarity, small for the wrong one (which finds the gaps between segments).
    {
        const int rowWidth = int(cells[cellCount - 1].left + wd - cells[0].left);
        const cv::Rect band =
            cv::Rect(int(cells[0].left), int(row.top), rowWidth, int(h)) & cv::Rect(0, 0, m.smooth.cols, m.smooth.rows);
        if (!band.empty()) {
            int histogram[256] = {};
            double strokeSum = 0, strokeCount = 0;
            for (int y = band.y; y < band.y + band.height; ++y) {
                const uint8_t *grey = m.smooth.ptr<uint8_t>(y);
                const uint8_t *on = m.binary.ptr<uint8_t>(y);
                for (int x = band.x; x < band.x + band.width; ++x) {
                    ++histogram[grey[x]];
                    if (on[x]) {
                        strokeSum += grey[x];
                        ++strokeCount;
                    }
                }
            }
            int seen = 0, medianGrey = 0;
            while (medianGrey < 255 && (seen += histogram[medianGrey]) < band.area() / 2) ++medianGrey;
            if (strokeCount > 0) {
                const double strokeMean = strokeSum / strokeCount;
                out.contrast = float(lightOnDark ? strokeMean - medianGrey : medianGrey - strokeMean);
            }
        }
    }
    out.box = cv::Rect(int(cells[0].left), int(row.top), int(cells[cellCount - 1].left + wd - cells[0].left),
                       int(h));
    if (restore.rectified) {
        // Back from the rectified image: the box around the digits' corners as the camera saw them.
        out.box = boxBack(m.rectification, out.box);
    }
    out.finish();
    double sum = 0;
    for (int i = 0; i < out.count; ++i) sum += out.confidence[i];
    out.score = float(sum);
    return perspective;
}

void readDigital(lv_meter &m, bool lightOnDark, Reading &out) {
    // A display seen from the side whose reading is not sure is read again rectified, and the surer reading is kept.
    // Perspective makes its far digits smaller than the near ones and tilts its row: an end digit falls out of the
    // row's band.
    if (!readRow(m, lightOnDark, out, false) || out.readingConfidence >= kSureDigital) return;
    Reading rectified;
    readRow(m, lightOnDark, rectified, true);
    // Digits that touch in the camera's image, with no gap to look for a point in, do not show one rectified: the
    // resampled image parts them, but the point hidden between them stays hidden (99.54966 read 9954966). A reading
    // there without a point stays doubtful.
    if (out.pointUnseen && rectified.decimalAfter < 0 && !rectified.pointUnseen) rectified.doubt(float(kDoubtful));
    keepBetter(out, rectified);
}

}  // namespace lv_meter_detail
