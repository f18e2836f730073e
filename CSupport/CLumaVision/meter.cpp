// Meter reading with OpenCV: seven-segment displays by segment probes; roller counters found by template matching
// against a drum strip (which also finds drums caught mid-roll) and read by the digit network of lv_meter_digits.h
// with the carry rule. The image is borrowed; scratch images and vectors live in the reader and keep their capacity
// from frame to frame, so steady-state reading allocates little.
#include "lv_meter.h"
#include "lv_meter_digits.h"

#include "codecs.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lv_meter_detail {
// Defined in meter_templates.cpp.
extern const uint8_t kDigitTemplates[2][10 * LV_METER_TEMPLATE_WIDTH * LV_METER_TEMPLATE_HEIGHT];
}  // namespace lv_meter_detail


namespace {

// Segment bits: a (top), b (upper right), c (lower right), d (bottom), e (lower left), f (upper left), g (middle).
constexpr int kA = 1, kB = 2, kC = 4, kD = 8, kE = 16, kF = 32, kG = 64;

/// Seven-segment patterns and the digits they show, including the common variants of 6, 7 and 9.
constexpr struct {
    int segments;
    int digit;
} kPatterns[] = {
    {kA | kB | kC | kD | kE | kF, 0},      {kB | kC, 1},
    {kA | kB | kD | kE | kG, 2},           {kA | kB | kC | kD | kG, 3},
    {kB | kC | kF | kG, 4},                {kA | kC | kD | kF | kG, 5},
    {kA | kC | kD | kE | kF | kG, 6},      {kC | kD | kE | kF | kG, 6},
    {kA | kB | kC, 7},                     {kA | kB | kC | kF, 7},
    {kA | kB | kC | kD | kE | kF | kG, 8}, {kA | kB | kC | kD | kF | kG, 9},
    {kA | kB | kC | kF | kG, 9},
};

/// The working image's area: crops are scaled to about this many pixels, so reading time does not grow with the
/// camera's resolution.
constexpr double kWorkingArea = 48000;

/// Drum pitches (distance between consecutive digits on a drum / digit height) of the counter reader's strips, the
/// usual one first: real drums vary, and between two digits the gap that shows depends on the pitch.
constexpr int kStripCount = 5;
constexpr double kDrumPitches[kStripCount] = {1.42, 1.25, 1.33, 1.51, 1.6};

/// The seven-segment reader's second stroke map closes the background with a square this fraction of the digit
/// height: wider than the thickest stroke (0.17), narrower than glare.
constexpr double kSquare = 0.25;

/// In auto mode, a seven-segment reading of at least kSureDigits digits whose least confident digit reaches
/// kSureDigital is a sure one: the counter reader searches less hard, and overrules it only with more digits.
constexpr int kSureDigits = 3;
constexpr float kSureDigital = 60;

/// A counter's drum pitch is at most this many times its widest digit.
constexpr double kPitchPerWidth = 1.8;

/// In auto mode, whole digits whose mean template match reaches this are taken for a roller counter's.
constexpr double kCounterFit = 0.85;

/// A drum beyond the whole digits found holds a digit when the digit network puts this much probability within two
/// tenths of one position.
constexpr double kDrumClarity = 0.6;

/// A drum at either end of the row is the window's edge or the plate when the digit network gives all drum positions
/// together less than this (the rest is its "no digit" class).
constexpr double kDigitMass = 0.5;

/// A drum that the other polarity reads as another digit with at least this confidence (percent) is disputed.
constexpr float kDisputing = 60;

/// Counters have at least this many drums: a grid of fewer is a part of one (or a digit that is no counter's).
constexpr int kMinDrums = 3;

/// A counter reading whose least sure drum is at least this sure (percent) is not read again on another grid.
constexpr double kSureDrums = 90;

/// Digit-row search results, in working-image pixels.
struct Blob {
    int x, y, w, h;
    double cx() const { return x + w / 2.0; }
    double cy() const { return y + h / 2.0; }
};

struct Row {
    std::vector<Blob> members;  // sorted by x
    double top = 0, bottom = 0, height = 0, centre = 0;
    // The row's tilt (a slightly rotated meter): at column x, the row is shifted down by slope * (x - x0).
    double slope = 0, x0 = 0;
    double shift(double x) const { return slope * (x - x0); }
};

/// Where a counter's drums are: the row of whole digits, the drum pitch and the grid of drums, in working pixels.
struct DrumRow {
    Row row;
    double pitch = 0, origin = 0;
    int lo = 0, hi = -1;
    double quality = 0;
    int font = 0;  // the templates the whole digits match best
};

/// One reading in progress.
struct Reading {
    int count = 0;
    int decimalAfter = -1;
    char digits[LV_METER_MAX_DIGITS + 1] = {};
    float confidence[LV_METER_MAX_DIGITS] = {};
    float readingConfidence = 0;
    float score = 0;
    int lightOnDark = 0;
    int mode = 0;
    float contrast = 0;  // digital: how far the strokes stand from the ground on the expected side
    uint32_t ambiguous = 0;  // counter: bit i set when drum i stands between two digits no carry explains
    cv::Rect box;

    void finish() {
        digits[count] = 0;
        readingConfidence = 0;
        if (count > 0) {
            readingConfidence = 100;
            for (int i = 0; i < count; ++i) readingConfidence = std::min(readingConfidence, confidence[i]);
        }
    }
};

double clamp01(double v) { return std::min(1.0, std::max(0.0, v)); }

double median(std::vector<double> &v) {
    if (v.empty()) return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + long(mid), v.end());
    return v[mid];
}

int odd(double v) {
    const int n = std::max(1, int(std::lround(v)));
    return n | 1;
}

}  // namespace

/// A strip of digit templates, and for every window the size of the patch (at vertical offset y, horizontal shift x)
/// the inverse of the window's centred norm, so a normalised correlation costs one dot product.
struct Strip {
    cv::Mat pixels;       // CV_32FC1
    cv::Mat inverseNorm;  // CV_32FC1: rows = offsets, cols = shifts
    int patchWidth = 0, patchHeight = 0;
};

struct lv_meter {
    int mode = LV_METER_MODE_AUTO;
    // The crop being read (a borrowed header) and the working image's scale (working pixels per crop pixel).
    cv::Mat grey;
    double scale = 1;
    // Scratch images, reused from frame to frame.
    cv::Mat reduced, work, smooth, padded, paddedClosed, closed, closedVertical, strokes, binary, dilated, labels,
        stats, centroids, boxed;
    // The auto mode's copy of the first binary stroke map of each polarity, for the counter reader after the
    // seven-segment reader's turn.
    cv::Mat firstBinary[2];
    std::vector<uint16_t> rowSums;
    cv::Mat region, regionScaled, patch, patchSmall, match, profile;
    std::vector<uint8_t> png;
    std::vector<Blob> blobs;
    std::vector<double> values, scratch;
    std::vector<int> shifts;
    Row row;
    // Counter reader: vertical strips of the digit templates 9, 0, 1, ..., 9, 0 at kStripCount drum pitches, at
    // full and half size, with each window's inverse norm precomputed.
    Strip strips[kStripCount][2][2];  // [pitch][font: regular, bold][size: full, half]
    double stripPitch[kStripCount] = {};
    // The binary stroke map the drum row was found in, per polarity.
    cv::Mat drumBinary[2];
    // Counter reader: the digit network (counter and auto modes), each drum's window and class probabilities, and
    // the drums read from them.
    lv_digit_classifier *classifier = nullptr;
    cv::Mat window;
    std::vector<float> probabilities;
    std::vector<lv_drum_reading> drumReadings;
    // Counter reader: the row band's column profile and its autocorrelation (periodicPitch).
    std::vector<double> columnProfile, correlation;
    // Counter reader: the grids tried after the stroke map's (readCounterRow), reused from frame to frame.
    DrumRow other, regridded;

    lv_meter() = default;
    lv_meter(const lv_meter &) = delete;
    lv_meter &operator=(const lv_meter &) = delete;
    ~lv_meter() { lv_digit_classifier_destroy(classifier); }
};

