import LumaScanCore

/// How a ``SecureQRRecognizer`` works: full secure-QR checks, a plain QR reader for cameras that cannot resolve the
/// secure graphic, or the limited mode that also reads 1D codes.
public enum SecureQRMode: String, Hashable, Sendable, Codable, CaseIterable {
    /// Every check: scan states from `UNREADABLE` to `OK`, the best scan delivered for authentication.
    case secure
    /// The camera cannot resolve the secure graphic (see ``SecureQRCameraRequirements``): a plain QR reader whose
    /// reports are all `UNSUPPORTED_RESULT` — `UNREADABLE` (processing continues), `OK` for an issuer's code and
    /// `NOT_PROPRIETARY` for any other QR code (both stop processing).
    case unsupported
    /// The ScanTrust SDK's limited camera manager: QR codes and the 1D symbologies in
    /// ``SecureQRConfiguration/limitedSymbologies``; `COMPLETED_RESULT` `OK` for an issuer's code, `COMPLETED_RESULT`
    /// `NOT_PROPRIETARY` for any other code, `IN_PROGRESS` `UNREADABLE` while nothing is read.
    case limited
}

/// How a ``SecureQRRecognizer`` decides each frame's scan state and when a scan is complete.
///
/// Immutable once a recognizer is built from it. Decoding from JSON fills missing keys with their defaults and
/// rejects unknown keys; ``validate()`` errors are ``LumaScanError`` with code `.invalidConfiguration` and a message
/// that starts with the JSON path, such as
/// `viewPluginConfig.pluginConfig.secureQRConfig.stableFrameCount: 0 is outside 1...100`.
///
/// The thresholds' defaults were calibrated on codes made by ``SecureQRGenerator`` and rendered through a simulated
/// camera (see `docs/secure-qr.md`, which also explains each measure).
public struct SecureQRConfiguration: Hashable, Sendable, Codable {
    /// The JSON path under which the configuration lives in a view configuration; validation messages start with it.
    public static let jsonPath = "viewPluginConfig.pluginConfig.secureQRConfig"

    /// The recognizer's id, copied into every report.
    ///
    /// Default: `"secure-qr"`.
    public var id: String

    /// The URL prefixes of the issuers' domains, such as `"https://scan.example.com/q/"`: a code is the issuers'
    /// when its payload starts with one of them (scheme and host compared without regard to case). At least one is
    /// required.
    ///
    /// Default: `[]` (the recognizer refuses to start until prefixes are set).
    public var issuerPrefixes: [String]

    /// The geometry of the issuers' codes.
    ///
    /// Default: `SecureQRDesign()` — version 4, error correction Q, 4 cells per module, CDP in the centre.
    public var design: SecureQRDesign

    /// Full checks, plain QR reading for unsupported cameras, or the limited mode.
    ///
    /// Default: `.secure`.
    public var mode: SecureQRMode

    /// Consecutive `OK` frames of the same code after which the scan is complete (`COMPLETED_RESULT` `OK`, carrying
    /// the sharpest of those frames).
    ///
    /// Default: `3`.
    public var stableFrameCount: Int

    /// Seconds an issuer's code may stay in view without a complete scan before the recognizer gives up and delivers
    /// the sharpest scan it saw as `COMPLETED_RESULT` `BLURRY` (the SDK's insufficient-quality event). Measured on
    /// frames' capture times.
    ///
    /// Default: `4.0`.
    public var insufficientQualityTimeout: Double

    /// Seconds an issuer's code may go unseen (frames where it is not read) without ending its appearance: a longer
    /// gap restarts the insufficient-quality timer and forgets the sharpest scan.
    ///
    /// Default: `0.5`.
    public var absenceTolerance: Double

    /// The fewest frame pixels per CDP cell (along a side) at which the secure graphic is checked; smaller codes are
    /// `TOO_SMALL`. With 4 cells per module, the default asks for 8 pixels per module.
    ///
    /// Default: `2.0`.
    public var minimumPixelsPerCell: Double

