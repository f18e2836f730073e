// Meter reading with OpenCV: seven-segment displays by segment probes; roller counters found by template matching
// against a drum strip (which also finds drums caught mid-roll) and read by the digit network of lv_meter_digits.h
// with the carry rule. This file holds the C entry points (lv_meter.h), the choice between the readers' readings
// and a counter's second reading from the crop rectified; meter_internal.hpp lists the other files.
#include "meter_internal.hpp"

#include "codecs.hpp"
#include "lv_shim.hpp"

#include <opencv2/core.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>

using namespace lv_meter_detail;

extern "C" int lv_meter_create(int mode, lv_meter **out) {
    if (!out) return -EINVAL;
    *out = nullptr;
    if (mode != LV_METER_MODE_DIGITAL && mode != LV_METER_MODE_COUNTER && mode != LV_METER_MODE_AUTO)
        return -EINVAL;
    return lv::guarded([&] {
        auto meter = std::make_unique<lv_meter>();
        meter->mode = mode;
        if (mode != LV_METER_MODE_DIGITAL) {
            const void *model = nullptr;
            size_t length = 0;
            int status = lv_meter_digits_model(&model, &length);
            if (status == 0) status = lv_digit_classifier_create(model, length, &meter->classifier);
            if (status != 0) return status;
            meter->members = lv_digit_classifier_members(meter->classifier);
            buildStrips(*meter);
        }
        *out = meter.release();
        return 0;
    });
}

extern "C" void lv_meter_destroy(lv_meter *meter) { delete meter; }

extern "C" int lv_meter_reset(lv_meter *meter) {
    if (!meter) return -EINVAL;
    meter->priorAge = -1;
    return 0;
}

extern "C" int lv_meter_templates(int font, const uint8_t **pixels) {
    if (!pixels || font < 0 || font > 1) return -EINVAL;
    *pixels = lv_meter_detail::kDigitTemplates[font];
    return 0;
}

namespace {

/// Auto mode: whether a counter reading of `digits` digits, whose whole digits fit the drum templates by `fit`, may
/// replace the seven-segment reading `digital` (`sure`: of several digits, each confident). Printed digits that match
/// the templates this well are a counter, whatever the seven-segment reader made of them; so is a row of drums of
/// which the seven-segment reader found less than half (a bar between drums reads as a 1). But a sure seven-segment
/// reading gives way only to more digits: thick segments match some printed digit nearly as well as a counter's do.
bool counterOverrules(double fit, int digits, const Reading &digital, bool sure) {
    return (fit >= kCounterFit || 2 * digital.count < digits) && (!sure || digits > digital.count);
}

/// Writes `best` (working pixels) into `result` (the crop's pixels, `width` x `height`); returns its digit count.
int report(const lv_meter &m, const Reading &best, int width, int height, lv_meter_result *result) {
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
    result->rectified = best.rectified || best.place.rectified ? 1 : 0;
    // A counter read from the crop rectified: its box as the camera saw it (a seven-segment reading's is already).
    const cv::Rect seen = best.place.rectified ? boxBack(best.place.rectification, best.box) : best.box;
    cv::Rect box(int(std::floor(seen.x * back)), int(std::floor(seen.y * back)), int(std::ceil(seen.width * back)),
                 int(std::ceil(seen.height * back)));
    box &= cv::Rect(0, 0, width, height);
    result->box_x = box.x;
    result->box_y = box.y;
    result->box_width = box.width;
    result->box_height = box.height;
    return best.count;
}

/// Reads the crop prepared in `m` (m.grey and its working image) with the mode's readers, into `best` (empty when
/// nothing is read): the search, without tracking.
void readFrame(lv_meter &m, Reading &best) {
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
    const double counterFit = std::max(fit[0], fit[1]);
    Reading counter, counters[3];  // [0], [1]: by polarity (light on dark); [2]: drums of both polarities
    for (int lightOnDark = 0; lightOnDark < 2; ++lightOnDark) {
        if (!haveDrums[lightOnDark] || fit[lightOnDark] < fit[1 - lightOnDark] - 0.1) continue;
        // After a sure seven-segment reading, a row of drums that could not overrule it (counterOverrules) even
        // if every drum of its grid were read is not read: the digit network's windows are most of a counter
        // reading's cost, and a seven-segment display's row is found as drums too. (Only a row that fits the
        // templates less is left out: one that fits them may be regridded to more drums.)
        const DrumRow &row = drums[lightOnDark];
        if (m.mode == LV_METER_MODE_AUTO && sure && counterFit < kCounterFit &&
            !counterOverrules(counterFit, row.hi - row.lo + 1, best, sure))
            continue;
        readCounterRow(m, lightOnDark != 0, drums[lightOnDark], counters[lightOnDark]);
        const Reading &read = counters[lightOnDark];
        if (read.count > 0 && (counter.count == 0 || read.score > counter.score)) counter = read;
    }
    // A counter mode reading that is not sure may come from a counter whose drums differ in polarity, which
    // neither polarity's stroke map shows whole.
    if (m.mode == LV_METER_MODE_COUNTER && (counter.count == 0 || counter.readingConfidence < kSureDrums)) {
        readMixedCounter(m, counters[2]);
        keepBetter(counter, counters[2]);
        // Still unsure: the drums the digit network finds along each row found, at its height and scaled.
        const DrumRow *rows[4];
        int count = 0;
        if (m.haveMixedDrums) rows[count++] = &m.mixedDrums;
        for (int lightOnDark = 0; lightOnDark < 2; ++lightOnDark)
            if (haveDrums[lightOnDark]) rows[count++] = &drums[lightOnDark];
        // Nothing read yet in this frame (its stroke maps show no row, or rows the grid checks refuse: noise, a
        // drum of the other polarity splitting the row): the counter is most likely where the last frames read
        // it, a camera moving little from frame to frame.
        if (counter.count == 0)
            if (const DrumRow *prior = priorRow(m)) rows[count++] = prior;
        scanCounter(m, rows, count, counter);
    }
    // Another reading that puts another digit where the chosen one reads a drum disputes that drum (each reading
    // that agrees, the chosen one included, disputes nothing).
    for (const Reading &other : counters) withdrawDisputed(counter, other);
    // Auto mode: the counter reading when it overrules the seven-segment one (counterOverrules); otherwise the
    // more confident reading wins.
    if (m.mode == LV_METER_MODE_AUTO && counter.count > 0 && counterOverrules(counterFit, counter.count, best, sure))
        best = counter;
    else if (m.mode != LV_METER_MODE_AUTO || best.readingConfidence < kSureDigital)
        // The digit network reads seven-segment digits too, and surely: its confidence says how sure a digit
        // is, not whether the display is a counter. So in auto mode it overrules a seven-segment reading only as
        // above, or one that is unsure.
        keepBetter(best, counter);
}

/// Reads the crop `camera` rectified by `rectification` (working pixels) from here on: m.grey heads m.rectifiedGrey, the
/// crop warped at full resolution (the drum windows are cut from it), the working image is prepared from it and the
/// windows classified so far are forgotten.
void useRectified(lv_meter &m, const cv::Mat &camera, const cv::Matx33d &rectification) {
    const double s = m.scale;
    const cv::Matx33d toWorking(s, 0, 0, 0, s, 0, 0, 0, 1), toCrop(1 / s, 0, 0, 0, 1 / s, 0, 0, 0, 1);
    cv::warpPerspective(camera, m.rectifiedGrey, toCrop * rectification * toWorking, camera.size(), cv::INTER_LINEAR,
                        cv::BORDER_REPLICATE);
    m.grey = m.rectifiedGrey;
    prepare(m);
    forgetWindows(m);
    m.rectifiedNow = true;
    m.nowRectification = rectification;
}

/// Reads the crop `camera` as the camera saw it (again).
void useCamera(lv_meter &m, const cv::Mat &camera) {
    m.grey = camera;
    prepare(m);
    forgetWindows(m);
    m.rectifiedNow = false;
    m.nowRectification = cv::Matx33d::eye();
}

}  // namespace

