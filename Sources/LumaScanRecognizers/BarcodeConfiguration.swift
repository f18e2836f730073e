import LumaScanCore

/// How a ``BarcodeRecognizer`` reads codes: which symbologies, where in the frame, how hard, and how it filters what
/// it reads across frames.
///
/// Immutable once a recognizer is built from it. Decoding from JSON fills missing keys with their defaults and
/// rejects unknown keys; errors are ``LumaScanError`` with code `.invalidConfiguration` and a message that starts with
/// the JSON path, such as `barcodeConfig.minLength.ean13: 14 excludes EAN-13's fixed length of 13`.
///
/// Symbology conventions (zbar's, made explicit):
/// - A UPC-A code is an EAN-13 whose first digit is 0. With ``Symbology/upcA`` enabled it is reported as `.upcA`
///   with its 12 digits; with only ``Symbology/ean13`` enabled it is reported as `.ean13` with 13 digits, the first
///   being 0.
/// - An EAN-13 in the 978/979 (Bookland) range is reported as `.isbn13` (the same 13 digits) when
///   ``Symbology/isbn13`` is enabled, else as `.isbn10` (10 characters, the check character recomputed, possibly
///   `X`) when ``Symbology/isbn10`` is enabled and the prefix is 978, else as `.ean13`. The default enables every
///   symbology, so books report as `.isbn13`.
/// - UPC-E is reported with 8 digits (number system, six data digits, check digit). EAN-8 with 8 digits.
/// - Lengths count payload bytes as reported (so 12 for UPC-A, 10 for ISBN-10).
public struct BarcodeConfiguration: Hashable, Sendable, Codable {
    /// The recognizer's id, copied into every report.
    ///
    /// Default: `"barcode"`.
    public var id: String

    /// The symbologies to read; the others are disabled in zbar, which makes scanning faster.
    ///
    /// Default: every ``Symbology`` (`Symbology.allCases`).
    public var symbologies: [Symbology]

    /// The shortest payload, in bytes, accepted per symbology; symbologies not listed keep zbar's own minimum (6 for
    /// Interleaved 2 of 5, 4 for Codabar, 1 for Code 39, none otherwise).
    ///
    /// Default: `[:]`.
    public var minLength: [Symbology: Int]

    /// The longest payload, in bytes, accepted per symbology; symbologies not listed have no maximum.
    ///
    /// Default: `[:]`.
    public var maxLength: [Symbology: Int]

    /// Seconds a code must be absent (unread, measured on frames' capture times) before it is reported again; a code
    /// read in consecutive frames is reported once, and so is a code read in every frame scanned, however far apart
    /// slow recognition puts those frames: an absence needs at least one scanned frame without the code. 0 reports a
    /// code in every frame it is read, which needs a
    /// ``consistencyCount`` of 1 for every enabled symbology (reads are counted within this interval).
    ///
    /// Default: `1.0`.
    public var duplicateInterval: Double

    /// In how many frames a code must be read before it is first reported, per symbology. The frames need not be
    /// consecutive, but no two successive reads may be more than ``duplicateInterval`` apart (otherwise counting
    /// starts again). Decoding from JSON merges the entries given over the defaults.
    ///
    /// Default: ``defaultConsistencyCount`` — 2 for the linear codes whose check digits are weak (EAN, UPC, ISBN,
    /// Interleaved 2 of 5, Codabar, Code 39, Code 93, DataBar), 1 for QR Code (Reed–Solomon protected) and Code 128
    /// (mandatory modulo-103 check).
    public var consistencyCount: [Symbology: Int]

    /// The part of each frame to read; `nil` reads the whole frame. Codes are reported with polygons in frame pixels.
    ///
    /// Default: `nil`.
    public var regionOfInterest: RegionOfInterest?

    /// How densely linear codes are sampled in camera frames: one horizontal scan line per `y` rows, one vertical
    /// scan line per `x` columns; `nil` picks ``automaticScanDensity(forHeight:)``. Above 1, each scan line is the
    /// average of the rows (columns) it stands for, so sensor noise averages out instead of being skipped over. QR
    /// codes are read at every pixel of the plane ``qrDownscale`` gives. Ignored when ``stillImage`` is true.
    ///
    /// Default: `nil` (automatic).
    public var scanDensity: ScanDensity?

