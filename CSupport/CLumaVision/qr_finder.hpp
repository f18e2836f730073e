// A fast locator of QR finder patterns, internal to CLumaVision: it tells the barcode scanner where zbar's QR reader
// needs to look in a camera frame, so zbar's per-pixel scan (the bulk of a frame's cost) runs on a small crop, or
// not at all on a frame without a code.
#ifndef LV_QR_FINDER_HPP
#define LV_QR_FINDER_HPP

#include <opencv2/core.hpp>

#include <cstdint>
#include <vector>

namespace lv::qr_finder {

/// A finder pattern's centre and module size, in the pixels of the plane it was found on.
struct Candidate {
    float x = 0;
    float y = 0;
    float module = 0;
    /// How many rows confirmed it (a real finder's centre band spans several rows).
    int hits = 0;
};

/// The scratch a search reuses from frame to frame, so that a search allocates nothing once it has seen a frame of
/// this size: the shrunk planes its local threshold is computed on, line buffers, and the candidate list.
struct Scratch {
    std::vector<uint8_t> shrunk, low, high, threshold, pass;
    std::vector<uint8_t> line, prefix, suffix;
    std::vector<uint32_t> sums;
    std::vector<Candidate> candidates;
};

/// At most this many distinct candidates are kept; a plane with more is too busy for the search to narrow anything.
constexpr size_t kMaxCandidates = 48;

/// Finds finder-pattern candidates in `plane` (8-bit grey, any stride).
///
/// A pixel is dark when it is below its local threshold: halfway between the darkest and the lightest grey of the
/// plane shrunk 4x, in a 3x3 box around it when that box holds at least 20 grey levels of contrast, otherwise in a
/// box of about an eighth of the plane's shorter side. Every row is run-length coded; five runs
/// dark-light-dark-light-dark in the 1:1:3:1:1 proportion of a finder pattern (each 1-unit run within 0.25-1.75
/// units, the centre within 1.5-4.5), whose centre is at least 20 grey levels darker than the light runs beside it,
/// are checked along the column through their centre with the same proportions and a length within 0.5-2x of the
/// row's, then along the row through the refined centre, as ZXing's detector does; a pattern passing all three is a
/// candidate, merged with candidates found on nearby rows.
///
/// The tolerances are wider than zbar's own finder test, so that every finder zbar would accept is found; a false
/// candidate costs only scan time. Returns the number of distinct candidates (in `scratch.candidates`), or -1 when
/// there are more than kMaxCandidates. May throw std::bad_alloc (callers catch).
int locate(const cv::Mat &plane, Scratch &scratch);

}  // namespace lv::qr_finder

#endif
