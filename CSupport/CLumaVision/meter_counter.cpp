// The meter reader's counter reading (meter_internal.hpp): the drums read by the digit network with the carry rule
// (lv_meter_digits.h), on the stroke map's grid or a better one, and the two polarities' readings reconciled.
#include "meter_internal.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace lv_meter_detail {

/// Reads the drums the digit network's way: each drum's window classified into 100 positions (digit and tenth), then
/// the carry rule over the row (lv_drums_resolve_members) for the digits and their confidences, the softmax mass of
/// the positions that read as each digit, the least of the member networks'. A drum caught between two digits that no
/// carry explains gets the little mass left on whole positions, so the reading stays below any useful minConfidence
/// instead of reporting a guess.
GridVerdict readCounter(lv_meter &m, bool lightOnDark, const DrumRow &drums, Reading &out) {
    out = Reading();
    out.mode = LV_METER_MODE_COUNTER;
    out.lightOnDark = lightOnDark;
    const Row &row = drums.row;
    const double h = row.height;
    int count = std::min(drums.hi - drums.lo + 1, int(LV_METER_MAX_DIGITS));
    if (count <= 0 || !m.classifier) return GridVerdict::noDigit;
    const size_t own = size_t(m.members) * LV_DIGIT_CLASSES;
    m.probabilities.resize(size_t(count) * LV_DIGIT_CLASSES);
    m.memberProbabilities.resize(size_t(count) * own);
    m.drumReadings.resize(size_t(count));
    for (int i = 0; i < count; ++i) {
        const double cx = drums.origin + (drums.lo + i) * drums.pitch;
        float *p = m.probabilities.data() + size_t(i) * LV_DIGIT_CLASSES;
        float *members = m.memberProbabilities.data() + size_t(i) * own;
        if (!classifyDrum(m, cx, row.centre + row.shift(cx), h, row.slope, p, members)) {
            std::fill(p, p + LV_DIGIT_CLASSES, 1.0f / LV_DIGIT_CLASSES);  // nothing known: no confidence
            std::fill(members, members + own, 1.0f / LV_DIGIT_CLASSES);
        }
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
    auto digitAt = [&](double k, bool faintOne = false) {
        const double x = drums.origin + k * drums.pitch;
        const DrumView view = viewDrum(m, x, row.centre + row.shift(x), h, row.slope);
        return view.mass >= kDigitMass || (faintOne && view.one >= kFaintOne);
    };
    auto clearDigitAt = [&](double k) {
        const double x = drums.origin + k * drums.pitch;
        const DrumView view = viewDrum(m, x, row.centre + row.shift(x), h, row.slope);
        return view.mass >= kDigitMass && view.clarity >= kDrumClarity;
    };
    if (last > first && (clearDigitAt(drums.lo + first + 0.5) || clearDigitAt(drums.lo + last - 0.5)))
        return GridVerdict::digitBetween;
    // A pitch found too long (every second drum lost to the stroke map, or a run of drums off the grid) puts the
    // drum beyond an end between two real ones, which the network takes for no digit; so look a quarter of a drum
    // nearer as well (further out, the window's frame and the plate can look like a 1).
    for (double inward : {0.0, 0.25}) {
        if ((first == 0 && digitAt(drums.lo - 1 + inward, inward == 0)) ||
            (last == count - 1 && digitAt(drums.lo + count - inward, inward == 0)))
            return GridVerdict::digitBeyond;
    }
    // A pitch a little short (perspective, or whole digits found on a few drums only) puts the positions beyond the
    // ends between a drum and the next, which the network takes for no digit, while its sideways tolerance reads the
    // drums on the grid surely: a part of the counter, read confidently. A digit very clearly in view a quarter or
    // half a drum further out says the row goes on (the window's frame there can look like a 1, less clearly).
    auto veryClearDigitAt = [&](double k) {
        const double x = drums.origin + k * drums.pitch;
        const DrumView view = viewDrum(m, x, row.centre + row.shift(x), h, row.slope);
        return view.mass >= kDigitMass && view.clarity >= kClearBeyond;
    };
    for (double outward : {0.25, 0.5}) {
        if ((first == 0 && veryClearDigitAt(drums.lo - 1 - outward)) ||
            (last == count - 1 && veryClearDigitAt(drums.lo + count + outward)))
            return GridVerdict::digitBeyond;
    }
    if (first > 0) {
        std::copy(m.probabilities.begin() + long(first) * LV_DIGIT_CLASSES,
                  m.probabilities.begin() + long(last + 1) * LV_DIGIT_CLASSES, m.probabilities.begin());
        std::copy(m.memberProbabilities.begin() + long(size_t(first) * own),
                  m.memberProbabilities.begin() + long(size_t(last + 1) * own), m.memberProbabilities.begin());
    }
    const int lo = drums.lo + first;
    count = last - first + 1;
    // Each drum's confidence is the least of the members': two networks that read a drum differently are no surer
    // than the less sure of them, where their mean alone can still be sure of one of their readings.
    if (lv_drums_resolve_members(m.probabilities.data(), m.memberProbabilities.data(), m.members, count,
                                 m.drumReadings.data()) != count)
        return GridVerdict::noDigit;
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
    out.place = RowPlace{row.centre,     h, row.slope, row.x0, drums.pitch, drums.origin + lo * drums.pitch,
                         m.rectifiedNow, m.nowRectification};
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
        const double clarity = viewDrum(m, b.cx(), row.centre + row.shift(b.cx()), h, row.slope).clarity;
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
        return viewDrum(m, x, row.centre + row.shift(x), h, row.slope).mass >= kDigitMass;
    };
    while (out.hi - out.lo + 1 < LV_METER_MAX_DIGITS && digit(out.lo - 1)) --out.lo;
    while (out.hi - out.lo + 1 < LV_METER_MAX_DIGITS && digit(out.hi + 1)) ++out.hi;
    return true;
}

