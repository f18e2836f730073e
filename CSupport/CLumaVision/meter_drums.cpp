// The meter reader's roller-counter drums (meter_internal.hpp): drum strips of the digit templates, matched against
// the crop to find the row of drums, their pitch and the drums caught mid-roll; the drum windows the digit network
// reads.
#include "meter_internal.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lv_meter_detail {

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

bool cutWindow(lv_meter &m, double cx, double cy, double h, double slope) {
    const double back = 1 / m.scale;
    const double height = LV_DIGIT_WINDOW_PER_HEIGHT * h * back;
    const double width = height * LV_DIGIT_INPUT_WIDTH / LV_DIGIT_INPUT_HEIGHT;
    if (std::fabs(slope) > kLevelRow) {
        // Turned with the row: the window's pixel (u, v) comes from the crop at the centre plus u - width / 2 along
        // the row and v - height / 2 across it (an inverse map, so only the window's own pixels are computed).
        const int w = std::max(1, int(std::lround(width))), hh = std::max(1, int(std::lround(height)));
        const double x = cx * back, y = cy * back;
        if (x < 0 || y < 0 || x >= m.grey.cols || y >= m.grey.rows) return false;
        const double c = 1 / std::sqrt(1 + slope * slope), s = slope * c;
        const cv::Matx23d toCrop(c, -s, x - c * w / 2.0 + s * hh / 2.0, s, c, y - s * w / 2.0 - c * hh / 2.0);
        cv::warpAffine(m.grey, m.window, toCrop, cv::Size(w, hh), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                       cv::BORDER_REPLICATE);
        return true;
    }
    const cv::Rect r(int(std::lround(cx * back - width / 2)), int(std::lround(cy * back - height / 2)),
                     std::max(1, int(std::lround(width))), std::max(1, int(std::lround(height))));
    const cv::Rect inside = r & cv::Rect(0, 0, m.grey.cols, m.grey.rows);
    if (inside.width < 3 || inside.height < 3) return false;
    cv::copyMakeBorder(m.grey(inside), m.window, inside.y - r.y, r.y + r.height - inside.y - inside.height,
                       inside.x - r.x, r.x + r.width - inside.x - inside.width, cv::BORDER_REPLICATE);
    return true;
}

bool classifyDrum(lv_meter &m, double cx, double cy, double h, double slope, float *p, float *members) {
    if (!m.classifier) return false;
    const lv_meter::WindowSeen *found = nullptr;
    for (int i = 0; i < m.windowsSeenCount && !found; ++i) {
        const lv_meter::WindowSeen &seen = m.windowsSeen[i];
        if (seen.cx == cx && seen.cy == cy && seen.h == h && seen.slope == slope) found = &seen;
    }
    if (!found) {
        lv_meter::WindowSeen &slot = m.windowsSeen[m.windowsSeenNext];
        slot.h = -1;  // the window it held is forgotten first: a failed classification leaves nothing to match
        if (!cutWindow(m, cx, cy, h, slope) ||
            lv_digit_classifier_classify_members(m.classifier, m.window.ptr<uint8_t>(), m.window.cols, m.window.rows,
                                                 m.window.step, slot.p, slot.own, LV_DIGIT_MAX_MEMBERS) < 0)
            return false;
        slot.cx = cx;
        slot.cy = cy;
        slot.h = h;
        slot.slope = slope;
        m.windowsSeenNext = (m.windowsSeenNext + 1) % kWindowMemory;
        m.windowsSeenCount = std::min(m.windowsSeenCount + 1, kWindowMemory);
        found = &slot;
    }
    std::copy(found->p, found->p + LV_DIGIT_CLASSES, p);
    if (members) std::copy(found->own, found->own + size_t(m.members) * LV_DIGIT_CLASSES, members);
    return true;
}

void forgetWindows(lv_meter &m) { m.windowsSeenCount = m.windowsSeenNext = 0; }

DrumView viewDrum(lv_meter &m, double cx, double cy, double h, double slope) {
    DrumView view;
    float p[LV_DIGIT_CLASSES];
    if (!classifyDrum(m, cx, cy, h, slope, p)) return view;
    for (int c = 0; c < LV_DIGIT_CLASSES; ++c) {
        double near = 0;
        for (int d = -2; d <= 2; ++d) near += p[(c + d + LV_DIGIT_CLASSES) % LV_DIGIT_CLASSES];
        view.clarity = std::max(view.clarity, near);
        view.mass += p[c];
    }
    for (int c = 6; c <= 14; ++c) view.one += p[c];
    return view;
}


bool findDrums(lv_meter &m, bool lightOnDark, DrumRow &drums, bool thorough) {
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
    // that match the strip well: the counter's frame beside the last drum does not. The digit network is asked too,
    // except on a search that is not thorough (after a sure seven-segment reading) for digits that fit the templates
    // less than a counter's: such a row is read only when it holds many drums (lv_meter_read), and the network's
    // window is what the extension costs.
    const bool askNetwork = thorough || drums.quality >= kCounterFit;
    auto drum = [&](int k) {
        const double cx = origin + k * pitch;
        cv::Rect r(int(cx - 0.5 * pitch), int(row.centre + row.shift(cx) - 0.7 * h), int(pitch), int(1.4 * h));
        if (r.x < 0 || r.x + r.width > binary.cols) return false;
        r &= cv::Rect(0, 0, binary.cols, binary.rows);
        if (r.empty()) return false;
        // The digit network knows a drum from the window's edge, the plate or two half drums (its "no digit"
        // class) whatever the font: a drum it sees clearly is one, even where the stroke map shows the photograph's
        // own edges around the digit.
        if (askNetwork && viewDrum(m, cx, row.centre + row.shift(cx), h, row.slope).clarity >= kDrumClarity)
            return true;
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

}  // namespace lv_meter_detail
