// The print-and-photograph camera model behind lt_testkit.h: placing a printed code with perspective and cylinder
// curvature, optics (defocus, motion blur), lighting and glare, exposure, print damage, backgrounds, and JPEG.
#include "lt_testkit.h"

#include "kit.hpp"

#include <sched.h>

#include <opencv2/imgproc.hpp>
#include <turbojpeg.h>

#include <malloc.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr double kPi = 3.14159265358979323846;

/// Bilinear sample of a grey image at pixel-centre coordinates (x, y), clamped to the edge.
double sample(const uint8_t *pixels, int width, int height, size_t stride, double x, double y) {
    x = std::clamp(x, 0.0, double(width - 1));
    y = std::clamp(y, 0.0, double(height - 1));
    const int x0 = int(x), y0 = int(y);
    const int x1 = std::min(x0 + 1, width - 1), y1 = std::min(y0 + 1, height - 1);
    const double fx = x - x0, fy = y - y0;
    const uint8_t *r0 = pixels + size_t(y0) * stride, *r1 = pixels + size_t(y1) * stride;
    return (r0[x0] * (1 - fx) + r0[x1] * fx) * (1 - fy) + (r1[x0] * (1 - fx) + r1[x1] * fx) * fy;
}

uint8_t clamp_grey(double value) { return uint8_t(std::clamp(std::lround(value), 0L, 255L)); }

/// A low-frequency random field in [-1, 1]: a coarse grid of random values, smoothly interpolated.
cv::Mat mottle(int width, int height, int cell, lt::Random &random) {
    const int gw = std::max(2, width / cell + 2), gh = std::max(2, height / cell + 2);
    cv::Mat grid(gh, gw, CV_32FC1);
    for (int y = 0; y < gh; ++y)
        for (int x = 0; x < gw; ++x) grid.at<float>(y, x) = float(random.range(-1, 1));
    cv::Mat field;
    cv::resize(grid, field, cv::Size(width, height), 0, 0, cv::INTER_CUBIC);
    return field;
}

/// Fine sensor-independent grain (paper fibre, fabric fuzz) of standard deviation `sigma`, added in place.
void grain(cv::Mat &image, double sigma, uint64_t seed) {
    cv::Mat noise(image.size(), CV_16SC1);
    cv::RNG rng(seed);  // OpenCV's multiply-with-carry generator: the same numbers for a seed on every platform
    rng.fill(noise, cv::RNG::NORMAL, 0, sigma);
    cv::Mat sum;
    image.convertTo(sum, CV_16SC1);
    sum += noise;
    sum.convertTo(image, CV_8UC1);
}

const std::array<const char *, 24> kWords = {
    "organic", "SOURCE", "net wt", "500 g", "Best before", "LOT", "ingredients", "sugar", "NATURAL", "fresh",
    "recycle", "Made in EU", "www", "store", "cool", "dry", "place", "Nutrition", "energy", "kcal", "protein",
    "FRAGILE", "this side up", "batch"};

const std::array<int, 5> kFonts = {cv::FONT_HERSHEY_SIMPLEX, cv::FONT_HERSHEY_DUPLEX, cv::FONT_HERSHEY_COMPLEX,
                                   cv::FONT_HERSHEY_TRIPLEX, cv::FONT_HERSHEY_PLAIN};

std::string words(lt::Random &random, int count) {
    std::string line;
    for (int i = 0; i < count; ++i) {
        if (i) line += ' ';
        line += kWords[size_t(random.below(int(kWords.size())))];
    }
    return line;
}

void paper(cv::Mat &image, lt::Random &random, uint64_t seed) {
    const double base = random.range(170, 225);
    cv::Mat field = mottle(image.cols, image.rows, 48, random);
    field.convertTo(image, CV_8UC1, 12, base);
    const int fibres = image.cols * image.rows / 4000;
    for (int i = 0; i < fibres; ++i) {
        cv::Point a(random.below(image.cols), random.below(image.rows));
        cv::Point b = a + cv::Point(int(random.range(-25, 25)), int(random.range(-25, 25)));
        cv::line(image, a, b, cv::Scalar(base - random.range(8, 25)), 1, cv::LINE_AA);
    }
    grain(image, 3, seed);
}

void wood(cv::Mat &image, lt::Random &random, uint64_t seed) {
    const double period = random.range(14, 40), base = random.range(110, 170);
    cv::Mat field = mottle(image.cols, image.rows, 90, random);
    for (int y = 0; y < image.rows; ++y) {
        uint8_t *row = image.ptr<uint8_t>(y);
        const float *warp = field.ptr<float>(y);
        for (int x = 0; x < image.cols; ++x) {
            const double phase = (y + 30 * warp[x] + 0.05 * x) / period;
            row[x] = clamp_grey(base + 28 * std::sin(2 * kPi * phase) + 10 * std::sin(2 * kPi * phase * 3.1));
        }
    }
    grain(image, 4, seed);
    cv::GaussianBlur(image, image, cv::Size(0, 0), 0.8);
}

