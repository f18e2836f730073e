import LumaScanCore
import LumaScanRecognizers

/// `viewPluginConfig`: one plugin — what to recognise and how (``pluginConfig``), where in the frame
/// (``cutoutConfig``), and what the user is told (``scanFeedbackConfig``).
public struct ViewPluginConfig: Hashable, Sendable, Codable {
    /// What to recognise, and the scanning rules. Required in JSON: a view plugin must say what it scans.
    ///
    /// Default (Swift only): `PluginConfig()`, a barcode plugin.
    public let pluginConfig: PluginConfig
    /// Where in the frame to look: the cutout, and the crop around it that is read.
    ///
    /// - Barcode: the crop becomes the recognizer's region of interest (as percentages of the frame, computed at
    ///   ``CameraConfig/captureResolution``); `nil` reads the whole frame. It cannot be combined with
    ///   `barcodeConfig.regionOfInterest`.
    /// - Meter: the cutout the meter is read in; `nil` is completed to the default ``CutoutConfiguration``, which the
    ///   meter recognizer needs.
    /// - Secure QR: not supported (the recognizer reads the whole frame); must be `nil`.
    ///
    /// Default: `nil` (JSON `null`); `CutoutConfiguration()` for a meter plugin.
    public let cutoutConfig: CutoutConfiguration?
    /// What the user is told about results.
    ///
    /// Default: `ScanFeedbackConfig()`: no bell, the default distance bounds.
    public let scanFeedbackConfig: ScanFeedbackConfig

    /// Creates a view plugin configuration; every parameter has the default its property documents (a meter plugin
    /// without a cutout gets the default cutout).
    public init(
        pluginConfig: PluginConfig = .init(), cutoutConfig: CutoutConfiguration? = nil,
        scanFeedbackConfig: ScanFeedbackConfig = .init()
    ) {
        self.pluginConfig = pluginConfig
        if cutoutConfig == nil, case .meter = pluginConfig.recognizer {
            self.cutoutConfig = CutoutConfiguration()
        } else {
            self.cutoutConfig = cutoutConfig
        }
        self.scanFeedbackConfig = scanFeedbackConfig
    }

    // MARK: Validation

    func validate(_ check: ConfigurationCheck) throws(LumaScanError) {
        try pluginConfig.validate(check.nested("pluginConfig"))
        if let cutoutConfig {
            try cutoutConfig.validate(path: check.path("cutoutConfig"))
            switch pluginConfig.recognizer {
            case .barcode(let barcode) where barcode.regionOfInterest != nil:
                throw check.fail(
                    "cutoutConfig",
                    "cannot be combined with pluginConfig.barcodeConfig.regionOfInterest: the cutout's crop becomes "
                        + "the region of interest; give one of them")
            case .secureQR:
                throw check.fail(
                    "cutoutConfig",
                    "is not supported with secureQRConfig: the secure QR recognizer reads the whole frame; remove it "
                        + "or set it to null")
            default:
                break
            }
        }
        try scanFeedbackConfig.validate(check.nested("scanFeedbackConfig"))
    }

    // MARK: Codable

    private static let keys = ["pluginConfig", "cutoutConfig", "scanFeedbackConfig"]

    /// Decodes `viewPluginConfig`: `pluginConfig` is required, the other keys default; unknown keys and wrong types
    /// are errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: Self.keys)
        let container = try decoder.container(keyedBy: ConfigKey.self)
        guard try container.has("pluginConfig") else {
            throw ConfigurationPath.error(
                container.path("pluginConfig"),
                "missing required key; give it one of barcodeConfig, secureQRConfig or meterConfig")
        }
        let pluginConfig: PluginConfig = try container.value("pluginConfig", default: PluginConfig())
        let cutoutConfig: CutoutConfiguration? = try container.optional("cutoutConfig")
        self.init(
            pluginConfig: pluginConfig, cutoutConfig: cutoutConfig,
            scanFeedbackConfig: try container.value("scanFeedbackConfig", default: ScanFeedbackConfig()))
    }

    /// Encodes every key; `cutoutConfig` is `null` when there is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        try container.encode(pluginConfig, forKey: ConfigKey(stringValue: "pluginConfig"))
        try container.encode(cutoutConfig, forKey: ConfigKey(stringValue: "cutoutConfig"))
        try container.encode(scanFeedbackConfig, forKey: ConfigKey(stringValue: "scanFeedbackConfig"))
    }
}

