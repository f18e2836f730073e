// The meter reader's working image (meter_internal.hpp): the crop scaled and smoothed, stroke maps of either
// polarity, their binary maps, digit rows and segment probes.
#include "meter_internal.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace lv_meter_detail {

/// Averages `grey` over blocks of `factor` x `factor` pixels (at most 16) into `out`, dropping the partial blocks at
/// the right and bottom edges; `sums` is scratch. Sums of a block's rows first, then of their columns, so the inner
/// loops are plain adds the compiler vectorises.
void reduceBlocks(const cv::Mat &grey, int factor, std::vector<uint16_t> &sums, cv::Mat &out) {
    const int cols = grey.cols / factor, rows = grey.rows / factor, width = cols * factor;
    out.create(rows, cols, CV_8UC1);
    sums.resize(size_t(width));
    const uint32_t area = uint32_t(factor * factor), half = area / 2;
    for (int y = 0; y < rows; ++y) {
        uint16_t *sum = sums.data();
        std::fill(sum, sum + width, uint16_t(0));
        for (int r = 0; r < factor; ++r) {
            const uint8_t *in = grey.ptr<uint8_t>(y * factor + r);
            for (int x = 0; x < width; ++x) sum[x] = uint16_t(sum[x] + in[x]);  // at most 16 * 255
        }
        uint8_t *o = out.ptr<uint8_t>(y);
        for (int x = 0; x < cols; ++x) {
            uint32_t total = 0;
            for (int k = 0; k < factor; ++k) total += sum[x * factor + k];
            o[x] = uint8_t((total + half) / area);
        }
    }
}

