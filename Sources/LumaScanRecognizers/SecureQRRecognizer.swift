import CLumaVision
import Logging
import LumaScanCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Watches frames for an issuer's secure QR codes, classifies every frame into a scan state within a report type, and
/// delivers the best scan for authentication — the ScanTrust SDK's behaviour, with every check done on the device and
/// documented in `docs/secure-qr.md`.
///
/// ## Scan states (``SecureQRMode/secure`` mode), decided in this order for each frame
/// 1. `UNREADABLE`: no QR code decodes (through a ``BarcodeRecognizer``: zbar on the frame shrunk by
///    ``SecureQRConfiguration/qrDownscale``; when that reads nothing, zbar and then ZXing-C++ at full resolution around
///    the finder patterns that make a code's corner, so that a code too far away for the shrunk frame still decodes).
/// 2. `NOT_PROPRIETARY`: a QR code decodes, but no decoded payload starts with an issuer prefix.
/// 3. `UNREADABLE`: the issuer's code does not show all four required patterns — the three finder patterns and the
///    bottom-right alignment pattern, located on the luma image — or its version cannot be confirmed on its timing
///    patterns; but `TOO_SMALL` when its pixels per cell, estimated from the decoder's polygon
///    (``SecureQRFrameAnalysis/pixelsPerCell``), are below both ``SecureQRConfiguration/minimumPixelsPerCell`` and
///    ``locatablePixelsPerCell``.
/// 4. `FP_NOT_IN_FRAME`: a hybrid code whose fingerprint zone, mapped into the frame by the homography from module
///    coordinates, is not inside the frame with ``SecureQRConfiguration/fingerprintMargin`` pixels to spare.
/// 5. `TOO_SMALL`: fewer than ``SecureQRConfiguration/minimumPixelsPerCell`` frame pixels per CDP cell.
/// 6. `NO_AUTH`: the secure-graphic region carries no CDP: its mean is not mid-grey (blank paper), or it shows QR
///    modules — its texture at the cell frequency, measured against the module frequency, is below
///    ``SecureQRConfiguration/noAuthTextureRatio`` while its module-scale texture reaches
///    ``SecureQRConfiguration/noAuthModuleEnergy``. A CDP blurred beyond recognition shows neither and is `BLURRY`,
///    so blur never ends a scan as `NO_AUTH`.
/// 7. `BLURRY`: the secure graphic's Tenengrad sharpness, rectified at 2 pixels per cell, is below
///    ``SecureQRConfiguration/sharpnessThreshold``.
/// 8. `OK`: every constraint is met.
///
/// ## Report types
/// - `IN_PROGRESS` (processing continues): `OK` (not yet stable), `BLURRY`, `UNREADABLE`, `FP_NOT_IN_FRAME`,
///   `TOO_SMALL`.
/// - `COMPLETED_RESULT` (processing stops): `OK` after ``SecureQRConfiguration/stableFrameCount`` consecutive `OK`
///   frames of the same code, carrying the sharpest of them; `BLURRY` when an issuer's code has been in view for
///   ``SecureQRConfiguration/insufficientQualityTimeout`` seconds without completing, carrying the sharpest scan
///   seen; `NOT_PROPRIETARY`; `NO_AUTH`.
/// - `UNSUPPORTED_RESULT`, in ``SecureQRMode/unsupported`` mode: `UNREADABLE` (continues), `OK` for an issuer's code
///   and `NOT_PROPRIETARY` for another QR code (both stop). A frame is read shrunk by
///   ``SecureQRConfiguration/qrDownscale`` and, when that finds nothing, at full resolution.
/// - ``SecureQRMode/limited`` mode: `COMPLETED_RESULT` `OK` for an issuer's code, `COMPLETED_RESULT`
///   `NOT_PROPRIETARY` for any other code, `IN_PROGRESS` `UNREADABLE` while nothing is read.
///
/// ## Guidance
/// Every `IN_PROGRESS` report in secure mode carries ``SecureQRGuidance`` as its ``ScanReport/detail``
/// (``SecureQRGuidance``): the steady state — the raw states smoothed over the last
/// ``SecureQRGuidance/window`` frames, changing only when another state is a majority of them — and the pixels per
/// cell, sharpness and outline of the code in view against the thresholds, for a preview to say "move closer" or
/// "hold still". The report's own state stays the frame's raw state.
///
/// Each frame processed yields exactly one report until a completion; then the recognizer reports nothing until
/// ``reset()`` (which the engine calls when scanning starts again). The completion's extras — pattern centres,
/// homography, measurements and the rectified crop as PNG — travel with its report as ``ScanReport/detail``
/// (``SecureQRResult``), and stay readable in ``lastCompletedResult`` and
/// ``completedResult(forReportFrame:)``.
///
/// ## Authenticity
/// With ``SecureQRConfiguration/authenticity`` naming the issuer's key file, each frame kept as a candidate for
/// delivery has its secure graphic compared with the CDP regenerated from `HMAC-SHA256(key, payload)`, and `OK` and
/// `BLURRY` completions carry the verdict as ``SecureQRResult/authenticity`` (see ``authenticity(of:analysis:)``).
///
/// Time is the frames' capture time (``FrameMetadata/captureTime``), so recorded or synthetic streams behave as a
/// live one would.
public final class SecureQRRecognizer: Recognizer, @unchecked Sendable {
    // SAFETY (Sendable): the engine calls `process`, `reset` and `analyze` on its recognition thread only, one frame
    // at a time (see `Recognizer`); the mutable state (reader, analyzer, appearance, streak) is touched only from
    // there. The completed results, read from other threads, are behind a Lock.

