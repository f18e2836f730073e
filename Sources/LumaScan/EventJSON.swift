import LumaScanCapture
import LumaScanCore

/// Writes engine events as JSON lines: one object per event, in LumaScan's versioned event schema.
///
/// Schema version 1 (``schemaVersion``); every object has `"schemaVersion"` and `"event"`:
/// - `started`: `source`, `pixelFormat`, `width`, `height`.
/// - `scanningStarted`: `plugin`; `scanningStopped`: `reason` (`completed`, `timeout`, `requested`, `error`);
///   `scanningPaused`, `scanningResumed`, `scanningAborted`.
/// - `detection`: `recognizer`, `polygon`, `normalizedPolygon` (0–1), `distance` (`tooFar`, `ok`, `tooClose`), `frame`.
/// - `report`: `reportType` (`IN_PROGRESS`, `COMPLETED_RESULT`, `UNSUPPORTED_RESULT`), `state` (`UNREADABLE`, `OK`,
///   `TOO_SMALL`, `BLURRY`, `NOT_PROPRIETARY`, `FP_NOT_IN_FRAME`, `NO_AUTH`), `recognizer`, and when a code was read
///   `symbology`, `text`, `bytesBase64` and `polygon` (`[[x, y], …]` in frame pixels); then `frame` (LumaScan's frame
///   index), `driverSequence`, `captureTime` and `reportTime` (seconds on the monotonic clock), and `input` (the file a
///   still image came from) when known; a completion's ``ScanReport/detail`` as `secureQR` (see
///   ``secureQR(_:)``), `meter` (see ``meter(_:)``) or `barcode` (see ``barcode(_:)``); a secure-QR `IN_PROGRESS`
///   report's guidance as `guidance` (see ``secureQRGuidance(_:)``).
/// - `cameraSetting`: `setting` (its JSON path), `outcome` (`applied` with `control` and the `value` read back,
///   `unsupported` or `failed` with a `message`).
/// - `sourceFailed`: `source`, `message`, `action` (`restartingStream`, `reopeningDevice`, `stopping`).
/// - `sourceRecovered`: `source`, `attempts`.
/// - `stopped`: `reason` (`requested`, `endOfInput`, `error`) and `message` for errors.
/// - `statistics` (written by `lumascan scan --statistics` after `stopped`): see ``line(for:)-(ScanStatistics)``.
/// - `inputFailed` (written by `lumascan scan --input` for each image file it cannot read, as it skips it): see
///   ``line(for:)-(ImageFileSource.UnreadableFile)``.
///
/// Keys appear in the order above; consumers should not rely on the order and must ignore keys they do not know.
public enum EventJSON {
    /// The schema version written in every object.
    public static let schemaVersion = 1

