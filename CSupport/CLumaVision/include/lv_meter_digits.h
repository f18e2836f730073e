#ifndef LV_METER_DIGITS_H
#define LV_METER_DIGITS_H
// Roller-counter digits: a small convolutional network that tells, for the window of one drum, how far the drum has
// turned (100 classes, 0.0 ... 9.9: the digit showing and the tenth it has rolled towards the next), run by OpenCV's
// DNN module from ONNX bytes; and the carry rule that turns the drums' probabilities into a reading. The counter
// reader (lv_meter.h, LV_METER_MODE_COUNTER and LV_METER_MODE_AUTO) uses both with the model built into the library
// (lv_meter_digits_model): two such networks, trained by scripts/train-meter-digits.py with two seeds on photographs of
// real meter digits and joined by scripts/ensemble-meter-digits.py into one ONNX model whose output is the log of
// their mean probabilities (so the softmax taken here is that mean), with each network's own probabilities as further
// outputs (lv_digit_classifier_classify_members), of which the counter reader takes a drum's confidence: the least
// of theirs (lv_drums_resolve_members).
//
// Pure C; the implementation (meter_digits.cpp) catches every exception at this boundary. Functions return 0 on
// success and a negative errno-style code on failure: -EINVAL for bad arguments, -EIO when the model cannot be read
// or run, -ENOMEM when memory ran out. Pixels are passed as a pointer plus width, height and stride (bytes from one
// row to the next, at least the width).
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The classes: class c is the drum at c / 10 digits (3.7 = the 3 rolled seven tenths of the way to 4).
#define LV_DIGIT_CLASSES 100
/// The network's input: a drum window scaled to this many pixels (the training crops' size).
#define LV_DIGIT_INPUT_WIDTH 20
#define LV_DIGIT_INPUT_HEIGHT 32
/// A drum window's height as a multiple of the digit's height as the counter reader measures it (the height of the
/// digits' strokes in its binary map): about the training crops' framing, where digits fill 55-78 % of the height.
/// Chosen by measurement: 1.35 read more generated and as many real-digit counters as 1.45, and 1.6 fewer. Its width
/// is LV_DIGIT_INPUT_WIDTH / LV_DIGIT_INPUT_HEIGHT of its height.
#define LV_DIGIT_WINDOW_PER_HEIGHT 1.35f

/// A digit classifier: the network and its scratch buffers. Not thread-safe: one per thread.
typedef struct lv_digit_classifier lv_digit_classifier;

/// The model built into the library (ONNX, about 450 kB): `*bytes` points into static storage. Returns 0 or -EINVAL.
int lv_meter_digits_model(const void **bytes, size_t *length);

/// Reads an ONNX model (`onnx`, `length` bytes, borrowed only during the call) into a new classifier stored in
/// `*out`. Returns 0, -EINVAL for null arguments, -EIO when OpenCV cannot read the model or it does not give
/// LV_DIGIT_CLASSES outputs (or one more, "no digit") for an LV_DIGIT_INPUT_WIDTH x LV_DIGIT_INPUT_HEIGHT input.
int lv_digit_classifier_create(const void *onnx, size_t length, lv_digit_classifier **out);

/// Destroys a classifier; NULL is ignored.
void lv_digit_classifier_destroy(lv_digit_classifier *classifier);

/// Classifies one drum window of 8-bit grey pixels (any size; scaled and normalised inside) into `probabilities`
/// (LV_DIGIT_CLASSES floats: the network's softmax over the drum positions). The built-in model has one more output,
/// "no digit" (a window's edge, the plate, two half drums), which they leave out: they sum to the probability that
/// the window shows a drum digit at all. Either polarity. Returns 0 or a negative code.
int lv_digit_classifier_classify(lv_digit_classifier *classifier, const uint8_t *luma, int width, int height,
                                 size_t stride, float *probabilities);

/// The most member networks whose own probabilities a classifier reports beside the joined ones.
#define LV_DIGIT_MAX_MEMBERS 4
/// The prefix of a model's outputs that are one member network's probabilities ("member0", "member1" ...), beside its
/// one other output, the log of the members' mean probabilities (scripts/ensemble-meter-digits.py).
#define LV_DIGIT_MEMBER_OUTPUT "member"