void prepare(lv_meter &m) {
    const cv::Mat &grey = m.grey;
    const double scale = std::min(2.0, std::sqrt(kWorkingArea / (double(grey.cols) * grey.rows)));
    const cv::Size size(std::max(8, int(std::lround(grey.cols * scale))),
                        std::max(8, int(std::lround(grey.rows * scale))));
    // A large crop (a 1080p frame's) is first averaged over blocks of the largest whole factor that keeps it at least
    // the working size, then area-resized from there: OpenCV's area resize of the whole crop by a fractional factor
    // cost more than all the rest of the seven-segment reader.
    const int factor = scale < 1 ? std::min(16, int(std::floor(1 / scale))) : 1;
    if (factor >= 2) {
        reduceBlocks(grey, factor, m.rowSums, m.reduced);
        cv::resize(m.reduced, m.work, size, 0, 0, cv::INTER_AREA);
    } else {
        cv::resize(grey, m.work, size, 0, 0, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    }
    m.scale = double(size.width) / grey.cols;
    cv::GaussianBlur(m.work, m.smooth, cv::Size(3, 3), 0);
}

void strokeMap(lv_meter &m, bool lightOnDark, int horizontal, int vertical, int square) {
    const int op = lightOnDark ? cv::MORPH_OPEN : cv::MORPH_CLOSE;
    // Each closing runs on the image extended by its edge, as far as the structuring element reaches: OpenCV's
    // morphology ignores what lies beyond the image, so near the crop's edge the closing would reach over the meter
    // body to the display's ground and the body's edge would become a wide "stroke" that throws the threshold off.
    auto close = [&](int width, int height, cv::Mat &out) {
        const int x = width / 2, y = height / 2;
        cv::copyMakeBorder(m.smooth, m.padded, y, y, x, x, cv::BORDER_REPLICATE);
        cv::morphologyEx(m.padded, m.paddedClosed, op,
                         cv::getStructuringElement(cv::MORPH_RECT, cv::Size(width, height)));
        m.paddedClosed(cv::Rect(x, y, m.smooth.cols, m.smooth.rows)).copyTo(out);
    };
    if (horizontal > 0) close(horizontal, 1, m.closed);
    if (vertical > 0) {
        close(1, vertical, m.closedVertical);
        if (lightOnDark)
            cv::max(m.closed, m.closedVertical, m.closed);
        else
            cv::min(m.closed, m.closedVertical, m.closed);
    }
    if (square > 0) {
        close(square, square, m.closedVertical);
        if (lightOnDark)
            cv::max(m.closed, m.closedVertical, m.closed);
        else
            cv::min(m.closed, m.closedVertical, m.closed);
    }
    if (lightOnDark)
        cv::subtract(m.smooth, m.closed, m.strokes);
    else
        cv::subtract(m.closed, m.smooth, m.strokes);
}

double binarise(lv_meter &m) {
    int histogram[256] = {};
    for (int y = 0; y < m.strokes.rows; ++y) {
        const uint8_t *row = m.strokes.ptr<uint8_t>(y);
        for (int x = 0; x < m.strokes.cols; ++x) ++histogram[row[x]];
    }
    const double total = double(m.strokes.total());
    double sum = 0;
    for (int i = 0; i < 256; ++i) sum += double(i) * histogram[i];
    double sumB = 0, weightB = 0, best = -1;
    int otsu = 0;
    for (int t = 0; t < 256; ++t) {
        weightB += histogram[t];
        if (weightB == 0) continue;
        const double weightF = total - weightB;
        if (weightF == 0) break;
        sumB += double(t) * histogram[t];
        const double mB = sumB / weightB, mF = (sum - sumB) / weightF;
        const double between = weightB * weightF * (mB - mF) * (mB - mF);
        if (between > best) {
            best = between;
            otsu = t;
        }
    }
    double seen = 0;
    int p99 = 255;
    for (int i = 0; i < 256; ++i) {
        seen += histogram[i];
        if (seen >= 0.99 * total) {
            p99 = i;
            break;
        }
    }
    const double level = std::max({double(otsu), p99 / 3.0, 8.0});
    cv::threshold(m.strokes, m.binary, level, 255, cv::THRESH_BINARY);
    return level;
}

/// Fills in a row's members (those of m.blobs that `belongs` accepts, left to right, none overlapping an earlier one)
/// and its geometry: height, centre line and tilt (from the members' edges with `byEdges`, for seven-segment digits).
template <typename Belongs> bool collectRow(lv_meter &m, Row &row, bool byEdges, Belongs belongs) {
    row.members.clear();
    for (const Blob &b : m.blobs)
        if (belongs(b)) row.members.push_back(b);
    std::sort(row.members.begin(), row.members.end(), [](const Blob &a, const Blob &b) { return a.x < b.x; });
    // Drop members that overlap an earlier one horizontally (stacked parts of something else).
    std::vector<Blob> &members = row.members;
    members.erase(std::unique(members.begin(), members.end(),
                              [](const Blob &a, const Blob &b) { return b.x < a.x + a.w; }),
                  members.end());
    if (members.empty()) return false;
    m.scratch.clear();
    for (const Blob &b : members) m.scratch.push_back(b.y);
    row.top = median(m.scratch);
    m.scratch.clear();
    for (const Blob &b : members) m.scratch.push_back(b.y + b.h);
    row.bottom = median(m.scratch);
    row.height = std::max(4.0, row.bottom - row.top);
    row.centre = (row.top + row.bottom) / 2;
    if (byEdges) {
        // Tilt: the median of the slopes between the members' tops and between their bottoms, over pairs far enough
        // apart (Theil-Sen). A seven-segment digit without a top or bottom segment (4, 7, 1) moves its blob's edge,
        // and with it the centre a least-squares line through the centres would follow, by a stroke's width; a
        // median ignores it.
        double sx = 0;
        for (const Blob &b : members) sx += b.cx();
        row.x0 = sx / double(members.size());
        row.slope = 0;
        // Only members with a neighbour near them (a gap of at most kTiltReach heights) count, when they make
        // enough pairs (kTiltPairs): a member far off along the row (the display's edge, something beside it) pairs
        // with every digit, and its slopes, each off, outvote the digits' own on a short rolled row.
        auto neighboured = [&](size_t i) {
            const double reach = kTiltReach * row.height;
            return (i > 0 && members[i].x - (members[i - 1].x + members[i - 1].w) <= reach) ||
                   (i + 1 < members.size() && members[i + 1].x - (members[i].x + members[i].w) <= reach);
        };
        for (const bool all : {false, true}) {
            m.scratch.clear();
            for (size_t i = 0; i < members.size(); ++i)
                for (size_t j = i + 1; j < members.size(); ++j) {
                    const Blob &a = members[i], &b = members[j];
                    const double dx = b.cx() - a.cx();
                    if (dx < 0.5 * row.height || (!all && (!neighboured(i) || !neighboured(j)))) continue;
                    m.scratch.push_back((b.y - a.y) / dx);
                    m.scratch.push_back((b.y + b.h - a.y - a.h) / dx);
                }
            if (m.scratch.size() >= 2 * kTiltPairs) break;
        }
        if (!m.scratch.empty()) row.slope = std::clamp(median(m.scratch), -kMaxRowSlope, kMaxRowSlope);
        // The centre line through the mean of the centres of the members of about the row's height, at its middle
        // column; the height is the medians' above.
        double count = 0, sy = 0;
        for (const Blob &b : members)
            if (std::fabs(b.h - row.height) <= 0.15 * row.height) {
                count += 1;
                sy += b.cy() - row.slope * (b.cx() - row.x0);
            }
        if (count > 0) row.centre = sy / count;
        row.top = row.centre - row.height / 2;
        row.bottom = row.centre + row.height / 2;
        return true;
    }
    // Tilt: a least-squares line through the centres of the members of about the row's height (printed digits are
    // all of one height), up to kDrumSlope. Past it (a camera rolled more than about 6 degrees), the median of the
    // slopes between those members, pair by pair at least half a digit height apart (Theil-Sen), when three pairs or
    // more agree with it: the least-squares line follows a drum caught mid-roll whose blob sits low, and two digits
    // tilt as much, so neither goes past kDrumSlope alone.
    double count = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    auto whole = [&](const Blob &b) { return std::fabs(b.h - row.height) <= 0.15 * row.height; };
    for (const Blob &b : members)
        if (whole(b)) {
            count += 1;
            sx += b.cx();
            sy += b.cy();
            sxx += b.cx() * b.cx();
            sxy += b.cx() * b.cy();
        }
    row.slope = 0;
    row.x0 = count > 0 ? sx / count : 0;
    if (count >= 2 && sxx - sx * sx / count > 1e-6) {
        const double fitted = (sxy - sx * sy / count) / (sxx - sx * sx / count);
        row.slope = std::clamp(fitted, -kDrumSlope, kDrumSlope);
        if (std::fabs(fitted) > kDrumSlope) {
            m.scratch.clear();
            for (size_t i = 0; i < members.size(); ++i)
                for (size_t j = i + 1; j < members.size(); ++j) {
                    const Blob &a = members[i], &b = members[j];
                    const double dx = b.cx() - a.cx();
                    if (whole(a) && whole(b) && dx >= 0.5 * row.height) m.scratch.push_back((b.cy() - a.cy()) / dx);
                }
            if (m.scratch.size() >= 3) {
                const double slope = median(m.scratch);
                size_t agreeing = 0;
                for (double v : m.scratch) agreeing += std::fabs(v - slope) <= kDrumSlopeAgreement ? 1 : 0;
                if (4 * agreeing >= 3 * m.scratch.size() && std::fabs(slope) > kDrumSlope)
                    row.slope = std::clamp(slope, -kMaxDrumSlope, kMaxDrumSlope);
            }
        }
    }
    // The medians above are for the row's middle column.
    if (count > 0) row.centre = sy / count;
    row.top = row.centre - row.height / 2;
    row.bottom = row.centre + row.height / 2;
    return true;
}

bool findRow(lv_meter &m, Row &row, bool joinSegments, double minAspect, double maxFill, double tolerance,
             double maxAspect) {
    const int rows = m.binary.rows, cols = m.binary.cols;
    m.hasBorder = false;
    row.grown = 0;
    int joined = 0;  // how far the vertical joining grows each blob above and below
    if (joinSegments) {
        // The display's border (a ring round the digits, or a line of it across the crop): a roll or a tilt brings
        // it within a stroke of the digits at one end, and once the segments are joined vertically they join it and
        // are no digits at all. It is thin and far wider than a digit, so its bounding box is mostly empty: a ring
        // holds two digit-sized blobs or more within it; a line is very long. Traced without allocating (OpenCV's
        // connected components allocate on every call).
        constexpr uint8_t kTraced = 1;
        const cv::Rect all(0, 0, cols, rows);
        m.binary.copyTo(m.borderless);
        m.parts.clear();
        for (int y = 0; y < rows; ++y) {
            const uint8_t *line = m.borderless.ptr<uint8_t>(y);
            for (int x = 0; x < cols; ++x) {
                if (line[x] != 255) continue;
                int area = 0;
                const cv::Rect box = flood(m, m.borderless, cv::Point(x, y), 255, kTraced, all, area);
                m.parts.push_back({box, area, cv::Point(x, y)});
            }
        }
        auto encloses = [&](const lv_meter::Part &outer) {
            int inside = 0;
            for (const lv_meter::Part &inner : m.parts)
                if (&inner != &outer && inner.box.height >= kBorderInner * outer.box.height &&
                    (inner.box & outer.box) == inner.box && ++inside >= 2)
                    return true;
            return false;
        };
        for (const lv_meter::Part &part : m.parts) {
            const int w = part.box.width, h = part.box.height;
            const double fill = part.area / (double(w) * h);
            const bool line = w >= kBorderLine * h && fill <= kBorderLineFill;
            // (A ring is taller than the smallest digit the row takes, which bounds the pairs `encloses` compares.)
            if (!line && (w < kBorderAspect * h || fill > kBorderFill || h < kMinDigitRows * rows || !encloses(part)))
                continue;
            int area = 0;
            flood(m, m.borderless, part.seed, kTraced, 0, all, area);
            m.hasBorder = true;
        }
        cv::threshold(m.borderless, m.borderless, 0, 255, cv::THRESH_BINARY);
        joined = odd(0.05 * rows) / 2;
        cv::dilate(m.borderless, m.dilated, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(1, 2 * joined + 1)));
    } else {
        m.binary.copyTo(m.dilated);
    }
    // Grana's block-based labelling, with 16-bit labels where the map has too few pixels for more components (the
    // working image is about kWorkingArea pixels; a crop far wider than tall keeps 8 rows and can hold more): the
    // same components as the default, in less time (this call was about a third of the reader's time on a frame
    // without a meter).
    const int labelType = m.dilated.total() < 65535 ? CV_16U : CV_32S;
    const int n =
        cv::connectedComponentsWithStats(m.dilated, m.labels, m.stats, m.centroids, 8, labelType, cv::CCL_BBDT);
    m.blobs.clear();
    for (int i = 1; i < n; ++i) {
        const int *s = m.stats.ptr<int>(i);
        Blob b{s[cv::CC_STAT_LEFT], s[cv::CC_STAT_TOP], s[cv::CC_STAT_WIDTH], s[cv::CC_STAT_HEIGHT]};
        const bool digitSized = b.h >= kMinDigitRows * rows && b.h <= 0.95 * rows;
        if (!digitSized || b.w > maxAspect * b.h || b.w < 2 || b.w < minAspect * b.h) continue;
        if (b.y <= 0 || b.y + b.h >= rows || b.x <= 0 || b.x + b.w >= cols) continue;  // cut by the crop's edge
        const double fill = s[cv::CC_STAT_AREA] / double(b.w * b.h);
        if (fill < 0.04 || fill > maxFill) continue;
        m.blobs.push_back(b);
    }
    // The row's seed: the blob whose blobs of about its height, level with it, are tallest in sum. Seven-segment
    // digits (`joinSegments`) are of about one height when each is within the tolerance of the other's: measured by
    // the seed's height alone, a tall blob (the display's border broken into its corners, each taller than a digit)
    // took in both a taller corner and a digit, and outscored the digits' row. A narrow blob (kNarrowBlob: a "1",
    // whose two segments stop short of the others' top and bottom segments in a font with gaps between segments) is
    // still measured by the seed's height. (Drums keep the seed's height as the measure: measured both ways, a counter
    // was misread.)
    double bestScore = 0;
    int bestIndex = -1;
    for (size_t i = 0; i < m.blobs.size(); ++i) {
        const Blob &a = m.blobs[i];
        double score = 0;
        for (const Blob &b : m.blobs) {
            const double measure = joinSegments && b.w >= kNarrowBlob * b.h ? std::min(a.h, b.h) : a.h;
            if (std::fabs(b.h - a.h) <= tolerance * measure && std::fabs(b.cy() - a.cy()) <= 0.25 * a.h) score += b.h;
        }
        if (score > bestScore) {
            bestScore = score;
            bestIndex = int(i);
        }
    }
    row.members.clear();
    if (bestIndex < 0) return false;
    const Blob seed = m.blobs[size_t(bestIndex)];
    if (!collectRow(m, row, joinSegments, [&](const Blob &b) {
            return std::fabs(b.h - seed.h) <= tolerance * seed.h && std::fabs(b.cy() - seed.cy()) <= 0.25 * seed.h;
        }))
        return false;
    // Again along the tilted row, which on a slightly rotated meter leaves the ends of a long row out of the first
    // pass's band around the seed.
    const double height = row.height, centre = row.centre, slope = row.slope, x0 = row.x0;
    if (!collectRow(m, row, joinSegments, [&](const Blob &b) {
            return std::fabs(b.h - height) <= tolerance * height &&
                   std::fabs(b.cy() - centre - slope * (b.cx() - x0)) <= 0.25 * height;
        }))
        return false;
    // The digits' own extent: the vertical joining grew each blob by half its kernel above and below (a sixth of a
    // digit that fills a third of the crop's height), which put the probes of the holes and of the top and bottom
    // segments that far off. The row was found on the grown blobs; its place and its members are the digits'.
    if (joined > 0 && row.height > 4 * joined) {
        for (std::vector<Blob> *blobs : {&m.blobs, &row.members})
            for (Blob &b : *blobs)
                if (b.h > 2 * joined) {
                    b.y += joined;
                    b.h -= 2 * joined;
                }
        row.top += joined;
        row.bottom -= joined;
        row.height -= 2 * joined;
        row.grown = joined;
    }
    return true;
}