    /// The event as one line of JSON (no trailing newline).
    ///
    /// - Parameter input: the file the event's frame came from, for still-image input.
    public static func line(for event: ScanEvent, input: String? = nil) -> String {
        var object = JSONObject()
        object.add("schemaVersion", schemaVersion)
        switch event {
        case .started(let source, let format):
            object.add("event", "started")
            object.add("source", source)
            object.add("pixelFormat", format.pixelFormat.description)
            object.add("width", format.width)
            object.add("height", format.height)
        case .scanningStarted(let plugin):
            object.add("event", "scanningStarted")
            object.add("plugin", plugin)
        case .scanningStopped(let reason):
            object.add("event", "scanningStopped")
            object.add("reason", reason.rawValue)
        case .scanningPaused:
            object.add("event", "scanningPaused")
        case .scanningResumed:
            object.add("event", "scanningResumed")
        case .scanningAborted:
            object.add("event", "scanningAborted")
        case .detection(let detection):
            object.add("event", "detection")
            object.add("recognizer", detection.recognizerID)
            object.addRaw("polygon", points(detection.polygon))
            object.addRaw("normalizedPolygon", points(detection.normalizedPolygon))
            object.add("distance", detection.distance.rawValue)
            object.add("frame", Int(detection.frameIndex))
        case .report(let report):
            object.add("event", "report")
            object.add("reportType", report.reportType.rawValue)
            object.add("state", report.state.rawValue)
            object.add("recognizer", report.recognizerID)
            if let symbology = report.symbology { object.add("symbology", symbology.rawValue) }
            if let text = report.text { object.add("text", text) }
            if let bytes = report.bytes { object.add("bytesBase64", base64(bytes)) }
            if !report.polygon.isEmpty {
                object.addRaw("polygon", points(report.polygon))
            }
            object.add("frame", Int(report.frameIndex))
            object.add("driverSequence", Int(report.driverSequence))
            object.addRaw("captureTime", number(report.captureTime.seconds))
            object.addRaw("reportTime", number(report.reportTime.seconds))
            if let input { object.add("input", input) }
            switch report.detail {
            case .secureQR(let result): object.addRaw("secureQR", secureQR(result))
            case .secureQRGuidance(let guidance): object.addRaw("guidance", secureQRGuidance(guidance))
            case .meter(let reading): object.addRaw("meter", meter(reading))
            case .barcode(let reading): object.addRaw("barcode", barcode(reading))
            case nil: break
            }
        case .cameraSetting(let outcome):
            object.add("event", "cameraSetting")
            object.add("setting", outcome.setting)
            switch outcome {
            case .applied(_, let control, let value):
                object.add("outcome", "applied")
                object.add("control", control)
                object.addRaw("value", String(value))
            case .unsupported(_, let message):
                object.add("outcome", "unsupported")
                object.add("message", message)
            case .failed(_, let message):
                object.add("outcome", "failed")
                object.add("message", message)
            }
        case .sourceFailed(let failure):
            object.add("event", "sourceFailed")
            object.add("source", failure.source)
            object.add("message", failure.message)
            object.add("action", failure.action.rawValue)
        case .sourceRecovered(let source, let attempts):
            object.add("event", "sourceRecovered")
            object.add("source", source)
            object.add("attempts", attempts)
        case .stopped(let reason):
            object.add("event", "stopped")
            object.add("reason", reason.name)
            if case .error(let message) = reason { object.add("message", message) }
        }
        return object.text + "}"
    }

    /// The engine's statistics as one line of JSON: `{"schemaVersion":1,"event":"statistics",…}` with every counter
    /// of ``ScanStatistics`` under its property name and the mean stage times in milliseconds
    /// (`meanLumaMilliseconds`, `meanRecognitionMilliseconds`, `meanPipelineMilliseconds`).
    public static func line(for statistics: ScanStatistics) -> String {
        var object = JSONObject()
        object.add("schemaVersion", schemaVersion)
        object.add("event", "statistics")
        let counters: [(String, UInt64)] = [
            ("framesCaptured", statistics.framesCaptured), ("framesProcessed", statistics.framesProcessed),
            ("framesDroppedByRing", statistics.framesDroppedByRing), ("framesInFlight", statistics.framesInFlight),
            ("framesDroppedByDriver", statistics.framesDroppedByDriver), ("framesCorrupt", statistics.framesCorrupt),
            ("reports", statistics.reports), ("eventsDelivered", statistics.eventsDelivered),
            ("eventsDropped", statistics.eventsDropped), ("sourceFailures", statistics.sourceFailures),
        ]
        for (key, value) in counters { object.addRaw(key, String(value)) }
        object.addRaw("meanLumaMilliseconds", number(statistics.meanLumaMilliseconds))
        object.addRaw("meanRecognitionMilliseconds", number(statistics.meanRecognitionMilliseconds))
        object.addRaw("meanPipelineMilliseconds", number(statistics.meanPipelineMilliseconds))
        return object.text + "}"
    }

    /// An image file that could not be read as one line of JSON:
    /// `{"schemaVersion":1,"event":"inputFailed","input":…,"reason":…,"message":…}`, where `input` is the file's path,
    /// `reason` the ``CaptureError/Code`` saying why (`notFound`, `permissionDenied`, `unsupportedFormat`,
    /// `corruptImage`, `tooLarge`, `invalidArgument` for a folder or a device, `other`) and `message` the error's text,
    /// naming the file and the reason.
    public static func line(for unreadable: ImageFileSource.UnreadableFile) -> String {
        var object = JSONObject()
        object.add("schemaVersion", schemaVersion)
        object.add("event", "inputFailed")
        object.add("input", unreadable.path)
        object.add("reason", unreadable.error.code.description)
        object.add("message", unreadable.error.message)
        return object.text + "}"
    }

