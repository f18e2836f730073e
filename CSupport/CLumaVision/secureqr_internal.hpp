// Geometry and rectification shared by the secure-QR analyzer (secureqr_analyze.cpp) and the authenticity scorer
// (secureqr_authenticate.cpp), internal to CLumaVision, so the two sample the secure graphic the same way.
#ifndef LV_SECUREQR_INTERNAL_HPP
#define LV_SECUREQR_INTERNAL_HPP

#include "lv_mat.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace lv::sqr {

using lv::reuse;

/// Maps (x, y) through the homography `h`.
inline cv::Point2d apply(const cv::Matx33d &h, double x, double y) {
    double w = h(2, 0) * x + h(2, 1) * y + h(2, 2);
    if (std::fabs(w) < 1e-12) w = 1e-12;
    return {(h(0, 0) * x + h(0, 1) * y + h(0, 2)) / w, (h(1, 0) * x + h(1, 1) * y + h(1, 2)) / w};
}

/// The area of a quadrilateral (shoelace formula).
inline double quad_area(const cv::Point2d q[4]) {
    double sum = 0;
    for (int i = 0; i < 4; ++i) sum += q[i].x * q[(i + 1) % 4].y - q[i].y * q[(i + 1) % 4].x;
    return std::fabs(sum) / 2;
}

/// Frame pixels per module over the module rectangle (x, y, w, h) mapped through `h`.
inline double module_pixels(const cv::Matx33d &h, double x, double y, double w, double hh) {
    cv::Point2d q[4] = {apply(h, x, y), apply(h, x + w, y), apply(h, x + w, y + hh), apply(h, x, y + hh)};
    return std::sqrt(quad_area(q) / (w * hh));
}

/// Rectifies the module rectangle (x, y, w, h) through `h` into `out` at out.cols / w pixels per module; supersamples
/// by `k` in each axis (then averages, in `big`'s memory) so that shrinking does not alias.
inline void rectify(cv::Mat &big_scratch, const cv::Mat &frame, const cv::Matx33d &h, double x, double y, double w,
                    double hh, cv::Mat &out, int k) {
    k = std::max(1, std::min(k, 4));
    int bw = out.cols * k, bh = out.rows * k;
    double sx = w / bw, sy = hh / bh;
    cv::Matx33d t(sx, 0, x + 0.5 * sx, 0, sy, y + 0.5 * sy, 0, 0, 1);
    cv::Matx33d m = h * t;
    if (k == 1) {
        cv::warpPerspective(frame, out, cv::Mat(m), out.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                            cv::BORDER_REPLICATE);
        return;
    }
    cv::Mat big = reuse(big_scratch, bh, bw, CV_8UC1);
    cv::warpPerspective(frame, big, cv::Mat(m), big.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                        cv::BORDER_REPLICATE);
    cv::resize(big, out, out.size(), 0, 0, cv::INTER_AREA);
}

}  // namespace lv::sqr

#endif
