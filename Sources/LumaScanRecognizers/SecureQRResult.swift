// What the secure-QR recognizer delivers with a completed scan (SecureQRResult) and on its IN_PROGRESS reports
// (SecureQRGuidance). Plain data (no C, no recognizer state); both are ScanReportDetails that write their own JSON.
import LumaScanCore

/// A rectangle in module coordinates (origin at the code's outer top-left corner, one unit per module).
public struct SecureQRModuleRect: Hashable, Sendable, Codable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width.
    public var width: Double
    /// Height.
    public var height: Double

    /// Creates a rectangle.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The corners: top left, top right, bottom right, bottom left.
    public var corners: [Point] {
        [Point(x: x, y: y), Point(x: x + width, y: y), Point(x: x + width, y: y + height), Point(x: x, y: y + height)]
    }
}

/// The centres of the four patterns a secure QR code must show, in frame pixels.
public struct SecureQRPatternCentres: Hashable, Sendable, Codable {
    /// The top-left finder pattern's centre (module coordinates (3.5, 3.5)).
    public var topLeft: Point
    /// The top-right finder pattern's centre (module coordinates (N − 3.5, 3.5)).
    public var topRight: Point
    /// The bottom-left finder pattern's centre (module coordinates (3.5, N − 3.5)).
    public var bottomLeft: Point
    /// The bottom-right alignment pattern's centre (module coordinates (N − 6.5, N − 6.5)).
    public var alignment: Point

    /// Creates a set of centres.
    public init(topLeft: Point, topRight: Point, bottomLeft: Point, alignment: Point) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomLeft = bottomLeft
        self.alignment = alignment
    }
}

/// What the recognizer measured on a code's secure-graphic region (rectified at 2 pixels per CDP cell, half a module
/// in from its edges). Energies are in units of the code's contrast squared, `(lightLevel − darkLevel)²`.
public struct SecureQRMeasurements: Hashable, Sendable, Codable {
    /// Mean module side in frame pixels over the secure-graphic region.
    public var modulePixels: Double
    /// Frame pixels per CDP cell (``modulePixels`` / cells per module).
    public var pixelsPerCell: Double
    /// Luma of the code's dark modules (the finder patterns' cores).
    public var darkLevel: Double
    /// Luma of the paper (the quiet zone beside the finder patterns).
    public var lightLevel: Double
    /// The region's mean, 0 at ``darkLevel`` and 1 at ``lightLevel``; about 0.5 for a CDP and for QR modules, near 1
    /// for blank paper.
    public var meanLevel: Double
    /// Variance of the means of module-sized blocks: high (about 0.2) for QR modules, low for a CDP (its cells average
    /// out over a module) and for blank paper.
    public var moduleEnergy: Double
    /// Mean variance inside module-sized blocks: texture finer than a module, high (about 0.2) for a sharp CDP.
    public var cellEnergy: Double
    /// ``cellEnergy`` / ``moduleEnergy``: the texture at the CDP's cell frequency measured against the module
    /// frequency. Compared with ``SecureQRConfiguration/noAuthTextureRatio``.
    public var textureRatio: Double
    /// Tenengrad sharpness: the mean squared Sobel gradient per pixel of the region rectified at 2 pixels per cell, in
    /// contrast units. Compared with ``SecureQRConfiguration/sharpnessThreshold``.
    public var sharpness: Double

    /// Creates measurements.
    public init(
        modulePixels: Double, pixelsPerCell: Double, darkLevel: Double, lightLevel: Double, meanLevel: Double,
        moduleEnergy: Double, cellEnergy: Double, textureRatio: Double, sharpness: Double
    ) {
        self.modulePixels = modulePixels
        self.pixelsPerCell = pixelsPerCell
        self.darkLevel = darkLevel
        self.lightLevel = lightLevel
        self.meanLevel = meanLevel
        self.moduleEnergy = moduleEnergy
        self.cellEnergy = cellEnergy
        self.textureRatio = textureRatio
        self.sharpness = sharpness
    }
}