cv::Rect flood(lv_meter &m, cv::Mat &map, cv::Point seed, uint8_t from, uint8_t to, cv::Rect window, int &area) {
    area = 0;
    window &= cv::Rect(0, 0, map.cols, map.rows);
    if (!window.contains(seed) || map.at<uint8_t>(seed) != from || from == to) return {};
    const int cols = map.cols;
    uint8_t *pixels = map.data;
    const size_t step = map.step[0];
    auto at = [&](int x, int y) -> uint8_t & { return pixels[size_t(y) * step + size_t(x)]; };
    m.traced.clear();
    m.traced.push_back(seed.y * cols + seed.x);
    at(seed.x, seed.y) = to;
    int x0 = seed.x, x1 = seed.x, y0 = seed.y, y1 = seed.y;
    for (size_t i = 0; i < m.traced.size(); ++i) {
        const int x = m.traced[i] % cols, y = m.traced[i] / cols;
        x0 = std::min(x0, x);
        x1 = std::max(x1, x);
        y0 = std::min(y0, y);
        y1 = std::max(y1, y);
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int nx = x + dx, ny = y + dy;
                if (!window.contains(cv::Point(nx, ny)) || at(nx, ny) != from) continue;
                at(nx, ny) = to;
                m.traced.push_back(ny * cols + nx);
            }
    }
    area = int(m.traced.size());
    return cv::Rect(x0, y0, x1 - x0 + 1, y1 - y0 + 1);
}

