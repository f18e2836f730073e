/// What a report means for the scan as a whole, after the ScanTrust SDK's report types.
public enum ReportType: String, Hashable, Sendable, Codable, CaseIterable {
    /// Processing continues: the state is guidance for the user.
    case inProgress = "IN_PROGRESS"
    /// A result: for most recognizers, processing stops until scanning is started again.
    case completedResult = "COMPLETED_RESULT"
    /// The camera cannot support the full check; the recognizer works in a reduced mode.
    case unsupportedResult = "UNSUPPORTED_RESULT"
}

/// What a recognizer saw in one frame, after the ScanTrust SDK's scan states.
public enum ScanState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Nothing could be read.
    case unreadable = "UNREADABLE"
    /// A code was read and every constraint is met.
    case ok = "OK"
    /// The code is too small in the image to check its secure graphic.
    case tooSmall = "TOO_SMALL"
    /// The secure graphic is too blurred to check.
    case blurry = "BLURRY"
    /// A code was read, but it is not one of the configured issuers'.
    case notProprietary = "NOT_PROPRIETARY"
    /// A hybrid code's fingerprint zone is not entirely inside the frame.
    case fingerprintNotInFrame = "FP_NOT_IN_FRAME"
    /// An issuer's code without a secure graphic.
    case noAuth = "NO_AUTH"
}

/// A barcode symbology that LumaScan reads, with zbar, ZXing-C++ or both (``BarcodeRecognizer`` says which reads
/// which).
///
/// Raw values are the names the configuration and the CLI use (`--symbologies ean13,qr`).
public enum Symbology: String, Hashable, Sendable, Codable, CaseIterable {
    /// EAN-13 (13 digits, with check digit).
    case ean13
    /// EAN-8 (8 digits, with check digit).
    case ean8
    /// UPC-A, reported with its 12 digits when enabled (zbar decodes UPC-A through its EAN-13 decoder; with only
    /// ``ean13`` enabled the same code is reported as a 13-digit EAN-13 with a leading 0).
    case upcA = "upca"
    /// UPC-E, reported with its 8 digits (number system, six data digits, check digit), as zbar reads it.
    case upcE = "upce"
    /// ISBN-10, converted by zbar from an EAN-13 in the 978 range (10 characters with check character).
    case isbn10
    /// ISBN-13: an EAN-13 in the 978/979 range.
    case isbn13
    /// Code 39 (without check character verification, as zbar reads it by default).
    case code39
    /// Code 93.
    case code93
    /// Code 128 (all three code sets).
    case code128
    /// Interleaved 2 of 5 (ITF).
    case interleaved2of5 = "i25"
    /// GS1 DataBar (RSS-14).
    case dataBar = "databar"
    /// GS1 DataBar Expanded.
    case dataBarExpanded = "databar-exp"
    /// Codabar.
    case codabar
    /// QR Code.
    case qrCode = "qr"
    /// Micro QR Code (M1–M4, one finder pattern).
    case microQR = "micro-qr"
    /// Data Matrix (ECC 200), square and rectangular.
    case dataMatrix = "datamatrix"
    /// PDF417 (stacked; read by ZXing-C++).
    case pdf417
    /// Aztec Code, compact and full-range, and Aztec runes.
    case aztec
    /// MaxiCode (UPS), modes 2–6.
    case maxiCode = "maxicode"

    /// Whether the symbology is one-dimensional (read along scan lines): every symbology but the matrix codes and
    /// stacked PDF417.
    public var isLinear: Bool {
        switch self {
        case .qrCode, .microQR, .dataMatrix, .pdf417, .aztec, .maxiCode: false
        default: true
        }
    }
}

/// One report from a recognizer: the envelope every recognizer shares, after the ScanTrust SDK's.
public struct ScanReport: Hashable, Sendable {
    /// What the report means for the scan.
    public var reportType: ReportType
    /// What the recognizer saw.
    public var state: ScanState
    /// The id of the recognizer (plugin) that made the report.
    public var recognizerID: String
    /// The symbology of the code read, when one was read.
    public var symbology: Symbology?
    /// The payload as text, when one was read (zbar's decoding: UTF-8 where the code carries it).
    public var text: String?
    /// The payload's raw bytes, when one was read.
    public var bytes: [UInt8]?
    /// The code's corners (or scan-line extent for linear codes) in frame pixels; empty when nothing was located.
    public var polygon: [Point]
    /// LumaScan's index of the frame the report is about.
    public var frameIndex: UInt64
    /// The driver's sequence number of that frame.
    public var driverSequence: UInt32
    /// When the frame was captured (monotonic clock).
    public var captureTime: MonotonicInstant
    /// When the report was made (monotonic clock).
    public var reportTime: MonotonicInstant
    /// What a recognizer delivers beyond the envelope: the secure-QR scan (geometry, measurements, rectified crop)
    /// or guidance, the meter reading (digit confidences, cutout, crop), the barcode reading (decoders, character
    /// set), or another recognizer's own. `nil` on reports that have none, so that they allocate nothing for it.
    public var detail: (any ScanReportDetail)?

