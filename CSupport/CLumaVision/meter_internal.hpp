// The meter reader's internals, shared by its files (internal to CLumaVision; the C API is include/lv_meter.h):
// - meter_image.cpp: the working image, stroke maps, digit rows and probes;
// - meter_digital.cpp: seven-segment displays;
// - meter_drums.cpp: a roller counter's drums, found by template matching against drum strips;
// - meter_counter.cpp: the drums read by the digit network (lv_meter_digits.h) with the carry rule, on the best grid;
// - meter.cpp: the C entry points, which choose between the readings.
// The image is borrowed; scratch images and vectors live in the reader and keep their capacity from frame to frame,
// so steady-state reading allocates little.
#ifndef LV_METER_INTERNAL_HPP
#define LV_METER_INTERNAL_HPP
#include "lv_meter.h"
#include "lv_meter_digits.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace lv_meter_detail {

// Defined in meter_templates.cpp.
extern const uint8_t kDigitTemplates[2][10 * LV_METER_TEMPLATE_WIDTH * LV_METER_TEMPLATE_HEIGHT];

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

/// Seven-segment digits lean right by at most this shear (horizontal shift per pixel of height; 12 degrees and a
/// little roll), tried in kSlantSteps steps (and two steps leaning left); a slant below kMinSlant is left alone.
constexpr double kMaxSlant = 0.28;
constexpr int kSlantSteps = 14;
constexpr double kMinSlant = 0.03;

/// A seven-segment row whose digits' height changes by more than this fraction from one end to the other (a display
/// seen from the side) is read from the working image rectified by the homography that makes them equally tall.
constexpr double kMinPerspective = 0.1;
/// Perspective is told from at least this many members as tall as digits (fewer tell a short "4" or "7", or a point
/// joined under a digit, from perspective too easily), or from kFewPerspectiveDigits (a display of four digits, or
/// one whose segment gaps break some digits' blobs) whose widths change along the row by at least kPerspectiveWidth
/// times as much as their heights, the same way: perspective widens the near digits as it makes them taller.
constexpr int kPerspectiveDigits = 5;
constexpr int kFewPerspectiveDigits = 4;
constexpr double kPerspectiveWidth = 0.5;

/// A seven-segment row member wider than this many median digit widths, as tall as the row and with a left stroke
/// (not a lit point joined to the digit), is a near digit that perspective makes larger: its cell is centred on it,
/// moved left by half the extra width, at most kNearInset digit widths, for reading (its place on the row stays).
constexpr double kNearWidth = 1.3;
constexpr double kNearInset = 0.3;

/// A seven-segment reading that is probably not the display's (part of its digits, fewer than kMinDigits, only
/// eights) keeps this fraction of its confidence: less than the share of the recognizer's default minimum (60) at
/// which a frame still supports a reading a confident frame set (MeterRecognizer.supportingFraction, 45), whatever
/// the digits' own, so that a part of a display never completes on the strength of one frame that missed the rest.
constexpr double kDoubtful = 0.4;

/// A cell beyond the seven-segment digits found whose hole is lit, but which lights a horizontal segment and at least
/// three in all at this fraction of the digits' lit level, is a digit the reader could not place (one next to a lit
/// point, or beyond a pitch that perspective stretched): the reading is partial. A display's edge, lit a little less,
/// is not.
constexpr double kLostLevel = 0.85;

/// A stroke above or below a seven-segment cell goes on from it (an edge, not a digit) when it is lit in at least
/// this fraction of the band's rows (clearAboveBelow in meter_digital.cpp).
constexpr double kThroughBand = 0.6;

/// The smallest digit findRow takes, as a fraction of the working image's height.
constexpr double kMinDigitRows = 0.16;

/// The display's border in the binary stroke map (findRow): a ring, a component at least kBorderAspect times as wide
/// as tall whose pixels fill at most kBorderFill of its bounding box, with two components at least kBorderInner of its
/// height within that box (the digits); or a line, kBorderLine times as wide as tall, filling at most kBorderLineFill.
constexpr double kBorderAspect = 1.2;
constexpr double kBorderFill = 0.2;
constexpr double kBorderInner = 0.3;
constexpr double kBorderLine = 3;
constexpr double kBorderLineFill = 0.12;

