import LumaScanCore

/// How the meter recognizer reads: Anyline's `meterConfig`, plus LumaScan's stabilisation setting.
///
/// Decoding accepts Anyline's spellings (`"scanMode": "digital_meter"`), rejects unknown keys and validates every
/// value, throwing ``LumaScanError`` with code ``LumaScanError/Code/invalidConfiguration`` and a message that names the
/// JSON path (`viewPluginConfig.pluginConfig.meterConfig.minConfidence: 140 is above 100`). A configuration is
/// immutable once a ``MeterRecognizer`` is built from it.
public struct MeterConfiguration: Hashable, Sendable, Codable {
    /// The JSON path of a meter configuration in an Anyline view configuration, used in error messages.
    public static let jsonPath = "viewPluginConfig.pluginConfig.meterConfig"

    /// Which kind of meter to read.
    public enum ScanMode: String, Hashable, Sendable, Codable, CaseIterable {
        /// Seven-segment LCD and LED displays with a decimal point, read segment by segment.
        case digitalMeter = "digital_meter"
        /// Analog roller counters with printed digits, dark on light or light on dark, including digits caught half-way
        /// through a roll (read as the lower digit).
        case counterMeter = "counter_meter"
        /// Both readers; the more confident reading wins.
        case autoMeter = "auto_meter"
        /// Dial (pointer) meters: accepted by the configuration, refused when a recognizer is built (not supported
        /// yet).
        case dialMeter = "dial_meter"
    }

    /// Which kind of meter to read.
    ///
    /// Default: ``ScanMode/autoMeter``.
    public var scanMode: ScanMode
    /// The confidence (0–100) a reading needs to be completed: a reading is as confident as its least confident
    /// digit. A roller counter's digit is as confident as the digit network's probability (in percent) that its drum
    /// shows that digit under the carry rule, so a drum caught between two digits that no carry explains stays low.
    ///
    /// Default: 60.
    public var minConfidence: Int
    /// The most digits kept after the decimal point (further ones are dropped); negative keeps them all. As in
    /// Anyline, this does not block a result, it shortens it.
    ///
    /// Default: -1 (all).
    public var maxNumDecimalDigits: Int
    /// A regular expression the whole reading (digits and decimal point) must match to be completed; `nil` accepts
    /// every reading.
    ///
    /// Default: `nil`.
    public var validationRegex: String?
    /// How many confident readings in a row (each at or above `minConfidence` and valid) must agree before the reading
    /// is completed; frames without a confident reading in between neither count nor break the row, except that a
    /// frame reading the same digits at three quarters of `minConfidence` or more counts once a confident frame has
    /// read them (``MeterRecognizer/supportingFraction``) (JSON: `consecutiveFrames`, a LumaScan extension).
    ///
    /// Default: 3.
    public var consecutiveFrames: Int

    /// Creates a meter configuration; call ``validate()`` before use when the values come from outside.
    public init(
        scanMode: ScanMode = .autoMeter, minConfidence: Int = 60, maxNumDecimalDigits: Int = -1,
        validationRegex: String? = nil, consecutiveFrames: Int = 3
    ) {
        self.scanMode = scanMode
        self.minConfidence = minConfidence
        self.maxNumDecimalDigits = maxNumDecimalDigits
        self.validationRegex = validationRegex
        self.consecutiveFrames = consecutiveFrames
    }

    /// Throws ``LumaScanError/Code/invalidConfiguration`` naming the first invalid value's JSON path. A `dial_meter`
    /// scan mode is valid here; ``MeterRecognizer`` refuses it.
    public func validate() throws(LumaScanError) {
        try validate(path: Self.jsonPath)
    }

    /// The range of ``minConfidence``, in percent.
    public static let minConfidenceRange = 0...100
    /// The range of ``maxNumDecimalDigits``: -1 keeps every digit, and a meter shows far fewer than 10.
    public static let maxNumDecimalDigitsRange = -1...10
    /// The range of ``consecutiveFrames``.
    public static let consecutiveFramesRange = 1...1000

