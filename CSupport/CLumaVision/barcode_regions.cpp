// Where in a frame a code is likely, internal to CLumaVision's barcode scanner (see barcode_internal.hpp): a cheap
// search of edge density on a shrunk plane, so that the expensive reads (ZXing-C++'s 2D detectors on camera frames,
// the upscaled pass on still images) run only there.
#include "barcode_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace lv::barcode {

void find_likely_regions(lv_barcode_scanner *s, const uint8_t *luma, size_t stride, cv::Rect roi, bool linear,
                         int rows) {
    s->regions.clear();
    // A plane about `rows` rows tall (270 for camera frames): a 2D code's modules of 2 px and more still show as edges there, sensor noise
    // averages out, and the search costs about half a millisecond at 1080p.
    const int f = std::max(1, int(std::lround(roi.height / double(rows))));
    const int pw = roi.width / f, ph = roi.height / f;
    constexpr int kBlock = 8;
    const int bw = pw / kBlock, bh = ph / kBlock;
    if (bw < 1 || bh < 1) return;
    cv::Mat source(roi.height, roi.width, CV_8UC1, const_cast<uint8_t *>(luma + size_t(roi.y) * stride + roi.x),
                   stride);
    size_t needed = size_t(pw) * size_t(ph);
    if (s->gate_plane.empty() || s->gate_plane.total() < needed) s->gate_plane.create(1, int(needed), CV_8UC1);
    cv::Mat plane(ph, pw, CV_8UC1, s->gate_plane.data);
    if (f == 1)
        source(cv::Rect(0, 0, pw, ph)).copyTo(plane);
    else
        cv::resize(source(cv::Rect(0, 0, pw * f, ph * f)), plane, plane.size(), 0, 0, cv::INTER_AREA);

    // A block is likely part of a 2D code when both its rows and its columns cross many strong edges: a matrix of
    // modules has them in both directions, a linear code (one direction) and flat or noisy surfaces do not.
    constexpr int kEdge = 28;           // grey levels between neighbours on the shrunk plane
    constexpr int kMinEdges = kBlock * kBlock / 6;
    s->region_marks.assign(size_t(bw) * size_t(bh), 0);
    for (int by = 0; by < bh; ++by) {
        for (int bx = 0; bx < bw; ++bx) {
            int across = 0, down = 0;
            for (int y = by * kBlock; y < by * kBlock + kBlock; ++y) {
                const uint8_t *row = plane.ptr<uint8_t>(y);
                const uint8_t *below = y + 1 < ph ? plane.ptr<uint8_t>(y + 1) : row;
                for (int x = bx * kBlock; x < bx * kBlock + kBlock; ++x) {
                    if (x + 1 < pw && std::abs(int(row[x + 1]) - int(row[x])) > kEdge) ++across;
                    if (std::abs(int(below[x]) - int(row[x])) > kEdge) ++down;
                }
            }
            uint8_t &mark = s->region_marks[size_t(by) * size_t(bw) + size_t(bx)];
            if (across >= kMinEdges && down >= kMinEdges)
                mark = 1;
            else if (across >= kMinEdges || down >= kMinEdges)
                mark = 3;  // edges along one axis only: joins a region that has 2D blocks (PDF417's start/stop)
        }
    }
    // Connected groups of marked blocks (4-neighbours), each widened by two blocks for the quiet zone and the code's
    // sparser edges (a tilted code's corners). Unless `linear`, a group must hold a 2D block: one-axis blocks join a
    // group but never start one (PDF417's start and stop patterns and its rows' bars are edges across only).
    std::vector<int> &stack = s->region_stack;
    for (int start = 0; start < bw * bh; ++start) {
        if (s->region_marks[size_t(start)] != 1 && !(linear && s->region_marks[size_t(start)] == 3)) continue;
        int x0 = bw, y0 = bh, x1 = -1, y1 = -1;
        stack.clear();
        stack.push_back(start);
        s->region_marks[size_t(start)] = 2;
        while (!stack.empty()) {
            int at = stack.back();
            stack.pop_back();
            int bx = at % bw, by = at / bw;
            x0 = std::min(x0, bx), y0 = std::min(y0, by), x1 = std::max(x1, bx), y1 = std::max(y1, by);
            const int neighbours[4][2] = {{bx - 1, by}, {bx + 1, by}, {bx, by - 1}, {bx, by + 1}};
            for (const auto &n : neighbours) {
                if (n[0] < 0 || n[1] < 0 || n[0] >= bw || n[1] >= bh) continue;
                size_t i = size_t(n[1]) * size_t(bw) + size_t(n[0]);
                if (s->region_marks[i] != 1 && s->region_marks[i] != 3) continue;
                s->region_marks[i] = 2;
                stack.push_back(int(i));
            }
        }
        cv::Rect box((x0 - 2) * kBlock * f, (y0 - 2) * kBlock * f, (x1 - x0 + 5) * kBlock * f,
                     (y1 - y0 + 5) * kBlock * f);
        box &= cv::Rect(0, 0, roi.width, roi.height);
        if (box.empty()) continue;
        s->regions.push_back(box);
    }
    // The largest regions first.
    std::sort(s->regions.begin(), s->regions.end(),
              [](const cv::Rect &a, const cv::Rect &b) { return a.area() > b.area(); });
}

}  // namespace lv::barcode