/// `pluginConfig`: the recognizer a plugin runs, and its scanning rules (Anyline's and TireTread's).
public struct PluginConfig: Hashable, Sendable, Codable {
    /// The recognizer a plugin runs, with its configuration: exactly one of `barcodeConfig`, `secureQRConfig` or
    /// `meterConfig` in JSON.
    public enum RecognizerConfig: Hashable, Sendable {
        /// A ``BarcodeRecognizer`` (JSON `barcodeConfig`).
        case barcode(BarcodeConfiguration)
        /// A ``SecureQRRecognizer`` (JSON `secureQRConfig`).
        case secureQR(SecureQRConfiguration)
        /// A ``MeterRecognizer`` (JSON `meterConfig`).
        case meter(MeterConfiguration)

        /// The kind of plugin this is.
        public var kind: ScanConfiguration.PluginKind {
            switch self {
            case .barcode: .barcode
            case .secureQR: .secureQR
            case .meter: .meter
            }
        }

        /// The JSON key the configuration lives under: `barcodeConfig`, `secureQRConfig` or `meterConfig`.
        public var jsonKey: String { kind.jsonKey }

        /// The configuration's own id, where it has one.
        var ownID: String? {
            switch self {
            case .barcode(let configuration): configuration.id
            case .secureQR(let configuration): configuration.id
            case .meter: nil
            }
        }

        /// The same configuration with its own id (where it has one) set to `id`.
        func withID(_ id: String) -> RecognizerConfig {
            switch self {
            case .barcode(var configuration):
                configuration.id = id
                return .barcode(configuration)
            case .secureQR(var configuration):
                configuration.id = id
                return .secureQR(configuration)
            case .meter:
                return self
            }
        }
    }

    /// The plugin's id: the ``ScanPlugin``'s id, and the id of its recognizer, which every report carries. The
    /// members of a composite need distinct ids. A `barcodeConfig.id` or `secureQRConfig.id` given in JSON must
    /// equal it (it is copied there).
    ///
    /// Default: the recognizer configuration's own id when JSON gives one, else the kind: `"barcode"`,
    /// `"secure-qr"` or `"meter"`.
    public let id: String
    /// Stop scanning after the first COMPLETED_RESULT (a composite: once it has completed).
    ///
    /// Default: `false`, unlike Anyline's mobile default: a kiosk scans continuously, customer after customer, and
    /// the barcode recognizer reports each code once per appearance, so scanning need not stop to avoid repeats.
    public let cancelOnResult: Bool
    /// Milliseconds after scanning starts before the first frame is recognised (0...60000), so a code still in view
    /// from the previous scan is not read at once.
    ///
    /// Default: `0`.
    public let startScanDelay: Int
    /// Seconds without a completed result after which scanning stops by itself (0...86400); 0 never stops.
    ///
    /// Default: `10`, as in TireTread.
    public let scanTimeout: Int
    /// The recognizer and its configuration.
    ///
    /// Default: `.barcode(BarcodeConfiguration())` (Swift only; JSON must name one).
    public let recognizer: RecognizerConfig

    /// Creates a plugin configuration; every parameter has the default its property documents. When `id` is given
    /// it is copied into the recognizer's configuration; when it is `nil` the configuration's own id is used
    /// (`"meter"` for a meter).
    public init(
        id: String? = nil, cancelOnResult: Bool = false, startScanDelay: Int = 0, scanTimeout: Int = 10,
        recognizer: RecognizerConfig = .barcode(BarcodeConfiguration())
    ) {
        let resolved = id ?? recognizer.ownID ?? recognizer.kind.rawValue
        self.id = resolved
        self.cancelOnResult = cancelOnResult
        self.startScanDelay = startScanDelay
        self.scanTimeout = scanTimeout
        self.recognizer = recognizer.withID(resolved)
    }