    /// The recognizer's id (``SecureQRConfiguration/id``).
    public let id: String
    /// The configuration the recognizer was built with.
    public let configuration: SecureQRConfiguration

    /// The fraction range, between the code's dark and light levels, of a region's mean for it to be a CDP (whose
    /// cells are half dark); blank paper measures near 1.
    public static let secureGraphicLevels: ClosedRange<Double> = 0.2...0.8
    /// How many completed results ``completedResult(forReportFrame:)`` remembers.
    public static let rememberedResults = 8

    let logger: Logger
    let reader: BarcodeRecognizer
    /// Unsupported mode: a full-resolution reader for frames in which the shrunk frame showed no code.
    let fallbackReader: BarcodeRecognizer?
    let analyzer: OpaquePointer
    var design: lv_sqr_design
    var readerReports: [ScanReport] = []
    var readerFrame: UInt64 = 0
    var stopped = false
    var appearance: Appearance?
    var streak: Streak?
    var failures = 0
    let completed = Lock<[SecureQRResult]>([])
    /// The raw states of the last ``SecureQRGuidance/window`` frames, oldest first, and the state smoothed over them.
    var recentStates: [ScanState] = []
    var steadyState: ScanState?
    /// The module count the issuer's design gives the last payload estimated (encoding it once per payload).
    var moduleCountCache: (bytes: [UInt8], modules: Int)?
    /// The issuer's key (``SecureQRConfiguration/authenticity``) and the scorer, when a key file is configured.
    let issuerKey: SecureQRIssuerKey?
    let authenticator: SecureQRAuthenticator?
    /// The seed of the last payload scored (one HMAC per payload).
    var seedCache: (bytes: [UInt8], seed: UInt64)?

    /// A scan kept as a candidate for delivery: the frame's analysis, the rectified crop and, with a key, the
    /// authenticity score.
    struct Candidate {
        var analysis: SecureQRFrameAnalysis
        var metadata: FrameMetadata
        var sharpness: Double
        var crop: CropPixels?
        var authenticity: SecureQRAuthenticity? = nil
    }

    struct CropPixels {
        var pixels: [UInt8]
        var width: Int
        var height: Int
        var region: SecureQRModuleRect
    }

    /// An issuer's code in view: since when, when last seen, and the sharpest scan of it.
    struct Appearance {
        var bytes: [UInt8]
        var start: MonotonicInstant
        var lastSeen: MonotonicInstant
        var sharpest: Candidate?
    }

