import CLumaVision
import LumaScanCore

/// QR error-correction levels a secure QR code may use: the copy-detection pattern in a standard code's centre
/// replaces modules, and only Q and H leave enough redundancy to absorb it.
public enum SecureQRErrorCorrection: String, Hashable, Sendable, Codable, CaseIterable {
    /// Quartile: about 25 % of codewords recoverable.
    case quartile = "Q"
    /// High: about 30 % of codewords recoverable.
    case high = "H"

    var cValue: Int32 {
        switch self {
        case .quartile: Int32(LV_SQR_EC_Q)
        case .high: Int32(LV_SQR_EC_H)
        }
    }
}

/// The fingerprint zone of hybrid codes: the rectangle, in module units from the code's outer top-left corner (quiet
/// zone excluded, x to the right and y down in the code's orientation), that carries the copy-detection pattern.
///
/// `nil` values follow the code's size N (its modules per side), so one design serves every QR version.
public struct SecureQRFingerprintZone: Hashable, Sendable, Codable {
    /// The zone's left edge in modules.
    ///
    /// Default: `nil` — N + 2, two modules to the right of the code.
    public var x: Double?
    /// The zone's top edge in modules.
    ///
    /// Default: `0` — level with the code's top edge.
    public var y: Double
    /// The zone's width in modules (rounded to whole CDP cells).
    ///
    /// Default: `nil` — N, as wide as the code.
    public var width: Double?
    /// The zone's height in modules (rounded to whole CDP cells).
    ///
    /// Default: `nil` — N, as tall as the code.
    public var height: Double?

    /// Creates a zone; every parameter has the default its property documents.
    public init(x: Double? = nil, y: Double = 0, width: Double? = nil, height: Double? = nil) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case x, y, width, height }

    /// Decodes a zone: missing keys take their defaults; unknown keys are errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        x = try container.decodeIfPresent(Double.self, forKey: .x)
        y = try container.decodeIfPresent(Double.self, forKey: .y) ?? 0
        width = try container.decodeIfPresent(Double.self, forKey: .width)
        height = try container.decodeIfPresent(Double.self, forKey: .height)
    }
}

/// The geometry of a family of secure QR codes, shared by ``SecureQRGenerator`` (which prints them) and
/// ``SecureQRRecognizer`` (which checks them), so the two cannot disagree on where the secure graphic is.
///
/// A secure QR code is a QR code of version 2 or more (so it has an alignment pattern) carrying a copy-detection
/// pattern (CDP): a square grid of pseudo-random dark and light cells, ``cellsPerModule`` per module side, generated
/// from a seed. Standard codes carry the CDP in their centre, where error correction absorbs it; hybrid codes carry it
/// in a ``SecureQRFingerprintZone`` beside the code. See `docs/secure-qr.md`.
public struct SecureQRDesign: Hashable, Sendable, Codable {
    /// The smallest QR version the generator uses (2...40; 2...6 for standard codes); a payload that does not fit is
    /// encoded at the next version that holds it. The recognizer reads each code's version from the image.
    ///
    /// Standard codes stop at version 6 (108 bytes at error correction Q): from version 7 on, an alignment pattern
    /// sits at the code's centre, under the CDP, and zbar then fails to decode about a third of the codes.
    ///
    /// Default: `4` (33 modules per side).
    public var version: Int
    /// The QR error-correction level the generator uses.
    ///
    /// Default: `.quartile`.
    public var errorCorrection: SecureQRErrorCorrection
    /// CDP cells per module side (2...16).
    ///
    /// Default: `4`.
    public var cellsPerModule: Int
    /// Whether the CDP is in a fingerprint zone beside the code (hybrid) rather than in its centre (standard).
    ///
    /// Default: `false`.
    public var hybrid: Bool
    /// The side, in modules, of a standard code's centre CDP: odd, at least 3, and leaving the finder patterns clear;
    /// `nil` picks the odd number nearest 0.22 × N (7 for version 4).
    ///
    /// Default: `nil`.
    public var centreModules: Int?
    /// Where hybrid codes carry the CDP.
    ///
    /// Default: `SecureQRFingerprintZone()` — a square as wide as the code, to its right, 2 modules away.
    public var fingerprintZone: SecureQRFingerprintZone
    /// Light modules the generator leaves around the code (and the fingerprint zone).
    ///
    /// Default: `4`, as the QR standard asks.
    public var quietZone: Int

    /// Creates a design; every parameter has the default its property documents.
    public init(
        version: Int = 4, errorCorrection: SecureQRErrorCorrection = .quartile, cellsPerModule: Int = 4,
        hybrid: Bool = false, centreModules: Int? = nil, fingerprintZone: SecureQRFingerprintZone = .init(),
        quietZone: Int = 4
    ) {
        self.version = version
        self.errorCorrection = errorCorrection
        self.cellsPerModule = cellsPerModule
        self.hybrid = hybrid
        self.centreModules = centreModules
        self.fingerprintZone = fingerprintZone
        self.quietZone = quietZone
    }