/// A counter's row tilts by at most kDrumSlope (rows per column, 5.7 degrees), or by up to kMaxDrumSlope (14 degrees:
/// a camera rolled 10 degrees, and perspective) when three or more pairs of its whole digits say so, three quarters of
/// them within kDrumSlopeAgreement of their median: two digits, or a drum caught mid-roll whose blob sits lower, tilt
/// a level row as much.
constexpr double kDrumSlope = 0.1, kMaxDrumSlope = 0.25, kDrumSlopeAgreement = 0.03;

/// A seven-segment row tilts by at most this much (rows per column): a few degrees of roll, and a display seen from
/// the side, whose perspective tilts the row further.
constexpr double kMaxRowSlope = 0.25;
/// The tilt of a seven-segment row is measured between the members that have a neighbour at most kTiltReach digit
/// heights from them when they make at least kTiltPairs pairs, else between all of them.
constexpr double kTiltReach = 2.0;
constexpr size_t kTiltPairs = 3;

/// A member's right edge is its digit's above this fraction of the digit height from the bottom: a lit decimal point
/// joined to the digit's blob seldom reaches it (round points up to about two strokes across), the lower right
/// segment (the right edge of a 5 or a 6) does.
constexpr double kPointHeight = 0.3;

/// A decimal point fainter than a lit one but at least this fraction of the lit level in the stroke map, and three
/// times the brightest unlit point, may be lit (a small point, blurred, stays fainter than the segments): the reading
/// is doubtful (kDoubtful).
constexpr double kFaintPoint = 0.2;
/// A spot in a gap at least this fraction of the lit level that is not taken for a point makes the reading doubtful
/// (kDoubtful) however the other gaps look: a lit point that blur or a small size keeps under the lit level, beside
/// a digit's corner that reaches into another gap, passes neither test above. On the wide seven-segment generator
/// (scripts/eval-meter.sh --digital, seeds 23, 71, 83, 101, 127) such spots were 32 of the 49 confident frames that
/// missed a point, and 35 of 5,338 confident frames of displays without one.
constexpr double kDoubtfulPoint = 0.35;
/// ... unless kAlikeGaps gaps or more show such a spot and the brightest leads every other gap's by less than this
/// factor: a lit point is one spot, where gaps lit alike (an LCD's ghost points under glare, the corners of wide
/// digits close together) are the display's pattern. Two spots alike stay doubtful: a corner and a faint lit point
/// (5810.7924 on seed 163, its point 55 against the corner's 56). On the wide generator in issue 17's framing (seeds
/// 179, 181, 199, 211) the spots of 32 frames of displays without a point led by less than 1.2, those of the frames
/// with a faint lit point by 1.28 and more.
constexpr double kPointLead = 1.2;
constexpr int kAlikeGaps = 3;
/// A spot in the gap is a digit's corner, not a decimal point, when the stroke map this far above it (stroke widths,
/// plus the point's probe) is lit at least kStrokeAbove of the spot's brightness.
constexpr double kPointReach = 1.2;
constexpr double kStrokeAbove = 0.5;
/// A spot in the gap at least this fraction of the lit level that a stroke above dismisses as a digit's corner may
/// yet be a lit point right under the digit before it (a "1" or a "7" flush with its cell's right edge): the reading
/// is doubtful (kDoubtful), when the spot leads every other gap's spot (those under a stroke too) by kCornerLead. On
/// the wide generator (scripts/eval-meter.sh --digital, 13 seeds, 3,120 meters) the doubt turned 3 of 17 confident
/// misreads, each a missed point, into no result, for 1 meter and 33 of 23,212 confident frames that were read right.
/// Without the lead, corners lighting two gaps or more alike under their strokes made readings doubtful in most
/// frames (51369042, issue 17's framing, seed 11).
constexpr double kDismissedPoint = 0.6;
/// A spot in the gap with the stroke map a point's width above it (straight up or to either side) at least
/// kCornerAbove of the spot's brightness is a digit's corner (a slanted one, whose stroke moves aside as it rises past
/// the probe straight above, or the end of a segment beside the gap), not a point. One at least kDismissedCorner of
/// the lit level that leads every other gap's spot by kCornerLead (the spots taken for the next digit's strokes left
/// out), or that stands out from them as a faint point does (kFaintPoint), may yet be a lit point close beside the
/// digit before it (whose stroke then lies above it to the left): the reading is doubtful (kDoubtful); where other
/// gaps show spots nearly as bright (an LED's glow, an LCD's ghost points) it is the display's pattern. A spot with
/// less than kIsolatedPoint of its brightness above it, at kDoubtfulPoint of the lit level or more and twice the other
/// gaps' spots, is a lit point even under the lit level (a small point, blurred). Measured on the frames of the wide
/// generator in issue 17's framing (seeds 7, 179, 181, 197, 199, 211, 227, 239) whose digits were read right: frames
/// whose point was right rose from 5,628 to 5,748 of 6,133 and frames confidently wrong about the point fell from 83
/// to 41, alike on either half of the seeds.
constexpr double kCornerAbove = 1.3;
constexpr double kDismissedCorner = 0.3;
constexpr double kCornerLead = 2;
constexpr double kIsolatedPoint = 1.2;
/// A "1" at either end of a seven-segment reading read less surely than this is the display's border as likely as a
/// digit: the reading is partial. On the wide generator in issue 17's framing (8 seeds, 1,920 meters) the leading
/// "1"s of right readings were read at 1.0 in all 568 frames, the border taken for one at 0.57-0.61.
constexpr double kSureEndOne = 0.8;