double probe(lv_meter &m, cv::Rect r, bool horizontal) {
    r &= cv::Rect(0, 0, m.strokes.cols, m.strokes.rows);
    if (r.empty()) return 0;
    m.scratch.clear();
    if (horizontal) {
        for (int x = r.x; x < r.x + r.width; ++x) {
            int best = 0;
            for (int y = r.y; y < r.y + r.height; ++y) best = std::max(best, int(m.strokes.at<uint8_t>(y, x)));
            m.scratch.push_back(best);
        }
    } else {
        for (int y = r.y; y < r.y + r.height; ++y) {
            const uint8_t *p = m.strokes.ptr<uint8_t>(y);
            int best = 0;
            for (int x = r.x; x < r.x + r.width; ++x) best = std::max(best, int(p[x]));
            m.scratch.push_back(best);
        }
    }
    return median(m.scratch);
}
cv::Rect cellRect(double left, double top, double w, double h, double u0, double v0, double u1, double v1) {
    const int x0 = int(std::floor(left + u0 * w)), x1 = int(std::ceil(left + u1 * w));
    const int y0 = int(std::floor(top + v0 * h)), y1 = int(std::ceil(top + v1 * h));
    return cv::Rect(x0, y0, std::max(1, x1 - x0), std::max(1, y1 - y0));
}