/// Where a secure QR code is in a frame, as the recognizer located it.
public struct SecureQRGeometry: Hashable, Sendable, Codable {
    /// The QR version read from the finder spacing and the timing patterns.
    public var version: Int
    /// Modules per side (17 + 4 × version).
    public var modules: Int
    /// The centres of the finder patterns and the alignment pattern.
    public var patternCentres: SecureQRPatternCentres
    /// The homography from module coordinates (origin at the code's outer top-left corner, one unit per module) to
    /// frame pixels, row-major: `[h00, h01, h02, h10, h11, h12, h20, h21, h22]`.
    public var homography: [Double]
    /// The code's outer corners in frame pixels: top left, top right, bottom right, bottom left (in the code's
    /// orientation).
    public var codePolygon: [Point]
    /// The secure graphic (centre square or fingerprint zone) in module coordinates.
    public var secureGraphic: SecureQRModuleRect
    /// The secure graphic's corners in frame pixels, in the same order as ``codePolygon``.
    public var secureGraphicPolygon: [Point]

    /// Creates a geometry.
    public init(
        version: Int, modules: Int, patternCentres: SecureQRPatternCentres, homography: [Double], codePolygon: [Point],
        secureGraphic: SecureQRModuleRect, secureGraphicPolygon: [Point]
    ) {
        self.version = version
        self.modules = modules
        self.patternCentres = patternCentres
        self.homography = homography
        self.codePolygon = codePolygon
        self.secureGraphic = secureGraphic
        self.secureGraphicPolygon = secureGraphicPolygon
    }

    /// Maps module coordinates to frame pixels through ``homography``.
    public func framePoint(module x: Double, _ y: Double) -> Point {
        let h = homography
        let w = h[6] * x + h[7] * y + h[8]
        return Point(x: (h[0] * x + h[1] * y + h[2]) / w, y: (h[3] * x + h[4] * y + h[5]) / w)
    }
}

/// What the recognizer saw in one frame, before the completion logic: the frame's scan state and the evidence for it.
public struct SecureQRFrameAnalysis: Hashable, Sendable {
    /// The frame's scan state (see ``SecureQRRecognizer`` for the order in which they are decided).
    public var state: ScanState
    /// The symbology of the code the state is about, when one was read.
    public var symbology: Symbology?
    /// The code's payload as text, when one was read.
    public var text: String?
    /// The code's payload bytes, when one was read.
    public var bytes: [UInt8]?
    /// zbar's polygon of the code, in frame pixels; empty when nothing was read.
    public var polygon: [Point]
    /// Whether the payload is on an issuer's domain.
    public var isIssuerCode: Bool
    /// Where the code is, when all four patterns were located.
    public var geometry: SecureQRGeometry?
    /// The secure graphic's measurements, when it was inside the frame and measured.
    public var measurements: SecureQRMeasurements?
    /// Frame pixels per CDP cell of an issuer's code: ``SecureQRMeasurements/pixelsPerCell`` when measured, else
    /// estimated from the decoder's polygon (the square root of its area over the module count the issuer's design
    /// gives the payload, over the cells per module) when the patterns could not be located; `nil` when neither.
    public var pixelsPerCell: Double?

    /// Creates an analysis.
    public init(
        state: ScanState, symbology: Symbology? = nil, text: String? = nil, bytes: [UInt8]? = nil,
        polygon: [Point] = [], isIssuerCode: Bool = false, geometry: SecureQRGeometry? = nil,
        measurements: SecureQRMeasurements? = nil, pixelsPerCell: Double? = nil
    ) {
        self.state = state
        self.symbology = symbology
        self.text = text
        self.bytes = bytes
        self.polygon = polygon
        self.isIssuerCode = isIssuerCode
        self.geometry = geometry
        self.measurements = measurements
        self.pixelsPerCell = pixelsPerCell ?? measurements?.pixelsPerCell
    }
}

