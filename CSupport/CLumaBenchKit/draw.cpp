// The bench kit's imaging behind lv_draw.h: OpenCV imgproc over borrowed grey planes.
#include "lv_draw.h"
#include "lv_shim.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>

using lv::guarded;
using lv::valid;

namespace {

/// A Mat over caller memory; OpenCV takes a non-const pointer but read-only use never writes through it.
cv::Mat wrap(const uint8_t *luma, int width, int height, size_t stride) {
    return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
}

/// A negative border keeps the destination's pixels where the source does not reach (OpenCV's transparent border).
int border_mode(int border) { return border < 0 ? cv::BORDER_TRANSPARENT : cv::BORDER_CONSTANT; }

}  // namespace

extern "C" int lv_image_resize(const uint8_t *src, int src_width, int src_height, size_t src_stride, uint8_t *dst,
                               int dst_width, int dst_height, size_t dst_stride, int interpolation) {
    return guarded([&] {
        if (!valid(src, src_width, src_height, src_stride) || !valid(dst, dst_width, dst_height, dst_stride))
            return -EINVAL;
        int mode;
        switch (interpolation) {
            case LV_INTERP_NEAREST: mode = cv::INTER_NEAREST; break;
            case LV_INTERP_LINEAR: mode = cv::INTER_LINEAR; break;
            case LV_INTERP_AREA: mode = cv::INTER_AREA; break;
            default: return -EINVAL;
        }
        cv::Mat target = wrap(dst, dst_width, dst_height, dst_stride);
        cv::resize(wrap(src, src_width, src_height, src_stride), target, target.size(), 0, 0, mode);
        return 0;
    });
}

extern "C" int lv_image_rotate(const uint8_t *src, int src_width, int src_height, size_t src_stride, uint8_t *dst,
                               int dst_width, int dst_height, size_t dst_stride, double degrees, int border,
                               double *matrix) {
    return guarded([&] {
        if (!valid(src, src_width, src_height, src_stride) || !valid(dst, dst_width, dst_height, dst_stride))
            return -EINVAL;
        cv::Point2f centre(float(src_width - 1) / 2, float(src_height - 1) / 2);
        cv::Mat m = cv::getRotationMatrix2D(centre, degrees, 1.0);
        // Move the source centre onto the destination centre.
        m.at<double>(0, 2) += double(dst_width - src_width) / 2;
        m.at<double>(1, 2) += double(dst_height - src_height) / 2;
        cv::Mat target = wrap(dst, dst_width, dst_height, dst_stride);
        cv::warpAffine(wrap(src, src_width, src_height, src_stride), target, m, target.size(), cv::INTER_LINEAR,
                       border_mode(border), cv::Scalar(border));
        if (matrix)
            for (int i = 0; i < 6; ++i) matrix[i] = m.at<double>(i / 3, i % 3);
        return 0;
    });
}

extern "C" int lv_image_warp_perspective(const uint8_t *src, int src_width, int src_height, size_t src_stride,
                                         uint8_t *dst, int dst_width, int dst_height, size_t dst_stride,
                                         const double *src_quad, const double *dst_quad, int border,
                                         double *matrix) {
    return guarded([&] {
        if (!valid(src, src_width, src_height, src_stride) || !valid(dst, dst_width, dst_height, dst_stride) ||
            !src_quad || !dst_quad)
            return -EINVAL;
        cv::Point2f from[4], to[4];
        for (int i = 0; i < 4; ++i) {
            from[i] = cv::Point2f(float(src_quad[2 * i]), float(src_quad[2 * i + 1]));
            to[i] = cv::Point2f(float(dst_quad[2 * i]), float(dst_quad[2 * i + 1]));
        }
        cv::Mat h = cv::getPerspectiveTransform(from, to);
        cv::Mat target = wrap(dst, dst_width, dst_height, dst_stride);
        cv::warpPerspective(wrap(src, src_width, src_height, src_stride), target, h, target.size(), cv::INTER_LINEAR,
                            border_mode(border), cv::Scalar(border));
        if (matrix)
            for (int i = 0; i < 9; ++i) matrix[i] = h.at<double>(i / 3, i % 3);
        return 0;
    });
}

extern "C" int lv_image_gaussian_blur(uint8_t *luma, int width, int height, size_t stride, double sigma) {
    return guarded([&] {
        if (!valid(luma, width, height, stride) || !(sigma >= 0)) return -EINVAL;
        if (sigma == 0) return 0;
        cv::Mat image = wrap(luma, width, height, stride);
        cv::GaussianBlur(image, image, cv::Size(0, 0), sigma, sigma, cv::BORDER_REPLICATE);
        return 0;
    });
}

extern "C" int lv_image_add_noise(uint8_t *luma, int width, int height, size_t stride, double sigma, uint64_t seed) {
    return guarded([&] {
        if (!valid(luma, width, height, stride) || !(sigma >= 0)) return -EINVAL;
        if (sigma == 0) return 0;
        cv::Mat image = wrap(luma, width, height, stride);
        cv::Mat noise(height, width, CV_16SC1);
        cv::RNG rng(seed);
        rng.fill(noise, cv::RNG::NORMAL, 0.0, sigma);
        cv::Mat sum;
        image.convertTo(sum, CV_16SC1);
        sum += noise;
        sum.convertTo(image, CV_8UC1);  // saturates to 0...255
        return 0;
    });
}

extern "C" int lv_image_fill_polygon(uint8_t *luma, int width, int height, size_t stride, const double *xy, int count,
                                     uint8_t value, int antialias) {
    return guarded([&] {
        if (!valid(luma, width, height, stride) || !xy || count < 3) return -EINVAL;
        // Sub-pixel corners: fillPoly takes fixed-point coordinates with `shift` fractional bits.
        constexpr int shift = 8;
        std::vector<cv::Point> points;
        points.reserve(size_t(count));
        for (int i = 0; i < count; ++i)
            points.emplace_back(cvRound(xy[2 * i] * (1 << shift)), cvRound(xy[2 * i + 1] * (1 << shift)));
        cv::Mat image = wrap(luma, width, height, stride);
        cv::fillPoly(image, std::vector<std::vector<cv::Point>>{points}, cv::Scalar(value),
                     antialias ? cv::LINE_AA : cv::LINE_8, shift);
        return 0;
    });
}

extern "C" int lv_image_fill_rect(uint8_t *luma, int width, int height, size_t stride, int x, int y, int rect_width,
                                  int rect_height, uint8_t value) {
    return guarded([&] {
        if (!valid(luma, width, height, stride) || rect_width < 0 || rect_height < 0) return -EINVAL;
        cv::Rect area = cv::Rect(x, y, rect_width, rect_height) & cv::Rect(0, 0, width, height);
        if (area.empty()) return 0;
        wrap(luma, width, height, stride)(area).setTo(cv::Scalar(value));
        return 0;
    });
}

extern "C" int lv_image_draw_text(uint8_t *luma, int width, int height, size_t stride, const char *text, int x, int y,
                                  double scale, int thickness, uint8_t value) {
    return guarded([&] {
        if (!valid(luma, width, height, stride) || !text || !(scale > 0) || thickness < 1) return -EINVAL;
        cv::Mat image = wrap(luma, width, height, stride);
        cv::putText(image, text, cv::Point(x, y), cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(value), thickness,
                    cv::LINE_AA);
        return 0;
    });
}