    /// The barcode configuration, when the plugin reads barcodes.
    public var barcodeConfig: BarcodeConfiguration? {
        if case .barcode(let configuration) = recognizer { return configuration }
        return nil
    }

    /// The secure QR configuration, when the plugin reads secure QR codes.
    public var secureQRConfig: SecureQRConfiguration? {
        if case .secureQR(let configuration) = recognizer { return configuration }
        return nil
    }

    /// The meter configuration, when the plugin reads meters.
    public var meterConfig: MeterConfiguration? {
        if case .meter(let configuration) = recognizer { return configuration }
        return nil
    }

    /// The scan timeout as the engine takes it: `nil` for 0 (never).
    public var scanTimeoutDuration: Duration? { scanTimeout == 0 ? nil : .seconds(scanTimeout) }

    /// The start delay as the engine takes it.
    public var startScanDelayDuration: Duration { .milliseconds(startScanDelay) }

    // MARK: Validation

    func validate(_ check: ConfigurationCheck) throws(LumaScanError) {
        if let problem = ConfigurationPath.identifierProblem(id) { throw check.fail("id", problem) }
        try check.check("startScanDelay", startScanDelay, in: 0...60_000, unit: "ms")
        try check.check("scanTimeout", scanTimeout, in: 0...86_400, unit: "s")
        let path = check.path(recognizer.jsonKey)
        switch recognizer {
        case .barcode(let configuration):
            try configuration.validate(path: path)
        case .secureQR(let configuration):
            try configuration.validate(path: path)
        case .meter(let configuration):
            try configuration.validate(path: path)
            if configuration.scanMode == .dialMeter {
                throw check.nested("meterConfig").fail(
                    "scanMode", "dial_meter is not supported yet; use digital_meter, counter_meter or auto_meter")
            }
        }
    }

    // MARK: Codable

    private static let keys =
        ["id", "cancelOnResult", "startScanDelay", "scanTimeout"]
        + ScanConfiguration.PluginKind.allCases.map(\.jsonKey)

    /// Decodes `pluginConfig`: exactly one of `barcodeConfig`, `secureQRConfig` and `meterConfig` is required, the
    /// other keys default; unknown keys, wrong types and an id that disagrees with the recognizer configuration's
    /// are errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: Self.keys)
        let container = try decoder.container(keyedBy: ConfigKey.self)
        let defaults = PluginConfig()
        var present: [ScanConfiguration.PluginKind] = []
        for kind in ScanConfiguration.PluginKind.allCases where try container.has(kind.jsonKey) { present.append(kind) }
        guard let kind = present.first else {
            throw ConfigurationPath.error(
                container.codingPath, "needs one of barcodeConfig, secureQRConfig or meterConfig")
        }
        if present.count > 1 {
            throw ConfigurationPath.error(
                container.path(present[1].jsonKey),
                "cannot be combined with \(kind.jsonKey): a plugin runs exactly one of barcodeConfig, "
                    + "secureQRConfig or meterConfig (combine plugins with viewPluginCompositeConfig)")
        }
        let recognizer: RecognizerConfig
        var ownIDGiven = false
        switch kind {
        case .barcode:
            let configuration: BarcodeConfiguration? = try container.optional(kind.jsonKey)
            recognizer = .barcode(configuration ?? BarcodeConfiguration())
            ownIDGiven = try container.nestedContainer(
                keyedBy: ConfigKey.self, forKey: ConfigKey(stringValue: kind.jsonKey)
            ).has("id")
        case .secureQR:
            let configuration: SecureQRConfiguration? = try container.optional(kind.jsonKey)
            recognizer = .secureQR(configuration ?? SecureQRConfiguration())
            ownIDGiven = try container.nestedContainer(
                keyedBy: ConfigKey.self, forKey: ConfigKey(stringValue: kind.jsonKey)
            ).has("id")
        case .meter:
            let configuration: MeterConfiguration? = try container.optional(kind.jsonKey)
            recognizer = .meter(configuration ?? MeterConfiguration())
        }
        let id: String? = try container.optional("id")
        // An empty id is left for validation, which says so.
        if let id, !id.isEmpty, ownIDGiven, let own = recognizer.ownID, own != id {
            throw ConfigurationPath.error(
                container.path(kind.jsonKey) + [ConfigKey(stringValue: "id")],
                "\(ConfigurationPath.quoted(own)) differs from pluginConfig.id \(ConfigurationPath.quoted(id)); leave it out: the plugin's id names its recognizer"
            )
        }
        self.init(
            id: id ?? (ownIDGiven ? recognizer.ownID : nil) ?? kind.rawValue,
            cancelOnResult: try container.value("cancelOnResult", default: defaults.cancelOnResult),
            startScanDelay: try container.value("startScanDelay", default: defaults.startScanDelay),
            scanTimeout: try container.value("scanTimeout", default: defaults.scanTimeout),
            recognizer: recognizer)
    }

    /// Encodes every key, with the recognizer's configuration under its key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        try container.encode(id, forKey: ConfigKey(stringValue: "id"))
        try container.encode(cancelOnResult, forKey: ConfigKey(stringValue: "cancelOnResult"))
        try container.encode(startScanDelay, forKey: ConfigKey(stringValue: "startScanDelay"))
        try container.encode(scanTimeout, forKey: ConfigKey(stringValue: "scanTimeout"))
        let key = ConfigKey(stringValue: recognizer.jsonKey)
        switch recognizer {
        case .barcode(let configuration): try container.encode(configuration, forKey: key)
        case .secureQR(let configuration): try container.encode(configuration, forKey: key)
        case .meter(let configuration): try container.encode(configuration, forKey: key)
        }
    }
}