/// Whether `candidate` should replace `out` as a polarity's counter reading: any reading beats none, then the larger
/// total confidence. (Not simply the reading of more drums: a grid whose pitch is a fraction too short puts drums
/// between the real ones, which read unsurely; a grid that lost drums misses their confidence in its total.)
bool preferable(const Reading &candidate, const Reading &out) {
    return out.count == 0 || candidate.score > out.score;
}

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
            preferable(candidate, out)) {
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
        if (readCounter(m, lightOnDark, other, candidate) == GridVerdict::read && preferable(candidate, out))
            out = candidate;
    }
}

/// The drums along `row` found by the digit network itself: windows every eighth of a digit height across the crop,
/// the positions where it sees a digit clearly (its sideways tolerance is about a fifth of a drum, and half-way
/// between two drums it sees none), and the grid that fits them best. For rows where the stroke map gives too few
/// whole digits for a pitch, or a pitch that the drums' own borders throw off. False when fewer than kMinDrums
/// drums are seen.
bool scanDrums(lv_meter &m, const Row &row, DrumRow &out) {
    const double h = row.height;
    const double half = 0.5 * LV_DIGIT_WINDOW_PER_HEIGHT * h * LV_DIGIT_INPUT_WIDTH / LV_DIGIT_INPUT_HEIGHT;
    const double step = std::max(1.0, h / 8);
    const int n = int((m.smooth.cols - 2 * half) / step) + 1;
    m.scanDigitWindows = 0;
    if (h < 6 || n < 3) return false;
    std::vector<double> &clarity = m.scanClarity, &mass = m.scanMass;
    clarity.assign(size_t(n), 0);
    mass.assign(size_t(n), 0);
    auto look = [&](int i) {
        const double x = half + i * step;
        const DrumView view = viewDrum(m, x, row.centre + row.shift(x), h, row.slope);
        clarity[size_t(i)] = view.mass >= kDigitMass ? view.clarity : 0;
        mass[size_t(i)] = view.mass;
        if (view.mass >= kDigitMass) ++m.scanDigitWindows;
    };
    // Coarse to fine: every other window first (a quarter of a digit height apart, within the network's sideways
    // tolerance of about a fifth of a drum), then the ones between where a neighbour saw a digit, so that the peaks
    // are placed to an eighth; where neither did, the window between takes the mean of their digit mass. Half the
    // network's work on a row without a counter.
    for (int i = 0; i < n; i += 2) look(i);
    for (int i = 1; i < n; i += 2) {
        const bool after = i + 1 < n;
        if (mass[size_t(i - 1)] >= kDigitMass || (after && mass[size_t(i + 1)] >= kDigitMass))
            look(i);
        else
            mass[size_t(i)] = after ? 0.5 * (mass[size_t(i - 1)] + mass[size_t(i + 1)]) : mass[size_t(i - 1)];
    }
    // The peaks: the positions seen clearly that no clearer one within 0.45 digit heights outdoes (drums are at least
    // 0.4 apart, findDrums).
    std::vector<double> &peaks = m.scratch;
    peaks.clear();
    const int apart = int(std::ceil(0.45 * h / step));
    for (int i = 0; i < n; ++i) {
        const double v = clarity[size_t(i)];
        if (v < kDrumClarity) continue;
        bool top = true;
        for (int j = std::max(0, i - apart); j <= std::min(n - 1, i + apart) && top; ++j)
            top = clarity[size_t(j)] < v || (clarity[size_t(j)] == v && j >= i);
        if (top) peaks.push_back(half + i * step);
    }
    if (int(peaks.size()) < kMinDrums) return false;
    // The pitch: the median step between neighbouring peaks, then refined over the steps that are whole multiples of
    // it (a drum the network did not see clearly leaves a double step), then the least-squares grid.
    std::vector<double> &steps = m.scanSteps;
    steps.clear();
    for (size_t i = 1; i < peaks.size(); ++i) steps.push_back(peaks[i] - peaks[i - 1]);
    const double guess = median(steps);
    if (guess <= 0) return false;
    double n0 = 0, sk = 0, sx = 0, skk = 0, skx = 0, k = 0;
    for (size_t i = 0; i < peaks.size(); ++i) {
        if (i > 0) {
            const double units = std::round((peaks[i] - peaks[i - 1]) / guess);
            if (units < 1 || std::fabs((peaks[i] - peaks[i - 1]) / guess - units) > 0.25) return false;
            k += units;
        }
        n0 += 1;
        sk += k;
        sx += peaks[i];
        skk += k * k;
        skx += k * peaks[i];
    }
    const double det = n0 * skk - sk * sk;
    if (det <= 1e-9) return false;
    const double pitch = (n0 * skx - sk * sx) / det;
    if (!(pitch > 0.4 * h) || pitch > 1.8 * h) return false;  // drums are 0.4-1.8 digit heights apart
    out = DrumRow();
    out.row = row;
    out.pitch = pitch;
    out.origin = (sx - pitch * sk) / n0;
    out.lo = 0;
    out.hi = int(k);
    // Every other drum seen less clearly (a counter of two kinds of drum photograph, or the carry's half-turned
    // drums) gives peaks two drums apart: then the network sees a digit half-way between most neighbouring peaks,
    // where between two drums it sees none.
    int between = 0;
    for (int j = 0; j < out.hi; ++j) {
        const int i = int(std::lround((out.origin + (j + 0.5) * pitch - half) / step));
        if (i >= 0 && i < n && mass[size_t(i)] >= kDigitMass) ++between;
    }
    if (out.hi > 0 && 2 * between >= out.hi) {
        out.pitch = pitch / 2;
        out.hi *= 2;
        if (!(out.pitch > 0.4 * h)) return false;
    }
    out.hi = std::min(out.hi, int(LV_METER_MAX_DIGITS) - 1);
    return true;
}