    /// The factor (1...4) by which QR codes are read on a box-shrunk, lightly smoothed copy of each camera frame;
    /// `nil` picks ``automaticQRDownscale(forHeight:)``. Ignored when ``stillImage`` is true.
    ///
    /// Default: `nil` (automatic).
    public var qrDownscale: Int?

    /// Whether camera frames are first searched for QR finder patterns, so that zbar's QR reader (most of a noisy
    /// frame's cost) scans only around them, or not at all when there are none. The search marks pixels dark or light
    /// against their neighbourhood and looks for the finder's 1:1:3:1:1 runs along rows, confirmed along the column
    /// and row through their centre, with wider tolerances than zbar's own finder test; with three or more patterns
    /// zbar scans their bounding box, with one or two the whole plane. Turn it off when codes are known to be
    /// printed so faintly (under about 20 grey levels of contrast) that the search would miss them. Ignored when
    /// ``stillImage`` is true.
    ///
    /// Default: `true`.
    public var qrFinderPrefilter: Bool

    /// Whether frames are still images (photos, scans) rather than a camera stream: then every frame is scanned
    /// at density 1, 1, and again upscaled and contrast-stretched when nothing is found; every code read is reported
    /// in every frame, with no duplicate or consistency filtering.
    ///
    /// Default: `false`.
    public var stillImage: Bool

    /// How densely zbar samples a frame.
    public struct ScanDensity: Hashable, Sendable, Codable {
        /// Scan every `x`-th column (vertical scan lines, which read codes whose bars are horizontal); 0 disables
        /// vertical scan lines.
        public var x: Int
        /// Scan every `y`-th row (horizontal scan lines); 0 disables horizontal scan lines.
        public var y: Int

        /// Creates a density.
        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    /// The default consistency count of `symbology`: 1 for QR Code and Code 128, 2 for the others.
    public static func defaultConsistencyCount(for symbology: Symbology) -> Int {
        switch symbology {
        case .qrCode, .code128: return 1
        default: return 2
        }
    }

    /// The scan density used for frames `height` rows tall when ``scanDensity`` is `nil`: about one scan line per
    /// 180 rows of frame height, within 2...8 (3 at 480 rows, 4 at 720, 6 at 1080).
    ///
    /// Measured on the generated test corpus (linear codes 2–6 px per module, tilted up to 8°, blurred, noise σ 0
    /// and 4): every code zbar reads at its default density 1, 1 still reads. A bar tilted by θ smears by
    /// density × tan θ pixels along the averaged rows, which stays under a module there. With every symbology
    /// enabled and noise σ 4, a frame takes 15 ms at 480p (zbar's default: 28 ms), 39 ms at 720p (89 ms) and 19 ms
    /// at 1080p with the automatic QR downscale (205 ms), in thread CPU time.
    public static func automaticScanDensity(forHeight height: Int) -> ScanDensity {
        let value = min(8, max(2, Int((Double(height) / 180).rounded())))
        return ScanDensity(x: value, y: value)
    }

    /// The QR downscale used for frames `height` rows tall when ``qrDownscale`` is `nil`: 2 from 1000 rows (1080p and
    /// up), 1 below.
    ///
    /// Measured at 1080p with noise σ 4 (thread CPU time): QR-only scanning takes 72 ms per frame at full
    /// resolution and 10 ms on the 2x shrunk, smoothed plane, with every corpus QR code (4.5–9 px per module, up to
    /// 30° rotation) still read. Below 1080p the corpus' 3 px modules would shrink to 1.5 px and stop reading, so
    /// smaller frames are read at full resolution; set 2 there when codes are known to be large.
    public static func automaticQRDownscale(forHeight height: Int) -> Int { height >= 1000 ? 2 : 1 }

    /// ``defaultConsistencyCount(for:)`` for every symbology.
    public static var defaultConsistencyCount: [Symbology: Int] {
        Dictionary(uniqueKeysWithValues: Symbology.allCases.map { ($0, defaultConsistencyCount(for: $0)) })
    }

    /// The payload length of a fixed-length symbology, as reported; `nil` for variable-length ones.
    public static func fixedLength(of symbology: Symbology) -> Int? {
        switch symbology {
        case .ean13, .isbn13: return 13
        case .upcA: return 12
        case .isbn10: return 10
        case .ean8, .upcE: return 8
        default: return nil
        }
    }