namespace {

constexpr int kTW = LV_METER_TEMPLATE_WIDTH;
constexpr int kTH = LV_METER_TEMPLATE_HEIGHT;

/// Precomputes a strip's window norms for patches of `width` x `height`.
void prepareStrip(Strip &strip, int width, int height) {
    strip.patchWidth = width;
    strip.patchHeight = height;
    const int offsets = strip.pixels.rows - height + 1, shifts = strip.pixels.cols - width + 1;
    strip.inverseNorm.create(offsets, shifts, CV_32FC1);
    const double n = double(width) * height;
    for (int y = 0; y < offsets; ++y)
        for (int x = 0; x < shifts; ++x) {
            const cv::Mat window = strip.pixels(cv::Rect(x, y, width, height));
            const double sum = cv::sum(window)[0], squares = window.dot(window);
            const double variance = squares - sum * sum / n;
            strip.inverseNorm.at<float>(y, x) = variance > 1e-6 ? float(1 / std::sqrt(variance)) : 0.0f;
        }
}

/// Builds the drum strips the counter reader matches against, for each pitch and each font (regular, bold): the
/// templates slightly blurred, with digit (j + 9) % 10 centred at (j + 0.5) * pitch for j = 0 ... 11, and a margin of
/// 3 pixels each side for horizontal shifts; and the same at half size.
void buildStrips(lv_meter &m) {
    const int margin = 3;
    for (int i = 0; i < kStripCount; ++i) {
        const double pitch = kDrumPitches[i] * kTH;
        m.stripPitch[i] = pitch;
        for (int font = 0; font < 2; ++font) {
            cv::Mat &strip = m.strips[i][font][0].pixels;
            strip.create(int(std::ceil(12 * pitch)), kTW + 2 * margin, CV_32FC1);
            strip.setTo(cv::Scalar(0));
            for (int j = 0; j < 12; ++j) {
                const int digit = (j + 9) % 10;
                const uint8_t *glyph = lv_meter_detail::kDigitTemplates[font] + size_t(digit) * kTW * kTH;
                const int top = int(std::lround((j + 0.5) * pitch - kTH / 2.0));
                for (int y = 0; y < kTH; ++y) {
                    float *out = strip.ptr<float>(top + y) + margin;
                    for (int x = 0; x < kTW; ++x) out[x] = glyph[y * kTW + x];
                }
            }
            cv::GaussianBlur(strip, strip, cv::Size(0, 0), 0.8);
            cv::resize(strip, m.strips[i][font][1].pixels, cv::Size(strip.cols / 2, strip.rows / 2), 0, 0,
                       cv::INTER_AREA);
            prepareStrip(m.strips[i][font][0], kTW, kTH);
            prepareStrip(m.strips[i][font][1], kTW / 2, kTH / 2);
        }
    }
}

/// Normalises a patch in place to zero mean and unit norm; false when it is flat.
bool normalisePatch(cv::Mat &patch) {
    const double n = double(patch.total());
    const double mean = cv::sum(patch)[0] / n;
    patch -= mean;
    const double norm = std::sqrt(patch.dot(patch));
    if (norm < 1e-6) return false;
    patch *= 1 / norm;
    return true;
}

/// The normalised correlation of a normalised patch with the strip window at offset y, shift x: one dot product. It
/// is the reader's innermost loop, so it walks raw rows and uses SSE where there is SSE (four partial sums, which
/// the compiler may not reassociate into by itself); debug builds, which do not optimise, gain the most.
float correlate(const Strip &strip, const cv::Mat &patch, int y, int x) {
    const float inverse = strip.inverseNorm.at<float>(y, x);
    if (inverse == 0) return 0;
    const int width = strip.patchWidth, height = strip.patchHeight;  // width: a multiple of 4
    const size_t stripStep = strip.pixels.step1(), patchStep = patch.step1();
    const float *a = strip.pixels.ptr<float>(y) + x;
    const float *b = patch.ptr<float>(0);
#if defined(__SSE2__)
    __m128 sum = _mm_setzero_ps();
    for (int r = 0; r < height; ++r, a += stripStep, b += patchStep)
        for (int c = 0; c < width; c += 4) sum = _mm_add_ps(sum, _mm_mul_ps(_mm_loadu_ps(a + c), _mm_loadu_ps(b + c)));
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, sum);
    return (lanes[0] + lanes[1] + lanes[2] + lanes[3]) * inverse;
#else
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int r = 0; r < height; ++r, a += stripStep, b += patchStep)
        for (int c = 0; c < width; c += 4) {
            s0 += a[c] * b[c];
            s1 += a[c + 1] * b[c + 1];
            s2 += a[c + 2] * b[c + 2];
            s3 += a[c + 3] * b[c + 3];
        }
    return (s0 + s1 + s2 + s3) * inverse;
#endif
}

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

/// Scales the crop to the working size (about kWorkingArea pixels, at most twice enlarged) with light smoothing.
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

/// The stroke map: how much darker (or lighter, for light-on-dark digits) each pixel is than the brightest (darkest)
/// pixel within `horizontal` pixels on its row. Digit strokes are narrower than that; panel edges, the meter body and
/// a counter's face are not, and neither is shading that varies from row to row (drum curvature, glare), so they give
/// nothing. With `vertical` > 0, structures taller than that (the bars between a counter's drums) give nothing
/// either: the background is the lesser of the row-wise and column-wise closings. With `square` > 0 (wider than any
/// stroke), the background is also at most the closing by a square that size: glare and shading that vary within the
/// row-wise element (a bright spot on a display) then give nothing either, where a row-wise closing alone turns them
/// into strokes. With `horizontal` = 0, the background starts from the last call's (in m.closed) instead of a new
/// row-wise closing.
void strokeMap(lv_meter &m, bool lightOnDark, int horizontal, int vertical, int square = 0) {
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

/// Thresholds the stroke map (Otsu, but never below a third of its 99th percentile, so noise alone does not pass)
/// and returns the level used.
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
        m.scratch.clear();
        for (size_t i = 0; i < members.size(); ++i)
            for (size_t j = i + 1; j < members.size(); ++j) {
                const Blob &a = members[i], &b = members[j];
                const double dx = b.cx() - a.cx();
                if (dx < 0.5 * row.height) continue;
                m.scratch.push_back((b.y - a.y) / dx);
                m.scratch.push_back((b.y + b.h - a.y - a.h) / dx);
            }
        if (!m.scratch.empty()) row.slope = std::clamp(median(m.scratch), -0.1, 0.1);
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
    // all of one height).
    double count = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const Blob &b : members)
        if (std::fabs(b.h - row.height) <= 0.15 * row.height) {
            count += 1;
            sx += b.cx();
            sy += b.cy();
            sxx += b.cx() * b.cx();
            sxy += b.cx() * b.cy();
        }
    row.slope = 0;
    row.x0 = count > 0 ? sx / count : 0;
    if (count >= 2 && sxx - sx * sx / count > 1e-6)
        row.slope = std::clamp((sxy - sx * sy / count) / (sxx - sx * sx / count), -0.1, 0.1);
    // The medians above are for the row's middle column.
    if (count > 0) row.centre = sy / count;
    row.top = row.centre - row.height / 2;
    row.bottom = row.centre + row.height / 2;
    return true;
}

/// Finds the digit row: connected components of the stroke mask (joined vertically across segment gaps) that are
/// digit-sized and share one height and baseline, the most of them by total height. Blobs up to `maxAspect` times as
/// wide as high are kept (touching digits make wide blobs).
bool findRow(lv_meter &m, Row &row, bool joinSegments, double minAspect, double maxFill, double tolerance = 0.25,
             double maxAspect = 1.1) {
    const int rows = m.binary.rows, cols = m.binary.cols;
    if (joinSegments)
        cv::dilate(m.binary, m.dilated, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(1, odd(0.05 * rows))));
    else
        m.binary.copyTo(m.dilated);
    const int n = cv::connectedComponentsWithStats(m.dilated, m.labels, m.stats, m.centroids, 8, CV_32S);
    m.blobs.clear();
    for (int i = 1; i < n; ++i) {
        const int *s = m.stats.ptr<int>(i);
        Blob b{s[cv::CC_STAT_LEFT], s[cv::CC_STAT_TOP], s[cv::CC_STAT_WIDTH], s[cv::CC_STAT_HEIGHT]};
        if (b.h < 0.16 * rows || b.h > 0.95 * rows || b.w > maxAspect * b.h || b.w < 2 || b.w < minAspect * b.h)
            continue;
        if (b.y <= 0 || b.y + b.h >= rows || b.x <= 0 || b.x + b.w >= cols) continue;  // cut by the crop's edge
        const double fill = s[cv::CC_STAT_AREA] / double(b.w * b.h);
        if (fill < 0.04 || fill > maxFill) continue;
        m.blobs.push_back(b);
    }
    double bestScore = 0;
    int bestIndex = -1;
    for (size_t i = 0; i < m.blobs.size(); ++i) {
        const Blob &a = m.blobs[i];
        double score = 0;
        for (const Blob &b : m.blobs)
            if (std::fabs(b.h - a.h) <= tolerance * a.h && std::fabs(b.cy() - a.cy()) <= 0.25 * a.h) score += b.h;
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
    return collectRow(m, row, joinSegments, [&](const Blob &b) {
        return std::fabs(b.h - height) <= tolerance * height &&
               std::fabs(b.cy() - centre - slope * (b.cx() - x0)) <= 0.25 * height;
    });
}

/// The median over columns of each column's maximum in `r` (for a horizontal segment), or the median over rows of
/// each row's maximum (for a vertical one): high only when a stroke crosses the whole probe.
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

// MARK: Seven-segment displays