/// The digit width the seven-segment reader assumes, as a fraction of the digit height, for a row of ones only.
constexpr double kOnesWidth = 0.6;

/// findRow's seed: a blob narrower than this fraction of its own height (grown by the vertical joining, so a "1" is
/// narrower by this measure than by the reader's 0.35 of the row's height) is measured against the seed by the seed's
/// height alone, as a "1" whose segments stop short of the other digits' top and bottom ones must be; wider blobs and
/// the seed must each be within the tolerance of the other's height.
constexpr double kNarrowBlob = 0.4;

/// A seven-segment reading whose lit level in the stroke map (grey levels above or below the ground) is under this
/// is doubtful: the ghosts of a blank LCD under glare stand 14-32 levels out, where the displays of
/// `scripts/eval-meter.sh --digital` read right stand 45 and more.
constexpr double kFaintStrokes = 36;

/// A doubtful seven-segment cell is read again this fraction of the digit width, and twice that, to either side
/// (readDigital in meter_digital.cpp): a neighbour's stroke or a lit point reaching into a probe at the cell's edge
/// leaves the probe there, the cell's own strokes stay under it.
constexpr double kCellShift = 0.06;

/// The probes of a seven-segment cell's side segments reach this fraction of the digit width past the cell (so that
/// a digit a little wider than the median, or off the cell by a pixel, lights them).
constexpr double kProbeOverhang = 0.08;

/// A row member this many pitches or fewer beyond a seven-segment reading's ends makes it partial (kDoubtful).
constexpr double kStrayPitches = 2;

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

/// A digit this clearly in view (kDrumClarity's measure) a quarter or half a drum beyond either end of a grid says the
/// counter goes on past the grid.
constexpr double kClearBeyond = 0.85;

/// A "1" beyond either end of a grid that the network gives this much probability (positions 0.6-1.4) says the row may
/// go on, though less than kDigitMass is on digits: a thin "1" on the last drum, beside the window's frame, reads as
/// neither frame nor digit (502951 and 86261 completed without their last drum).
constexpr double kFaintOne = 0.15;