void scanCounter(lv_meter &m, const DrumRow *const *rows, int count, Reading &best) {
    auto sure = [&] { return best.count > 0 && best.readingConfidence >= kSureDrums; };
    Reading candidate;
    // A row along which the windows at its own height see fewer digits than a counter has drums (texture, noise, a
    // plate's edge) is not scanned at the other heights: the network reads digits from 0.85 to 1.3 times the size it
    // expects, so a counter there would have shown digits already. On a frame without a counter this saves two
    // thirds of the scanning.
    bool barren[4] = {false, false, false, false};
    count = std::min(count, 4);
    for (double factor : {1.0, 0.8, 1.25}) {
        for (int i = 0; i < count && !sure(); ++i) {
            if (barren[i]) continue;
            // Rows that another one already stands for: the same band, within a tenth of its height.
            bool seen = false;
            for (int j = 0; j < i && !seen; ++j)
                seen = std::fabs(rows[j]->row.centre - rows[i]->row.centre) < 0.1 * rows[i]->row.height &&
                       std::fabs(rows[j]->row.height - rows[i]->row.height) < 0.1 * rows[i]->row.height;
            if (seen) continue;
            Row &row = m.scanRow;
            row = rows[i]->row;
            row.height *= factor;
            row.top = row.centre - row.height / 2;
            const bool found = scanDrums(m, row, m.other);
            if (factor == 1.0 && m.scanDigitWindows < kMinDrums) barren[i] = true;
            if (found && readCounter(m, true, m.other, candidate) == GridVerdict::read) keepBetter(best, candidate);
        }
    }
}