/// Reads seven-segment digits from the row-wise stroke map of `lightOnDark` (m.strokes, m.binary and m.closed, as
/// strokeMap and binarise left them), which it changes.
void readDigital(lv_meter &m, bool lightOnDark, Reading &out) {
    out = Reading();
    out.mode = LV_METER_MODE_DIGITAL;
    out.lightOnDark = lightOnDark;
    Row &row = m.row;
    if (!findRow(m, row, true, 0.0, 0.95, 0.25, 4.0)) return;
    // Again with the background also closed by a square a little wider than the strokes, now that their size is
    // known: glare on the display, which the row-wise closing leaves in, joins digits into one blob or hides them
    // under the threshold. (The row-wise closing is the caller's, still in m.closed.)
    strokeMap(m, lightOnDark, 0, 0, odd(kSquare * row.height));
    binarise(m);
    if (!findRow(m, row, true, 0.0, 0.95, 0.25, 4.0)) return;
    const double h = row.height;
    // Each member's right edge above the decimal point's height: a lit point next to a digit joins its blob.
    for (Blob &b : row.members) {
        const double shift = row.shift(b.cx());
        const int top = std::max(b.y, int(row.top + shift)), bottom = int(row.bottom + shift - 0.22 * h);
        if (bottom <= top) continue;
        cv::reduce(m.binary(cv::Rect(b.x, top, b.w, bottom - top)), m.boxed, 0, cv::REDUCE_MAX);
        const uint8_t *columns = m.boxed.ptr<uint8_t>(0);
        int right = b.w;
        while (right > 1 && !columns[right - 1]) --right;
        b.w = right;
    }
    // Digit width: the median of the members that are not a narrow "1".
    m.scratch.clear();
    for (const Blob &b : row.members)
        if (b.w > 0.35 * h) m.scratch.push_back(b.w);
    const double wd = m.scratch.empty() ? 0.5 * h : median(m.scratch);
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
        bool split;  // one of the digits a wide member was split into
    };
    constexpr int kMaxCandidates = 2 * LV_METER_MAX_DIGITS;
    Cell candidates[kMaxCandidates];
    int candidateCount = 0;
    for (const Blob &b : row.members) {
        const double right = b.x + b.w;
        int n = 1;
        // A member much wider than a digit holds two or more that touch (a "1" next to a lit point and the next
        // digit, say): one more digit for each pitch or part of one beyond the digit's width.
        if (b.w > 1.25 * wd) n = 1 + int(std::ceil((b.w - 1.25 * wd) / pitch));
        for (int k = n - 1; k >= 0 && candidateCount < kMaxCandidates; --k) {
            const Cell cell{right - k * pitch - wd, k > 0};
            // A split-off digit where the previous member already put one (a wide member that is a digit joined
            // with a lit point or glare beside it) is that digit.
            if (candidateCount > 0 && cell.left - candidates[candidateCount - 1].left < 0.5 * pitch) {
                if (cell.split) continue;
                if (candidates[candidateCount - 1].split) --candidateCount;
            }
            candidates[candidateCount++] = cell;
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
            {inU, -0.06, 1 - inU, 0.26, 1},   {0.55, upper0, 1.08, upper1, 0}, {0.55, lower0, 1.08, lower1, 0},
            {inU, 0.74, 1 - inU, 1.06, 1},    {-0.08, lower0, 0.45, lower1, 0}, {-0.08, upper0, 0.45, upper1, 0},
            {inU, 0.34, 1 - inU, 0.66, 1},
        };
        std::memcpy(segmentProbe, probes, sizeof segmentProbe);
    }
    double value[LV_METER_MAX_DIGITS][7];
    m.values.clear();
    for (int i = 0; i < cellCount; ++i)
        for (int s = 0; s < 7; ++s) {
            const double *p = segmentProbe[s];
            const double top = row.top + row.shift(cells[i].left + wd / 2);
            value[i][s] = probe(m, cellRect(cells[i].left, top, wd, h, p[0], p[1], p[2], p[3]), p[4] != 0);
            m.values.push_back(value[i][s]);
        }
    if (m.values.empty()) return;
    // The lit level: most digits light most segments, so the 85th percentile of all probes is a lit one.
    std::sort(m.values.begin(), m.values.end());
    const double lit = std::max(1.0, m.values[size_t(0.85 * double(m.values.size() - 1))]);

    // Reads one cell from its probe values: the digit, its confidence, and whether the cell is blank (no segment
    // lit) or has a lit hole.
    struct CellReading {
        int digit = -1;
        double confidence = 0, own = 0;
        bool blank = false, holeLit = false, exact = false;
    };
    auto classify = [&](const double *values, double left) {
        CellReading r;
        for (int s = 0; s < 7; ++s) r.own = std::max(r.own, values[s]);
        const double level = std::max(0.6 * lit, std::min(lit, r.own));
        const double threshold = 0.5 * level;
        int segments = 0;
        double weakest = 1;
        double margin[7];
        for (int s = 0; s < 7; ++s) {
            margin[s] = std::min(1.0, std::fabs(values[s] - threshold) / threshold);
            if (values[s] > threshold) segments |= 1 << s;
            weakest = std::min(weakest, margin[s]);
        }
        for (const auto &pattern : kPatterns)
            if (pattern.segments == segments) r.digit = pattern.digit;
        r.exact = r.digit >= 0;
        if (r.exact) {
            r.confidence = clamp01(weakest / 0.45);
        } else {
            // No exact pattern: the nearest one, by the margins of the segments that disagree.
            double bestCost = 1e9;
            for (const auto &pattern : kPatterns) {
                double cost = 0;
                for (int s = 0; s < 7; ++s)
                    if (((pattern.segments ^ segments) >> s) & 1) cost += margin[s];
                if (cost < bestCost) {
                    bestCost = cost;
                    r.digit = pattern.digit;
                }
            }
            r.confidence = 0.5 * clamp01(1 - bestCost / 0.5);
        }
        r.confidence *= clamp01(r.own / (0.6 * lit));  // a digit much fainter than the others is doubtful
        // The two holes of the figure eight (between a, b, g, f and between g, c, d, e) are unlit in every digit:
        // a stroke across either means the cell holds a blob or texture, not a seven-segment digit.
        const double top = row.top + row.shift(left + wd / 2);
        const double upperHole = probe(m, cellRect(left, top, wd, h, 0.38, 0.27, 0.62, 0.33), true);
        const double lowerHole = probe(m, cellRect(left, top, wd, h, 0.38, 0.67, 0.62, 0.73), true);
        r.holeLit = std::max(upperHole, lowerHole) > threshold;
        if (r.holeLit) r.confidence = 0;
        r.blank = segments == 0;
        return r;
    };
    CellReading readings[LV_METER_MAX_DIGITS];
    for (int i = 0; i < cellCount; ++i) readings[i] = classify(value[i], cells[i].left);
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
        if (runEnd == runStart) return;
        cellCount = runEnd - runStart;
        for (int i = 0; i < cellCount; ++i) {
            cells[i] = cells[runStart + i];
            readings[i] = readings[runStart + i];
        }
    }
    // A digit at either end whose blob was lost (joined to the display's edge, to glare or to something above or
    // below it) is one pitch beyond the run: a cell there that shows a whole digit pattern as bright as the others
    // is part of the reading. A "1" must also have nothing above or below it: the display's edge and the meter
    // body's, which read as one, reach past the digits' top and bottom.
    auto clearAboveBelow = [&](double left) {
        const double top = row.top + row.shift(left + wd / 2);
        for (const double v : {-0.2, 1.05}) {
            const cv::Rect r =
                cellRect(left, top, wd, h, 0.1, v, 0.9, v + 0.15) & cv::Rect(0, 0, m.binary.cols, m.binary.rows);
            if (r.empty()) return false;
            cv::reduce(m.binary(r), m.boxed, 0, cv::REDUCE_MAX);
            if (cv::countNonZero(m.boxed) > 0.1 * r.width) return false;
        }
        return true;
    };
    auto extend = [&](double left, CellReading &r) {
        if (left < 0 || left + wd > m.strokes.cols) return false;
        double values[7];
        const double top = row.top + row.shift(left + wd / 2);
        for (int s = 0; s < 7; ++s) {
            const double *p = segmentProbe[s];
            values[s] = probe(m, cellRect(left, top, wd, h, p[0], p[1], p[2], p[3]), p[4] != 0);
        }
        r = classify(values, left);
        return r.exact && !r.blank && !r.holeLit && r.own >= 0.6 * lit && r.confidence >= 0.5 &&
               (r.digit != 1 || clearAboveBelow(left));
    };
    for (CellReading r; cellCount < LV_METER_MAX_DIGITS && extend(cells[0].left - pitch, r);) {
        for (int i = cellCount; i > 0; --i) {
            cells[i] = cells[i - 1];
            readings[i] = readings[i - 1];
        }
        cells[0] = Cell{cells[1].left - pitch, false};
        readings[0] = r;
        ++cellCount;
    }
    for (CellReading r; cellCount < LV_METER_MAX_DIGITS && extend(cells[cellCount - 1].left + pitch, r);) {
        cells[cellCount] = Cell{cells[cellCount - 1].left + pitch, false};
        readings[cellCount] = r;
        ++cellCount;
    }
    for (int i = 0; i < cellCount; ++i) {
        out.digits[i] = char('0' + readings[i].digit);
        out.confidence[i] = float(100 * readings[i].confidence);
    }
    out.count = cellCount;
    // Decimal point: the strongest dot at the baseline in the middle of the gap between two digits, if it is lit and
    // stands out from the unlit points (which LCDs show faintly).
    const int dot = std::max(1, int(std::lround(std::min(0.07 * h, 0.5 * (pitch - wd)))));
    cv::boxFilter(m.strokes, m.boxed, -1, cv::Size(dot, dot));
    double dots[LV_METER_MAX_DIGITS] = {};
    double bestDot = 0;
    int bestAfter = -1;
    for (int i = 0; i + 1 < cellCount; ++i) {
        const double right = cells[i].left + wd, next = cells[i + 1].left;
        const double space = next - right;
        if (space < 1) continue;
        // Only the gap's middle: the point is centred in it, and near either digit a stroke of that digit (in a
        // cell placed a little off) would pass for a lit point.
        const double inset = std::min(std::max(dot / 2.0, 0.3 * space), std::max(0.0, (space - 1) / 2));
        cv::Rect r(int(std::floor(right + inset)), int(std::floor(row.bottom + row.shift(right + space / 2) - 0.2 * h)),
                   std::max(1, int(std::lround(space - 2 * inset))), std::max(1, int(0.26 * h)));
        r &= cv::Rect(0, 0, m.boxed.cols, m.boxed.rows);
        if (r.empty()) continue;
        double peak = 0;
        cv::minMaxLoc(m.boxed(r), nullptr, &peak);
        dots[i] = peak;
        if (peak > bestDot) {
            bestDot = peak;
            bestAfter = i + 1;
        }
    }
    double otherDots = 0;
    for (int i = 0; i + 1 < cellCount; ++i)
        if (i + 1 != bestAfter) otherDots = std::max(otherDots, dots[i]);
    if (bestAfter > 0 && bestDot > 0.5 * lit && bestDot > 1.6 * otherDots) out.decimalAfter = bestAfter;
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
    out.finish();
    double sum = 0;
    for (int i = 0; i < out.count; ++i) sum += out.confidence[i];
    out.score = float(sum);
}