/// How many member networks' own probabilities the classifier's model gives (0 for a single network, 2 for the
/// built-in model), or -EINVAL for NULL.
int lv_digit_classifier_members(const lv_digit_classifier *classifier);

/// lv_digit_classifier_classify, and with `members` (room for `memberCapacity` x LV_DIGIT_CLASSES floats, at least
/// lv_digit_classifier_members of them) each member network's own probabilities of the drum positions, member after
/// member, from the same forward pass. Returns the number of members written (0 when `members` is NULL) or a negative
/// code.
int lv_digit_classifier_classify_members(lv_digit_classifier *classifier, const uint8_t *luma, int width, int height,
                                         size_t stride, float *probabilities, float *members, int memberCapacity);

/// One drum of a reading, as lv_drums_resolve makes it.
typedef struct lv_drum_reading {
    /// The digit a person writes down for this drum, 0-9.
    int32_t digit;
    /// The drum's position in digits, 0 <= position < 10 (the probability-weighted class around the best one / 10).
    float position;
    /// 0-1: the probability that the drum shows `digit` as the carry rule reads it (the softmax mass of the classes
    /// that read as `digit`); low for a drum caught between two digits that nothing explains, and for a window the
    /// network takes for no digit.
    float confidence;
    /// 1 when the drum stands between two digits (more than LV_DRUM_WHOLE_TOLERANCE from a whole digit once the
    /// carry from its right is taken out), so neither digit can be told with confidence; 0 otherwise.
    int32_t ambiguous;
} lv_drum_reading;

/// How far (in digits) a drum left of the last may stand from a whole digit, the carry from its right taken out, and
/// still count as showing it.
#define LV_DRUM_WHOLE_TOLERANCE 0.3f
/// The last drum turns by itself: it reads as its lower digit until the next one is mostly in view, this far (in
/// digits) before it.
#define LV_DRUM_ROLL_UP 0.2f
/// The last drum's confidence is the probability of the positions from a tenth below its digit to this far (in
/// digits) past it: between there and LV_DRUM_ROLL_UP before the next digit, the reading is no sure digit.
#define LV_DRUM_LAST_CLEAR 0.7f

/// Turns the probabilities of `count` drums (`count` x LV_DIGIT_CLASSES floats, left to right) into digits with the
/// carry rule of a roller counter, right to left: the last drum reads as its lower digit until the next is mostly
/// in view (LV_DRUM_ROLL_UP); a drum to its left turns only while every drum to its right passes from 9 to 0, and as
/// far, so its position less that carry (the fraction its right neighbour stands past 9) is a whole digit; when the
/// right neighbour reads 0 having passed 9, the drum reads one more. A drum between two digits that the carry does not
/// explain is marked ambiguous and its confidence is the little probability left on whole positions. Fills
/// `out[0..count)`; returns `count` or -EINVAL.
int lv_drums_resolve(const float *probabilities, int count, lv_drum_reading *out);

/// lv_drums_resolve for an ensemble: the digits, positions and ambiguity as lv_drums_resolve reads `probabilities`
/// (the members' mean), each drum's confidence the least of the mean's and every member's probability of that digit
/// under the same carry (`members`: `memberCount` x LV_DIGIT_CLASSES floats per drum, drum after drum). Networks that
/// disagree on a drum are two opinions, and the reading is no surer than the less sure of them. Returns `count` or
/// -EINVAL.
int lv_drums_resolve_members(const float *probabilities, const float *members, int memberCount, int count,
                             lv_drum_reading *out);

/// 1 when the readings `a` and `b` of a counter (`count` ASCII digits each) are one count apart, one way or the
/// other ("0899" and "0900", "1234" and "1235", "999" and "000": a counter wraps round); 0 otherwise (equal readings
/// included). Two readings of one frame that are one count apart disagree only on whether the last drum has turned
/// to its next digit: the drums the carry turns follow from that.
int lv_drums_one_apart(const char *a, const char *b, int count);

#ifdef __cplusplus
}
#endif
#endif
