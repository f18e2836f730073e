import Foundation
import LumaScanCapture
import LumaScanCore
import LumaScanRecognizers

/// A whole scan, configured by one JSON document as Anyline configures one: the camera (`cameraConfig`), its LED
/// (`flashConfig`), optional sounds (`audioFeedback`), and either one plugin (`viewPluginConfig`) or several combined (`viewPluginCompositeConfig`).
///
/// ```json
/// {
///   "cameraConfig": {"device": "/dev/video0", "captureResolution": "720p", "controls": {"focusAuto": true}},
///   "flashConfig": {"mode": "none"},
///   "viewPluginConfig": {
///     "pluginConfig": {"id": "till", "scanTimeout": 0, "barcodeConfig": {"symbologies": ["ean13", "qr"]}},
///     "scanFeedbackConfig": {"beepOnResult": true}
///   },
///   "audioFeedback": {"folder": "/usr/share/lumascan/sounds"}
/// }
/// ```
///
/// ``decode(json:)`` decodes and validates a document: every key left out takes its default (except that a
/// document must say what it scans), and an unknown key, a wrong type, a value out of range or an unsupported
/// combination is a ``LumaScanError`` with code ``LumaScanError/Code/invalidConfiguration`` whose message starts with
/// the JSON path: `viewPluginConfig.pluginConfig.scanTimeout: -1 s is below 0`. ``asJSONString(pretty:)`` writes the
/// complete document back, so that decoding it gives the same configuration.
///
/// A configuration is immutable: its properties are constants, and ``makePlugin(logger:)`` builds a ``ScanPlugin``
/// from a copy. Changing a scan means building a new configuration and plugin, and swapping it in with
/// ``ScanEngine/setPlugin(_:)``.
public struct ScanConfiguration: Hashable, Sendable, Codable {
    /// The kinds of plugin a configuration can run.
    public enum PluginKind: String, Hashable, Sendable, CaseIterable {
        /// Barcodes and QR codes (`barcodeConfig`).
        case barcode
        /// Secure QR codes (`secureQRConfig`).
        case secureQR = "secure-qr"
        /// Meters (`meterConfig`).
        case meter

        /// The key of the kind's configuration in `pluginConfig`.
        public var jsonKey: String {
            switch self {
            case .barcode: "barcodeConfig"
            case .secureQR: "secureQRConfig"
            case .meter: "meterConfig"
            }
        }
    }

    /// The camera to open and what to ask it for.
    ///
    /// Default: `CameraConfig()`: the first camera found, 720p, its controls left alone.
    public let cameraConfig: CameraConfig
    /// The camera's LED.
    ///
    /// Default: `FlashConfig()`: the LED left alone.
    public let flashConfig: FlashConfig
    /// The one plugin to run; `nil` when ``viewPluginCompositeConfig`` is set instead (exactly one of the two is).
    ///
    /// Default: a barcode plugin, `ViewPluginConfig()` (Swift only: a JSON document must give one of the two).
    public let viewPluginConfig: ViewPluginConfig?
    /// Several plugins run as one; `nil` when ``viewPluginConfig`` is set instead (exactly one of the two is).
    ///
    /// Default: `nil`.
    public let viewPluginCompositeConfig: ViewPluginCompositeConfig?
    /// Sounds to play as scanning goes (LumaScanAudio's `AudioFeedback` plays them); `nil` plays none.
    ///
    /// Default: `nil`.
    public let audioFeedback: AudioFeedbackConfig?

    /// Creates a configuration that runs one plugin; every parameter has the default its property documents.
    public init(
        cameraConfig: CameraConfig = .init(), flashConfig: FlashConfig = .init(),
        viewPluginConfig: ViewPluginConfig = .init(), audioFeedback: AudioFeedbackConfig? = nil
    ) {
        self.cameraConfig = cameraConfig
        self.flashConfig = flashConfig
        self.viewPluginConfig = viewPluginConfig
        self.viewPluginCompositeConfig = nil
        self.audioFeedback = audioFeedback
    }

    /// Creates a configuration that runs several plugins as one.
    public init(
        cameraConfig: CameraConfig = .init(), flashConfig: FlashConfig = .init(),
        viewPluginCompositeConfig: ViewPluginCompositeConfig, audioFeedback: AudioFeedbackConfig? = nil
    ) {
        self.cameraConfig = cameraConfig
        self.flashConfig = flashConfig
        self.viewPluginConfig = nil
        self.viewPluginCompositeConfig = viewPluginCompositeConfig
        self.audioFeedback = audioFeedback
    }

    /// The complete default configuration of a plugin of `kind`, as `lumascan config default --plugin` prints it.
    ///
    /// The secure QR one does not validate until `secureQRConfig.issuerPrefixes` lists the issuers' URL prefixes:
    /// there is no default issuer.
    public static func defaultConfiguration(for kind: PluginKind = .barcode) -> ScanConfiguration {
        let recognizer: PluginConfig.RecognizerConfig
        switch kind {
        case .barcode: recognizer = .barcode(BarcodeConfiguration())
        case .secureQR: recognizer = .secureQR(SecureQRConfiguration())
        case .meter: recognizer = .meter(MeterConfiguration())
        }
        return ScanConfiguration(viewPluginConfig: ViewPluginConfig(pluginConfig: PluginConfig(recognizer: recognizer)))
    }