// MARK: Roller counters

/// One drum's match against a strip.
struct DrumMatch {
    double position = 0;    // in digits: 0 = '0' centred, 0.5 = half-way from '0' to '1', 9.9 = nearly back at '0'
    double confidence = 0;  // 0-1: how much better the best position is than the best at another digit
    double peak = 0;        // the best normalised correlation
    double second = 0;      // the best at least 0.8 digit away
};

/// Cuts the drum window centred at (cx, cy), `h` high (working pixels), out of the crop at full resolution, scales it
/// to the templates' size and turns it into a stroke patch: each pixel's distance from its ground (the brightest
/// pixel, for dark digits, or the darkest, for light ones) where the ground is the lesser of its row's and its
/// column's, over the window widened by a quarter digit either side and heightened by 15 % above and below. The row
/// ground takes out the drum's shading; the column ground takes out the bars between drums, which run the window's
/// whole height where a digit does not. Returns false when the window is not in the crop.
bool extractPatch(lv_meter &m, double cx, double cy, double h, bool lightOnDark) {
    const double back = 1 / m.scale;
    const double height = h * back, width = height * kTW / kTH, side = 0.25 * width, above = 0.15 * height;
    const int extraX = int(std::lround(0.25 * kTW)), extraY = int(std::lround(0.15 * kTH));
    const cv::Rect2d want((cx * back) - width / 2 - side, (cy * back) - height / 2 - above, width + 2 * side,
                          height + 2 * above);
    const cv::Rect bounds(0, 0, m.grey.cols, m.grey.rows);
    cv::Rect r(int(std::floor(want.x)), int(std::floor(want.y)), int(std::ceil(want.width)),
               int(std::ceil(want.height)));
    const cv::Rect inside = r & bounds;
    if (inside.width < 3 || inside.height < 3) return false;
    // Outside the crop, repeat its edge.
    cv::copyMakeBorder(m.grey(inside), m.region, inside.y - r.y, r.y + r.height - inside.y - inside.height,
                       inside.x - r.x, r.x + r.width - inside.x - inside.width, cv::BORDER_REPLICATE);
    const cv::Size scaled(kTW + 2 * extraX, kTH + 2 * extraY);
    cv::resize(m.region, m.regionScaled, scaled, 0, 0, cv::INTER_AREA);
    // Dark digits: invert, so that strokes are high and grounds are minima.
    if (!lightOnDark) cv::bitwise_not(m.regionScaled, m.regionScaled);
    int rowGround[2 * kTH], columnGround[2 * kTW];  // extraY <= kTH / 2 and extraX <= kTW / 2
    for (int x = 0; x < scaled.width; ++x) columnGround[x] = 255;
    for (int y = 0; y < scaled.height; ++y) {
        const uint8_t *row = m.regionScaled.ptr<uint8_t>(y);
        int ground = 255;
        for (int x = 0; x < scaled.width; ++x) {
            ground = std::min(ground, int(row[x]));
            columnGround[x] = std::min(columnGround[x], int(row[x]));
        }
        rowGround[y] = ground;
    }
    m.patch.create(kTH, kTW, CV_32FC1);
    for (int y = 0; y < kTH; ++y) {
        const uint8_t *row = m.regionScaled.ptr<uint8_t>(y + extraY);
        float *out = m.patch.ptr<float>(y);
        for (int x = 0; x < kTW; ++x) {
            const int ground = std::max(rowGround[y + extraY], columnGround[x + extraX]);
            out[x] = float(std::max(0, row[x + extraX] - ground));
        }
    }
    cv::resize(m.patch, m.patchSmall, cv::Size(kTW / 2, kTH / 2), 0, 0, cv::INTER_AREA);
    return normalisePatch(m.patch) && normalisePatch(m.patchSmall);
}

/// Matches the normalised patches (m.patch, m.patchSmall) against strip `index`: a coarse search at half size over
/// the whole drum, then the best few candidates refined at full size.
DrumMatch matchPatch(lv_meter &m, int index, int font) {
    DrumMatch result;
    const double pitch = m.stripPitch[index];
    const Strip &coarseStrip = m.strips[index][font][1];
    const Strip &fineStrip = m.strips[index][font][0];
    // Coarse: every second offset (the correlation varies slowly at half size), the best of the horizontal shifts.
    const int offsets = coarseStrip.inverseNorm.rows, shifts = coarseStrip.inverseNorm.cols;
    m.values.assign(size_t(offsets), -1.0);
    m.shifts.assign(size_t(offsets), 0);
    double *coarse = m.values.data();
    for (int y = 0; y < offsets; y += 2) {
        float best = -1;
        for (int x = 0; x < shifts; ++x) {
            const float value = correlate(coarseStrip, m.patchSmall, y, x);
            if (value > best) {
                best = value;
                m.shifts[size_t(y)] = x;
            }
        }
        coarse[y] = best;
    }
    // The coarse maxima, strongest first, at least a third of a digit apart.
    int candidates[4];
    int found = 0;
    const double apart = pitch / 6;  // a third of a digit, in half-size pixels
    for (int pass = 0; pass < 4; ++pass) {
        int best = -1;
        for (int y = 0; y < offsets; ++y) {
            bool near = false;
            for (int c = 0; c < found; ++c) near = near || std::abs(y - candidates[c]) < apart;
            if (!near && (best < 0 || coarse[y] > coarse[best])) best = y;
        }
        if (best < 0) break;
        candidates[found++] = best;
    }
    if (found == 0) return result;
    // Fine: within two coarse pixels of each candidate, at full size, around the coarse horizontal shift.
    double refinedOffset[4] = {}, refinedValue[4] = {};
    const int fineOffsets = fineStrip.inverseNorm.rows, fineShifts = fineStrip.inverseNorm.cols;
    for (int c = 0; c < found; ++c) {
        constexpr int kSpan = 9;
        float profile[kSpan];
        const int top = 2 * candidates[c] - kSpan / 2;
        const int centre = 2 * m.shifts[size_t(candidates[c])];
        int best = -1;
        for (int i = 0; i < kSpan; ++i) {
            const int y = top + i;
            profile[i] = -1;
            if (y < 0 || y >= fineOffsets) continue;
            for (int x = std::max(0, centre - 1); x <= std::min(fineShifts - 1, centre + 1); ++x)
                profile[i] = std::max(profile[i], correlate(fineStrip, m.patch, y, x));
            if (best < 0 || profile[i] > profile[best]) best = i;
        }
        if (best < 0) continue;
        double offset = top + best;
        if (best > 0 && best < kSpan - 1 && profile[best - 1] > -1 && profile[best + 1] > -1) {
            const double a = profile[best - 1], b = profile[best], d = profile[best + 1];
            const double denominator = a - 2 * b + d;
            if (denominator < 0) offset += 0.5 * (a - d) / denominator;
        }
        refinedOffset[c] = offset;
        refinedValue[c] = profile[best];
    }
    int best = 0;
    for (int c = 1; c < found; ++c)
        if (refinedValue[c] > refinedValue[best]) best = c;
    // Runner-up: the best candidate at least 0.8 digit away, around the drum (the strip repeats 9 and 0 at its
    // ends). Nearer positions show the same glyphs shifted; how sure the reading is between neighbouring digits
    // depends on how close the position is to where the reading turns (see readCounter).
    const double period = 10 * pitch;
    double second = 0;
    for (int c = 0; c < found; ++c) {
        const double distance = std::fmod(std::fabs(refinedOffset[c] - refinedOffset[best]), period);
        if (std::min(distance, period - distance) >= 0.8 * pitch) second = std::max(second, refinedValue[c]);
    }
    result.second = second;
    result.position = (refinedOffset[best] + kTH / 2.0) / pitch - 0.5 - 1.0;
    result.peak = refinedValue[best];
    result.confidence = clamp01((result.peak - 0.35) / 0.35) * clamp01((result.peak - second) / 0.15);
    return result;
}