extern "C" int lv_meter_read(lv_meter *meter, const uint8_t *luma, int width, int height, size_t stride,
                             lv_meter_result *result) {
    if (!meter || !luma || !result || width <= 0 || height <= 0 || stride < size_t(width)) return -EINVAL;
    std::memset(result, 0, sizeof *result);
    result->decimal_after = -1;
    return lv::guarded([&] {
        // SAFETY: OpenCV only reads through this header; the const_cast is needed because cv::Mat has no
        // read-only view type.
        lv_meter &m = *meter;
        const cv::Mat camera(height, width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
        useCamera(m, camera);
        Reading best;
        // Counter mode: the counter the last frame read, read again where it was (trackCounter), in the crop
        // rectified as it was read; the search below only when that is not sure.
        if (m.mode == LV_METER_MODE_COUNTER) {
            const RowPlace &prior = m.priorReading.place;
            if (m.priorAge == 0 && prior.rectified) useRectified(m, camera, prior.rectification);
            if (trackCounter(m, best)) {
                rememberRow(m, best);
                result->tracked = 1;
                return report(m, best, width, height, result);
            }
            if (m.rectifiedNow) useCamera(m, camera);
        }
        readFrame(m, best);
        // A counter read unsurely, seen from the side or rolled, or read surely but seen much from the side, is read
        // again from the crop rectified; the better reading is kept (and the crop it was read from, for the next
        // frame's tracking).
        cv::Matx33d rectification;
        if (m.mode == LV_METER_MODE_COUNTER &&
            findCounterPerspective(m, best, best.readingConfidence >= kSureDrums, rectification)) {
            Reading rectified;
            useRectified(m, camera, rectification);
            readFrame(m, rectified);
            // A sure rectified reading of as many drums or more is the counter's: the camera's may be as sure of a
            // grid that fell short of a near drum.
            if (rectified.readingConfidence >= kSureDrums && rectified.count >= best.count)
                best = rectified;
            else
                keepBetter(best, rectified);
            if (!best.place.rectified) useCamera(m, camera);
        }
        if (m.mode == LV_METER_MODE_COUNTER) rememberRow(m, best);
        return report(m, best, width, height, result);
    });
}