    /// The view plugins the configuration runs: the one plugin, or the composite's members.
    public var viewPlugins: [ViewPluginConfig] {
        if let viewPluginConfig { return [viewPluginConfig] }
        return viewPluginCompositeConfig?.viewPlugins ?? []
    }

    // MARK: Decoding and validating

    /// Decodes a JSON document and validates it.
    ///
    /// - Throws: ``LumaScanError`` with code ``LumaScanError/Code/invalidConfiguration`` and a message that starts
    ///   with the JSON path of the first problem (`(root)` for a document that is not JSON): an unknown key (with the
    ///   closest known key), a wrong type, a value out of range, or an unsupported combination.
    public static func decode(json: String) throws(LumaScanError) -> ScanConfiguration {
        try decode(data: Data(json.utf8))
    }

    /// Decodes a JSON document given as UTF-8 bytes and validates it; see ``decode(json:)``.
    public static func decode(data: Data) throws(LumaScanError) -> ScanConfiguration {
        // JSONDecoder locates no syntax error and accepts duplicate keys; the strict scan does both first.
        try ConfigurationSyntax.check([UInt8](data))
        let configuration: ScanConfiguration
        do {
            configuration = try JSONDecoder().decode(ScanConfiguration.self, from: data)
        } catch {
            throw LumaScanError.configuration(error)
        }
        try configuration.validate()
        return configuration
    }

    /// Checks every value and combination (``decode(json:)`` and ``makePlugin(logger:)`` call it).
    ///
    /// - Throws: ``LumaScanError`` with code ``LumaScanError/Code/invalidConfiguration`` whose message starts with the
    ///   JSON path of the first problem.
    public func validate() throws(LumaScanError) {
        let root = ConfigurationCheck(path: "")
        try cameraConfig.validate(root.nested("cameraConfig"))
        try audioFeedback?.validate(root.nested("audioFeedback"))
        switch (viewPluginConfig, viewPluginCompositeConfig) {
        case (let single?, nil):
            try single.validate(root.nested("viewPluginConfig"))
        case (nil, let composite?):
            try composite.validate(root.nested("viewPluginCompositeConfig"))
        case (.some, .some):
            throw Self.bothPluginsError
        case (nil, nil):
            throw Self.noPluginError
        }
    }

    static let bothPluginsError = LumaScanError(
        .invalidConfiguration,
        "viewPluginCompositeConfig: cannot be combined with viewPluginConfig; give exactly one of them")
    static let noPluginError = LumaScanError(
        .invalidConfiguration,
        "(root): missing viewPluginConfig or viewPluginCompositeConfig; give exactly one of them")

    // MARK: Encoding

    /// The complete document as JSON with sorted keys, every default written out (`null` for unset optional
    /// values); ``decode(json:)`` gives this configuration back.
    ///
    /// - Parameter pretty: indent the document over several lines (the default); `false` writes one line.
    public func asJSONString(pretty: Bool = true) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        // Non-finite numbers (only an invalid configuration has them) are written as strings, which decoding refuses.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            return String(decoding: try encoder.encode(self), as: UTF8.self)
        } catch {
            // Invariant: every value here encodes as a string, number, boolean, null, array or object, and
            // non-finite numbers as strings, so JSONEncoder has nothing to refuse.
            preconditionFailure("a ScanConfiguration failed to encode: \(error)")
        }
    }

    // MARK: Codable

    private static let keys = [
        "cameraConfig", "flashConfig", "viewPluginConfig", "viewPluginCompositeConfig", "audioFeedback",
    ]

    /// Decodes a document without validating it (``decode(json:)`` decodes and validates): absent or null keys take
    /// their defaults; unknown keys, wrong types and giving both or neither of `viewPluginConfig` and
    /// `viewPluginCompositeConfig` are errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: Self.keys)
        let container = try decoder.container(keyedBy: ConfigKey.self)
        cameraConfig = try container.value("cameraConfig", default: CameraConfig())
        flashConfig = try container.value("flashConfig", default: FlashConfig())
        switch (try container.has("viewPluginConfig"), try container.has("viewPluginCompositeConfig")) {
        case (true, true): throw Self.bothPluginsError
        case (false, false): throw Self.noPluginError
        default: break
        }
        viewPluginConfig = try container.optional("viewPluginConfig")
        viewPluginCompositeConfig = try container.optional("viewPluginCompositeConfig")
        audioFeedback = try container.optional("audioFeedback")
    }

    /// Encodes every key, the one of `viewPluginConfig` and `viewPluginCompositeConfig` that is set, and
    /// `audioFeedback` when it is set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        try container.encode(cameraConfig, forKey: ConfigKey(stringValue: "cameraConfig"))
        try container.encode(flashConfig, forKey: ConfigKey(stringValue: "flashConfig"))
        try container.encodeIfPresent(viewPluginConfig, forKey: ConfigKey(stringValue: "viewPluginConfig"))
        try container.encodeIfPresent(
            viewPluginCompositeConfig, forKey: ConfigKey(stringValue: "viewPluginCompositeConfig"))
        try container.encodeIfPresent(audioFeedback, forKey: ConfigKey(stringValue: "audioFeedback"))
    }
}

/// The coding key of the configuration types (``ConfigurationKeys/AnyKey``), by the short name this module uses.
typealias ConfigKey = ConfigurationKeys.AnyKey