/// Reads one drum: against the strip at the usual drum pitch, and when the drum is caught between digits also against
/// the strips at the other pitches (the gap between two half digits depends on it), keeping the best match.
DrumMatch matchDrum(lv_meter &m, double cx, double cy, double h, bool lightOnDark, int font) {
    if (!extractPatch(m, cx, cy, h, lightOnDark)) return DrumMatch();
    DrumMatch best = matchPatch(m, 0, font);
    const double fraction = best.position - std::floor(best.position);
    if (fraction > 0.12 && fraction < 0.88) {
        for (int index = 1; index < kStripCount; ++index) {
            const DrumMatch other = matchPatch(m, index, font);
            if (other.peak > best.peak) best = other;
        }
    }
    return best;
}

/// Cuts the drum window centred at (cx, cy) for a digit `h` high (working pixels) out of the crop at full resolution
/// into m.window, in the shape the digit network was trained on (LV_DIGIT_WINDOW_PER_HEIGHT digit heights high, 20:32);
/// outside the crop, its edge repeats. Returns false when the window is not in the crop.
bool cutWindow(lv_meter &m, double cx, double cy, double h) {
    const double back = 1 / m.scale;
    const double height = LV_DIGIT_WINDOW_PER_HEIGHT * h * back;
    const double width = height * LV_DIGIT_INPUT_WIDTH / LV_DIGIT_INPUT_HEIGHT;
    const cv::Rect r(int(std::lround(cx * back - width / 2)), int(std::lround(cy * back - height / 2)),
                     std::max(1, int(std::lround(width))), std::max(1, int(std::lround(height))));
    const cv::Rect inside = r & cv::Rect(0, 0, m.grey.cols, m.grey.rows);
    if (inside.width < 3 || inside.height < 3) return false;
    cv::copyMakeBorder(m.grey(inside), m.window, inside.y - r.y, r.y + r.height - inside.y - inside.height,
                       inside.x - r.x, r.x + r.width - inside.x - inside.width, cv::BORDER_REPLICATE);
    return true;
}

/// What the digit network sees in the window centred at (cx, cy) for digits `h` high: `clarity`, the most probability
/// it puts within two tenths of one drum position, and `mass`, the probability that a drum digit is there at all (its
/// positions' total); both 0 when the window is not in the crop.
struct DrumView {
    double clarity = 0, mass = 0;
};

DrumView viewDrum(lv_meter &m, double cx, double cy, double h) {
    DrumView view;
    float p[LV_DIGIT_CLASSES];
    if (!m.classifier || !cutWindow(m, cx, cy, h) ||
        lv_digit_classifier_classify(m.classifier, m.window.ptr<uint8_t>(), m.window.cols, m.window.rows,
                                     m.window.step, p) != 0)
        return view;
    for (int c = 0; c < LV_DIGIT_CLASSES; ++c) {
        double near = 0;
        for (int d = -2; d <= 2; ++d) near += p[(c + d + LV_DIGIT_CLASSES) % LV_DIGIT_CLASSES];
        view.clarity = std::max(view.clarity, near);
        view.mass += p[c];
    }
    return view;
}


/// Finds the drums with the current stroke map: the whole digits (bars between drums taken out by a column-wise
/// closing a little taller than the digits), the pitch between them, and drums beyond them that hold a digit
/// caught mid-roll.
bool findDrums(lv_meter &m, bool lightOnDark, DrumRow &drums, bool thorough = true) {
    drums = DrumRow();
    // First pass: the stroke map the caller made (row-wise closing only), for the digits' height. Second pass: a
    // row-wise closing just wider than a digit (so a slightly rotated window edge leaves no sliver) and a column-wise
    // one a little taller than a digit (so the bars between drums, which are taller, give nothing), where digits that
    // touched those bars come free. When the first pass finds nothing, try the second for a few digit heights.
    Row first;
    const bool haveFirst = findRow(m, first, false, 0.25, 0.7, 0.15);
    cv::Mat &binary = m.drumBinary[lightOnDark ? 1 : 0];
    double bestScore = 0;
    auto consider = [&](const Row &candidate) {
        double score = 0;
        for (const Blob &b : candidate.members) score += b.h;
        if (score <= bestScore) return;
        bestScore = score;
        drums.row = candidate;
        m.binary.copyTo(binary);
    };
    auto attempt = [&](double digitHeight) {
        strokeMap(m, lightOnDark, odd(0.9 * digitHeight), odd(1.2 * digitHeight));
        binarise(m);
        Row candidate;
        if (findRow(m, candidate, false, 0.25, 0.7, 0.15)) consider(candidate);
    };
    if (haveFirst) {
        consider(first);
        attempt(first.height);
    }
    if (thorough && (!haveFirst || drums.row.members.size() < 3))
        for (double fraction : {0.3, 0.45, 0.6}) attempt(fraction * m.smooth.rows);
    if (drums.row.members.empty()) return false;
    const Row &row = drums.row;
    const double h = row.height;
    // Drum pitch from the centres of the whole digits in view: the largest step of which most steps between
    // neighbours are whole multiples (a drum whose digit was lost leaves a double step; a blob beside the digits, a
    // window's edge, leaves a step that fits nothing), refined over those steps. Drums are at least 0.4 digit heights
    // apart.
    double pitch = 0.9 * h;
    m.scratch.clear();
    for (size_t i = 1; i < row.members.size(); ++i) {
        const double step = row.members[i].cx() - row.members[i - 1].cx();
        if (step > 0.4 * h) m.scratch.push_back(step);
    }
    if (!m.scratch.empty()) {
        auto fits = [&](double base, double *sum, double *units) {
            int count = 0;
            for (double step : m.scratch) {
                const double k = std::round(step / base);
                if (k >= 1 && std::fabs(step / base - k) < 0.2) {
                    ++count;
                    if (sum) *sum += step;
                    if (units) *units += k;
                }
            }
            return count;
        };
        double base = 0;
        const size_t steps = m.scratch.size();
        for (size_t i = 0; i < steps; ++i)
            for (int divisor = 1; divisor <= 3; ++divisor) {
                const double candidate = m.scratch[i] / divisor;
                if (candidate <= 0.4 * h || candidate <= base) continue;
                if (fits(candidate, nullptr, nullptr) >= 0.7 * double(steps)) base = candidate;
            }
        if (base == 0) base = *std::min_element(m.scratch.begin(), m.scratch.end());
        // Drums sit side by side: the pitch is hardly more than a digit's width. A step much wider than that (two
        // whole digits found, with the drums between them lost to the bars) spans several drums.
        double widest = 0.55 * h;
        for (const Blob &b : row.members) widest = std::max(widest, double(b.w));
        if (base > kPitchPerWidth * widest) base /= std::ceil(base / (kPitchPerWidth * widest));
        double sum = 0, units = 0;
        fits(base, &sum, &units);
        if (units > 0) pitch = sum / units;
    }
    // The grid: the phase most whole digits agree with (within a fifth of a pitch); the others (a window's edge, a
    // blob beside the counter) leave the row. Then the grid that fits the agreeing centres best (least squares over
    // their drum numbers): perspective and the steps' rounding leave the pitch a little off, and over a long row of
    // drums the error adds up to more than the matches' horizontal search, which the drums caught mid-roll beyond the
    // whole digits need most.
    std::vector<Blob> &members = drums.row.members;
    auto onGrid = [&](double origin, const Blob &b) {
        const double k = (b.cx() - origin) / pitch;
        return std::fabs(k - std::round(k)) < 0.2;
    };
    {
        size_t bestCount = 0;
        double bestOrigin = members[0].cx();
        for (const Blob &a : members) {
            size_t count = 0;
            for (const Blob &b : members) count += onGrid(a.cx(), b) ? 1 : 0;
            if (count > bestCount) {
                bestCount = count;
                bestOrigin = a.cx();
            }
        }
        members.erase(std::remove_if(members.begin(), members.end(),
                                     [&](const Blob &b) { return !onGrid(bestOrigin, b); }),
                      members.end());
    }
    const double x0 = members[0].cx();
    double origin = x0;
    {
        double n = 0, sk = 0, sx = 0, skk = 0, skx = 0;
        for (const Blob &b : members) {
            const double k = std::round((b.cx() - x0) / pitch);
            n += 1;
            sk += k;
            sx += b.cx();
            skk += k * k;
            skx += k * b.cx();
        }
        const double det = n * skk - sk * sk;
        if (n >= 2 && det > 1e-9) {
            const double fitted = (n * skx - sk * sx) / det;
            if (std::fabs(fitted - pitch) < 0.1 * pitch) pitch = fitted;
        }
        origin = (sx - pitch * sk) / n;
    }
    drums.pitch = pitch;
    drums.origin = origin;
    drums.lo = 0;
    drums.hi = int(std::lround((members.back().cx() - origin) / pitch));
    // The font: the templates that the whole digits match better.
    {
        double fit[2] = {0, 0};
        int count = 0;
        // One whole digit a third of the way along the row decides (each match costs time).
        if (!members.empty()) {
            const Blob &b = members[members.size() / 3];
            for (int font = 0; font < 2; ++font)
                fit[font] += matchDrum(m, b.cx(), row.centre + row.shift(b.cx()), h, lightOnDark, font).peak;
            count = 1;
        }
        drums.font = fit[1] > fit[0] ? 1 : 0;
        drums.quality = std::max(fit[0], fit[1]) / std::max(1, count);
    }
    // A drum beyond the whole digits (caught mid-roll) must hold strokes as wide as a digit's, centred in its cell,
    // that match the strip well: the counter's frame beside the last drum does not.
    auto drum = [&](int k) {
        const double cx = origin + k * pitch;
        cv::Rect r(int(cx - 0.5 * pitch), int(row.centre + row.shift(cx) - 0.7 * h), int(pitch), int(1.4 * h));
        if (r.x < 0 || r.x + r.width > binary.cols) return false;
        r &= cv::Rect(0, 0, binary.cols, binary.rows);
        if (r.empty()) return false;
        // The digit network knows a drum from the window's edge, the plate or two half drums (its "no digit"
        // class) whatever the font: a drum it sees clearly is one, even where the stroke map shows the photograph's
        // own edges around the digit.
        if (viewDrum(m, cx, row.centre + row.shift(cx), h).clarity >= kDrumClarity) return true;
        cv::reduce(binary(r), m.boxed, 0, cv::REDUCE_MAX);
        const uint8_t *columns = m.boxed.ptr<uint8_t>(0);
        int left = -1, right = -1;
        double mass = 0, moment = 0;
        for (int x = 0; x < r.width; ++x) {
            if (!columns[x]) continue;
            if (left < 0) left = x;
            right = x;
            mass += 1;
            moment += x + 0.5;
        }
        if (left < 0 || right - left + 1 < 0.3 * h) return false;
        const double offCentre = std::fabs(moment / mass - r.width / 2.0);
        if (offCentre > 0.2 * pitch) return false;
        const DrumMatch dm = matchDrum(m, cx, row.centre + row.shift(cx), h, lightOnDark, drums.font);
        if (offCentre <= 0.15 * pitch && (dm.peak >= 0.75 || (dm.peak >= 0.6 && dm.confidence >= 0.25))) return true;
        // A pair of half digits matches less well than a whole digit. To the right of a drum caught mid-roll, a
        // drum caught as far between two digits is one too: the drums of a carry turn together.
        if (k <= drums.hi || dm.peak < 0.6) return false;
        const double fraction = dm.position - std::floor(dm.position);
        if (fraction < 0.12 || fraction > 0.88) return false;
        const double previousX = origin + (k - 1) * pitch;
        const DrumMatch previous =
            matchDrum(m, previousX, row.centre + row.shift(previousX), h, lightOnDark, drums.font);
        const double previousFraction = previous.position - std::floor(previous.position);
        return previous.peak >= 0.6 && std::fabs(previousFraction - fraction) < 0.15;
    };
    while (drums.hi - drums.lo + 1 < LV_METER_MAX_DIGITS && drum(drums.lo - 1)) --drums.lo;
    while (drums.hi - drums.lo + 1 < LV_METER_MAX_DIGITS && drum(drums.hi + 1)) ++drums.hi;
    return true;
}