void fabric(cv::Mat &image, lt::Random &random, uint64_t seed) {
    const double period = random.range(5, 11), base = random.range(90, 180), angle = random.range(0, kPi);
    const double c = std::cos(angle), s = std::sin(angle);
    for (int y = 0; y < image.rows; ++y) {
        uint8_t *row = image.ptr<uint8_t>(y);
        for (int x = 0; x < image.cols; ++x) {
            const double u = (x * c + y * s) / period, v = (-x * s + y * c) / period;
            const double weave = std::sin(2 * kPi * u) * std::sin(2 * kPi * v);
            row[x] = clamp_grey(base + 22 * weave);
        }
    }
    grain(image, 6, seed);
    cv::GaussianBlur(image, image, cv::Size(0, 0), 0.7);
}

void product(cv::Mat &image, lt::Random &random, uint64_t seed) {
    image.setTo(cv::Scalar(random.range(150, 240)));
    const int w = image.cols, h = image.rows;
    // Colour fields and bands.
    for (int i = 0; i < 5; ++i) {
        std::vector<cv::Point> field;
        const int corners = 3 + random.below(4);
        const cv::Point centre(random.below(w), random.below(h));
        const double radius = random.range(0.15, 0.6) * std::max(w, h);
        for (int k = 0; k < corners; ++k) {
            const double a = 2 * kPi * (k + random.range(0, 0.6)) / corners;
            field.emplace_back(centre.x + int(radius * std::cos(a)), centre.y + int(radius * std::sin(a)));
        }
        cv::fillConvexPoly(image, field, cv::Scalar(random.range(30, 250)), cv::LINE_AA);
    }
    // Circles: a seal, a fruit.
    for (int i = 0; i < 3; ++i) {
        const cv::Point centre(random.below(w), random.below(h));
        const int radius = int(random.range(0.04, 0.15) * std::min(w, h));
        cv::circle(image, centre, radius, cv::Scalar(random.range(20, 250)), random.below(2) ? -1 : 4, cv::LINE_AA);
    }
    // Decorative stripes: regular bars, as on gift wrap or a logo, which no reader may take for a barcode.
    {
        const cv::Rect patch(random.below(w * 2 / 3), random.below(h * 2 / 3), w / 4, h / 6);
        const int bar = 2 + random.below(6);
        const double ink = random.range(0, 80);
        for (int x = patch.x; x < patch.x + patch.width; x += 2 * bar)
            cv::rectangle(image, cv::Rect(x, patch.y, bar, patch.height) & cv::Rect(0, 0, w, h), cv::Scalar(ink),
                          cv::FILLED);
    }
    // A halftone patch: a grid of dots of varying size, as printed photographs are.
    {
        const cv::Rect patch(random.below(w * 2 / 3), random.below(h * 2 / 3), w / 5, h / 5);
        const int pitch = 4 + random.below(4);
        for (int y = patch.y; y < patch.y + patch.height; y += pitch)
            for (int x = patch.x; x < patch.x + patch.width; x += pitch)
                cv::circle(image, cv::Point(x, y), 1 + random.below(pitch / 2), cv::Scalar(40), -1, cv::LINE_AA);
    }
    // Logo lettering and small print.
    const double logo = random.range(1.5, 3.5) * h / 720.0;
    cv::putText(image, words(random, 1), cv::Point(random.below(w / 2), h / 6 + random.below(h / 3)),
                kFonts[size_t(random.below(4))], logo, cv::Scalar(random.range(0, 60)), std::max(2, int(logo * 2)),
                cv::LINE_AA);
    for (int line = 0; line < 6; ++line) {
        cv::putText(image, words(random, 5), cv::Point(w / 20, h - h / 4 + line * h / 40),
                    cv::FONT_HERSHEY_SIMPLEX, 0.35 * h / 720.0 + 0.2, cv::Scalar(30), 1, cv::LINE_AA);
    }
    grain(image, 2, seed);
}