    /// Creates a configuration; every parameter has the default its property documents.
    public init(
        id: String = "barcode", symbologies: [Symbology] = Symbology.allCases, minLength: [Symbology: Int] = [:],
        maxLength: [Symbology: Int] = [:], duplicateInterval: Double = 1.0,
        consistencyCount: [Symbology: Int] = BarcodeConfiguration.defaultConsistencyCount,
        regionOfInterest: RegionOfInterest? = nil, scanDensity: ScanDensity? = nil,
        qrDownscale: Int? = nil, qrFinderPrefilter: Bool = true, stillImage: Bool = false
    ) {
        self.id = id
        self.symbologies = symbologies
        self.minLength = minLength
        self.maxLength = maxLength
        self.duplicateInterval = duplicateInterval
        self.consistencyCount = consistencyCount
        self.regionOfInterest = regionOfInterest
        self.scanDensity = scanDensity
        self.qrDownscale = qrDownscale
        self.qrFinderPrefilter = qrFinderPrefilter
        self.stillImage = stillImage
    }

    /// The consistency count in force for `symbology`.
    public func consistency(for symbology: Symbology) -> Int {
        consistencyCount[symbology] ?? Self.defaultConsistencyCount(for: symbology)
    }

    /// Checks every value; the error's message starts with the JSON path of the first bad one.
    public func validate() throws(LumaScanError) {
        try validate(path: "barcodeConfig")
    }

    /// ``validate()`` for the configuration at `root` in a document: the messages start with that path.
    public func validate(path root: String) throws(LumaScanError) {
        func fail(_ path: String, _ message: String) -> LumaScanError {
            LumaScanError(.invalidConfiguration, "\(root).\(path): \(message)")
        }
        if let problem = ConfigurationPath.identifierProblem(id) { throw fail("id", problem) }
        guard !symbologies.isEmpty else { throw fail("symbologies", "enable at least one symbology") }
        for (index, symbology) in symbologies.enumerated() where symbologies[..<index].contains(symbology) {
            throw fail("symbologies[\(index)]", "\(symbology.rawValue) is listed twice")
        }
        for symbology in Symbology.allCases {
            let name = symbology.rawValue
            let minimum = minLength[symbology]
            let maximum = maxLength[symbology]
            if let minimum, minimum < 1 || minimum > 7089 {
                throw fail("minLength.\(name)", "\(minimum) is outside 1...7089")
            }
            if let maximum, maximum < 1 || maximum > 7089 {
                throw fail("maxLength.\(name)", "\(maximum) is outside 1...7089")
            }
            if let minimum, let maximum, maximum < minimum {
                throw fail("maxLength.\(name)", "\(maximum) is below minLength \(minimum)")
            }
            if let fixed = Self.fixedLength(of: symbology) {
                if let minimum, minimum > fixed {
                    throw fail("minLength.\(name)", "\(minimum) excludes \(name)'s fixed length of \(fixed)")
                }
                if let maximum, maximum < fixed {
                    throw fail("maxLength.\(name)", "\(maximum) excludes \(name)'s fixed length of \(fixed)")
                }
            }
            if let count = consistencyCount[symbology], count < 1 || count > 30 {
                throw fail("consistencyCount.\(name)", "\(count) is outside 1...30")
            }
        }
        guard duplicateInterval.isFinite, duplicateInterval >= 0, duplicateInterval <= 3600 else {
            throw fail("duplicateInterval", "\(duplicateInterval) s is outside 0...3600 s")
        }
        if duplicateInterval == 0 {
            for symbology in symbologies where consistency(for: symbology) > 1 {
                throw fail(
                    "consistencyCount.\(symbology.rawValue)",
                    "\(consistency(for: symbology)) reads cannot be counted with a duplicateInterval of 0 s; use 1")
            }
        }
        if let scanDensity {
            for (name, value) in [("x", scanDensity.x), ("y", scanDensity.y)] where value < 0 || value > 32 {
                throw fail("scanDensity.\(name)", "\(value) is outside 0...32")
            }
            guard scanDensity.x > 0 || scanDensity.y > 0 else {
                throw fail("scanDensity", "x and y are both 0, which scans nothing")
            }
        }
        if let qrDownscale, qrDownscale < 1 || qrDownscale > 4 {
            throw fail("qrDownscale", "\(qrDownscale) is outside 1...4")
        }
        try regionOfInterest?.validate(path: "\(root).regionOfInterest")
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, symbologies, minLength, maxLength, duplicateInterval, consistencyCount, regionOfInterest
        case scanDensity, qrDownscale, qrFinderPrefilter, stillImage
    }