    /// A completed secure-QR scan's `secureQR` object: `scanFrame` (the frame the scan comes from, the sharpest seen)
    /// and its `scanCaptureTime`, `hybrid`; when the code was located `version`, `modules`, `codePolygon` and
    /// `secureGraphicPolygon` (frame pixels); when measured `measurements` (every ``SecureQRMeasurements`` property by
    /// name); for `OK` and `BLURRY` completions in secure mode `crop` (`width`, `height`, `modulePixels`,
    /// `pngBase64`: the rectified code and secure graphic as 8-bit grey PNG, ready to send for authentication); when
    /// scored on the device `authenticity` (see ``authenticity(_:)``).
    static func secureQR(_ result: SecureQRResult) -> String {
        var object = JSONObject()
        object.add("scanFrame", Int(result.frameIndex))
        object.addRaw("scanCaptureTime", number(result.captureTime.seconds))
        object.addRaw("hybrid", String(result.isHybrid))
        if let geometry = result.geometry {
            object.add("version", geometry.version)
            object.add("modules", geometry.modules)
            object.addRaw("codePolygon", points(geometry.codePolygon))
            object.addRaw("secureGraphicPolygon", points(geometry.secureGraphicPolygon))
        }
        if let measured = result.measurements {
            var measurements = JSONObject()
            let values: [(String, Double)] = [
                ("modulePixels", measured.modulePixels), ("pixelsPerCell", measured.pixelsPerCell),
                ("darkLevel", measured.darkLevel), ("lightLevel", measured.lightLevel),
                ("meanLevel", measured.meanLevel), ("moduleEnergy", measured.moduleEnergy),
                ("cellEnergy", measured.cellEnergy), ("textureRatio", measured.textureRatio),
                ("sharpness", measured.sharpness),
            ]
            for (key, value) in values { measurements.addRaw(key, number(value)) }
            object.addRaw("measurements", measurements.text + "}")
        }
        if let crop = result.crop {
            var cropObject = JSONObject()
            cropObject.add("width", crop.width)
            cropObject.add("height", crop.height)
            cropObject.add("modulePixels", crop.modulePixels)
            cropObject.add("pngBase64", base64(crop.png))
            object.addRaw("crop", cropObject.text + "}")
        }
        if let authenticity = result.authenticity { object.addRaw("authenticity", Self.authenticity(authenticity)) }
        return object.text + "}"
    }

    /// A secure-QR completion's `authenticity` object (``SecureQRAuthenticity``): `score`, `decision` (`genuine` or
    /// `copy`), `threshold`, `ncc`, `bitErrorRate`, `pixelsPerCell` and `blurCells`.
    static func authenticity(_ authenticity: SecureQRAuthenticity) -> String {
        var object = JSONObject()
        object.addRaw("score", number(authenticity.score))
        object.add("decision", authenticity.decision.rawValue)
        let values: [(String, Double)] = [
            ("threshold", authenticity.threshold), ("ncc", authenticity.ncc),
            ("bitErrorRate", authenticity.bitErrorRate), ("pixelsPerCell", authenticity.pixelsPerCell),
            ("blurCells", authenticity.blurCells),
        ]
        for (key, value) in values { object.addRaw(key, number(value)) }
        return object.text + "}"
    }

    /// A secure-QR `IN_PROGRESS` report's `guidance` object: `steadyState` (the state smoothed over the last frames,
    /// to show the user), `minimumPixelsPerCell` and `sharpnessThreshold`; `pixelsPerCell` and `closerFactor` (how
    /// many times closer to reach the minimum) when an issuer's code was read, `sharpness` when measured, `polygon`
    /// (the code's outline in frame pixels) when a code was read.
    static func secureQRGuidance(_ guidance: SecureQRGuidance) -> String {
        var object = JSONObject()
        object.add("steadyState", guidance.steadyState.rawValue)
        if let pixelsPerCell = guidance.pixelsPerCell { object.addRaw("pixelsPerCell", number(pixelsPerCell)) }
        object.addRaw("minimumPixelsPerCell", number(guidance.minimumPixelsPerCell))
        if let closer = guidance.closerFactor { object.addRaw("closerFactor", number(closer)) }
        if let sharpness = guidance.sharpness { object.addRaw("sharpness", number(sharpness)) }
        object.addRaw("sharpnessThreshold", number(guidance.sharpnessThreshold))
        if !guidance.polygon.isEmpty { object.addRaw("polygon", points(guidance.polygon)) }
        return object.text + "}"
    }