void readMixedCounter(lv_meter &m, Reading &out) {
    out = Reading();
    // The deviation from the mean over a square a tenth of the crop's height (about a stroke's length): strokes of
    // either polarity stand out, where a larger square would leave the window's frame and the plate the brightest.
    cv::swap(m.smooth, m.keptSmooth);
    const int size = odd(0.1 * m.keptSmooth.rows);
    cv::blur(m.keptSmooth, m.localMean, cv::Size(size, size), cv::Point(-1, -1), cv::BORDER_REPLICATE);
    cv::absdiff(m.keptSmooth, m.localMean, m.smooth);
    m.smooth.convertTo(m.smooth, CV_8U, 2.0);
    strokeMap(m, true, odd(0.6 * m.smooth.rows), 0);
    binarise(m);
    m.haveMixedDrums = findDrums(m, true, m.mixedDrums);
    if (m.haveMixedDrums) readCounterRow(m, true, m.mixedDrums, out);
    cv::swap(m.smooth, m.keptSmooth);
}

void withdrawDisputed(Reading &reading, const Reading &other) {
    if (reading.count == 0 || other.count == 0) return;
    const double pitch = double(reading.box.width) / reading.count;
    const double otherPitch = double(other.box.width) / other.count;
    auto aligned = [&](int i, int j) {
        return std::fabs((reading.box.x + (i + 0.5) * pitch) - (other.box.x + (j + 0.5) * otherPitch)) < 0.3 * pitch;
    };
    // Two readings whose last drums line up and whose digits from there back differ by one (...x99 and ...(x+1)00)
    // disagree on one thing only, whether the last drum has turned far enough to read as its next digit: the drums
    // the carry turns follow from that. Then only the last drum is in doubt, by as much as the other reading is sure
    // of its own: its confidence becomes the mean of its own and the other's doubt.
    const int overlap = std::min(reading.count, other.count);
    if (aligned(reading.count - 1, other.count - 1) && overlap >= 2 &&
        aligned(reading.count - overlap, other.count - overlap) &&
        lv_drums_one_apart(reading.digits + reading.count - overlap, other.digits + other.count - overlap, overlap)) {
        const float otherLast = other.confidence[other.count - 1];
        if (otherLast >= kDisputing) {
            float &last = reading.confidence[reading.count - 1];
            last = std::min(last, 0.5f * (last + (100 - otherLast)));
            const float score = reading.score;
            reading.finish();
            reading.score = score;
        }
        return;
    }
    bool changed = false;
    for (int i = 0; i < reading.count; ++i) {
        for (int j = 0; j < other.count; ++j) {
            if (aligned(i, j) && other.digits[j] != reading.digits[i] &&
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

void rememberRow(lv_meter &m, const Reading &best) {
    if (best.mode == LV_METER_MODE_COUNTER && best.count >= kMinDrums && best.readingConfidence >= kPriorConfidence &&
        best.place.height > 0) {
        m.priorAge = 0;
        m.priorSize = m.smooth.size();
        m.priorReading = best;
    } else if (m.priorAge >= 0 && ++m.priorAge > kPriorFrames) {
        m.priorAge = -1;
    }
}

const DrumRow *priorRow(lv_meter &m) {
    // (A row read in the crop rectified lies elsewhere in the camera's working image, and the reverse.)
    if (m.priorAge < 0 || m.priorSize != m.smooth.size() || m.priorReading.place.rectified != m.rectifiedNow)
        return nullptr;
    Row &row = m.priorDrums.row;
    row.members.clear();
    const RowPlace &prior = m.priorReading.place;
    row.centre = prior.centre;
    row.height = prior.height;
    row.top = row.centre - row.height / 2;
    row.bottom = row.centre + row.height / 2;
    row.slope = prior.slope;
    row.x0 = prior.x0;
    return &m.priorDrums;
}

bool trackCounter(lv_meter &m, Reading &out) {
    // Only right after a frame that read the counter (a camera held on a meter moves little from one frame to the
    // next), on the same grid: the drums' windows and the grid's checks beside and between them, a tenth of a search.
    // A grid the camera has moved off reads fewer drums, a digit beyond an end or between two drums, or unsure drums.
    // The grid alone skips what the search weighs (the other polarity's disputes, other grids and window sizes), so
    // it only confirms the last reading, at no more than its confidence: it never makes a reading surer than the
    // search did, and a drum that rolls on or a camera that moves sends the frame to the search.
    const Reading &last = m.priorReading;
    if (m.priorAge != 0 || last.place.pitch <= 0 || last.count < kMinDrums || last.readingConfidence < kTrackedDrums ||
        !priorRow(m))
        return false;
    DrumRow &drums = m.priorDrums;
    drums.pitch = last.place.pitch;
    drums.origin = last.place.first;
    drums.lo = 0;
    drums.hi = last.count - 1;
    if (readCounter(m, last.lightOnDark, drums, out) != GridVerdict::read || out.count != last.count ||
        out.readingConfidence < kTrackedDrums || std::strcmp(out.digits, last.digits) != 0)
        return false;
    for (int i = 0; i < out.count; ++i) out.confidence[i] = std::min(out.confidence[i], last.confidence[i]);
    out.ambiguous |= last.ambiguous;
    const float score = out.score;
    out.finish();
    out.score = score;
    return true;
}

bool findCounterPerspective(lv_meter &m, const Reading &reading, bool sure, cv::Matx33d &out) {
    const RowPlace &place = reading.place;
    const double h = place.height;
    if (reading.count < kMinDrums || h <= 0 || place.pitch <= 0) return false;
    const cv::Mat &image = m.smooth;
    // The vertical gradient's magnitude: a quarter of the 3x3 Sobel's response, a step's height in grey levels, which
    // a strong edge does not saturate. (By hand: cv::Sobel builds a filter engine, dozens of allocations, per call.)
    m.edges.create(image.size(), CV_8UC1);
    m.edges.row(0).setTo(cv::Scalar(0));
    m.edges.row(image.rows - 1).setTo(cv::Scalar(0));
    for (int y = 1; y + 1 < image.rows; ++y) {
        const uint8_t *above = image.ptr<uint8_t>(y - 1), *below = image.ptr<uint8_t>(y + 1);
        uint8_t *out = m.edges.ptr<uint8_t>(y);
        for (int x = 0; x < image.cols; ++x) {
            // (Columns beyond the edge mirrored, as OpenCV's default border does.)
            const int left = x > 0 ? x - 1 : std::min(1, image.cols - 1);
            const int right = x + 1 < image.cols ? x + 1 : std::max(0, image.cols - 2);
            const int g = (below[left] + 2 * below[x] + below[right]) - (above[left] + 2 * above[x] + above[right]);
            out[x] = uint8_t(std::min(255, (std::abs(g) + 2) / 4));
        }
    }
    // The row from half a drum before its first to half a drum after its last, about its middle (xc, yc).
    const int xa = std::max(1, int(std::lround(place.first - 0.5 * place.pitch)));
    const int xb = std::min(image.cols - 2, int(std::lround(place.first + (reading.count - 0.5) * place.pitch)));
    if (xb - xa < 2 * h) return false;
    const double xc = (xa + xb) / 2.0, yc = place.centre + place.slope * (xc - place.x0);
    // The straight line with the most gradient along it, at offsets lo..hi (pixels) from the row's centre line at xc
    // and slopes up to kEdgeSlope either way (the grid's own slope may be off, and perspective tilts the window's top
    // and bottom edges apart): its offset at xc and its slope, and its mean gradient. Slopes every kCoarseStep along
    // every third column, then every kFineStep about the best along every column.
    constexpr double kEdgeSlope = 0.3, kCoarseStep = 0.01, kFineStep = 0.002;
    auto strongest = [&](int lo, int hi, double &offset, double &slope) {
        const int offsets = hi - lo + 1;
        m.edgeSums.resize(size_t(offsets));
        double best = -1;
        auto along = [&](double s, int step) {
            std::fill(m.edgeSums.begin(), m.edgeSums.end(), 0);
            for (int x = xa; x <= xb; x += step) {
                const int y0 = int(std::lround(yc + s * (x - xc))) + lo;
                const int from = std::max(0, -y0), to = std::min(offsets, image.rows - y0);
                for (int k = from; k < to; ++k) m.edgeSums[size_t(k)] += m.edges.at<uint8_t>(y0 + k, x);
            }
            for (int k = 0; k < offsets; ++k)
                if (m.edgeSums[size_t(k)] > best) {
                    best = m.edgeSums[size_t(k)];
                    offset = lo + k;
                    slope = s;
                }
        };
        for (double s = -kEdgeSlope; s <= kEdgeSlope + 1e-9; s += kCoarseStep) along(s, 3);
        const double coarse = slope;
        best = -1;
        for (double s = coarse - kCoarseStep; s <= coarse + kCoarseStep + 1e-9; s += kFineStep) along(s, 1);
        return best / (xb - xa + 1);
    };
    double topOffset = 0, topSlope = 0, bottomOffset = 0, bottomSlope = 0;
    const double topEdge = strongest(int(std::floor(-1.4 * h)), int(std::ceil(-0.35 * h)), topOffset, topSlope);
    const double bottomEdge =
        strongest(int(std::floor(0.35 * h)), int(std::ceil(1.4 * h)), bottomOffset, bottomSlope);
    // An edge as faint as sensor noise's gradient (a level or two) is none.
    constexpr double kFaintEdge = 4;
    if (topEdge < kFaintEdge || bottomEdge < kFaintEdge) return false;
    auto top = [&](double x) { return yc + topOffset + topSlope * (x - xc); };
    auto bottom = [&](double x) { return yc + bottomOffset + bottomSlope * (x - xc); };
    const double ha = bottom(xa) - top(xa), hb = bottom(xb) - top(xb);
    if (ha < 0.7 * h || hb < 0.7 * h || std::max(ha, hb) > 1.5 * std::min(ha, hb)) return false;
    const double slope = (topSlope + bottomSlope) / 2, mean = (ha + hb) / 2;
    const double perspective = std::fabs(ha - hb) / mean;
    if (sure ? perspective < 2 * kCounterPerspective
             : std::fabs(slope) <= kLevelRow && perspective < kCounterPerspective)
        return false;
    // Each end's corners: where the normal to the row's middle line at that end meets the two lines.
    const double norm = std::sqrt(1 + slope * slope);
    const cv::Point2d normal(-slope / norm, 1 / norm);
    auto corner = [&](double x, bool upper) {
        const cv::Point2d middle(x, (top(x) + bottom(x)) / 2);
        const double lineSlope = upper ? topSlope : bottomSlope, along = (upper ? top(x) : bottom(x)) - middle.y;
        const double t = along / (normal.y - lineSlope * normal.x);
        return middle + t * normal;
    };
    const cv::Point2d from[4] = {corner(xa, true), corner(xb, true), corner(xb, false), corner(xa, false)};
    const cv::Point2d centre = (from[0] + from[1] + from[2] + from[3]) * 0.25;
    const double length = (cv::norm(from[1] - from[0]) + cv::norm(from[2] - from[3])) / 2;
    const double tall = (cv::norm(from[3] - from[0]) + cv::norm(from[2] - from[1])) / 2;
    const cv::Point2d to[4] = {centre + cv::Point2d(-length / 2, -tall / 2), centre + cv::Point2d(length / 2, -tall / 2),
                               centre + cv::Point2d(length / 2, tall / 2), centre + cv::Point2d(-length / 2, tall / 2)};
    out = homography(from, to);
    // The row may go on beyond the drums read (a grid that fell short): of the whole middle line from the crop's left
    // edge to its right, the rectified image keeps as much either side.
    // (Unless an edge of the crop lies near the line the homography sends to infinity: a wrong pair of lines.)
    const cv::Vec3d left = out * cv::Vec3d(0, (top(0) + bottom(0)) / 2, 1);
    const cv::Vec3d right = out * cv::Vec3d(image.cols - 1, (top(image.cols - 1) + bottom(image.cols - 1)) / 2, 1);
    if (left[2] < 0.2 || right[2] < 0.2) return false;
    const double shift = (image.cols - 1 - left[0] / left[2] - right[0] / right[2]) / 2;
    out = cv::Matx33d(1, 0, shift, 0, 1, 0, 0, 0, 1) * out;
    return true;
}

void keepBetter(Reading &best, const Reading &candidate) {
    if (candidate.count == 0) return;
    if (best.count == 0 || candidate.readingConfidence > best.readingConfidence + 1e-3 ||
        (std::fabs(candidate.readingConfidence - best.readingConfidence) <= 1e-3 && candidate.score > best.score))
        best = candidate;
}

}  // namespace lv_meter_detail