void text_page(cv::Mat &image, lt::Random &random, uint64_t seed) {
    image.setTo(cv::Scalar(random.range(205, 245)));
    int y = 30;
    while (y < image.rows - 10) {
        const bool heading = random.below(6) == 0;
        const double scale = heading ? random.range(0.9, 1.4) : random.range(0.45, 0.8);
        const int font = kFonts[size_t(random.below(int(kFonts.size())))];
        cv::putText(image, words(random, heading ? 3 : 8), cv::Point(20 + random.below(30), y), font, scale,
                    cv::Scalar(random.range(10, 60)), heading ? 2 : 1, cv::LINE_AA);
        y += int(scale * 34) + random.below(8);
    }
    grain(image, 2, seed);
}

}  // namespace

extern "C" int lt_place_code(const uint8_t *code, int code_width, int code_height, size_t code_stride,
                             uint8_t *frame, int width, int height, size_t stride, const double *quad, double dark,
                             double light, double wrap_degrees) {
    return lt::guarded([&] {
        if (!lt::valid(code, code_width, code_height, code_stride) || !lt::valid(frame, width, height, stride) ||
            !quad || !(wrap_degrees >= 0 && wrap_degrees <= 80))
            return -EINVAL;
        const cv::Point2f source[4] = {{0, 0},
                                       {float(code_width), 0},
                                       {float(code_width), float(code_height)},
                                       {0, float(code_height)}};
        cv::Point2f target[4];
        for (int i = 0; i < 4; ++i) target[i] = cv::Point2f(float(quad[2 * i]), float(quad[2 * i + 1]));
        // From frame edge coordinates back to the code's (edge coordinates: (0, 0) is a pixel's corner).
        const cv::Matx33d inverse = cv::Matx33d(cv::getPerspectiveTransform(target, source));
        double min_x = quad[0], max_x = quad[0], min_y = quad[1], max_y = quad[1];
        for (int i = 1; i < 4; ++i) {
            min_x = std::min(min_x, quad[2 * i]), max_x = std::max(max_x, quad[2 * i]);
            min_y = std::min(min_y, quad[2 * i + 1]), max_y = std::max(max_y, quad[2 * i + 1]);
        }
        const int x0 = std::max(0, int(std::floor(min_x))), x1 = std::min(width, int(std::ceil(max_x)) + 1);
        const int y0 = std::max(0, int(std::floor(min_y))), y1 = std::min(height, int(std::ceil(max_y)) + 1);
        const double theta = wrap_degrees * kPi / 180, half = code_width / 2.0;
        const double sin_theta = std::sin(theta);
        for (int y = y0; y < y1; ++y) {
            uint8_t *row = frame + size_t(y) * stride;
            for (int x = x0; x < x1; ++x) {
                const double fx = x + 0.5, fy = y + 0.5;
                const double w = inverse(2, 0) * fx + inverse(2, 1) * fy + inverse(2, 2);
                if (std::abs(w) < 1e-12) continue;
                double u = (inverse(0, 0) * fx + inverse(0, 1) * fy + inverse(0, 2)) / w;
                const double v = (inverse(1, 0) * fx + inverse(1, 1) * fy + inverse(1, 2)) / w;
                if (u < 0 || u >= code_width || v < 0 || v >= code_height) continue;
                double shade = 1;
                if (theta > 0) {
                    // u is where the cylinder's silhouette puts the point; unroll it to the printed position.
                    const double chord = std::clamp((u - half) / half, -1.0, 1.0);
                    const double angle = std::asin(chord * sin_theta);
                    u = half + half * angle / theta;
                    shade = 0.5 + 0.5 * std::cos(angle);
                }
                const double ink = sample(code, code_width, code_height, code_stride, u - 0.5, v - 0.5) / 255;
                row[x] = clamp_grey((dark + (light - dark) * ink) * shade);
            }
        }
        return 0;
    });
}

extern "C" int lt_fit_frame(const uint8_t *luma, int image_width, int image_height, size_t stride, uint8_t *out,
                            int width, int height, size_t out_stride) {
    return lt::guarded([&] {
        if (!lt::valid(luma, image_width, image_height, stride) || !lt::valid(out, width, height, out_stride))
            return -EINVAL;
        const double scale = std::min(double(width) / image_width, double(height) / image_height);
        const int w = std::clamp(int(std::lround(image_width * scale)), 1, width);
        const int h = std::clamp(int(std::lround(image_height * scale)), 1, height);
        cv::Mat scaled;
        cv::resize(lt::wrap(luma, image_width, image_height, stride), scaled, cv::Size(w, h), 0, 0, cv::INTER_CUBIC);
        const int top = (height - h) / 2, left = (width - w) / 2;
        cv::Mat frame = lt::wrap(out, width, height, out_stride);
        cv::copyMakeBorder(scaled, frame, top, height - h - top, left, width - w - left, cv::BORDER_REPLICATE);
        return 0;
    });
}