    /// Consecutive `OK` frames of one code.
    struct Streak {
        var bytes: [UInt8]
        var count: Int
        var best: Candidate
    }

    /// Builds a recognizer; throws ``LumaScanError`` (`.invalidConfiguration`) when
    /// ``SecureQRConfiguration/validate()`` fails, or (`.unsupported`) when zbar or OpenCV cannot be set up.
    public init(configuration: SecureQRConfiguration, logger: Logger) throws {
        try configuration.validate()
        self.configuration = configuration
        id = configuration.id
        self.logger = logger
        design = configuration.design.cDesign
        let symbologies: [Symbology] = configuration.mode == .limited ? configuration.limitedSymbologies : [.qrCode]
        // Secure and unsupported modes read QR codes afresh in every frame (the reader's duplicate filter is reset
        // before each frame); limited mode keeps the barcode recognizer's consistency counts for 1D codes.
        let limited = configuration.mode == .limited
        reader = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(
                id: configuration.id, symbologies: symbologies, duplicateInterval: limited ? 1.0 : 0,
                qrDownscale: limited ? nil : configuration.qrDownscale),
            logger: logger)
        // Cameras too weak for the secure graphic see codes small: the plain reader tries full resolution as well.
        fallbackReader =
            configuration.mode == .unsupported && configuration.qrDownscale > 1
            ? try BarcodeRecognizer(
                configuration: BarcodeConfiguration(
                    id: configuration.id, symbologies: [.qrCode], duplicateInterval: 0, qrDownscale: 1),
                logger: logger) : nil
        var created: OpaquePointer?
        let status = lv_sqr_analyzer_create(&created)
        guard status == 0, let analyzer = created else {
            throw LumaScanError(
                .unsupported, "\(configuration.id): cannot create the secure-QR analyzer (error \(status))")
        }
        self.analyzer = analyzer
        issuerKey = try configuration.authenticity.key(path: "\(SecureQRConfiguration.jsonPath).authenticity")
        authenticator = issuerKey != nil && configuration.mode == .secure ? try SecureQRAuthenticator() : nil
        readerReports.reserveCapacity(8)
        recentStates.reserveCapacity(SecureQRGuidance.window)
        if configuration.mode == .secure && configuration.qrDownscale > 1 {
            // A code too far away for the shrunk frame is read at full resolution, so that it is TOO_SMALL rather
            // than UNREADABLE.
            try reader.readSmallQRCodesAtFullResolution()
        }
    }

    deinit { lv_sqr_analyzer_destroy(analyzer) }

    /// The analysis behind the last report ``process(_:metadata:into:)`` made in ``SecureQRMode/secure`` mode (pattern
    /// centres, homography, measurements), or `nil` before the first.
    ///
    /// - Important: Read it on the thread that calls ``process(_:metadata:into:)``.
    public internal(set) var lastFrameAnalysis: SecureQRFrameAnalysis?

    /// Whether a completion was reported and the recognizer waits for ``reset()``.
    ///
    /// - Important: Read it on the thread that calls ``process(_:metadata:into:)``.
    public var isComplete: Bool { stopped }

    /// The most recent completion's extras, or `nil` before the first; safe to read from any thread.
    public var lastCompletedResult: SecureQRResult? { completed.withLock { $0.last } }

    /// The extras of the completion announced by the report about frame `index` (``ScanReport/frameIndex``), among
    /// the last ``rememberedResults``; safe to read from any thread.
    public func completedResult(forReportFrame index: UInt64) -> SecureQRResult? {
        completed.withLock { results in results.last { $0.reportFrameIndex == index } }
    }

    /// Reads one frame and appends its report (none once a completion was reported, until ``reset()``).
    public func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        guard !stopped else { return }
        switch configuration.mode {
        case .secure: processSecure(luma, metadata: metadata, into: &reports)
        case .unsupported: processPlain(luma, metadata: metadata, into: &reports)
        case .limited: processLimited(luma, metadata: metadata, into: &reports)
        }
    }

    /// Starts scanning again: forgets the appearance, the `OK` streak and the completion, so frames are reported
    /// again. Completed results stay readable.
    public func reset() {
        stopped = false
        appearance = nil
        streak = nil
        recentStates.removeAll(keepingCapacity: true)
        steadyState = nil
        reader.reset()
    }

    // MARK: Per-frame analysis

    /// Classifies one frame on its own, without the completion logic: the scan state of ``SecureQRMode/secure`` mode
    /// and the evidence for it (``SecureQRFrameAnalysis``).
    ///
    /// - Important: Call it on the thread that calls ``process(_:metadata:into:)``, not concurrently with it.
    public func analyze(_ luma: LumaView) -> SecureQRFrameAnalysis {
        readQR(luma)
        var chosen: ScanReport?
        var chosenArea = -1.0
        var chosenIsIssuer = false
        for report in readerReports where report.state == .ok && report.symbology == .qrCode {
            let issuer = configuration.isIssuerPayload(report.text ?? "")
            let area = Self.area(report.polygon)
            if chosen == nil || (issuer && !chosenIsIssuer) || (issuer == chosenIsIssuer && area > chosenArea) {
                chosen = report
                chosenArea = area
                chosenIsIssuer = issuer
            }
        }
        guard let code = chosen else { return undecoded(luma) }
        var analysis = SecureQRFrameAnalysis(
            state: .unreadable, symbology: .qrCode, text: code.text, bytes: code.bytes, polygon: code.polygon,
            isIssuerCode: chosenIsIssuer)
        guard chosenIsIssuer else {
            analysis.state = .notProprietary
            return analysis
        }
        analysis.pixelsPerCell = estimatedPixelsPerCell(polygon: code.polygon, bytes: code.bytes)
        guard code.polygon.count == 4 else { return unlocated(analysis) }
        var result = lv_sqr_analysis()
        let status = withUnsafeTemporaryAllocation(of: Float.self, capacity: 8) { xy in
            for (index, point) in code.polygon.enumerated() {
                xy[2 * index] = Float(point.x)
                xy[2 * index + 1] = Float(point.y)
            }
            return lv_sqr_analyze(
                analyzer, luma.baseAddress, Int32(luma.width), Int32(luma.height), luma.stride, xy.baseAddress, 4,
                &design, &result)
        }
        guard status == 0 else {
            failures += 1
            if failures == 1 || failures % 1000 == 0 {
                logger.error(
                    "secure-QR analysis failed",
                    metadata: ["status": "\(status)", "failures": "\(failures)", "recognizer": "\(id)"])
            }
            return unlocated(analysis)
        }
        if result.modules > 0 {
            // The analyzer read the code's size on its finder patterns and timing patterns: better than the design's.
            analysis.pixelsPerCell = estimatedPixelsPerCell(
                polygon: code.polygon, bytes: code.bytes, modules: Int(result.modules))
        }
        guard result.found == Int32(LV_SQR_FOUND_ALL) else { return unlocated(analysis) }
        let geometry = Self.geometry(of: result)
        analysis.geometry = geometry
        if configuration.design.hybrid, !secureGraphicInside(geometry, luma) {
            analysis.state = .fingerprintNotInFrame
            return analysis
        }
        guard result.measured != 0 else { return unlocated(analysis) }
        let measurements = Self.measurements(of: result, cellsPerModule: configuration.design.cellsPerModule)
        analysis.measurements = measurements
        analysis.pixelsPerCell = measurements.pixelsPerCell
        if measurements.pixelsPerCell < configuration.minimumPixelsPerCell {
            analysis.state = .tooSmall
        } else if !Self.secureGraphicLevels.contains(measurements.meanLevel)
            || (measurements.textureRatio < configuration.noAuthTextureRatio
                && measurements.moduleEnergy >= configuration.noAuthModuleEnergy)
        {
            analysis.state = .noAuth
        } else if measurements.sharpness < configuration.sharpnessThreshold {
            analysis.state = .blurry
        } else {
            analysis.state = .ok
        }
        return analysis
    }

    /// A frame in which no QR code decoded: `BLURRY` when the reader saw a code's three finder patterns where it
    /// decoded nothing (``BarcodeRecognizer/unreadQRCode()``) and the analyzer locates a secure code there (its
    /// finder and alignment patterns, the secure graphic inside the frame with the grey level the design prints,
    /// ``secureGraphicLevels``) whose sharpness is under ``SecureQRConfiguration/sharpnessThreshold``: a code too
    /// blurred to decode, for which "hold still" is the guidance. Such an analysis has no payload (`bytes` and `text`
    /// are `nil`), so it is never completed on. `UNREADABLE` otherwise. A plain QR code of the same version blurred
    /// past decoding cannot be told from a secure one; the guidance is the same.
    func undecoded(_ luma: LumaView) -> SecureQRFrameAnalysis {
        let unreadable = SecureQRFrameAnalysis(state: .unreadable)
        guard let code = reader.unreadQRCode() else { return unreadable }
        var result = lv_sqr_analysis()
        let status = withUnsafeBytes(of: code.corners) { raw in
            lv_sqr_analyze(
                analyzer, luma.baseAddress, Int32(luma.width), Int32(luma.height), luma.stride,
                raw.baseAddress?.assumingMemoryBound(to: Float.self), 4, &design, &result)
        }
        guard status == 0, result.found == Int32(LV_SQR_FOUND_ALL), result.measured != 0 else { return unreadable }
        let geometry = Self.geometry(of: result)
        let measurements = Self.measurements(of: result, cellsPerModule: configuration.design.cellsPerModule)
        guard secureGraphicInside(geometry, luma), Self.secureGraphicLevels.contains(measurements.meanLevel),
            measurements.sharpness < configuration.sharpnessThreshold
        else { return unreadable }
        return SecureQRFrameAnalysis(
            state: .blurry, symbology: .qrCode, polygon: geometry.codePolygon, geometry: geometry,
            measurements: measurements)
    }

    /// Whether the secure graphic lies inside the frame with ``SecureQRConfiguration/fingerprintMargin`` pixels to
    /// spare.
    func secureGraphicInside(_ geometry: SecureQRGeometry, _ luma: LumaView) -> Bool {
        let margin = Double(configuration.fingerprintMargin)
        return geometry.secureGraphicPolygon.allSatisfy { point in
            point.x >= margin && point.y >= margin && point.x <= Double(luma.width - 1) - margin
                && point.y <= Double(luma.height - 1) - margin
        }
    }

    /// Estimated pixels per cell below which a decoded issuer's code whose patterns could not be located is
    /// `TOO_SMALL` rather than `UNREADABLE` (when also below ``SecureQRConfiguration/minimumPixelsPerCell``). The
    /// pattern search locates codes down to about 1 pixel per cell; a code that fails it at 1.5 or more has a pattern
    /// hidden or damaged, which moving closer does not mend.
    public static let locatablePixelsPerCell = 1.5

    /// The state of an issuer's code that was read but whose patterns could not be located or measured: `TOO_SMALL`
    /// when its estimated pixels per cell are below both the minimum and ``locatablePixelsPerCell`` (too small for the
    /// pattern search), `UNREADABLE` otherwise.
    func unlocated(_ analysis: SecureQRFrameAnalysis) -> SecureQRFrameAnalysis {
        var analysis = analysis
        let limit = min(configuration.minimumPixelsPerCell, Self.locatablePixelsPerCell)
        if let pixelsPerCell = analysis.pixelsPerCell, pixelsPerCell < limit { analysis.state = .tooSmall }
        return analysis
    }

    /// Frame pixels per CDP cell of an issuer's code estimated from the decoder's polygon: the square root of its area
    /// over the code's modules per side (`modules`, else the count the issuer's design gives `bytes`), over the cells
    /// per module. `nil` without a four-corner polygon or when the payload does not encode.
    func estimatedPixelsPerCell(polygon: [Point], bytes: [UInt8]?, modules known: Int? = nil) -> Double? {
        guard polygon.count == 4, let bytes, !bytes.isEmpty else { return nil }
        let modules: Int
        if let known {
            modules = known
        } else if let cached = moduleCountCache, cached.bytes == bytes {
            modules = cached.modules
        } else {
            let capacity = Int(LV_SQR_MAX_MODULES) * Int(LV_SQR_MAX_MODULES)
            var version: Int32 = 0
            let design = configuration.design
            let count = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
                lv_sqr_encode(
                    bytes, bytes.count, Int32(design.version), design.errorCorrection.cValue, buffer.baseAddress,
                    capacity, &version)
            }
            guard count > 0 else { return nil }
            modules = Int(count)
            moduleCountCache = (bytes, modules)
        }
        return Self.area(polygon).squareRoot() / Double(modules) / Double(configuration.design.cellsPerModule)
    }

    /// Adds `state` to the recent states and returns the steady state: it changes to another state only when that
    /// state is the raw state of a majority of the last ``SecureQRGuidance/window`` frames.
    func smooth(_ state: ScanState) -> ScanState {
        if recentStates.count >= SecureQRGuidance.window { recentStates.removeFirst() }
        recentStates.append(state)
        guard let current = steadyState else {
            steadyState = state
            return state
        }
        if state != current, recentStates.lazy.filter({ $0 == state }).count * 2 > SecureQRGuidance.window {
            steadyState = state
            return state
        }
        return current
    }

    /// Runs `reader` over the frame with a fresh duplicate filter, so every QR code read is reported.
    func readQR(_ luma: LumaView, with reader: BarcodeRecognizer? = nil) {
        let reader = reader ?? self.reader
        readerReports.removeAll(keepingCapacity: true)
        reader.reset()
        readerFrame &+= 1
        let time = MonotonicInstant(nanoseconds: 0)
        let metadata = FrameMetadata(
            index: readerFrame, driverSequence: 0, captureTime: time, dequeueTime: time,
            format: FrameFormat(pixelFormat: .grey, width: luma.width, height: luma.height),
            bytesUsed: luma.width * luma.height)
        reader.process(luma, metadata: metadata, into: &readerReports)
    }

    static func geometry(of result: lv_sqr_analysis) -> SecureQRGeometry {
        let centres = withUnsafeBytes(of: result.centres) { Array($0.bindMemory(to: Double.self)) }
        let homography = withUnsafeBytes(of: result.homography) { Array($0.bindMemory(to: Double.self)) }
        let code = withUnsafeBytes(of: result.code) { Array($0.bindMemory(to: Double.self)) }
        let region = withUnsafeBytes(of: result.region) { Array($0.bindMemory(to: Double.self)) }
        func points(_ xy: [Double]) -> [Point] { (0..<(xy.count / 2)).map { Point(x: xy[2 * $0], y: xy[2 * $0 + 1]) } }
        let pattern = points(centres)
        return SecureQRGeometry(
            version: Int(result.version), modules: Int(result.modules),
            patternCentres: SecureQRPatternCentres(
                topLeft: pattern[0], topRight: pattern[1], bottomLeft: pattern[2], alignment: pattern[3]),
            homography: homography, codePolygon: points(code), secureGraphic: SecureQRModuleRect(result.layout.region),
            secureGraphicPolygon: points(region))
    }

    static func measurements(of result: lv_sqr_analysis, cellsPerModule: Int) -> SecureQRMeasurements {
        SecureQRMeasurements(
            modulePixels: result.module_px, pixelsPerCell: result.module_px / Double(cellsPerModule),
            darkLevel: result.dark, lightLevel: result.light, meanLevel: result.mean_level,
            moduleEnergy: result.module_energy, cellEnergy: result.cell_energy,
            textureRatio: result.cell_energy / max(result.module_energy, 1e-6), sharpness: result.sharpness)
    }

    static func area(_ polygon: [Point]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var sum = 0.0
        for index in polygon.indices {
            let (a, b) = (polygon[index], polygon[(index + 1) % polygon.count])
            sum += a.x * b.y - b.x * a.y
        }
        return abs(sum) / 2
    }
}