/// What an `IN_PROGRESS` secure-QR report tells a preview to show ("move closer", "hold still"), carried as its
/// ``ScanReport/detail`` (``ScanReportDetail/secureQRGuidance(_:)``).
///
/// The report's own state is the frame's raw state; ``steadyState`` is the state smoothed over the last frames, which
/// is what a user should be shown.
public struct SecureQRGuidance: Hashable, Sendable {
    /// The state smoothed over the last frames: it changes only when another state is the raw state of a majority of
    /// the last ``SecureQRGuidance/window`` frames, so one odd frame does not make the instruction flicker.
    public var steadyState: ScanState
    /// Frame pixels per CDP cell of the issuer's code in view (``SecureQRFrameAnalysis/pixelsPerCell``: measured, or
    /// estimated from the code's polygon); `nil` when none was read.
    public var pixelsPerCell: Double?
    /// The fewest pixels per cell the recognizer accepts (``SecureQRConfiguration``'s `minimumPixelsPerCell`).
    public var minimumPixelsPerCell: Double
    /// The secure graphic's sharpness (``SecureQRMeasurements/sharpness``), when measured.
    public var sharpness: Double?
    /// The lowest sharpness the recognizer accepts (``SecureQRConfiguration``'s `sharpnessThreshold`).
    public var sharpnessThreshold: Double
    /// The code's outline in frame pixels: its located corners (``SecureQRGeometry/codePolygon``) when located, else
    /// the decoder's polygon; empty when no code was read.
    public var polygon: [Point]

    /// How many frames the steady state is decided on.
    public static let window = 5

    /// How many times closer the code must be to reach ``minimumPixelsPerCell`` (above 1: move closer), when
    /// ``pixelsPerCell`` is known.
    public var closerFactor: Double? { pixelsPerCell.map { minimumPixelsPerCell / max($0, 1e-9) } }

    /// Creates guidance.
    public init(
        steadyState: ScanState, pixelsPerCell: Double?, minimumPixelsPerCell: Double, sharpness: Double?,
        sharpnessThreshold: Double, polygon: [Point]
    ) {
        self.steadyState = steadyState
        self.pixelsPerCell = pixelsPerCell
        self.minimumPixelsPerCell = minimumPixelsPerCell
        self.sharpness = sharpness
        self.sharpnessThreshold = sharpnessThreshold
        self.polygon = polygon
    }
}

/// A rectified image of a code and its secure graphic, ready to send for authentication.
public struct SecureQRCrop: Hashable, Sendable {
    /// The image as PNG (8-bit grey).
    public var png: [UInt8]
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Pixels per module.
    public var modulePixels: Int
    /// The module-coordinate rectangle the image shows: the code and the secure graphic with one module of margin.
    public var region: SecureQRModuleRect

    /// Creates a crop.
    public init(png: [UInt8], width: Int, height: Int, modulePixels: Int, region: SecureQRModuleRect) {
        self.png = png
        self.width = width
        self.height = height
        self.modulePixels = modulePixels
        self.region = region
    }
}

/// The on-device verdict on a secure graphic: genuine (printed from the issuer's original) or a copy.
public enum SecureQRAuthenticityDecision: String, Hashable, Sendable, Codable {
    /// The score reached the threshold.
    case genuine
    /// The score stayed below the threshold.
    case copy
}

/// How closely a captured secure graphic matches the copy-detection pattern regenerated from the code's seed
/// (`HMAC-SHA256(issuer key, payload)`), measured on the device (see `docs/secure-qr.md`, "Authenticity").
///
/// A copy loses the CDP's finest detail twice (scanned, then printed again), so its cells correlate less with the
/// template and more of them read wrong. The threshold depends on the printer and the camera: fit it with
/// `lumascan secure-qr calibrate` on captures of real originals and copies.
public struct SecureQRAuthenticity: Hashable, Sendable, Codable {
    /// The score: `0.9 × ` ``ncc`` `+ 0.1 × (1 − 2 × ` ``bitErrorRate`` `)`, 1 for a perfect match and about 0 for an
    /// unrelated pattern. The correlation separates originals from copies better than the error rate, which blur
    /// raises for originals too; the weights were chosen on one run of the print-and-capture simulation
    /// (`scripts/eval-copy-detection.sh --seed 13`) and checked on another (see `docs/secure-qr.md`).
    public var score: Double
    /// ``score`` against ``threshold``.
    public var decision: SecureQRAuthenticityDecision
    /// The threshold the score was compared with (the configuration's `authenticity.threshold`).
    public var threshold: Double
    /// Normalised cross-correlation of the rectified secure graphic with the template blurred to the capture's blur,
    /// tile by tile at each tile's best offset, weighted by cells.
    public var ncc: Double
    /// The share of CDP cells that read wrong after thresholding each tile at its mean.
    public var bitErrorRate: Double
    /// Frame pixels per CDP cell of the scored frame.
    public var pixelsPerCell: Double
    /// The capture's Gaussian blur (sigma) in CDP cells, measured on a finder pattern, that the template was blurred by.
    public var blurCells: Double