    /// Decodes a configuration: missing keys take their defaults, unknown keys and unknown symbology names are
    /// errors naming their JSON path. Values are not range-checked here; ``BarcodeRecognizer`` calls
    /// ``validate()``.
    public init(from decoder: any Decoder) throws {
        let path = decoder.codingPath.jsonPath
        let keys = try decoder.container(keyedBy: AnyKey.self)
        try keys.rejectUnknownKeys(allowed: CodingKeys.allCases.map(\.rawValue), path: path)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = BarcodeConfiguration()
        id = try container.decodeIfPresent(String.self, forKey: .id) ?? defaults.id
        if let names = try container.decodeIfPresent([String].self, forKey: .symbologies) {
            symbologies = try names.enumerated().map { index, name throws(LumaScanError) in
                try Self.symbology(name, path: "\(path).symbologies[\(index)]")
            }
        } else {
            symbologies = defaults.symbologies
        }
        func map(_ key: CodingKeys) throws -> [Symbology: Int]? {
            guard let raw = try container.decodeIntegersIfPresent(forKey: key) else { return nil }
            var result: [Symbology: Int] = [:]
            for (name, value) in raw {
                result[try Self.symbology(name, path: "\(path).\(key.rawValue).\(name)")] = value
            }
            return result
        }
        minLength = try map(.minLength) ?? defaults.minLength
        maxLength = try map(.maxLength) ?? defaults.maxLength
        duplicateInterval =
            try container.decodeIfPresent(Double.self, forKey: .duplicateInterval)
            ?? defaults.duplicateInterval
        consistencyCount = defaults.consistencyCount.merging(try map(.consistencyCount) ?? [:]) { $1 }
        regionOfInterest = try container.decodeIfPresent(RegionOfInterest.self, forKey: .regionOfInterest)
        if try container.contains(.scanDensity) && !container.decodeNil(forKey: .scanDensity) {
            let density = try container.nestedContainer(keyedBy: AnyKey.self, forKey: .scanDensity)
            try density.rejectUnknownKeys(allowed: ["x", "y"], path: "\(path).scanDensity")
            scanDensity = ScanDensity(
                x: try density.decodeInteger(forKey: AnyKey("x")), y: try density.decodeInteger(forKey: AnyKey("y")))
        } else {
            scanDensity = nil
        }
        qrDownscale = try container.decodeIntegerIfPresent(forKey: .qrDownscale)
        qrFinderPrefilter =
            try container.decodeIfPresent(Bool.self, forKey: .qrFinderPrefilter) ?? defaults.qrFinderPrefilter
        stillImage = try container.decodeIfPresent(Bool.self, forKey: .stillImage) ?? defaults.stillImage
    }

    /// Encodes every property, with symbologies by their names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        func names(_ map: [Symbology: Int]) -> [String: Int] {
            Dictionary(uniqueKeysWithValues: map.map { ($0.key.rawValue, $0.value) })
        }
        try container.encode(id, forKey: .id)
        try container.encode(symbologies.map(\.rawValue), forKey: .symbologies)
        try container.encode(names(minLength), forKey: .minLength)
        try container.encode(names(maxLength), forKey: .maxLength)
        try container.encode(duplicateInterval, forKey: .duplicateInterval)
        try container.encode(names(consistencyCount), forKey: .consistencyCount)
        try container.encodeIfPresent(regionOfInterest, forKey: .regionOfInterest)
        try container.encodeIfPresent(scanDensity, forKey: .scanDensity)
        try container.encodeIfPresent(qrDownscale, forKey: .qrDownscale)
        try container.encode(qrFinderPrefilter, forKey: .qrFinderPrefilter)
        try container.encode(stillImage, forKey: .stillImage)
    }

    private static func symbology(_ name: String, path: String) throws(LumaScanError) -> Symbology {
        guard let symbology = Symbology(rawValue: name) else {
            let known = Symbology.allCases.map(\.rawValue).joined(separator: ", ")
            throw LumaScanError(
                .invalidConfiguration, "\(path): unknown symbology \(ConfigurationPath.quoted(name)) (known: \(known))")
        }
        return symbology
    }
}
