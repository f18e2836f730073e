// What every CLumaTestKit source shares: the one exception guard of its extern "C" functions, pixel wrapping and
// the deterministic random numbers (internal to the target; lt_testkit.h is the C API).
#ifndef LT_KIT_HPP
#define LT_KIT_HPP

// OpenCV is found through the CSupport/OpenCV/include link (see Package.swift), not through pkg-config.
#if !__has_include(<opencv2/core.hpp>)
#error "OpenCV's headers are missing from /usr/include/opencv4: install libopencv-dev (scripts/deps.sh does)"
#endif
#include <opencv2/core.hpp>

#include "lv_shim.hpp"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <new>

namespace lt {

/// The one exception guard of every extern "C" function, CLumaVision's (lv_shim.hpp): exceptions become -ENOMEM or
/// -EIO.
using lv::guarded;

/// Whether a caller's pixel arguments describe an image.
inline bool valid(const uint8_t *luma, int width, int height, size_t stride) {
    return luma && width > 0 && height > 0 && stride >= size_t(width);
}

/// A Mat over caller memory (no copy); read-only callers never write through it.
inline cv::Mat wrap(const uint8_t *luma, int width, int height, size_t stride) {
    return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
}

/// SplitMix64, as LumaScanCore's, so that C++ and Swift draw the same numbers from the same seed on every machine.
struct Random {
    uint64_t state;
    explicit Random(uint64_t seed) : state(seed) {}
    uint64_t next() {
        state += 0x9E3779B97F4A7C15ULL;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1).
    double unit() { return double(next() >> 11) / double(1ULL << 53); }
    /// Uniform in [low, high).
    double range(double low, double high) { return low + (high - low) * unit(); }
    /// Uniform in [0, count).
    int below(int count) { return count > 0 ? int(next() % uint64_t(count)) : 0; }
};

}  // namespace lt

#endif