/// How a reading of the drums on one grid ended.
enum class GridVerdict {
    read,          // the drums were read (out holds the reading)
    noDigit,       // fewer than kMinDrums drums of the grid hold a digit
    digitBetween,  // a digit half-way between two drums: the grid's pitch is twice too long
    digitBeyond,   // a digit beside the first or the last drum: the row goes on
};

/// Reads the drums the digit network's way: each drum's window classified into 100 positions (digit and tenth), then
/// the carry rule over the row (lv_drums_resolve) for the digits and their confidences, the softmax mass of the
/// positions that read as each digit. A drum caught between two digits that no carry explains gets the little mass
/// left on whole positions, so the reading stays below any useful minConfidence instead of reporting a guess.
GridVerdict readCounter(lv_meter &m, bool lightOnDark, const DrumRow &drums, Reading &out) {
    out = Reading();
    out.mode = LV_METER_MODE_COUNTER;
    out.lightOnDark = lightOnDark;
    const Row &row = drums.row;
    const double h = row.height;
    int count = std::min(drums.hi - drums.lo + 1, int(LV_METER_MAX_DIGITS));
    if (count <= 0 || !m.classifier) return GridVerdict::noDigit;
    m.probabilities.resize(size_t(count) * LV_DIGIT_CLASSES);
    m.drumReadings.resize(size_t(count));
    for (int i = 0; i < count; ++i) {
        const double cx = drums.origin + (drums.lo + i) * drums.pitch;
        float *p = m.probabilities.data() + size_t(i) * LV_DIGIT_CLASSES;
        if (!cutWindow(m, cx, row.centre + row.shift(cx), h) ||
            lv_digit_classifier_classify(m.classifier, m.window.ptr<uint8_t>(), m.window.cols, m.window.rows,
                                         m.window.step, p) != 0)
            std::fill(p, p + LV_DIGIT_CLASSES, 1.0f / LV_DIGIT_CLASSES);  // nothing known: no confidence
    }
    // A drum at either end that the network takes for no digit is the window's edge or the plate beside it.
    auto isDigit = [&](int i) {
        const float *p = m.probabilities.data() + size_t(i) * LV_DIGIT_CLASSES;
        double sum = 0;
        for (int c = 0; c < LV_DIGIT_CLASSES; ++c) sum += p[c];
        return sum >= kDigitMass;
    };
    int first = 0, last = count - 1;
    while (first <= last && !isDigit(first)) ++first;
    while (last >= first && !isDigit(last)) --last;
    if (last - first + 1 < kMinDrums) return GridVerdict::noDigit;
    // The grid must fit the drums. Half-way between two drums the network sees two half digits, no digit: a digit
    // there means the grid skips every other drum (a pitch found twice too long, where every second digit was lost
    // to the stroke map). And beside the first and the last drum it sees the window's edge or the plate: something
    // digit-like there that the row did not take in (a drum off the grid) means the row may be cut short, and a
    // reading with digits missing would be a confident misread.
    auto digitAt = [&](double k) {
        const double x = drums.origin + k * drums.pitch;
        return viewDrum(m, x, row.centre + row.shift(x), h).mass >= kDigitMass;
    };
    auto clearDigitAt = [&](double k) {
        const double x = drums.origin + k * drums.pitch;
        const DrumView view = viewDrum(m, x, row.centre + row.shift(x), h);
        return view.mass >= kDigitMass && view.clarity >= kDrumClarity;
    };
    if (last > first && (clearDigitAt(drums.lo + first + 0.5) || clearDigitAt(drums.lo + last - 0.5)))
        return GridVerdict::digitBetween;
    // A pitch found too long (every second drum lost to the stroke map, or a run of drums off the grid) puts the
    // drum beyond an end between two real ones, which the network takes for no digit; so look a quarter of a drum
    // nearer as well (further out, the window's frame and the plate can look like a 1).
    for (double inward : {0.0, 0.25}) {
        if ((first == 0 && digitAt(drums.lo - 1 + inward)) || (last == count - 1 && digitAt(drums.lo + count - inward)))
            return GridVerdict::digitBeyond;
    }
    if (first > 0)
        std::copy(m.probabilities.begin() + long(first) * LV_DIGIT_CLASSES,
                  m.probabilities.begin() + long(last + 1) * LV_DIGIT_CLASSES, m.probabilities.begin());
    const int lo = drums.lo + first;
    count = last - first + 1;
    if (lv_drums_resolve(m.probabilities.data(), count, m.drumReadings.data()) != count) return GridVerdict::noDigit;
    double sum = 0;
    for (int i = 0; i < count; ++i) {
        const lv_drum_reading &drum = m.drumReadings[size_t(i)];
        out.digits[i] = char('0' + drum.digit);
        out.confidence[i] = 100 * drum.confidence;
        if (drum.ambiguous) out.ambiguous |= 1u << i;
        sum += 100 * drum.confidence;
    }
    out.count = count;
    out.box = cv::Rect(int(drums.origin + lo * drums.pitch - drums.pitch / 2), int(row.top), int(count * drums.pitch),
                       int(h));
    out.finish();
    out.score = float(sum);
    return GridVerdict::read;
}