    /// The texture at the CDP's cell frequency measured against the module frequency
    /// (``SecureQRMeasurements/textureRatio``) below which the secure-graphic region shows no CDP. It makes a frame
    /// `NO_AUTH` only together with ``noAuthModuleEnergy``: a region of QR modules measures below 0.3 at any blur
    /// that leaves the code readable, a sharp CDP about 10 to 15, and a CDP blurred by 1.5 cells still about 0.6.
    ///
    /// Default: `0.4`.
    public var noAuthTextureRatio: Double

    /// The module-scale texture (``SecureQRMeasurements/moduleEnergy``, in contrast² units) from which the region
    /// shows QR modules rather than a CDP. A CDP's cells average out over a module (0.25 / cellsPerModule² = 0.016
    /// with 4 cells, less when blurred), while QR modules measure 0.05 to 0.23 from sharp to barely readable, so blur,
    /// which lowers the texture ratio of a CDP, cannot make it look like modules. Recalibrate it with the generator
    /// for designs with other than 4 cells per module.
    ///
    /// Default: `0.03`.
    public var noAuthModuleEnergy: Double

    /// The lowest Tenengrad sharpness (``SecureQRMeasurements/sharpness``) of the secure graphic rectified at 2 pixels
    /// per cell, in units of the code's contrast squared, at which a frame is sharp enough to authenticate; below it the
    /// frame is `BLURRY`. A sharp CDP measures 0.07 to 0.12, 0.05 to 0.07 under Gaussian blur of a quarter cell, about
    /// 0.03 at 0.4 cell and 0.003 at 1 cell.
    ///
    /// Default: `0.04`.
    public var sharpnessThreshold: Double

    /// Pixels that a hybrid code's fingerprint zone must keep from the frame's edges; closer, the frame is
    /// `FP_NOT_IN_FRAME`.
    ///
    /// Default: `4`.
    public var fingerprintMargin: Int

    /// Pixels per module of the rectified crop (code and secure graphic, with one module of margin) delivered for
    /// authentication (4...32).
    ///
    /// Default: `12` (3 pixels per cell with 4 cells per module).
    public var cropModulePixels: Int

    /// The factor (1...4) by which frames are box-shrunk before zbar reads QR codes in ``SecureQRMode/secure`` mode
    /// (the pattern location and the measurements always use the full-resolution frame). At 2, zbar reads a quarter of
    /// the pixels (about 18 ms instead of 65 ms for a 1080p frame on one core) and the averaging halves sensor noise,
    /// which otherwise breaks zbar's finder detection on codes with large modules; codes below about 6 pixels per
    /// module then no longer decode, and those are `TOO_SMALL` anyway at the default 8. ``SecureQRMode/unsupported``
    /// mode reads a frame at full resolution as well when the shrunk frame shows no code; ``SecureQRMode/limited``
    /// mode uses the barcode recognizer's automatic choice.
    ///
    /// Default: `2`.
    public var qrDownscale: Int

    /// The symbologies read in ``SecureQRMode/limited`` mode.
    ///
    /// Default: QR Code, UPC-A, UPC-E, EAN-8, EAN-13, Code 39, Code 93, Code 128, Interleaved 2 of 5, DataBar and
    /// DataBar Expanded (``limitedModeSymbologies``).
    public var limitedSymbologies: [Symbology]

    /// On-device copy detection: the issuer's key file, from which each code's CDP is regenerated, and the score
    /// threshold (``SecureQRAuthenticityConfiguration``). Scores are reported on `OK` and `BLURRY` completions in
    /// ``SecureQRMode/secure`` mode (``SecureQRResult/authenticity``).
    ///
    /// Default: no key file (no score), threshold `0.92`.
    public var authenticity: SecureQRAuthenticityConfiguration

    /// The symbologies of the ScanTrust SDK's limited camera manager.
    public static let limitedModeSymbologies: [Symbology] = [
        .qrCode, .upcA, .upcE, .ean8, .ean13, .code39, .code93, .code128, .interleaved2of5, .dataBar, .dataBarExpanded,
    ]

