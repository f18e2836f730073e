import LumaScanCore

/// What a barcode reading carries beyond the report's envelope (``ScanReport/detail`` on the barcode recognizer's
/// reports): which decoders read it, how its text was decoded, an EAN add-on, its place in a structured-append
/// sequence, and the readings that disagreed with each other.
public struct BarcodeReading: Hashable, Sendable {
    /// A barcode decoder LumaScan runs.
    public enum Decoder: String, Hashable, Sendable, Codable, CaseIterable {
        /// zbar 0.23.
        case zbar
        /// ZXing-C++ 1.4.
        case zxing
    }

    /// A symbol's place in a structured-append sequence (QR, Data Matrix, PDF417, Aztec, MaxiCode).
    public struct StructuredAppend: Hashable, Sendable {
        /// The symbol's position in the sequence, from 0; `nil` on the assembled message.
        public var index: Int?
        /// How many symbols the sequence has.
        public var count: Int
        /// The sequence's id (for QR the parity byte, in decimal), shared by every symbol of one message.
        public var id: String

        /// Creates a description.
        public init(index: Int?, count: Int, id: String) {
            self.index = index
            self.count = count
            self.id = id
        }
    }

    /// One of several readings that disagreed.
    public struct Alternative: Hashable, Sendable {
        /// The symbology it was read as.
        public var symbology: Symbology
        /// Its payload as text.
        public var text: String

        /// Creates an alternative.
        public init(symbology: Symbology, text: String) {
            self.symbology = symbology
            self.text = text
        }
    }

    /// The decoders that read this payload.
    public var decoders: [Decoder]
    /// How many distinct passes (decoder, scale, binarizer, polarity) read it.
    public var passes: Int
    /// The character set the text was decoded from (`UTF-8`, `Shift_JIS`, `ISO-8859-1`, or `ECI` when the code
    /// names its own).
    public var characterSet: String
    /// Whether it was read only after preprocessing (upscaling, smoothing, inversion, another binarizer).
    public var preprocessed: Bool
    /// An EAN-2 or EAN-5 add-on read with an EAN/UPC code.
    public var addOn: String?
    /// The symbol's place in a structured-append sequence, or the sequence of an assembled message.
    public var structuredAppend: StructuredAppend?
    /// Readings of the same bars that disagree (two decoders, or one decoder at two scales): set on a report that
    /// says no code can be trusted there; empty otherwise.
    public var disagreement: [Alternative]

    /// Creates a reading.
    public init(
        decoders: [Decoder], passes: Int = 1, characterSet: String = "UTF-8", preprocessed: Bool = false,
        addOn: String? = nil, structuredAppend: StructuredAppend? = nil, disagreement: [Alternative] = []
    ) {
        self.decoders = decoders
        self.passes = passes
        self.characterSet = characterSet
        self.preprocessed = preprocessed
        self.addOn = addOn
        self.structuredAppend = structuredAppend
        self.disagreement = disagreement
    }
}

extension BarcodeReading: ScanReportDetail {
    /// `barcode`.
    public var jsonKey: String { "barcode" }

    /// The `barcode` object: `decoders` (`["zbar","zxing"]`), `passes`, `characterSet`, `preprocessed`; `addOn`
    /// (EAN-2/EAN-5 digits) when there is one; `structuredAppend` (`index` on a part, `count`, `id`) on a part or an
    /// assembled message; `disagreement` (`[{"symbology","text"}, …]`) on a report that no code can be trusted where
    /// readings disagree.
    public var json: JSONObject {
        var object = JSONObject()
        object.addRaw("decoders", JSONText.array(decoders.map { JSONText.quoted($0.rawValue) }))
        object.add("passes", passes)
        object.add("characterSet", characterSet)
        object.add("preprocessed", preprocessed)
        if let addOn { object.add("addOn", addOn) }
        if let structuredAppend {
            var part = JSONObject()
            if let index = structuredAppend.index { part.add("index", index) }
            part.add("count", structuredAppend.count)
            part.add("id", structuredAppend.id)
            object.add("structuredAppend", part)
        }
        if !disagreement.isEmpty {
            let alternatives = disagreement.map { alternative in
                var entry = JSONObject()
                entry.add("symbology", alternative.symbology.rawValue)
                entry.add("text", alternative.text)
                return entry.text
            }
            object.addRaw("disagreement", JSONText.array(alternatives))
        }
        return object
    }
}

extension ScanReportDetail {
    /// The barcode reading, when this detail is one.
    public var barcode: BarcodeReading? { self as? BarcodeReading }
}