    /// A completed meter reading's `meter` object: `confidence` (0–100, the least confident digit's),
    /// `digitConfidences`, `reader` (`digital` or `counter`), `lightOnDark`, `cutout`, `crop` and `digitBounds` (each
    /// `{"x","y","width","height"}` in frame pixels), and `cropPNGBase64` (the crop read, as 8-bit grey PNG).
    static func meter(_ reading: MeterReading) -> String {
        var object = JSONObject()
        object.addRaw("confidence", number(reading.confidence))
        object.addRaw("digitConfidences", "[" + reading.digitConfidences.map(number).joined(separator: ",") + "]")
        if let reader = reading.reader { object.add("reader", reader.rawValue) }
        object.addRaw("lightOnDark", String(reading.lightOnDark))
        object.addRaw("cutout", rect(reading.cutout))
        object.addRaw("crop", rect(reading.crop))
        if let bounds = reading.digitBounds { object.addRaw("digitBounds", rect(bounds)) }
        if let png = reading.cropPNG { object.add("cropPNGBase64", base64(png)) }
        return object.text + "}"
    }

    /// A barcode reading's `barcode` object: `decoders` (`["zbar","zxing"]`), `passes`, `characterSet`,
    /// `preprocessed`; `addOn` (EAN-2/EAN-5 digits) when there is one; `structuredAppend` (`index` on a part, `count`,
    /// `id`) on a part or an assembled message; `disagreement` (`[{"symbology","text"}, …]`) on a report that no
    /// code can be trusted where readings disagree.
    static func barcode(_ reading: BarcodeReading) -> String {
        var object = JSONObject()
        object.addRaw("decoders", "[" + reading.decoders.map { quoted($0.rawValue) }.joined(separator: ",") + "]")
        object.add("passes", reading.passes)
        object.add("characterSet", reading.characterSet)
        object.addRaw("preprocessed", String(reading.preprocessed))
        if let addOn = reading.addOn { object.add("addOn", addOn) }
        if let sequence = reading.structuredAppend {
            var part = JSONObject()
            if let index = sequence.index { part.add("index", index) }
            part.add("count", sequence.count)
            part.add("id", sequence.id)
            object.addRaw("structuredAppend", part.text + "}")
        }
        if !reading.disagreement.isEmpty {
            let alternatives = reading.disagreement.map { alternative in
                var entry = JSONObject()
                entry.add("symbology", alternative.symbology.rawValue)
                entry.add("text", alternative.text)
                return entry.text + "}"
            }
            object.addRaw("disagreement", "[" + alternatives.joined(separator: ",") + "]")
        }
        return object.text + "}"
    }

    /// `{"x":…,"y":…,"width":…,"height":…}`.
    static func rect(_ rect: Rect) -> String {
        var object = JSONObject()
        object.add("x", rect.x)
        object.add("y", rect.y)
        object.add("width", rect.width)
        object.add("height", rect.height)
        return object.text + "}"
    }

    /// `[[x, y], …]`.
    static func points(_ polygon: [Point]) -> String {
        "[" + polygon.map { "[\(number($0.x)),\(number($0.y))]" }.joined(separator: ",") + "]"
    }

    /// Standard base64 with padding.
    public static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for (offset, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * offset) }
            for position in 0..<4 {
                if position <= chunk.count {
                    output.append(alphabet[(value >> (18 - 6 * position)) & 63])
                } else {
                    output.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A JSON number: integers without a fraction, others with up to six decimals.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        let scaled = (value * 1_000_000).rounded() / 1_000_000
        return "\(scaled)"
    }

    /// A JSON string literal.
    static func quoted(_ string: String) -> String {
        var output = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}

/// Builds a JSON object's text key by key.
struct JSONObject {
    private(set) var text = "{"
    private var empty = true

    mutating func addRaw(_ key: String, _ raw: String) {
        if !empty { text += "," }
        empty = false
        text += EventJSON.quoted(key) + ":" + raw
    }

    mutating func add(_ key: String, _ value: String) { addRaw(key, EventJSON.quoted(value)) }
    mutating func add(_ key: String, _ value: Int) { addRaw(key, String(value)) }
}
