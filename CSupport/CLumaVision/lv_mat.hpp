// OpenCV scratch matrices reused across frames (internal to CLumaVision): the barcode scanner's planes and the
// secure-QR analysis's windows, so that steady-state frame processing allocates nothing.
#ifndef LV_MAT_HPP
#define LV_MAT_HPP

#include <opencv2/core.hpp>

#include <algorithm>
#include <cstddef>

namespace lv {

/// A `rows` x `cols` matrix of `type` in `mat`'s memory, reallocating only when it must grow (by a quarter more than
/// asked, so a slowly growing size settles); cv::Mat::create would reallocate whenever the shape changes, which it
/// does from frame to frame.
inline cv::Mat reuse(cv::Mat &mat, int rows, int cols, int type = CV_8UC1) {
    size_t needed = size_t(rows) * size_t(cols) * CV_ELEM_SIZE(type);
    size_t have = mat.empty() ? 0 : mat.total() * mat.elemSize();
    if (have < needed) mat.create(1, int(std::max(needed, have * 5 / 4)), CV_8UC1);
    return cv::Mat(rows, cols, type, mat.data);
}

}  // namespace lv

#endif