    /// Creates a configuration; every parameter has the default its property documents.
    public init(
        id: String = "secure-qr", issuerPrefixes: [String] = [], design: SecureQRDesign = .init(),
        mode: SecureQRMode = .secure, stableFrameCount: Int = 3, insufficientQualityTimeout: Double = 4.0,
        absenceTolerance: Double = 0.5, minimumPixelsPerCell: Double = 2.0, noAuthTextureRatio: Double = 0.4,
        noAuthModuleEnergy: Double = 0.03, sharpnessThreshold: Double = 0.04, fingerprintMargin: Int = 4,
        cropModulePixels: Int = 12, qrDownscale: Int = 2,
        limitedSymbologies: [Symbology] = SecureQRConfiguration.limitedModeSymbologies,
        authenticity: SecureQRAuthenticityConfiguration = .init()
    ) {
        self.id = id
        self.issuerPrefixes = issuerPrefixes
        self.design = design
        self.mode = mode
        self.stableFrameCount = stableFrameCount
        self.insufficientQualityTimeout = insufficientQualityTimeout
        self.absenceTolerance = absenceTolerance
        self.minimumPixelsPerCell = minimumPixelsPerCell
        self.noAuthTextureRatio = noAuthTextureRatio
        self.noAuthModuleEnergy = noAuthModuleEnergy
        self.sharpnessThreshold = sharpnessThreshold
        self.fingerprintMargin = fingerprintMargin
        self.cropModulePixels = cropModulePixels
        self.qrDownscale = qrDownscale
        self.limitedSymbologies = limitedSymbologies
        self.authenticity = authenticity
    }

    /// Whether `payload` is on one of the issuers' domains: it starts with one of ``issuerPrefixes``, comparing the
    /// scheme and host (up to the first `/` after `://`) without regard to case and the rest exactly.
    public func isIssuerPayload(_ payload: String) -> Bool {
        issuerPrefixes.contains { Self.hasPrefix(payload, $0) }
    }