    /// Creates a report.
    public init(
        reportType: ReportType, state: ScanState, recognizerID: String, symbology: Symbology? = nil,
        text: String? = nil, bytes: [UInt8]? = nil, polygon: [Point] = [], frameIndex: UInt64 = 0,
        driverSequence: UInt32 = 0, captureTime: MonotonicInstant = MonotonicInstant(nanoseconds: 0),
        reportTime: MonotonicInstant = MonotonicInstant(nanoseconds: 0), detail: (any ScanReportDetail)? = nil
    ) {
        self.reportType = reportType
        self.state = state
        self.recognizerID = recognizerID
        self.symbology = symbology
        self.text = text
        self.bytes = bytes
        self.polygon = polygon
        self.frameIndex = frameIndex
        self.driverSequence = driverSequence
        self.captureTime = captureTime
        self.reportTime = reportTime
        self.detail = detail
    }

    /// Whether two reports are the same, field by field, details included.
    public static func == (lhs: ScanReport, rhs: ScanReport) -> Bool {
        lhs.reportType == rhs.reportType && lhs.state == rhs.state && lhs.recognizerID == rhs.recognizerID
            && lhs.symbology == rhs.symbology && lhs.text == rhs.text && lhs.bytes == rhs.bytes
            && lhs.polygon == rhs.polygon && lhs.frameIndex == rhs.frameIndex
            && lhs.driverSequence == rhs.driverSequence && lhs.captureTime == rhs.captureTime
            && lhs.reportTime == rhs.reportTime
            && lhs.detail.map { AnyHashable($0) } == rhs.detail.map { AnyHashable($0) }
    }

    /// Hashes the report's fields, details included.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(reportType)
        hasher.combine(state)
        hasher.combine(recognizerID)
        hasher.combine(symbology)
        hasher.combine(text)
        hasher.combine(bytes)
        hasher.combine(polygon)
        hasher.combine(frameIndex)
        hasher.combine(driverSequence)
        hasher.combine(captureTime)
        hasher.combine(reportTime)
        hasher.combine(detail.map { AnyHashable($0) })
    }

    /// A report about `metadata`'s frame, stamped now.
    public init(
        _ reportType: ReportType, _ state: ScanState, recognizerID: String, frame metadata: FrameMetadata,
        symbology: Symbology? = nil, text: String? = nil, bytes: [UInt8]? = nil, polygon: [Point] = [],
        detail: (any ScanReportDetail)? = nil
    ) {
        self.init(
            reportType: reportType, state: state, recognizerID: recognizerID, symbology: symbology, text: text,
            bytes: bytes, polygon: polygon, frameIndex: metadata.index, driverSequence: metadata.driverSequence,
            captureTime: metadata.captureTime, reportTime: .now(), detail: detail)
    }
}

/// The recognizer-specific part of a report, carried by ``ScanReport/detail``: the secure-QR scan or guidance, the
/// meter reading and the barcode reading of LumaScan's recognizers (each defined with its recognizer), or what a
/// recognizer in another package attaches. A detail writes itself into a `report` event's JSON line as one object
/// under ``jsonKey``, so the event encoder needs to know no recognizer.
public protocol ScanReportDetail: Hashable, Sendable {
    /// The key of the detail's object in a `report` event's JSON line (`secureQR`, `guidance`, `meter`, `barcode`).
    var jsonKey: String { get }
    /// The detail as a JSON object (see ``JSONObject``).
    var json: JSONObject { get }
}

/// Something that reads frames and reports what it sees: the barcode, secure-QR and meter recognizers.
///
/// A recognizer owns its scratch buffers and keeps state across frames (duplicate filters, stabilisation), so one
/// instance serves one stream.
///
/// - Important: The engine calls ``process(_:metadata:into:)`` and ``reset()`` on its recognition thread only, one
///   frame at a time; implementations need no locking of their own for that state.
public protocol Recognizer: AnyObject, Sendable {
    /// The recognizer's id, copied into every report it makes.
    var id: String { get }
    /// Reads one frame and appends what it saw to `reports` (which the caller empties between frames, keeping its
    /// capacity, so steady-state processing need not allocate).
    func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport])
    /// Forgets state kept across frames (duplicate filters, stabilisation), as when scanning starts again.
    func reset()
}

/// A recognizer that decides when it has completed, rather than on its first completed result: a composite whose
/// members must all complete. With `cancelOnResult`, the engine ends the session on a completed result only once
/// ``hasCompleted`` is true; any other recognizer completes with its first completed result.
public protocol CompletingRecognizer: Recognizer {
    /// Whether the recognizer has completed since its last ``Recognizer/reset()``.
    var hasCompleted: Bool { get }
}