/// The drum pitch the row's own light says, in working pixels, or 0 when it says none: the lag between 0.45 and 1.6
/// digit heights at which the row band's column profile (each column's mean over the digits' height, with its trend
/// over two digit heights taken out) best correlates with itself. The dark bars between drums and the drums' lighter
/// faces (or the reverse) repeat at the pitch, whatever the digits are, where the stroke map's digit blobs can miss
/// every other drum or merge two. Of the correlation's peaks, the shortest lag within 85 % of the best (a pattern
/// that repeats at the pitch also repeats at twice it).
double periodicPitch(lv_meter &m, const Row &row) {
    const cv::Mat &image = m.smooth;
    const int h = int(std::lround(row.height)), width = image.cols;
    if (h < 4) return 0;
    const int minLag = std::max(3, int(std::floor(0.45 * row.height))), maxLag = int(std::ceil(1.6 * row.height));
    if (maxLag * 2 >= width) return 0;
    std::vector<double> &p = m.columnProfile;
    p.assign(size_t(width), 0);
    for (int i = 0; i < width; ++i) {
        const int top = std::clamp(int(std::lround(row.top + row.shift(i))), 0, image.rows - 1);
        const int bottom = std::clamp(top + h, top + 1, image.rows);
        double sum = 0;
        for (int y = top; y < bottom; ++y) sum += image.at<uint8_t>(y, i);
        p[size_t(i)] = sum / (bottom - top);
    }
    // Take out the trend (lighting, the plate around the window): a running mean over two digit heights.
    std::vector<double> &trend = m.correlation;
    trend.assign(size_t(width), 0);
    double running = 0;
    int lo = 0, hi = -1;
    for (int x = 0; x < width; ++x) {
        while (hi < std::min(width - 1, x + h)) running += p[size_t(++hi)];
        while (lo < x - h) running -= p[size_t(lo++)];
        trend[size_t(x)] = running / (hi - lo + 1);
    }
    for (int x = 0; x < width; ++x) p[size_t(x)] -= trend[size_t(x)];
    std::vector<double> &r = m.correlation;
    r.assign(size_t(maxLag + 2), 0);
    for (int lag = minLag - 1; lag <= maxLag + 1; ++lag) {
        double sxy = 0, sxx = 0, syy = 0;
        for (int x = 0; x + lag < width; ++x) {
            sxy += p[size_t(x)] * p[size_t(x + lag)];
            sxx += p[size_t(x)] * p[size_t(x)];
            syy += p[size_t(x + lag)] * p[size_t(x + lag)];
        }
        r[size_t(lag)] = sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
    }
    double best = 0;
    for (int lag = minLag; lag <= maxLag; ++lag)
        if (r[size_t(lag)] >= r[size_t(lag - 1)] && r[size_t(lag)] >= r[size_t(lag + 1)])
            best = std::max(best, r[size_t(lag)]);
    if (best < 0.2) return 0;
    for (int lag = minLag; lag <= maxLag; ++lag) {
        const double a = r[size_t(lag - 1)], b = r[size_t(lag)], c = r[size_t(lag + 1)];
        if (b < a || b < c || b < 0.85 * best) continue;
        const double denominator = a - 2 * b + c;
        return lag + (denominator < 0 ? 0.5 * (a - c) / denominator : 0);
    }
    return 0;
}

/// The drums again at `pitch`: anchored at the whole digit the network sees most clearly and extended either way
/// while the network sees a digit. False when it sees none clearly.
bool regrid(lv_meter &m, const DrumRow &drums, double pitch, DrumRow &out) {
    const Row &row = drums.row;
    const double h = row.height;
    double anchor = 0, clearest = 0;
    for (const Blob &b : row.members) {
        const double clarity = viewDrum(m, b.cx(), row.centre + row.shift(b.cx()), h).clarity;
        if (clarity > clearest) {
            clearest = clarity;
            anchor = b.cx();
        }
    }
    if (clearest < kDrumClarity) return false;
    out = drums;
    out.pitch = pitch;
    out.origin = anchor;
    out.lo = out.hi = 0;
    auto digit = [&](int k) {
        const double x = anchor + k * pitch;
        return viewDrum(m, x, row.centre + row.shift(x), h).mass >= kDigitMass;
    };
    while (out.hi - out.lo + 1 < LV_METER_MAX_DIGITS && digit(out.lo - 1)) --out.lo;
    while (out.hi - out.lo + 1 < LV_METER_MAX_DIGITS && digit(out.hi + 1)) ++out.hi;
    return true;
}

/// Whether `candidate` should replace `out` as a polarity's counter reading: any reading beats none; where the
/// stroke map's grid and the row's light disagree on the pitch, the reading of more drums (a grid that lost drums
/// reads a part of the counter, surely), then the larger total confidence.
bool preferable(const Reading &candidate, const Reading &out, bool gridsAgree) {
    if (out.count == 0) return true;
    if (!gridsAgree && candidate.count != out.count) return candidate.count > out.count;
    return candidate.score > out.score;
}

/// Reads the counter in one polarity. First on the grid of the stroke map's digits; when that reads nothing, or an
/// unsure digit, again on a grid that answers why (at most two more): at half the pitch when a digit stands half-way
/// between two drums (every second drum was lost to the stroke map), at the same pitch but extended while the network
/// sees digits when one stands beyond an end (the stroke map lost the row's end), and at the pitch of the row's
/// periodic light (periodicPitch) where that differs; then, while still unsure, with the windows scaled. Which
/// reading wins: `preferable`, where a stroke-map grid whose pitch the light contradicts (not a whole multiple of
/// it, within 12 %) gives way to a reading of more drums: such a grid may have lost drums, and its reading would be
/// a confident part of the counter.
void readCounterRow(lv_meter &m, bool lightOnDark, const DrumRow &drums, Reading &out) {
    out = Reading();
    const double light = periodicPitch(m, drums.row);
    const double ratio = light / drums.pitch, multiple = std::round(ratio);
    const bool agrees = light == 0 || (multiple >= 1 && std::fabs(ratio - multiple) < 0.12 * multiple);
    const GridVerdict verdict = readCounter(m, lightOnDark, drums, out);
    if (agrees && verdict == GridVerdict::read && out.readingConfidence >= kSureDrums) return;
    double pitches[2];
    int tries = 0;
    if (verdict == GridVerdict::digitBetween) pitches[tries++] = drums.pitch / 2;
    if (verdict == GridVerdict::digitBeyond) pitches[tries++] = drums.pitch;
    if (light > 0 && std::fabs(light - drums.pitch) >= 0.12 * drums.pitch) pitches[tries++] = light;
    DrumRow &other = m.other;
    Reading candidate;
    const DrumRow *grid = verdict == GridVerdict::read ? &drums : nullptr;
    for (int i = 0; i < tries; ++i) {
        if (!regrid(m, drums, pitches[i], other)) continue;
        if (readCounter(m, lightOnDark, other, candidate) == GridVerdict::read &&
            preferable(candidate, out, agrees)) {
            out = candidate;
            m.regridded = other;
            grid = &m.regridded;
        }
    }
    if (!grid || (out.count > 0 && out.readingConfidence >= kSureDrums)) return;
    // Still unsure: the digits' height from the stroke map may be off (a drum's next digit showing above or below
    // joins its strokes), and the network reads a window scaled wrongly less surely. Try the windows a little smaller
    // and a little larger.
    // (Not shifted up or down: a window shifted off a drum caught mid-roll shows it as a whole digit, which the
    // network is surer of, and the surest reading would be the wrong one.)
    for (double factor : {0.85, 1.2}) {
        other = *grid;
        other.row.height = grid->row.height * factor;
        other.row.top = grid->row.centre - other.row.height / 2;
        if (readCounter(m, lightOnDark, other, candidate) == GridVerdict::read && preferable(candidate, out, agrees))
            out = candidate;
    }
}

/// Takes back the confidence of every drum of `reading` that `other` (the same counter read in the other polarity,
/// where the row's height and centre come out a little differently) reads as another digit: the network is sure of
/// many a digit it sees in a window a few pixels off, and two windows that disagree cannot both be right.
void withdrawDisputed(Reading &reading, const Reading &other) {
    if (reading.count == 0 || other.count == 0) return;
    const double pitch = double(reading.box.width) / reading.count;
    const double otherPitch = double(other.box.width) / other.count;
    bool changed = false;
    for (int i = 0; i < reading.count; ++i) {
        const double x = reading.box.x + (i + 0.5) * pitch;
        for (int j = 0; j < other.count; ++j) {
            const double y = other.box.x + (j + 0.5) * otherPitch;
            if (std::fabs(x - y) < 0.3 * pitch && other.digits[j] != reading.digits[i] &&
                other.confidence[j] >= kDisputing) {
                reading.confidence[i] = 0;
                changed = true;
            }
        }
    }
    if (changed) {
        const float score = reading.score;
        reading.finish();
        reading.score = score;
    }
}