    /// Checks every value; the error's message starts with `path` and the key of the first bad one.
    public func validate(path: String = SecureQRConfiguration.jsonPath + ".design") throws(LumaScanError) {
        func fail(_ key: String, _ problem: String) -> LumaScanError {
            LumaScanError(.invalidConfiguration, "\(path).\(key): \(problem)")
        }
        guard (2...40).contains(version) else {
            throw fail("version", "\(version) is outside 2...40 (version 1 has no alignment pattern)")
        }
        guard hybrid || version <= Self.maximumStandardVersion else {
            throw fail(
                "version",
                "\(version) is above \(Self.maximumStandardVersion) for a standard code (from version 7 an alignment "
                    + "pattern sits under the centre CDP); use a hybrid design")
        }
        guard (2...16).contains(cellsPerModule) else {
            throw fail("cellsPerModule", "\(cellsPerModule) is outside 2...16")
        }
        guard (0...40).contains(quietZone) else { throw fail("quietZone", "\(quietZone) is outside 0...40") }
        if let centreModules {
            guard centreModules >= 3, centreModules % 2 == 1 else {
                throw fail("centreModules", "\(centreModules) is not an odd number of at least 3")
            }
            let modules = 17 + 4 * version
            guard centreModules <= modules - 16 else {
                throw fail(
                    "centreModules",
                    "\(centreModules) modules would cover the finder patterns of a version \(version) code "
                        + "(at most \(modules - 16))")
            }
        }
        let zone = fingerprintZone
        for (key, value) in [("x", zone.x), ("y", zone.y), ("width", zone.width), ("height", zone.height)] {
            if let value, !value.isFinite || abs(value) > 1000 {
                throw fail("fingerprintZone.\(key)", "\(value) is not a number within ±1000 modules")
            }
        }
        if let width = zone.width, width < 2 { throw fail("fingerprintZone.width", "\(width) is below 2 modules") }
        if let height = zone.height, height < 2 { throw fail("fingerprintZone.height", "\(height) is below 2 modules") }
        if hybrid {
            var layout = lv_sqr_layout()
            var design = cDesign
            let modules = Int32(17 + 4 * version)
            guard lv_sqr_layout_for(modules, &design, &layout) == 0 else {
                throw fail("fingerprintZone", "the zone overlaps the code")
            }
        }
    }

    /// The largest version of a standard code: from version 7 on, an alignment pattern sits at the centre.
    public static let maximumStandardVersion = 6

    /// The design as the vision shim takes it.
    var cDesign: lv_sqr_design {
        var design = lv_sqr_design()
        lv_sqr_design_default(&design)
        design.cells_per_module = Int32(cellsPerModule)
        design.hybrid = hybrid ? 1 : 0
        design.centre_modules = Int32(centreModules ?? 0)
        let zone = fingerprintZone
        if let x = zone.x {
            design.zone_x_per_n = 0
            design.zone_x = x
        }
        design.zone_y_per_n = 0
        design.zone_y = zone.y
        if let width = zone.width {
            design.zone_width_per_n = 0
            design.zone_width = width
        }
        if let height = zone.height {
            design.zone_height_per_n = 0
            design.zone_height = height
        }
        return design
    }

    /// Where the secure graphic of a code with `modules` modules per side lies, in module coordinates; `nil` when
    /// `modules` is not a QR size (21, 25, ..., 177) or the design does not fit it.
    public func secureGraphicRegion(modules: Int) -> SecureQRModuleRect? {
        var design = cDesign
        var layout = lv_sqr_layout()
        guard lv_sqr_layout_for(Int32(modules), &design, &layout) == 0 else { return nil }
        return SecureQRModuleRect(layout.region)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case version, errorCorrection, cellsPerModule, hybrid, centreModules, fingerprintZone, quietZone
    }

    /// Decodes a design: missing keys take their defaults; unknown keys are errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = SecureQRDesign()
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? defaults.version
        errorCorrection =
            try container.decodeIfPresent(SecureQRErrorCorrection.self, forKey: .errorCorrection)
            ?? defaults.errorCorrection
        cellsPerModule = try container.decodeIfPresent(Int.self, forKey: .cellsPerModule) ?? defaults.cellsPerModule
        hybrid = try container.decodeIfPresent(Bool.self, forKey: .hybrid) ?? defaults.hybrid
        centreModules = try container.decodeIfPresent(Int.self, forKey: .centreModules)
        fingerprintZone =
            try container.decodeIfPresent(SecureQRFingerprintZone.self, forKey: .fingerprintZone)
            ?? defaults.fingerprintZone
        quietZone = try container.decodeIfPresent(Int.self, forKey: .quietZone) ?? defaults.quietZone
    }
}

extension SecureQRModuleRect {
    /// A rectangle from the vision shim's `x, y, width, height`.
    init(_ tuple: (Double, Double, Double, Double)) {
        self.init(x: tuple.0, y: tuple.1, width: tuple.2, height: tuple.3)
    }
}
