// What the meter recognizer read. Plain data; a completed reading is the ScanReportDetail of its report.
import LumaScanCore

/// What the meter recognizer read in one frame: the reading, each digit's confidence, where it looked, and (for a
/// completed reading) the crop it read.
public struct MeterReading: Hashable, Sendable {
    /// Why a reading is or is not complete.
    public enum Status: Hashable, Sendable {
        /// No digit was found in the crop.
        case noDigits
        /// Digits were read, but the least confident is below `minConfidence`, or a counter drum is caught between two
        /// digits (``MeterReading/ambiguousDigits``).
        case belowConfidence
        /// The reading does not match `validationRegex`.
        case failsValidation
        /// The reading is valid and has now been seen in `count` consecutive frames, fewer than needed.
        case stabilising(count: Int)
        /// The reading was seen in enough consecutive frames (a roller counter's: or agreed on by enough of the last
        /// frames, each digit confident in two of them): it is the result.
        case completed
    }

    /// Which reader produced the reading.
    public enum Reader: String, Hashable, Sendable {
        /// The seven-segment reader.
        case digital
        /// The roller-counter reader.
        case counter
    }

    /// The reading: digits with at most one decimal point, after `maxNumDecimalDigits`; empty when no digit was found.
    public var text: String
    /// Each digit's confidence, 0–100, left to right (the decimal point has none).
    public var digitConfidences: [Double]
    /// The reading's confidence, 0–100: its least confident digit's (0 when there is none).
    public var confidence: Double
    /// The digits (indices into the digits, left to right, the decimal point not counted) of a roller counter's drums
    /// caught between two digits that the carry rule cannot explain: neither digit can be told, so a reading with any
    /// is never completed, whatever its confidence.
    public var ambiguousDigits: [Int]
    /// The reader that produced it, when digits were found.
    public var reader: Reader?
    /// Whether the digits are lighter than their background (LED, white-on-black drums).
    public var lightOnDark: Bool
    /// The cutout rectangle, in frame pixels.
    public var cutout: Rect
    /// The crop that was read, in frame pixels.
    public var crop: Rect
    /// The digits' bounds, in frame pixels; `nil` when no digit was found.
    public var digitBounds: Rect?
    /// Why the reading is or is not complete.
    public var status: Status
    /// The crop that was read, for completed readings only (a copy of the frame's pixels; `nil` otherwise).
    public var cropImage: LumaImage?
    /// ``cropImage`` as an 8-bit grey PNG (Huffman coding only, for a camera's pixels), encoded each time it is asked
    /// for (about 5 ms for a noisy 1400x620 crop), by whoever asks: the recognition thread only copies the crop. `nil`
    /// without a crop image, or when it cannot be encoded.
    public var cropPNG: [UInt8]? { cropImage.flatMap { image in image.withView { try? PNG.encode($0, fast: true) } } }
    /// LumaScan's index of the frame read.
    public var frameIndex: UInt64
    /// Whether the counter reader confirmed the last frame's reading on its drums' grid instead of searching the
    /// frame (counter mode, right after a reading of which every drum was at least 90 % sure; its confidences are
    /// then at most the last frame's, so a confirmation never makes a reading surer than the search did).
    public var tracked: Bool
    /// Whether the display was read rectified, because the reading as the camera saw it was not sure and the
    /// rectified reading was the surer: a seven-segment display seen from the side (its digits' heights changing from
    /// one end of the row to the other by a tenth or more) read again with the digits made equally tall and level; a
    /// roller counter seen from the side or rolled (its window's top and bottom edges tilted, or closer together at
    /// one end) read again with its drums made level, equally tall and at one pitch. A counter tracked in the crop
    /// rectified so is rectified too. `digitBounds` are still the camera's.
    public var rectified: Bool

    /// Creates a reading.
    public init(
        text: String, digitConfidences: [Double], confidence: Double, reader: Reader?, lightOnDark: Bool, cutout: Rect,
        crop: Rect, digitBounds: Rect?, status: Status, cropImage: LumaImage?, frameIndex: UInt64,
        ambiguousDigits: [Int] = [], tracked: Bool = false, rectified: Bool = false
    ) {
        self.text = text
        self.digitConfidences = digitConfidences
        self.confidence = confidence
        self.ambiguousDigits = ambiguousDigits
        self.reader = reader
        self.lightOnDark = lightOnDark
        self.cutout = cutout
        self.crop = crop
        self.digitBounds = digitBounds
        self.status = status
        self.cropImage = cropImage
        self.frameIndex = frameIndex
        self.tracked = tracked
        self.rectified = rectified
    }
}

extension MeterReading: ScanReportDetail {
    /// `meter`.
    public var jsonKey: String { "meter" }

    /// The `meter` object of a completed reading: `confidence` (0–100, the least confident digit's),
    /// `digitConfidences`, `reader` (`digital` or `counter`), `lightOnDark`, `cutout`, `crop` and `digitBounds` (each
    /// `{"x","y","width","height"}` in frame pixels), and `cropPNGBase64` (the crop read, as 8-bit grey PNG: ``cropPNG``,
    /// encoded here).
    public var json: JSONObject {
        var object = JSONObject()
        object.add("confidence", confidence)
        object.addRaw("digitConfidences", JSONText.array(digitConfidences.map(JSONText.number)))
        if let reader { object.add("reader", reader.rawValue) }
        object.add("lightOnDark", lightOnDark)
        object.addRaw("cutout", JSONText.rect(cutout))
        object.addRaw("crop", JSONText.rect(crop))
        if let digitBounds { object.addRaw("digitBounds", JSONText.rect(digitBounds)) }
        if let cropPNG { object.add("cropPNGBase64", JSONText.base64(cropPNG)) }
        return object
    }
}

extension ScanReportDetail {
    /// The meter reading, when this detail is one.
    public var meter: MeterReading? { self as? MeterReading }
}