    /// The weight of ``ncc`` in ``score``; the rest goes to `1 − 2 × ` ``bitErrorRate``.
    public static let correlationWeight = 0.9

    /// Creates a verdict; ``score`` and ``decision`` follow from the measures and `threshold`.
    public init(
        ncc: Double, bitErrorRate: Double, threshold: Double, pixelsPerCell: Double, blurCells: Double
    ) {
        let score = Self.correlationWeight * ncc + (1 - Self.correlationWeight) * (1 - 2 * bitErrorRate)
        self.score = score
        decision = score >= threshold ? .genuine : .copy
        self.threshold = threshold
        self.ncc = ncc
        self.bitErrorRate = bitErrorRate
        self.pixelsPerCell = pixelsPerCell
        self.blurCells = blurCells
    }
}

/// A completed secure-QR scan: what the recognizer delivered with a `COMPLETED_RESULT` (or, in unsupported mode, a
/// final `UNSUPPORTED_RESULT`) report.
///
/// For `OK` and `BLURRY` completions in secure mode it carries the chosen frame's geometry, measurements and
/// rectified crop; for the other completions, what was known about the code.
public struct SecureQRResult: Hashable, Sendable {
    /// The report type of the completion.
    public var reportType: ReportType
    /// The scan state of the completion.
    public var state: ScanState
    /// The id of the recognizer that made it.
    public var recognizerID: String
    /// The index of the frame whose report announced the completion.
    public var reportFrameIndex: UInt64
    /// The index of the frame the delivered scan comes from (the sharpest of the stable or seen frames).
    public var frameIndex: UInt64
    /// When that frame was captured.
    public var captureTime: MonotonicInstant
    /// The code's symbology (QR Code except in limited mode).
    public var symbology: Symbology?
    /// The payload as text.
    public var text: String?
    /// The payload's bytes.
    public var bytes: [UInt8]?
    /// zbar's polygon of the code in that frame.
    public var polygon: [Point]
    /// Whether the code is a hybrid one (fingerprint zone).
    public var isHybrid: Bool
    /// The code's geometry in that frame, when located.
    public var geometry: SecureQRGeometry?
    /// The secure graphic's measurements in that frame, when measured.
    public var measurements: SecureQRMeasurements?
    /// The rectified crop of the code and its secure graphic, for `OK` and `BLURRY` completions.
    public var crop: SecureQRCrop?
    /// The on-device authenticity score of the delivered scan, for `OK` and `BLURRY` completions in secure mode when
    /// an issuer key is configured (`authenticity.keyFile`) and the secure graphic was measured.
    public var authenticity: SecureQRAuthenticity?

    /// Creates a result.
    public init(
        reportType: ReportType, state: ScanState, recognizerID: String, reportFrameIndex: UInt64, frameIndex: UInt64,
        captureTime: MonotonicInstant, symbology: Symbology?, text: String?, bytes: [UInt8]?, polygon: [Point],
        isHybrid: Bool, geometry: SecureQRGeometry?, measurements: SecureQRMeasurements?, crop: SecureQRCrop?,
        authenticity: SecureQRAuthenticity? = nil
    ) {
        self.reportType = reportType
        self.state = state
        self.recognizerID = recognizerID
        self.reportFrameIndex = reportFrameIndex
        self.frameIndex = frameIndex
        self.captureTime = captureTime
        self.symbology = symbology
        self.text = text
        self.bytes = bytes
        self.polygon = polygon
        self.isHybrid = isHybrid
        self.geometry = geometry
        self.measurements = measurements
        self.crop = crop
        self.authenticity = authenticity
    }
}

extension SecureQRResult: ScanReportDetail {
    /// `secureQR`.
    public var jsonKey: String { "secureQR" }