/// A drum at either end of the row is the window's edge or the plate when the digit network gives all drum positions
/// together less than this (the rest is its "no digit" class).
constexpr double kDigitMass = 0.5;
/// How many classified drum windows a frame remembers (classifyDrum): a search classifies a few dozen, a frame with an
/// unsure row scanned by the network a few hundred, of which only the latest are remembered.
constexpr int kWindowMemory = 64;
/// The slope (tan of the roll) up to which a counter's drum windows are cut level (3.4 degrees): the digit network was
/// trained on digits rolled up to 4 degrees either way, and a level cut is a copy where a turned one is a warp.
/// Measured against 0.035 on the real-digit counters of `scripts/eval-meter.sh` (1,740 meters, rolled or not): the
/// same exact readings within 2 and the same 20 misreads.
constexpr double kLevelRow = 0.06;

/// A counter whose reading is not sure is read again from the crop rectified (findCounterPerspective) when the lines
/// along its window's top and bottom edges tilt by more than kLevelRow or part so that the window is this fraction
/// taller at one end than at the other (a counter seen from the side; twice this after a sure reading): its drums
/// then stand level, equally tall and at one pitch, as the grids assume.
constexpr double kCounterPerspective = 0.05;

/// A drum that the other polarity reads as another digit with at least this confidence (percent) is disputed.
constexpr float kDisputing = 60;
/// A counter reading this confident leaves its row for the next frames to scan when they find none (rememberRow).
constexpr float kPriorConfidence = 60;
/// How many frames a remembered row stays: about half a second of a camera's frames.
constexpr int kPriorFrames = 5;

/// Meters show at least this many digits: a grid of fewer drums is a part of a counter (or a digit that is no
/// counter's), and a seven-segment reading of fewer digits is doubtful (kDoubtful): two strokes of a background could
/// pass for "4.1", and a reading that short is no meter's.
constexpr int kMinDigits = 3;
constexpr int kMinDrums = kMinDigits;

/// A counter reading whose least sure drum is at least this sure (percent) is not read again on another grid.
constexpr double kSureDrums = 90;
/// Tracking (trackCounter) follows a reading whose least sure drum is this sure, and takes the grid's new reading when
/// it is as sure. At kSureDrums (90) a 7 the search read as a 1 at 90 % was confirmed frame after frame into a
/// completed misread (MeterRealDigitCounterTests), where the searches of the next frames disagree.
constexpr double kTrackedDrums = 95;

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
    // How far above and below the digits the blobs the row was found on reached (the seven-segment reader joins each
    // digit's segments vertically); 0 for a counter's rows.
    double grown = 0;
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

/// A stroke pixel of a seven-segment row, for the slant search: its column (with the search's margin) and its height
/// above the row's centre line.
struct SlantPixel {
    int column;
    double above;
};

/// Where a row of digits lies, without its blobs (copied from frame to frame without allocating).
struct RowPlace {
    double centre = 0, height = 0, slope = 0, x0 = 0;
    double pitch = 0, first = 0;  // a counter reading's drum pitch and its first drum's centre (0 otherwise)
    // A counter read from the crop rectified (findCounterPerspective): the place is in the rectified working image,
    // which `rectification` maps the camera's working image onto.
    bool rectified = false;
    cv::Matx33d rectification = cv::Matx33d::eye();
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
    bool pointUnseen = false;  // digital: doubtful (kDoubtful) for digits too close to look for a point between
    bool rectified = false;    // digital: read from the working image rectified (a display seen from the side)
    cv::Rect box;
    RowPlace place;  // counter: the row the drums were read on, in working pixels

    /// Scales every digit's confidence, and the reading's, by `factor`.
    void doubt(float factor) {
        for (int i = 0; i < count; ++i) confidence[i] *= factor;
        score *= factor;
        finish();
    }

    void finish() {
        digits[count] = 0;
        readingConfidence = 0;
        if (count > 0) {
            readingConfidence = 100;
            for (int i = 0; i < count; ++i) readingConfidence = std::min(readingConfidence, confidence[i]);
        }
    }
};

inline double clamp01(double v) { return std::min(1.0, std::max(0.0, v)); }

inline double median(std::vector<double> &v) {
    if (v.empty()) return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + long(mid), v.end());
    return v[mid];
}