/// `scanFeedbackConfig`: what the user is told about results.
///
/// Anyline's mobile SDKs draw results on the camera preview (`style`, `strokeColor`, `fillColor`, animations, …)
/// and vibrate; LumaScan shows no preview, so those keys are refused as unknown rather than silently ignored.
public struct ScanFeedbackConfig: Hashable, Sendable, Codable {
    /// Ring a bell on each COMPLETED_RESULT: `lumascan scan` writes the terminal bell (BEL, `\u{7}`) to stderr, so
    /// a kiosk's terminal or speaker beeps; an embedding app reads ``ScanPlugin/beepOnResult`` and rings its own.
    ///
    /// Default: `false`.
    public let beepOnResult: Bool
    /// The code sizes, as fractions of the frame's width, below which a detected code is too far and above which it
    /// is too close (TireTread's distance feedback, reported with the results): `{"tooFarBelow": 0.1,
    /// "tooCloseAbove": 0.8}`. 0 ≤ `tooFarBelow` < `tooCloseAbove` ≤ 10 (a code's bounding box can be wider than
    /// tall, so above 1 is possible).
    ///
    /// Default: `DistanceBounds()` (0.1 and 0.8).
    public let distanceBounds: DistanceBounds

    /// Creates a feedback configuration; every parameter has the default its property documents.
    public init(beepOnResult: Bool = false, distanceBounds: DistanceBounds = .init()) {
        self.beepOnResult = beepOnResult
        self.distanceBounds = distanceBounds
    }

    func validate(_ check: ConfigurationCheck) throws(LumaScanError) {
        let bounds = check.nested("distanceBounds")
        for (key, value) in [
            ("tooFarBelow", distanceBounds.tooFarBelow), ("tooCloseAbove", distanceBounds.tooCloseAbove),
        ] {
            guard value.isFinite else { throw bounds.fail(key, "\(value) is not a number") }
            try bounds.check(key, value, in: 0...10)
        }
        guard distanceBounds.tooFarBelow < distanceBounds.tooCloseAbove else {
            throw bounds.fail(
                "tooCloseAbove",
                "\(distanceBounds.tooCloseAbove) is not above tooFarBelow \(distanceBounds.tooFarBelow)")
        }
    }

    // MARK: Codable