    static func hasPrefix(_ payload: String, _ prefix: String) -> Bool {
        let text = Array(payload.utf8)
        let start = Array(prefix.utf8)
        guard text.count >= start.count else { return false }
        // The scheme and host end at the first "/" after "://" (or at the end of the prefix).
        var hostEnd = start.count
        let separator = Array("://".utf8)
        if let scheme = (0..<max(0, start.count - 2)).first(where: { Array(start[$0..<($0 + 3)]) == separator }) {
            hostEnd = start[(scheme + 3)...].firstIndex(of: UInt8(ascii: "/")) ?? start.count
        }
        for index in 0..<start.count {
            let (a, b) = (text[index], start[index])
            if index < hostEnd {
                guard lowercased(a) == lowercased(b) else { return false }
            } else {
                guard a == b else { return false }
            }
        }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// Checks every value; the error's message starts with the JSON path of the first bad one.
    public func validate() throws(LumaScanError) {
        try validate(path: Self.jsonPath)
    }

    /// ``validate()`` for the configuration at `root` in a document: the messages start with that path.
    public func validate(path root: String) throws(LumaScanError) {
        func fail(_ key: String, _ problem: String) -> LumaScanError {
            LumaScanError(.invalidConfiguration, "\(root).\(key): \(problem)")
        }
        guard !id.isEmpty else { throw fail("id", "must not be empty") }
        guard !issuerPrefixes.isEmpty else {
            throw fail("issuerPrefixes", "list at least one issuer URL prefix, such as \"https://scan.example.com/\"")
        }
        for (index, prefix) in issuerPrefixes.enumerated() {
            guard prefix.contains("://"), prefix.count >= 8 else {
                throw fail("issuerPrefixes[\(index)]", "\"\(prefix)\" is not a URL prefix (scheme://host...)")
            }
        }
        try design.validate(path: "\(root).design")
        guard (1...100).contains(stableFrameCount) else {
            throw fail("stableFrameCount", "\(stableFrameCount) is outside 1...100")
        }
        guard insufficientQualityTimeout.isFinite, insufficientQualityTimeout > 0, insufficientQualityTimeout <= 600
        else {
            throw fail("insufficientQualityTimeout", "\(insufficientQualityTimeout) s is outside 0...600 s")
        }
        guard absenceTolerance.isFinite, absenceTolerance >= 0, absenceTolerance <= 60 else {
            throw fail("absenceTolerance", "\(absenceTolerance) s is outside 0...60 s")
        }
        guard minimumPixelsPerCell.isFinite, minimumPixelsPerCell >= 0.5, minimumPixelsPerCell <= 16 else {
            throw fail("minimumPixelsPerCell", "\(minimumPixelsPerCell) is outside 0.5...16")
        }
        guard noAuthTextureRatio.isFinite, noAuthTextureRatio > 0, noAuthTextureRatio <= 100 else {
            throw fail("noAuthTextureRatio", "\(noAuthTextureRatio) is outside 0...100")
        }
        guard noAuthModuleEnergy.isFinite, noAuthModuleEnergy > 0, noAuthModuleEnergy <= 1 else {
            throw fail("noAuthModuleEnergy", "\(noAuthModuleEnergy) is outside 0...1")
        }
        guard sharpnessThreshold.isFinite, sharpnessThreshold >= 0, sharpnessThreshold <= 10 else {
            throw fail("sharpnessThreshold", "\(sharpnessThreshold) is outside 0...10")
        }
        guard (0...1000).contains(fingerprintMargin) else {
            throw fail("fingerprintMargin", "\(fingerprintMargin) px is outside 0...1000")
        }
        guard (4...32).contains(cropModulePixels) else {
            throw fail("cropModulePixels", "\(cropModulePixels) is outside 4...32")
        }
        guard (1...4).contains(qrDownscale) else { throw fail("qrDownscale", "\(qrDownscale) is outside 1...4") }
        guard !limitedSymbologies.isEmpty else { throw fail("limitedSymbologies", "enable at least one symbology") }
        for (index, symbology) in limitedSymbologies.enumerated() where limitedSymbologies[..<index].contains(symbology)
        {
            throw fail("limitedSymbologies[\(index)]", "\(symbology.rawValue) is listed twice")
        }
        try authenticity.validate(path: "\(root).authenticity")
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, issuerPrefixes, design, mode, stableFrameCount, insufficientQualityTimeout, absenceTolerance
        case minimumPixelsPerCell, noAuthTextureRatio, noAuthModuleEnergy, sharpnessThreshold, fingerprintMargin
        case cropModulePixels, qrDownscale, limitedSymbologies, authenticity
    }

    /// Decodes a configuration: missing keys take their defaults; unknown keys are errors naming their JSON path and
    /// the closest known key. Values are range-checked by ``validate()``, which ``SecureQRRecognizer`` calls.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = SecureQRConfiguration()
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        id = try value(.id, defaults.id)
        issuerPrefixes = try value(.issuerPrefixes, defaults.issuerPrefixes)
        design = try value(.design, defaults.design)
        mode = try value(.mode, defaults.mode)
        stableFrameCount = try container.decodeIntegerIfPresent(forKey: .stableFrameCount) ?? defaults.stableFrameCount
        insufficientQualityTimeout = try value(.insufficientQualityTimeout, defaults.insufficientQualityTimeout)
        absenceTolerance = try value(.absenceTolerance, defaults.absenceTolerance)
        minimumPixelsPerCell = try value(.minimumPixelsPerCell, defaults.minimumPixelsPerCell)
        noAuthTextureRatio = try value(.noAuthTextureRatio, defaults.noAuthTextureRatio)
        noAuthModuleEnergy = try value(.noAuthModuleEnergy, defaults.noAuthModuleEnergy)
        sharpnessThreshold = try value(.sharpnessThreshold, defaults.sharpnessThreshold)
        fingerprintMargin =
            try container.decodeIntegerIfPresent(forKey: .fingerprintMargin) ?? defaults.fingerprintMargin
        cropModulePixels = try container.decodeIntegerIfPresent(forKey: .cropModulePixels) ?? defaults.cropModulePixels
        qrDownscale = try container.decodeIntegerIfPresent(forKey: .qrDownscale) ?? defaults.qrDownscale
        limitedSymbologies = try value(.limitedSymbologies, defaults.limitedSymbologies)
        authenticity = try value(.authenticity, defaults.authenticity)
    }
}