inline int odd(double v) {
    const int n = std::max(1, int(std::lround(v)));
    return n | 1;
}

constexpr int kTW = LV_METER_TEMPLATE_WIDTH;
constexpr int kTH = LV_METER_TEMPLATE_HEIGHT;

/// A strip of digit templates, and for every window the size of the patch (at vertical offset y, horizontal shift x)
/// the inverse of the window's centred norm, so a normalised correlation costs one dot product.
struct Strip {
    cv::Mat pixels;       // CV_32FC1
    cv::Mat inverseNorm;  // CV_32FC1: rows = offsets, cols = shifts
    int patchWidth = 0, patchHeight = 0;
};

}  // namespace lv_meter_detail

struct lv_meter {
    using Strip = lv_meter_detail::Strip;
    using Blob = lv_meter_detail::Blob;
    using Row = lv_meter_detail::Row;
    using DrumRow = lv_meter_detail::DrumRow;
    static constexpr int kStripCount = lv_meter_detail::kStripCount;

    int mode = LV_METER_MODE_AUTO;
    // The crop being read (a borrowed header) and the working image's scale (working pixels per crop pixel).
    cv::Mat grey;
    double scale = 1;
    // Scratch images, reused from frame to frame.
    // (borderless: the binary map without the display's border, when findRow found one (hasBorder); borderMask: the
    // border's pixels, which the seven-segment reader takes out of the stroke map.)
    cv::Mat reduced, work, smooth, padded, paddedClosed, closed, closedVertical, strokes, binary, borderless,
        borderMask, dilated, labels, stats, centroids, boxed;
    bool hasBorder = false;
    // The auto mode's copy of the first binary stroke map of each polarity, for the counter reader after the
    // seven-segment reader's turn.
    cv::Mat firstBinary[2];
    std::vector<uint16_t> rowSums;
    cv::Mat region, regionScaled, patch, patchSmall, match, profile;
    std::vector<Blob> blobs;
    // Seven-segment reader, a display seen from the side: the blobs of the first row search, whose stroke map joins
    // a digit's segments vertically (a near digit larger than the row is one blob there, and only segments in the
    // map the digits are read from), placed as in the working image the digits are read from.
    std::vector<Blob> firstBlobs;
    std::vector<double> values, scratch;
    std::vector<int> shifts;
    // Seven-segment reader: the working image sheared upright (slanted digits), the row's stroke pixels (column and
    // height above the row's centre line) and their column counts under one shear, from which the slant is found.
    cv::Mat upright;
    // Seven-segment reader: the working image with a display seen from the side rectified (its row of digits made
    // equally tall from end to end), and the homography that did it.
    cv::Mat rectified;
    cv::Matx33d rectification;
    std::vector<lv_meter_detail::SlantPixel> slantPixels;
    std::vector<int> slantColumns;
    // Seven-segment reader: the lit pixels per column of a band above or below a cell (CV_32S), and the pixels (index
    // y * cols + x) of a blob being traced (flood in meter_image.cpp).
    cv::Mat columnSums;
    std::vector<int> traced;
    // findRow: the blobs of the binary stroke map (box, pixel count, first pixel), to find the display's border.
    struct Part {
        cv::Rect box;
        int area;
        cv::Point seed;
    };
    std::vector<Part> parts;
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
    // The members' own probabilities for the same drums (LV_DIGIT_CLASSES per member, `members` members per drum),
    // where the model joins several networks (lv_digit_classifier_members).
    std::vector<float> memberProbabilities;
    int members = 0;
    // The digit network's outputs for the windows this frame has classified (classifyDrum), kWindowMemory at most:
    // the same window is asked for again (the grid's extension, then its reading and its checks beside the ends).
    struct WindowSeen {
        double cx, cy, h, slope;
        float p[LV_DIGIT_CLASSES];
        float own[LV_DIGIT_CLASSES * LV_DIGIT_MAX_MEMBERS];
    };
    WindowSeen windowsSeen[lv_meter_detail::kWindowMemory];
    int windowsSeenCount = 0, windowsSeenNext = 0;
    std::vector<lv_drum_reading> drumReadings;
    // Counter reader: the row band's column profile and its autocorrelation (periodicPitch).
    std::vector<double> columnProfile, correlation;
    // Counter reader: the grids tried after the stroke map's (readCounterRow), reused from frame to frame.
    DrumRow other, regridded;
    // Counter reader, drums of both polarities in one counter (readMixedCounter): the working image kept aside while
    // m.smooth holds its local deviation, the local mean, and that pass's grid and reading.
    cv::Mat keptSmooth, localMean;
    DrumRow mixedDrums;
    bool haveMixedDrums = false;
    Row scanRow;
    // Counter reader: the last confident counter reading (priorAge frames ago, -1: none) in a working image of
    // priorSize: its row is scanned in a frame whose own stroke maps show no row (rememberRow, priorRow), and a sure
    // one is confirmed on its grid (trackCounter).
    lv_meter_detail::Reading priorReading;
    int priorAge = -1;
    cv::Size priorSize;
    DrumRow priorDrums;
    // Counter reader: the digit network's clarity and digit mass along a row and the steps between its peaks
    // (scanDrums).
    std::vector<double> scanClarity, scanMass, scanSteps;
    int scanDigitWindows = 0;  // the last scan's windows that saw a digit
    // Counter reader, a counter seen from the side (findCounterPerspective): the working image's vertical gradient and
    // its sums along candidate lines; the crop rectified, and whether m.grey is it now, by which homography.
    cv::Mat edges;
    std::vector<int> edgeSums;
    cv::Mat rectifiedGrey;
    bool rectifiedNow = false;
    cv::Matx33d nowRectification = cv::Matx33d::eye();