    /// Decodes `scanFeedbackConfig`: absent or null keys take their defaults; unknown keys and wrong types are
    /// errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: ["beepOnResult", "distanceBounds"])
        let container = try decoder.container(keyedBy: ConfigKey.self)
        let defaults = DistanceBounds()
        var bounds = defaults
        if try container.has("distanceBounds") {
            let nested = try container.superDecoder(forKey: ConfigKey(stringValue: "distanceBounds"))
            try ConfigurationKeys.reject(unknownKeysIn: nested, known: ["tooFarBelow", "tooCloseAbove"])
            let fields = try nested.container(keyedBy: ConfigKey.self)
            bounds = DistanceBounds(
                tooFarBelow: try fields.value("tooFarBelow", default: defaults.tooFarBelow),
                tooCloseAbove: try fields.value("tooCloseAbove", default: defaults.tooCloseAbove))
        }
        self.init(beepOnResult: try container.value("beepOnResult", default: false), distanceBounds: bounds)
    }

    /// Encodes every key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        try container.encode(beepOnResult, forKey: ConfigKey(stringValue: "beepOnResult"))
        try container.encode(distanceBounds, forKey: ConfigKey(stringValue: "distanceBounds"))
    }
}

/// `viewPluginCompositeConfig`: several view plugins run as one, as Anyline's composite view plugins do.
///
/// - `parallel`: every member reads every frame; the composite has completed once each member has.
/// - `sequential`: one member at a time; a member's COMPLETED_RESULT hands over to the next.
///
/// The composite is one ``ScanPlugin`` with one set of scanning rules, so its members must agree on
/// `cancelOnResult`, `scanTimeout`, `beepOnResult` and `distanceBounds`; the plugin takes them from the first
/// member. A start delay applies when scanning starts: the members of a parallel composite must agree on it, and in
/// a sequential one only the first member may have one.
public struct ViewPluginCompositeConfig: Hashable, Sendable, Codable {
    /// The composite's id, used as the ``ScanPlugin``'s and the ``CompositeRecognizer``'s id.
    ///
    /// Default: `"composite"`.
    public let id: String
    /// How the members share frames (JSON `"parallel"` or `"sequential"`).
    ///
    /// Default: ``CompositeRecognizer/Mode/parallel``.
    public let processingMode: CompositeRecognizer.Mode
    /// The members, in order; at least one (JSON: `[{"viewPluginConfig": {…}}, …]`, as Anyline writes them).
    /// Required in JSON.
    ///
    /// Default: none; the parameter is required.
    public let viewPlugins: [ViewPluginConfig]

    /// Creates a composite configuration.
    public init(
        id: String = "composite", processingMode: CompositeRecognizer.Mode = .parallel, viewPlugins: [ViewPluginConfig]
    ) {
        self.id = id
        self.processingMode = processingMode
        self.viewPlugins = viewPlugins
    }

    // MARK: Validation

    /// The check of member `index`'s `viewPluginConfig`.
    static func memberCheck(_ check: ConfigurationCheck, _ index: Int) -> ConfigurationCheck {
        ConfigurationCheck(path: "\(check.path("viewPlugins"))[\(index)].viewPluginConfig")
    }