    /// The `secureQR` object: `scanFrame` (the frame the scan comes from, the sharpest seen) and its
    /// `scanCaptureTime`, `hybrid`; when the code was located `version`, `modules`, `codePolygon` and
    /// `secureGraphicPolygon` (frame pixels); when measured `measurements` (every ``SecureQRMeasurements`` property by
    /// name); for `OK` and `BLURRY` completions in secure mode `crop` (`width`, `height`, `modulePixels`, `pngBase64`:
    /// the rectified code and secure graphic as 8-bit grey PNG, ready to send for authentication); when scored on the
    /// device `authenticity` (see ``SecureQRAuthenticity/json``).
    public var json: JSONObject {
        var object = JSONObject()
        object.add("scanFrame", Int(frameIndex))
        object.add("scanCaptureTime", captureTime.seconds)
        object.add("hybrid", isHybrid)
        if let geometry {
            object.add("version", geometry.version)
            object.add("modules", geometry.modules)
            object.addRaw("codePolygon", JSONText.points(geometry.codePolygon))
            object.addRaw("secureGraphicPolygon", JSONText.points(geometry.secureGraphicPolygon))
        }
        if let measured = measurements {
            var measurements = JSONObject()
            let values: [(String, Double)] = [
                ("modulePixels", measured.modulePixels), ("pixelsPerCell", measured.pixelsPerCell),
                ("darkLevel", measured.darkLevel), ("lightLevel", measured.lightLevel),
                ("meanLevel", measured.meanLevel), ("moduleEnergy", measured.moduleEnergy),
                ("cellEnergy", measured.cellEnergy), ("textureRatio", measured.textureRatio),
                ("sharpness", measured.sharpness),
            ]
            for (key, value) in values { measurements.add(key, value) }
            object.add("measurements", measurements)
        }
        if let crop {
            var cropObject = JSONObject()
            cropObject.add("width", crop.width)
            cropObject.add("height", crop.height)
            cropObject.add("modulePixels", crop.modulePixels)
            cropObject.add("pngBase64", JSONText.base64(crop.png))
            object.add("crop", cropObject)
        }
        if let authenticity { object.add("authenticity", authenticity.json) }
        return object
    }
}

extension SecureQRAuthenticity {
    /// The `authenticity` object of a secure-QR completion: `score`, `decision` (`genuine` or `copy`), `threshold`,
    /// `ncc`, `bitErrorRate`, `pixelsPerCell` and `blurCells`.
    public var json: JSONObject {
        var object = JSONObject()
        object.add("score", score)
        object.add("decision", decision.rawValue)
        let values: [(String, Double)] = [
            ("threshold", threshold), ("ncc", ncc), ("bitErrorRate", bitErrorRate), ("pixelsPerCell", pixelsPerCell),
            ("blurCells", blurCells),
        ]
        for (key, value) in values { object.add(key, value) }
        return object
    }
}

extension SecureQRGuidance: ScanReportDetail {
    /// `guidance`.
    public var jsonKey: String { "guidance" }

    /// The `guidance` object of a secure-QR `IN_PROGRESS` report: `steadyState` (the state smoothed over the last
    /// frames, to show the user), `minimumPixelsPerCell` and `sharpnessThreshold`; `pixelsPerCell` and `closerFactor`
    /// (how many times closer to reach the minimum) when an issuer's code was read, `sharpness` when measured,
    /// `polygon` (the code's outline in frame pixels) when a code was located.
    public var json: JSONObject {
        var object = JSONObject()
        object.add("steadyState", steadyState.rawValue)
        if let pixelsPerCell { object.add("pixelsPerCell", pixelsPerCell) }
        object.add("minimumPixelsPerCell", minimumPixelsPerCell)
        if let closerFactor { object.add("closerFactor", closerFactor) }
        if let sharpness { object.add("sharpness", sharpness) }
        object.add("sharpnessThreshold", sharpnessThreshold)
        if !polygon.isEmpty { object.addRaw("polygon", JSONText.points(polygon)) }
        return object
    }
}

extension ScanReportDetail {
    /// The secure-QR result, when this detail is one.
    public var secureQR: SecureQRResult? { self as? SecureQRResult }
    /// The secure-QR guidance, when this detail is one.
    public var secureQRGuidance: SecureQRGuidance? { self as? SecureQRGuidance }
}