    lv_meter() = default;
    lv_meter(const lv_meter &) = delete;
    lv_meter &operator=(const lv_meter &) = delete;
    ~lv_meter() { lv_digit_classifier_destroy(classifier); }
};

namespace lv_meter_detail {

/// What the digit network sees in the window centred at (cx, cy) for digits `h` high: `clarity`, the most probability
/// it puts within two tenths of one drum position, and `mass`, the probability that a drum digit is there at all (its
/// positions' total); both 0 when the window is not in the crop.
struct DrumView {
    double clarity = 0, mass = 0;
    double one = 0;  // the probability of the positions 0.6-1.4, a "1" (kFaintOne)
};

// ---- meter_image.cpp ------------------------------------------------------------------------------------------------

/// Scales the crop to the working size (about kWorkingArea pixels, at most twice enlarged) with light smoothing.
void prepare(lv_meter &m);
/// The stroke map: how much darker (or lighter, for light-on-dark digits) each pixel is than the brightest (darkest)
/// pixel within `horizontal` pixels on its row. Digit strokes are narrower than that; panel edges, the meter body and
/// a counter's face are not, and neither is shading that varies from row to row (drum curvature, glare), so they give
/// nothing. With `vertical` > 0, structures taller than that (the bars between a counter's drums) give nothing
/// either: the background is the lesser of the row-wise and column-wise closings. With `square` > 0 (wider than any
/// stroke), the background is also at most the closing by a square that size: glare and shading that vary within the
/// row-wise element (a bright spot on a display) then give nothing either, where a row-wise closing alone turns them
/// into strokes. With `horizontal` = 0, the background starts from the last call's (in m.closed) instead of a new
/// row-wise closing.
void strokeMap(lv_meter &m, bool lightOnDark, int horizontal, int vertical, int square = 0);
/// Thresholds the stroke map (Otsu, but never below a third of its 99th percentile, so noise alone does not pass)
/// and returns the level used.
double binarise(lv_meter &m);
/// Finds the digit row: connected components of the stroke mask (joined vertically across segment gaps) that are
/// digit-sized and share one height and baseline, the most of them by total height. Blobs up to `maxAspect` times as
/// wide as high are kept (touching digits make wide blobs).
bool findRow(lv_meter &m, Row &row, bool joinSegments, double minAspect, double maxFill, double tolerance = 0.25,
             double maxAspect = 1.1);
/// Floods the blob of pixels of value `from` (8-connected) through `seed` in `map`, within `window` only, setting
/// them to `to`; returns its bounding box (empty when `seed` is not `from`) and its pixel count in `area`, and leaves
/// the blob's pixels (y * cols + x) in m.traced. Allocation-free once m.traced has grown.
cv::Rect flood(lv_meter &m, cv::Mat &map, cv::Point seed, uint8_t from, uint8_t to, cv::Rect window, int &area);
/// The median over columns of each column's maximum in `r` (for a horizontal segment), or the median over rows of
/// each row's maximum (for a vertical one): high only when a stroke crosses the whole probe.
double probe(lv_meter &m, cv::Rect r, bool horizontal);
/// The rectangle of a digit cell's probe: the part (u0, v0)-(u1, v1) of the digit box at (`left`, `top`), `w` x `h`.
cv::Rect cellRect(double left, double top, double w, double h, double u0, double v0, double u1, double v1);
/// The homography that maps the four points `from` onto the four points `to` (no three of either on a line).
cv::Matx33d homography(const cv::Point2d (&from)[4], const cv::Point2d (&to)[4]);
/// The box around the corners of `box` (in an image rectified by `rectification`) as the camera saw them.
cv::Rect boxBack(const cv::Matx33d &rectification, const cv::Rect &box);

// ---- meter_digital.cpp ----------------------------------------------------------------------------------------------

/// Reads seven-segment digits from the row-wise stroke map of `lightOnDark` (m.strokes, m.binary and m.closed, as
/// strokeMap and binarise left them), which it changes.
void readDigital(lv_meter &m, bool lightOnDark, Reading &out);

// ---- meter_drums.cpp ------------------------------------------------------------------------------------------------

/// Builds the drum strips the counter reader matches against, for each pitch and each font (regular, bold): the
/// templates slightly blurred, with digit (j + 9) % 10 centred at (j + 0.5) * pitch for j = 0 ... 11, and a margin of
/// 3 pixels each side for horizontal shifts; and the same at half size.
void buildStrips(lv_meter &m);
/// Cuts the drum window centred at (cx, cy) for a digit `h` high (working pixels) out of the crop at full resolution
/// into m.window, in the shape the digit network was trained on (LV_DIGIT_WINDOW_PER_HEIGHT digit heights high, 20:32);
/// outside the crop, its edge repeats. On a row that slopes by `slope` (a rolled counter) more than kLevelRow, the
/// window is turned with the row, so the network sees the digit upright. Returns false when the window is not in the
/// crop.
bool cutWindow(lv_meter &m, double cx, double cy, double h, double slope);
/// The digit network's probabilities (LV_DIGIT_CLASSES) for the drum window cutWindow cuts at (cx, cy, h, slope), into
/// `p`: from this frame's memory of windows when the same window was classified already (an identical cut of the same
/// frame), else by the network, remembered. False when the window is not in the crop or the network fails. The memory
/// is forgotten at each frame (forgetWindows). With `members`, the member networks' own probabilities too
/// (m.members x LV_DIGIT_CLASSES).
bool classifyDrum(lv_meter &m, double cx, double cy, double h, double slope, float *p, float *members = nullptr);
/// Forgets the windows classified so far: a new frame.
void forgetWindows(lv_meter &m);
/// What the digit network sees in the drum window centred at (cx, cy) for digits `h` high on a row of `slope` (see
/// DrumView).
DrumView viewDrum(lv_meter &m, double cx, double cy, double h, double slope);
/// Finds the drums with the current stroke map: the whole digits (bars between drums taken out by a column-wise
/// closing a little taller than the digits), the pitch between them, and drums beyond them that hold a digit
/// caught mid-roll.
bool findDrums(lv_meter &m, bool lightOnDark, DrumRow &drums, bool thorough = true);

// ---- meter_counter.cpp ----------------------------------------------------------------------------------------------

/// Reads the counter in one polarity. First on the grid of the stroke map's digits; when that reads nothing, or an
/// unsure digit, again on a grid that answers why (at most two more): at half the pitch when a digit stands half-way
/// between two drums (every second drum was lost to the stroke map), at the same pitch but extended while the network
/// sees digits when one stands beyond an end (the stroke map lost the row's end), and at the pitch of the row's
/// periodic light (periodicPitch) where that differs; then, while still unsure, with the windows scaled. The reading
/// with the larger total confidence wins (`preferable`). A grid that covers a part of the counter is refused by
/// readCounter, which looks for digits beyond both ends.
void readCounterRow(lv_meter &m, bool lightOnDark, const DrumRow &drums, Reading &out);

/// Reads a counter whose drums do not share one polarity (dark digits on some drums, light ones on others: drums
/// replaced over the years, or photographed through a reflection): the drum row is found in the working image's local
/// deviation (each pixel's distance from the mean around it, a tenth of the crop's height wide), where strokes of either polarity
/// stand out light on dark, and read by the digit network, which reads either polarity. `out` is empty when no row
/// is found. m.smooth is restored before it returns.
void readMixedCounter(lv_meter &m, Reading &out);

/// Reads the counter on the grids the digit network finds along `rows` (scanDrums) at their digits' height, then at
/// 0.8 and 1.25 times it (the stroke map's height is off when a digit's strokes join its drum's edges), into `best`
/// (keepBetter), until it is sure (kSureDrums). Rows that another stands for are scanned once.
void scanCounter(lv_meter &m, const DrumRow *const *rows, int count, Reading &best);
/// How a reading of the drums on one grid ended.
enum class GridVerdict {
    read,          // the drums were read (out holds the reading)
    noDigit,       // fewer than kMinDrums drums of the grid hold a digit
    digitBetween,  // a digit half-way between two drums: the grid's pitch is twice too long
    digitBeyond,   // a digit beside the first or the last drum: the row goes on
};
GridVerdict readCounter(lv_meter &m, bool lightOnDark, const DrumRow &drums, Reading &out);
/// Takes back the confidence of every drum of `reading` that `other` (the same counter read in the other polarity,
/// where the row's height and centre come out a little differently) reads as another digit: the network is sure of
/// many a digit it sees in a window a few pixels off, and two windows that disagree cannot both be right.
void withdrawDisputed(Reading &reading, const Reading &other);
/// Camera frames follow each other closely: remembers the row of `best` when it is a confident counter reading (at
/// least kPriorConfidence), and forgets a remembered row kPriorFrames frames later.
void rememberRow(lv_meter &m, const Reading &best);
/// The remembered row as drums to scan (m.priorDrums), or nullptr when there is none for a working image of this size.
const DrumRow *priorRow(lv_meter &m);
/// Tracking: when the last frame read a counter surely enough to remember it (rememberRow), its drums read again on the
/// same grid, into `out`. True when that reading has the last one's digits and is sure (kTrackedDrums): then the
/// frame needs no search, and `out` keeps the last reading's confidences where they are lower (the full search
/// weighed more than this grid). False otherwise, and the frame is searched in full.
bool trackCounter(lv_meter &m, Reading &out);
/// The homography (working pixels) that rectifies the counter `reading` was read on (in the camera's working image),
/// seen from the side or rolled: the strongest straight edges above and below its drums (the window's frame, or the
/// drums' faces, whose lines meet where the window's do) are mapped onto two level lines as far apart as they are on
/// average, the row's ends onto a level row as long as it is, placed so that the rectified image keeps as much of
/// the row beyond either end of the drums read. False when those edges are level and parallel (kLevelRow,
/// kCounterPerspective), or cannot be told: then the grid's own slope is all the roll there is. For a `sure` reading
/// only a strong perspective counts (twice kCounterPerspective): a grid at one pitch can read the drums it covers
/// surely and fall short of a near drum that perspective makes larger (50058 read as 0058).
bool findCounterPerspective(lv_meter &m, const Reading &reading, bool sure, cv::Matx33d &out);
/// Keeps `candidate` when it beats `best`: the higher reading confidence, then the higher total.
void keepBetter(Reading &best, const Reading &candidate);

}  // namespace lv_meter_detail

#endif
