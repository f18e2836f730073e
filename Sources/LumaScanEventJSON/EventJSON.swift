// The JSON lines LumaScan writes for its events: the schema the CLI prints and the kiosk server streams. A module of
// its own, so that the engine carries no output format and the CLI and the server share one encoder.
import LumaScan

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
///   still image came from) when known; the report's ``ScanReport/detail``, when it has one, as an object under the
///   detail's ``ScanReportDetail/jsonKey``: `secureQR` (``SecureQRResult/json``), `guidance` on a secure-QR
///   `IN_PROGRESS` report (``SecureQRGuidance/json``), `meter` (``MeterReading/json``), `barcode`
///   (``BarcodeReading/json``), or a key of a recognizer from another package.
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
            object.addRaw("polygon", JSONText.points(detection.polygon))
            object.addRaw("normalizedPolygon", JSONText.points(detection.normalizedPolygon))
            object.add("distance", detection.distance.rawValue)
            object.add("frame", Int(detection.frameIndex))
        case .report(let report):
            object.add("event", "report")
            object.add("reportType", report.reportType.rawValue)
            object.add("state", report.state.rawValue)
            object.add("recognizer", report.recognizerID)
            if let symbology = report.symbology { object.add("symbology", symbology.rawValue) }
            if let text = report.text { object.add("text", text) }
            if let bytes = report.bytes { object.add("bytesBase64", JSONText.base64(bytes)) }
            if !report.polygon.isEmpty {
                object.addRaw("polygon", JSONText.points(report.polygon))
            }
            object.add("frame", Int(report.frameIndex))
            object.add("driverSequence", Int(report.driverSequence))
            object.add("captureTime", report.captureTime.seconds)
            object.add("reportTime", report.reportTime.seconds)
            if let input { object.add("input", input) }
            if let detail = report.detail { object.add(detail.jsonKey, detail.json) }
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
        return object.text
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
        object.add("meanLumaMilliseconds", statistics.meanLumaMilliseconds)
        object.add("meanRecognitionMilliseconds", statistics.meanRecognitionMilliseconds)
        object.add("meanPipelineMilliseconds", statistics.meanPipelineMilliseconds)
        return object.text
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
        return object.text
    }
}