extern "C" int lt_defocus(uint8_t *luma, int width, int height, size_t stride, double radius) {
    return lt::guarded([&] {
        if (!lt::valid(luma, width, height, stride) || !(radius >= 0 && radius <= 50)) return -EINVAL;
        if (radius < 0.25) return 0;
        const int r = int(std::ceil(radius));
        cv::Mat kernel = cv::Mat::zeros(2 * r + 1, 2 * r + 1, CV_32FC1);
        // The disk's edge is anti-aliased so that fractional radii blur by fractional amounts.
        for (int y = -r; y <= r; ++y)
            for (int x = -r; x <= r; ++x)
                kernel.at<float>(y + r, x + r) =
                    float(std::clamp(radius + 0.5 - std::sqrt(double(x * x + y * y)), 0.0, 1.0));
        kernel /= cv::sum(kernel)[0];
        cv::Mat image = lt::wrap(luma, width, height, stride);
        cv::filter2D(image, image, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
        return 0;
    });
}

extern "C" int lt_motion_blur(uint8_t *luma, int width, int height, size_t stride, double length, double degrees) {
    return lt::guarded([&] {
        if (!lt::valid(luma, width, height, stride) || !(length >= 0 && length <= 100)) return -EINVAL;
        if (length < 1) return 0;
        const int r = int(std::ceil(length / 2));
        cv::Mat kernel = cv::Mat::zeros(2 * r + 1, 2 * r + 1, CV_32FC1);
        const double a = degrees * kPi / 180;
        const cv::Point2d half(std::cos(a) * length / 2, -std::sin(a) * length / 2);
        // Drawn at 4x sub-pixel precision (shift 2), anti-aliased.
        const auto fixed = [&](cv::Point2d p) { return cv::Point(int(std::lround(p.x * 4)), int(std::lround(p.y * 4))); };
        cv::line(kernel, fixed(cv::Point2d(r, r) - half), fixed(cv::Point2d(r, r) + half), cv::Scalar(1), 1,
                 cv::LINE_AA, 2);
        const double total = cv::sum(kernel)[0];
        if (total <= 0) return 0;
        kernel /= total;
        cv::Mat image = lt::wrap(luma, width, height, stride);
        cv::filter2D(image, image, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
        return 0;
    });
}

extern "C" int lt_lighting(uint8_t *luma, int width, int height, size_t stride, double falloff, double degrees,
                           double glare_x, double glare_y, double glare_radius, double glare_strength) {
    return lt::guarded([&] {
        if (!lt::valid(luma, width, height, stride) || !(falloff >= 0 && falloff <= 1) ||
            !(glare_strength >= 0 && glare_strength <= 1) || !(glare_radius >= 0))
            return -EINVAL;
        const double a = degrees * kPi / 180, dx = std::cos(a), dy = -std::sin(a);
        double low = 0, high = 0;
        for (const auto &[cx, cy] : std::array<std::pair<double, double>, 4>{
                 {{0.0, 0.0}, {double(width), 0.0}, {0.0, double(height)}, {double(width), double(height)}}}) {
            low = std::min(low, cx * dx + cy * dy), high = std::max(high, cx * dx + cy * dy);
        }
        const double span = std::max(1.0, high - low);
        const double spread = 2 * glare_radius * glare_radius;
        for (int y = 0; y < height; ++y) {
            uint8_t *row = luma + size_t(y) * stride;
            for (int x = 0; x < width; ++x) {
                // Brightest where the projection on the direction is lowest.
                double value = row[x] * (1 - falloff * ((x * dx + y * dy) - low) / span);
                if (glare_strength > 0 && spread > 0) {
                    const double r2 = (x - glare_x) * (x - glare_x) + (y - glare_y) * (y - glare_y);
                    if (r2 < 9 * spread) value += glare_strength * std::exp(-r2 / spread) * (255 - value);
                }
                row[x] = clamp_grey(value);
            }
        }
        return 0;
    });
}

extern "C" int lt_levels(uint8_t *luma, int width, int height, size_t stride, double black, double white,
                         double gamma) {
    return lt::guarded([&] {
        if (!lt::valid(luma, width, height, stride) || !(gamma > 0.05 && gamma < 20)) return -EINVAL;
        cv::Mat table(1, 256, CV_8UC1);
        for (int i = 0; i < 256; ++i)
            table.at<uint8_t>(i) = clamp_grey(black + (white - black) * std::pow(i / 255.0, gamma));
        cv::Mat image = lt::wrap(luma, width, height, stride);
        cv::LUT(image, table, image);
        return 0;
    });
}

extern "C" int lt_damage(uint8_t *luma, int width, int height, size_t stride, int module_px, int scratches,
                         int blots, uint64_t seed) {
    return lt::guarded([&] {
        if (!lt::valid(luma, width, height, stride) || module_px < 1 || scratches < 0 || blots < 0) return -EINVAL;
        cv::Mat image = lt::wrap(luma, width, height, stride);
        lt::Random random(seed);
        for (int i = 0; i < scratches; ++i) {
            // From the left or top edge to the opposite one, at a slant.
            const bool across = random.below(2) == 0;
            cv::Point a, b;
            if (across) {
                a = cv::Point(0, random.below(height)), b = cv::Point(width, random.below(height));
            } else {
                a = cv::Point(random.below(width), 0), b = cv::Point(random.below(width), height);
            }
            const bool pen = random.below(3) == 0;
            const int thickness = std::max(1, int(module_px * random.range(0.6, 1.6)));
            cv::line(image, a, b, cv::Scalar(pen ? 40 : 245), thickness, cv::LINE_AA);
        }
        for (int i = 0; i < blots; ++i) {
            const int size = module_px * (1 + random.below(3));
            const int x = random.below(std::max(1, width / module_px)) * module_px;
            const int y = random.below(std::max(1, height / module_px)) * module_px;
            const cv::Rect blot = cv::Rect(x, y, size, size) & cv::Rect(0, 0, width, height);
            image(blot).setTo(cv::Scalar(random.below(2) ? 255 : 0));
        }
        return 0;
    });
}

extern "C" int lt_texture(uint8_t *luma, int width, int height, size_t stride, int kind, uint64_t seed) {
    return lt::guarded([&] {
        if (!lt::valid(luma, width, height, stride)) return -EINVAL;
        cv::Mat image = lt::wrap(luma, width, height, stride);
        lt::Random random(seed);
        switch (kind) {
        case LT_TEXTURE_PAPER: paper(image, random, seed); break;
        case LT_TEXTURE_WOOD: wood(image, random, seed); break;
        case LT_TEXTURE_FABRIC: fabric(image, random, seed); break;
        case LT_TEXTURE_PRODUCT: product(image, random, seed); break;
        case LT_TEXTURE_TEXT: text_page(image, random, seed); break;
        default: return -EINVAL;
        }
        return 0;
    });
}

namespace {

/// A TurboJPEG handle, destroyed on every path out of the scope.
struct Handle {
    tjhandle handle;
    ~Handle() {
        if (handle) tjDestroy(handle);
    }
};

/// A buffer TurboJPEG allocated, freed on every path out of the scope.
struct JPEGBuffer {
    unsigned char *bytes = nullptr;
    unsigned long size = 0;
    ~JPEGBuffer() {
        if (bytes) tjFree(bytes);
    }
};

int compress(const uint8_t *luma, int width, int height, size_t stride, int quality, JPEGBuffer &jpeg) {
    if (!lt::valid(luma, width, height, stride) || quality < 1 || quality > 100) return -EINVAL;
    Handle compressor{tjInitCompress()};
    if (!compressor.handle) return -ENOMEM;
    if (tjCompress2(compressor.handle, luma, width, int(stride), height, TJPF_GRAY, &jpeg.bytes, &jpeg.size,
                    TJSAMP_GRAY, quality, 0) != 0)
        return -EIO;
    return 0;
}

}  // namespace

extern "C" int lt_jpeg_encode(const uint8_t *luma, int width, int height, size_t stride, int quality, uint8_t *out,
                              size_t capacity, size_t *length) {
    return lt::guarded([&] {
        if (!length || (capacity > 0 && !out)) return -EINVAL;
        JPEGBuffer jpeg;
        if (int status = compress(luma, width, height, stride, quality, jpeg); status != 0) return status;
        *length = jpeg.size;
        if (jpeg.size > capacity) return -ENOSPC;
        std::memcpy(out, jpeg.bytes, jpeg.size);
        return 0;
    });
}

extern "C" size_t lt_heap_in_use(void) { return mallinfo2().uordblks; }

namespace {
thread_local cpu_set_t saved_cpus;
thread_local bool pinned = false;
}  // namespace

extern "C" int lt_pin_to_one_cpu(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -errno;
    const int count = CPU_COUNT(&set);
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) ++first;
    if (first == CPU_SETSIZE) return -EINVAL;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) return -errno;
    saved_cpus = set;
    pinned = true;
    return count;
}

extern "C" int lt_unpin(void) {
    if (!pinned) return 0;
    pinned = false;
    return sched_setaffinity(0, sizeof saved_cpus, &saved_cpus) == 0 ? 0 : -errno;
}