    func validate(_ check: ConfigurationCheck) throws(LumaScanError) {
        if let problem = ConfigurationPath.identifierProblem(id) { throw check.fail("id", problem) }
        guard let first = viewPlugins.first else { throw check.fail("viewPlugins", "list at least one view plugin") }
        for (index, member) in viewPlugins.enumerated() {
            let memberCheck = Self.memberCheck(check, index)
            try member.validate(memberCheck)
            let plugin = memberCheck.nested("pluginConfig")
            let feedback = memberCheck.nested("scanFeedbackConfig")
            if let earlier = viewPlugins[..<index].firstIndex(where: { $0.pluginConfig.id == member.pluginConfig.id }) {
                throw plugin.fail(
                    "id",
                    "\(ConfigurationPath.quoted(member.pluginConfig.id)) is also the id of viewPlugins[\(earlier)]; the members of a "
                        + "composite need distinct ids (their reports carry them)")
            }
            guard index > 0 else { continue }
            func disagree(
                _ check: ConfigurationCheck, _ key: String, _ value: String, _ firstValue: String
            ) -> LumaScanError {
                check.fail(
                    key,
                    "\(value) differs from viewPlugins[0]'s \(firstValue); a composite scans with one set of rules, "
                        + "so its members must agree")
            }
            let rules = member.pluginConfig
            let firstRules = first.pluginConfig
            if rules.cancelOnResult != firstRules.cancelOnResult {
                throw disagree(plugin, "cancelOnResult", "\(rules.cancelOnResult)", "\(firstRules.cancelOnResult)")
            }
            if rules.scanTimeout != firstRules.scanTimeout {
                throw disagree(plugin, "scanTimeout", "\(rules.scanTimeout) s", "\(firstRules.scanTimeout) s")
            }
            switch processingMode {
            case .parallel where rules.startScanDelay != firstRules.startScanDelay:
                throw disagree(
                    plugin, "startScanDelay", "\(rules.startScanDelay) ms", "\(firstRules.startScanDelay) ms")
            case .sequential where rules.startScanDelay != 0:
                throw plugin.fail(
                    "startScanDelay",
                    "\(rules.startScanDelay) ms is not supported: in a sequential composite only the first member "
                        + "may delay the start")
            default:
                break
            }
            if member.scanFeedbackConfig.beepOnResult != first.scanFeedbackConfig.beepOnResult {
                throw disagree(
                    feedback, "beepOnResult", "\(member.scanFeedbackConfig.beepOnResult)",
                    "\(first.scanFeedbackConfig.beepOnResult)")
            }
            if member.scanFeedbackConfig.distanceBounds != first.scanFeedbackConfig.distanceBounds {
                let bounds = member.scanFeedbackConfig.distanceBounds
                let firstBounds = first.scanFeedbackConfig.distanceBounds
                throw disagree(
                    feedback, "distanceBounds", "\(bounds.tooFarBelow)...\(bounds.tooCloseAbove)",
                    "\(firstBounds.tooFarBelow)...\(firstBounds.tooCloseAbove)")
            }
        }
    }

    // MARK: Codable

    /// One element of `viewPlugins`: `{"viewPluginConfig": {…}}`.
    private struct Member: Codable {
        var viewPluginConfig: ViewPluginConfig

        init(_ viewPluginConfig: ViewPluginConfig) { self.viewPluginConfig = viewPluginConfig }

        init(from decoder: any Decoder) throws {
            try ConfigurationKeys.reject(unknownKeysIn: decoder, known: ["viewPluginConfig"])
            let container = try decoder.container(keyedBy: ConfigKey.self)
            guard try container.has("viewPluginConfig") else {
                throw ConfigurationPath.error(container.path("viewPluginConfig"), "missing required key")
            }
            viewPluginConfig = try container.value("viewPluginConfig", default: ViewPluginConfig())
        }
    }

    private static let keys = ["id", "processingMode", "viewPlugins"]

    /// Decodes `viewPluginCompositeConfig`: `viewPlugins` is required, the other keys default; unknown keys, wrong
    /// types and unknown processing modes are errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: Self.keys)
        let container = try decoder.container(keyedBy: ConfigKey.self)
        guard try container.has("viewPlugins") else {
            throw ConfigurationPath.error(
                container.path("viewPlugins"), "missing required key; list the composite's view plugins")
        }
        let members: [Member] = try container.value("viewPlugins", default: [])
        self.init(
            id: try container.value("id", default: "composite"),
            processingMode: try container.choice(
                "processingMode", [.parallel, .sequential], spelling: \.rawValue, default: .parallel),
            viewPlugins: members.map(\.viewPluginConfig))
    }

    /// Encodes every key, with each member wrapped as `{"viewPluginConfig": {…}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        try container.encode(id, forKey: ConfigKey(stringValue: "id"))
        try container.encode(processingMode.rawValue, forKey: ConfigKey(stringValue: "processingMode"))
        try container.encode(viewPlugins.map(Member.init), forKey: ConfigKey(stringValue: "viewPlugins"))
    }
}
