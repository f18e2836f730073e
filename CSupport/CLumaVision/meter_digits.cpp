// Roller-counter digits behind lv_meter_digits.h: the digit network through OpenCV's DNN module, and the carry rule.
#include "lv_meter_digits.h"

#include "lv_shim.hpp"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <vector>

// The model's bytes, generated into meter_digits_model.c by scripts/embed-meter-digits.py from
// models/meter-digits.onnx: built into the library, so an installed binary needs no file beside it.
extern "C" const uint8_t lv_meter_digits_onnx[];
extern "C" const size_t lv_meter_digits_onnx_length;

struct lv_digit_classifier {
    cv::dnn::Net net;
    cv::Mat scaled, input, blob;
    // The model's outputs: the first is the (joined) logits; any further ones are the members' own probabilities
    // (scripts/ensemble-meter-digits.py), LV_DIGIT_MAX_MEMBERS at most.
    std::vector<cv::String> outputNames;
    std::vector<cv::Mat> outputs;
    int members = 0;
};

namespace {

using lv::guarded;

constexpr int kW = LV_DIGIT_INPUT_WIDTH, kH = LV_DIGIT_INPUT_HEIGHT, kClasses = LV_DIGIT_CLASSES;

/// The softmax of `z` (`outputs` values) over its first kClasses, into `probabilities`: with a "no digit" output
/// (kClasses + 1 of them), its probability is what the positions leave out.
void softmax(const float *z, size_t outputs, float *probabilities) {
    const float top = *std::max_element(z, z + outputs);
    double sum = 0;
    for (size_t i = 0; i < outputs; ++i) sum += std::exp(double(z[i] - top));
    for (int i = 0; i < kClasses; ++i) probabilities[i] = float(std::exp(double(z[i] - top)) / sum);
}

/// Whether an output of the model has a drum position per class, and perhaps "no digit".
bool hasClasses(const cv::Mat &output) {
    return (output.total() == size_t(kClasses) || output.total() == size_t(kClasses) + 1) && output.type() == CV_32F;
}

/// Orders the model's outputs for run(): the joined logits first, then the members' own probabilities by name
/// ("member0", "member1" ..., LV_DIGIT_MAX_MEMBERS at most). False for a model without exactly one other output.
bool nameOutputs(lv_digit_classifier &c) {
    std::vector<cv::String> joined, members;
    for (const cv::String &name : c.net.getUnconnectedOutLayersNames())
        (name.rfind(LV_DIGIT_MEMBER_OUTPUT, 0) == 0 ? members : joined).push_back(name);
    if (joined.size() != 1 || members.size() > size_t(LV_DIGIT_MAX_MEMBERS)) return false;
    std::sort(members.begin(), members.end());
    c.outputNames = joined;
    c.outputNames.insert(c.outputNames.end(), members.begin(), members.end());
    c.members = int(members.size());
    return true;
}

/// Runs the network on `c.blob` and writes the softmax of its logits for the kClasses drum positions; a model with
/// one more output (the committed one) has a "no digit" class, whose probability the positions then leave out. With
/// `members`, each member's own probabilities (its output is already a softmax) follow, `c.members` x kClasses.
int run(lv_digit_classifier &c, float *probabilities, float *members) {
    c.net.setInput(c.blob);
    c.net.forward(c.outputs, c.outputNames);
    if (c.outputs.size() != c.outputNames.size()) return -EIO;
    for (const cv::Mat &output : c.outputs)
        if (!hasClasses(output)) return -EIO;
    softmax(c.outputs[0].ptr<float>(), c.outputs[0].total(), probabilities);
    if (members) {
        for (int k = 0; k < c.members; ++k) {
            const float *q = c.outputs[size_t(k) + 1].ptr<float>();
            std::copy(q, q + kClasses, members + size_t(k) * kClasses);
        }
    }
    return 0;
}

/// Fills `c.blob` (1 x 1 x kH x kW) from a grey window: scaled to the network's input (area averaging when shrinking,
/// bilinear otherwise) and standardised per image as in training, (x - mean) / (std + 1): the network sees the
/// digit's shape, not the light it was photographed in.
void prepareInput(lv_digit_classifier &c, const cv::Mat &window) {
    const bool shrinking = window.cols >= kW && window.rows >= kH;
    cv::resize(window, c.scaled, cv::Size(kW, kH), 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
    c.scaled.convertTo(c.input, CV_32F);
    cv::Scalar mean, deviation;
    cv::meanStdDev(c.input, mean, deviation);
    const int shape[] = {1, 1, kH, kW};
    c.blob.create(4, shape, CV_32F);
    cv::Mat plane(kH, kW, CV_32F, c.blob.ptr<float>());
    c.input.convertTo(plane, CV_32F, 1 / (deviation[0] + 1), -mean[0] / (deviation[0] + 1));
}

/// The circular distance between two drum positions in digits (0-10 around).
double circular(double a, double b) {
    double d = std::fmod(std::fabs(a - b), 10.0);
    return std::min(d, 10 - d);
}

/// Wraps a position or digit into [0, 10).
double wrap10(double v) {
    v = std::fmod(v, 10.0);
    return v < 0 ? v + 10 : v;
}

/// A drum's position in digits: the probability-weighted mean of the classes within three tenths of the most
/// probable one (around the drum: 9.9 neighbours 0.0).
double position(const float *p) {
    const int best = int(std::max_element(p, p + kClasses) - p);
    double mass = 0, moment = 0;
    for (int d = -3; d <= 3; ++d) {
        const float q = p[(best + d + kClasses) % kClasses];
        mass += q;
        moment += q * d;
    }
    return wrap10((best + (mass > 0 ? moment / mass : 0)) / 10.0);
}

}  // namespace

extern "C" int lv_meter_digits_model(const void **bytes, size_t *length) {
    if (!bytes || !length) return -EINVAL;
    *bytes = lv_meter_digits_onnx;
    *length = lv_meter_digits_onnx_length;
    return 0;
}

extern "C" int lv_digit_classifier_create(const void *onnx, size_t length, lv_digit_classifier **out) {
    if (!out) return -EINVAL;
    *out = nullptr;
    if (!onnx || length == 0) return -EINVAL;
    return guarded([&] {
        auto *c = new lv_digit_classifier();
        try {
            c->net = cv::dnn::readNetFromONNX(static_cast<const char *>(onnx), length);
            if (c->net.empty()) {
                delete c;
                return -EIO;
            }
            c->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
            c->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
            if (!nameOutputs(*c)) {
                delete c;
                return -EIO;
            }
            // One run on a flat window: OpenCV allocates the layers' buffers on the first forward pass, and a model
            // that does not give kClasses outputs for the input size is refused here rather than on the first frame.
            const int shape[] = {1, 1, kH, kW};
            c->blob.create(4, shape, CV_32F);
            c->blob.setTo(cv::Scalar(0));
            float probabilities[kClasses], members[kClasses * LV_DIGIT_MAX_MEMBERS];
            if (run(*c, probabilities, members) != 0) {
                delete c;
                return -EIO;
            }
        } catch (const std::bad_alloc &) {
            delete c;
            throw;
        } catch (...) {
            delete c;
            return -EIO;  // OpenCV could not parse or run the model
        }
        *out = c;
        return 0;
    });
}

extern "C" void lv_digit_classifier_destroy(lv_digit_classifier *classifier) {
    guarded([&] {
        delete classifier;
        return 0;
    });
}

extern "C" int lv_digit_classifier_members(const lv_digit_classifier *classifier) {
    return classifier ? classifier->members : -EINVAL;
}

extern "C" int lv_digit_classifier_classify_members(lv_digit_classifier *classifier, const uint8_t *luma, int width,
                                                    int height, size_t stride, float *probabilities, float *members,
                                                    int memberCapacity) {
    if (!classifier || !luma || !probabilities || width <= 0 || height <= 0 || stride < size_t(width)) return -EINVAL;
    if (memberCapacity < 0 || (members && memberCapacity < classifier->members)) return -EINVAL;
    return guarded([&] {
        // SAFETY: OpenCV only reads through this header; cv::Mat has no read-only view type.
        const cv::Mat window(height, width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
        prepareInput(*classifier, window);
        const int status = run(*classifier, probabilities, members);
        return status != 0 ? status : members ? classifier->members : 0;
    });
}

extern "C" int lv_digit_classifier_classify(lv_digit_classifier *classifier, const uint8_t *luma, int width,
                                            int height, size_t stride, float *probabilities) {
    const int status = lv_digit_classifier_classify_members(classifier, luma, width, height, stride, probabilities,
                                                            nullptr, 0);
    return status < 0 ? status : 0;
}

namespace {

/// The last drum's confidence in `digit`: the probability of the positions that read as it beyond doubt, from a tenth
/// before it (a whole digit photographed a little low) to LV_DRUM_LAST_CLEAR past it. Near where the reading turns to
/// the next digit, a tenth or two of error in the position decides the digit.
double lastDrumMass(const float *p, int digit) {
    double mass = 0;
    for (int c = 0; c < kClasses; ++c) {
        const double past = wrap10(c / 10.0 - digit + 0.1 + 1e-6) - 0.1;
        // The classes are a tenth apart: the margin keeps the class at LV_DRUM_LAST_CLEAR itself, which the float
        // constant (0.7f is a little under 0.7) would otherwise leave out.
        if (past <= LV_DRUM_LAST_CLEAR + 1e-3) mass += p[c];
    }
    return std::min(1.0, mass);
}

/// A drum left of the last: the probability that it shows `whole`, turned by `carry`, the classes near it.
double wholeDrumMass(const float *p, int whole, double carry) {
    double mass = 0;
    for (int c = 0; c < kClasses; ++c)
        if (circular(c / 10.0 - carry, whole) <= LV_DRUM_WHOLE_TOLERANCE + 1e-6) mass += p[c];
    return std::min(1.0, mass);
}

/// How one drum was read: the last drum by its digit, a drum left of it by the whole digit it shows less the carry.
struct DrumRead {
    bool last;
    int digit, whole;
    double carry;

    /// The probability another distribution of the same drum gives to reading it so.
    double mass(const float *p) const { return last ? lastDrumMass(p, digit) : wholeDrumMass(p, whole, carry); }
};

/// The carry rule along a row, right to left. `carry`: how far the right neighbour's drums turn this one, the
/// fraction by which the right neighbour stands past 9 while it turns to 0 (only a 9 passes its turn on, and only a
/// turn that reaches it from the last drum). `wrapped`: the right neighbour reads 0 having passed 9, so this drum
/// reads one more.
struct CarryRule {
    double carry = 0;
    bool wrapped = false;

    /// Reads the drum of probabilities `p` (the row's last when `last`) into `r`, and moves on to its left.
    DrumRead read(const float *p, bool last, lv_drum_reading &r) {
        const double v = position(p);
        r.position = float(v);
        DrumRead how{last, 0, 0, 0};
        if (last) {
            // The last drum turns by itself: its lower digit until the next is mostly in view.
            const int up = int(std::floor(v + LV_DRUM_ROLL_UP));
            how.digit = up % 10;
            wrapped = up == 10;
            carry = std::floor(v) == 9 ? v - 9 : 0;
            r.confidence = float(how.mass(p));
            r.ambiguous = r.confidence < 0.5f ? 1 : 0;
        } else {
            how.whole = int(std::lround(wrap10(v - carry))) % 10;
            how.digit = (how.whole + (wrapped ? 1 : 0)) % 10;
            how.carry = carry;
            r.confidence = float(how.mass(p));
            r.ambiguous = circular(v - carry, how.whole) > LV_DRUM_WHOLE_TOLERANCE ? 1 : 0;
            wrapped = wrapped && how.whole == 9;
            if (how.whole != 9) carry = 0;
        }
        r.digit = how.digit;
        return how;
    }
};

}  // namespace

extern "C" int lv_drums_resolve_members(const float *probabilities, const float *members, int memberCount, int count,
                                        lv_drum_reading *out) {
    if (!probabilities || !out || count < 0 || memberCount < 0 || (memberCount > 0 && !members)) return -EINVAL;
    return guarded([&] {
        // Each member's probability of the reading the mean makes, drum by drum (the same digit under the same
        // carry): the drum is no surer than the least sure of them.
        CarryRule mean;
        for (int k = count - 1; k >= 0; --k) {
            lv_drum_reading &r = out[k];
            const DrumRead how = mean.read(probabilities + size_t(k) * kClasses, k == count - 1, r);
            for (int j = 0; j < memberCount; ++j) {
                const float *q = members + (size_t(k) * size_t(memberCount) + size_t(j)) * kClasses;
                r.confidence = std::min(r.confidence, float(how.mass(q)));
            }
        }
        return count;
    });
}

extern "C" int lv_drums_resolve(const float *probabilities, int count, lv_drum_reading *out) {
    return lv_drums_resolve_members(probabilities, nullptr, 0, count, out);
}

extern "C" int lv_drums_one_apart(const char *a, const char *b, int count) {
    if (!a || !b || count <= 0) return 0;
    // `to` is `from` plus one: the drums the carry turns from 9 to 0 at the right, one drum one more, the rest equal.
    auto plusOne = [count](const char *from, const char *to) {
        int i = count - 1;
        while (i >= 0 && from[i] == '9' && to[i] == '0') --i;
        if (i < 0) return true;  // every drum turned: 99...9 to 00...0, a counter wrapping round
        if (from[i] < '0' || from[i] > '8' || to[i] != from[i] + 1) return false;
        for (int k = 0; k < i; ++k)
            if (to[k] != from[k]) return false;
        return true;
    };
    return plusOne(a, b) || plusOne(b, a) ? 1 : 0;
}