/// Keeps `candidate` when it beats `best`: the higher reading confidence, then the higher total.
void keepBetter(Reading &best, const Reading &candidate) {
    if (candidate.count == 0) return;
    if (best.count == 0 || candidate.readingConfidence > best.readingConfidence + 1e-3 ||
        (std::fabs(candidate.readingConfidence - best.readingConfidence) <= 1e-3 && candidate.score > best.score))
        best = candidate;
}

}  // namespace

extern "C" int lv_meter_create(int mode, lv_meter **out) {
    if (!out) return LV_METER_EINVAL;
    *out = nullptr;
    if (mode != LV_METER_MODE_DIGITAL && mode != LV_METER_MODE_COUNTER && mode != LV_METER_MODE_AUTO)
        return LV_METER_EINVAL;
    try {
        auto meter = std::make_unique<lv_meter>();
        meter->mode = mode;
        if (mode != LV_METER_MODE_DIGITAL) {
            const void *model = nullptr;
            size_t length = 0;
            int status = lv_meter_digits_model(&model, &length);
            if (status == 0) status = lv_digit_classifier_create(model, length, &meter->classifier);
            if (status != 0) return status == -ENOMEM ? LV_METER_ENOMEM : LV_METER_EINTERNAL;
            buildStrips(*meter);
        }
        *out = meter.release();
        return 0;
    } catch (const std::bad_alloc &) {
        return LV_METER_ENOMEM;
    } catch (...) {
        return LV_METER_EINTERNAL;
    }
}

extern "C" void lv_meter_destroy(lv_meter *meter) { delete meter; }

extern "C" int lv_meter_templates(int font, const uint8_t **pixels) {
    if (!pixels || font < 0 || font > 1) return LV_METER_EINVAL;
    *pixels = lv_meter_detail::kDigitTemplates[font];
    return 0;
}

extern "C" int lv_meter_read(lv_meter *meter, const void *pixels, int width, int height, int stride,
                             lv_meter_result *result) {
    if (!meter || !pixels || !result || width <= 0 || height <= 0 || stride < width) return LV_METER_EINVAL;
    std::memset(result, 0, sizeof *result);
    result->decimal_after = -1;
    try {
        // SAFETY: OpenCV only reads through this header; the const_cast is needed because cv::Mat has no
        // read-only view type.
        lv_meter &m = *meter;
        m.grey = cv::Mat(height, width, CV_8UC1, const_cast<void *>(pixels), size_t(stride));
        prepare(m);
        Reading best, candidate;
        DrumRow drums[2];
        bool haveDrums[2] = {false, false};
        Reading digital[2];
        // Both readers start from the row-wise stroke map of each polarity, and each changes it as it goes: the
        // seven-segment reader goes first, and the counter reader starts from a copy of the first binary map.
        for (int lightOnDark = 0; lightOnDark < 2; ++lightOnDark) {
            strokeMap(m, lightOnDark != 0, odd(0.6 * m.smooth.rows), 0);
            binarise(m);
            if (m.mode == LV_METER_MODE_DIGITAL) {
                readDigital(m, lightOnDark != 0, digital[lightOnDark]);
            } else if (m.mode == LV_METER_MODE_AUTO) {
                m.binary.copyTo(m.firstBinary[lightOnDark]);
                readDigital(m, lightOnDark != 0, digital[lightOnDark]);
            } else {
                haveDrums[lightOnDark] = findDrums(m, lightOnDark != 0, drums[lightOnDark]);
            }
        }
        // Of the two seven-segment readings, the one with more confident digits whose strokes stand further from
        // the ground (contrast alone prefers a lone edge beside the display, read in the wrong polarity as a "1").
        if (m.mode != LV_METER_MODE_COUNTER) {
            const double weight[2] = {digital[0].score * digital[0].contrast, digital[1].score * digital[1].contrast};
            const int polarity = digital[0].count == 0   ? 1
                                 : digital[1].count == 0 ? 0
                                 : weight[1] > weight[0] ? 1
                                                         : 0;
            keepBetter(best, digital[polarity]);
        }
        // Auto mode: after a confident seven-segment reading of several digits, the counter reader does not search
        // for drums at several digit heights when its first stroke map shows none (its costliest step): a
        // counter's digits that the seven-segment reader reads that well stand out in the first map too.
        const bool sure = best.count >= kSureDigits && best.readingConfidence >= kSureDigital;
        if (m.mode == LV_METER_MODE_AUTO) {
            for (int lightOnDark = 0; lightOnDark < 2; ++lightOnDark) {
                std::swap(m.binary, m.firstBinary[lightOnDark]);
                haveDrums[lightOnDark] = findDrums(m, lightOnDark != 0, drums[lightOnDark], !sure);
            }
        }
        // Read the counter in the polarity whose whole digits match the templates better (both when they are close).
        double fit[2] = {-1, -1};
        for (int lightOnDark = 0; lightOnDark < 2; ++lightOnDark)
            if (haveDrums[lightOnDark]) fit[lightOnDark] = drums[lightOnDark].quality;
        // Of the two, the reading with the larger total confidence: the wrong polarity reads the gaps between drums,
        // which rarely give more than a few digits, each less sure; its least sure digit says nothing about how
        // many it missed (a confident "98" beside a confident "298499").
        Reading counter, counters[2];
        for (int lightOnDark = 0; lightOnDark < 2; ++lightOnDark) {
            if (!haveDrums[lightOnDark] || fit[lightOnDark] < fit[1 - lightOnDark] - 0.1) continue;
            readCounterRow(m, lightOnDark != 0, drums[lightOnDark], counters[lightOnDark]);
            const Reading &read = counters[lightOnDark];
            if (read.count > 0 && (counter.count == 0 || read.score > counter.score)) counter = read;
        }
        if (counters[0].count > 0 && counters[1].count > 0)
            withdrawDisputed(counter, counters[counter.lightOnDark ? 0 : 1]);
        // Auto mode: printed digits that match the drum templates this well are a counter, whatever the
        // seven-segment reader made of them; so is a row of drums of which the seven-segment reader found less than
        // half (a bar between drums reads as a 1); otherwise the more confident reading wins. But a confident
        // seven-segment reading of several digits gives way only to a counter reading of more digits: thick
        // segments match some printed digit nearly as well as a counter's digits do.
        const double counterFit = std::max(fit[0], fit[1]);
        if (m.mode == LV_METER_MODE_AUTO && counter.count > 0 &&
            (counterFit >= kCounterFit || 2 * best.count < counter.count) && (!sure || counter.count > best.count))
            best = counter;
        else if (m.mode != LV_METER_MODE_AUTO || best.readingConfidence < kSureDigital)
            // The digit network reads seven-segment digits too, and surely: its confidence says how sure a digit
            // is, not whether the display is a counter. So in auto mode it overrules a seven-segment reading only as
            // above, or one that is unsure.
            keepBetter(best, counter);
        if (best.count == 0) return 0;
        const double back = 1 / m.scale;  // working pixels to image pixels
        result->digit_count = best.count;
        result->decimal_after = best.decimalAfter;
        result->mode = best.mode;
        result->light_on_dark = best.lightOnDark;
        std::memcpy(result->digits, best.digits, sizeof result->digits);
        std::memcpy(result->confidence, best.confidence, sizeof result->confidence);
        result->reading_confidence = best.readingConfidence;
        result->ambiguous = best.ambiguous;
        cv::Rect box(int(std::floor(best.box.x * back)), int(std::floor(best.box.y * back)),
                     int(std::ceil(best.box.width * back)), int(std::ceil(best.box.height * back)));
        box &= cv::Rect(0, 0, width, height);
        result->box_x = box.x;
        result->box_y = box.y;
        result->box_width = box.width;
        result->box_height = box.height;
        return best.count;
    } catch (const std::bad_alloc &) {
        return LV_METER_ENOMEM;
    } catch (...) {
        return LV_METER_EINTERNAL;
    }
}

extern "C" int lv_meter_encode_png(lv_meter *meter, const void *pixels, int width, int height, int stride,
                                   const uint8_t **bytes, size_t *count) {
    if (!meter || !pixels || !bytes || !count || width <= 0 || height <= 0 || stride < width) return LV_METER_EINVAL;
    *bytes = nullptr;
    *count = 0;
    try {
        if (lv::codecs::encode_png(static_cast<const uint8_t *>(pixels), width, height, size_t(stride), meter->png) != 0)
            return LV_METER_EINTERNAL;
        *bytes = meter->png.data();
        *count = meter->png.size();
        return 0;
    } catch (const std::bad_alloc &) {
        return LV_METER_ENOMEM;
    } catch (...) {
        return LV_METER_EINTERNAL;
    }
}