cv::Matx33d homography(const cv::Point2d (&from)[4], const cv::Point2d (&to)[4]) {
    // cv::getPerspectiveTransform's system, solved on the stack: it returns a cv::Mat, which allocates.
    cv::Matx<double, 8, 8> a;
    cv::Vec<double, 8> b;
    for (int i = 0; i < 4; ++i) {
        const double x = from[i].x, y = from[i].y, u = to[i].x, v = to[i].y;
        const double rowU[8] = {x, y, 1, 0, 0, 0, -u * x, -u * y}, rowV[8] = {0, 0, 0, x, y, 1, -v * x, -v * y};
        for (int k = 0; k < 8; ++k) {
            a(i, k) = rowU[k];
            a(i + 4, k) = rowV[k];
        }
        b[i] = u;
        b[i + 4] = v;
    }
    const cv::Vec<double, 8> h = a.solve(b, cv::DECOMP_LU);
    return cv::Matx33d(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1);
}

cv::Rect boxBack(const cv::Matx33d &rectification, const cv::Rect &box) {
    const cv::Matx33d back = rectification.inv();
    double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
    for (int corner = 0; corner < 4; ++corner) {
        const cv::Vec3d p =
            back * cv::Vec3d(box.x + (corner & 1 ? box.width : 0), box.y + (corner & 2 ? box.height : 0), 1);
        x0 = std::min(x0, p[0] / p[2]);
        y0 = std::min(y0, p[1] / p[2]);
        x1 = std::max(x1, p[0] / p[2]);
        y1 = std::max(y1, p[1] / p[2]);
    }
    return cv::Rect(int(std::floor(x0)), int(std::floor(y0)), int(std::ceil(x1 - x0)), int(std::ceil(y1 - y0)));
}

}  // namespace lv_meter_detail