    /// ``validate()`` for the configuration at `path` in a document: the messages start with that path.
    public func validate(path: String) throws(LumaScanError) {
        let check = ConfigurationCheck(path: path)
        try check.check("minConfidence", minConfidence, in: Self.minConfidenceRange)
        try check.check("maxNumDecimalDigits", maxNumDecimalDigits, in: Self.maxNumDecimalDigitsRange)
        try check.check("consecutiveFrames", consecutiveFrames, in: Self.consecutiveFramesRange)
        if let validationRegex {
            do {
                _ = try Regex(validationRegex)
            } catch {
                throw LumaScanError(
                    .invalidConfiguration,
                    "\(path).validationRegex: \(ConfigurationPath.quoted(validationRegex)) is not a valid regular expression",
                    underlying: RegexError(description: "\(error)"))
            }
        }
    }

    /// Why a regular expression did not compile, as the regex engine said it.
    struct RegexError: Error, Sendable, CustomStringConvertible {
        var description: String
    }
}

// MARK: - Decoding

extension MeterConfiguration {
    private enum Key: String, CaseIterable {
        case scanMode, minConfidence, maxNumDecimalDigits, validationRegex, consecutiveFrames
    }

    /// Decodes Anyline's spellings, rejecting unknown keys and invalid values with a ``LumaScanError`` that names the
    /// JSON path.
    public init(from decoder: any Decoder) throws {
        let path = ConfigurationPath.string(decoder.codingPath, under: "meterConfig", standaloneRoot: Self.jsonPath)
        let container = try decoder.container(keyedBy: AnyKey.self)
        try container.rejectUnknownKeys(allowed: Key.allCases.map(\.rawValue), path: path)
        self.init()
        func present(_ key: Key) throws -> AnyKey? {
            let codingKey = AnyKey(key.rawValue)
            guard container.contains(codingKey), try !container.decodeNil(forKey: codingKey) else { return nil }
            return codingKey
        }
        func integer(_ key: Key) throws -> Int? {
            guard let codingKey = try present(key) else { return nil }
            let value: Double
            do {
                value = try container.decode(Double.self, forKey: codingKey)
            } catch {
                throw LumaScanError(
                    .invalidConfiguration, "\(path).\(key.rawValue): expected a number", underlying: error)
            }
            return try ConfigurationPath.integer(value, at: "\(path).\(key.rawValue)")
        }
        func string(_ key: Key) throws -> String? {
            guard let codingKey = try present(key) else { return nil }
            do {
                return try container.decode(String.self, forKey: codingKey)
            } catch {
                throw LumaScanError(
                    .invalidConfiguration, "\(path).\(key.rawValue): expected a string", underlying: error)
            }
        }
        if let text = try string(.scanMode) {
            guard let mode = ScanMode(rawValue: text) else {
                let knownModes = ScanMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw LumaScanError(
                    .invalidConfiguration,
                    "\(path).scanMode: \(ConfigurationPath.quoted(text)) is not one of \(knownModes)")
            }
            scanMode = mode
        }
        if let value = try integer(.minConfidence) { minConfidence = value }
        if let value = try integer(.maxNumDecimalDigits) { maxNumDecimalDigits = value }
        if let value = try string(.validationRegex) { validationRegex = value }
        if let value = try integer(.consecutiveFrames) { consecutiveFrames = value }
        try validate(path: path)
    }

    /// Encodes with Anyline's spellings; `validationRegex` only when set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(scanMode, forKey: AnyKey(Key.scanMode.rawValue))
        try container.encode(minConfidence, forKey: AnyKey(Key.minConfidence.rawValue))
        try container.encode(maxNumDecimalDigits, forKey: AnyKey(Key.maxNumDecimalDigits.rawValue))
        try container.encodeIfPresent(validationRegex, forKey: AnyKey(Key.validationRegex.rawValue))
        try container.encode(consecutiveFrames, forKey: AnyKey(Key.consecutiveFrames.rawValue))
    }
}
