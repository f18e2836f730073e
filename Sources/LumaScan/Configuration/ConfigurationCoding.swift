import LumaScanCore

/// The coding key every configuration type here decodes with, so that it can list the keys a JSON object holds.
typealias ConfigKey = ConfigurationKeys.AnyKey

extension KeyedDecodingContainer where Key == ConfigKey {
    /// The value at `key`, or `fallback` when the key is absent or null.
    func value<T: Decodable>(_ key: String, default fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: ConfigKey(stringValue: key)) ?? fallback
    }

    /// The value at `key`, or `nil` when the key is absent or null.
    func optional<T: Decodable>(_ key: String) throws -> T? {
        try decodeIfPresent(T.self, forKey: ConfigKey(stringValue: key))
    }

    /// The integer at `key`, or `fallback` when the key is absent or null; a fraction or a number too large for an
    /// integer is an error naming the key's path (JSONDecoder would call it "not valid JSON", without a path).
    func value(_ key: String, default fallback: Int) throws -> Int {
        try decodeIntegerIfPresent(forKey: ConfigKey(stringValue: key)) ?? fallback
    }

    /// The integer at `key`, or `nil` when the key is absent or null; checked as the integer `value(_:default:)` is.
    func optional(_ key: String) throws -> Int? {
        try decodeIntegerIfPresent(forKey: ConfigKey(stringValue: key))
    }

    /// The object of integers at `key`, or `fallback` when the key is absent or null.
    func value(_ key: String, default fallback: [String: Int]) throws -> [String: Int] {
        try decodeIntegersIfPresent(forKey: ConfigKey(stringValue: key)) ?? fallback
    }

    /// Whether `key` is present with a value other than null.
    func has(_ key: String) throws -> Bool {
        let codingKey = ConfigKey(stringValue: key)
        return try contains(codingKey) && !decodeNil(forKey: codingKey)
    }

    /// The coding path of `key` in this container.
    func path(_ key: String) -> [any CodingKey] { codingPath + [ConfigKey(stringValue: key)] }

    /// The enumeration value spelt by the string at `key`, or `fallback` when the key is absent or null. A string
    /// that spells none of `cases` is an error naming the key's path, the values allowed and the closest one.
    func choice<T>(_ key: String, _ cases: [T], spelling: (T) -> String, default fallback: T) throws -> T {
        guard let text = try decodeIfPresent(String.self, forKey: ConfigKey(stringValue: key)) else { return fallback }
        if let match = cases.first(where: { spelling($0) == text }) { return match }
        let names = cases.map(spelling)
        var problem = "\(ConfigurationPath.quoted(text)) is not one of \(names.joined(separator: ", "))"
        if let suggestion = ConfigurationKeys.closest(to: text, in: names) {
            problem += "; did you mean \"\(suggestion)\"?"
        }
        throw ConfigurationPath.error(path(key), problem)
    }

    /// Decodes a configuration type another module owns at `key`, with its error messages rebased so that they start
    /// with the key's real JSON path (see ``ConfigurationRebase``).
    func component<T: Decodable>(_ type: T.Type, _ key: String, standaloneRoot: String) throws -> T? {
        guard try has(key) else { return nil }
        let keyPath = path(key)
        do {
            return try decode(T.self, forKey: ConfigKey(stringValue: key))
        } catch let error as LumaScanError {
            throw ConfigurationRebase.rebase(error, at: keyPath, standaloneRoot: standaloneRoot)
        }
    }
}

/// Puts the JSON path at the start of the messages that configuration types owned by other modules throw.
///
/// `BarcodeConfiguration`, `MeterConfiguration`, `SecureQRConfiguration` and `CutoutConfiguration` each validate
/// with messages rooted at their own standalone path (`barcodeConfig.…`,
/// `viewPluginConfig.pluginConfig.meterConfig.…`) and, when decoded inside a larger document, write the coding path their own way (`barcodeConfig.` before it, or
/// array elements as `Index 0`). Inside a ``ScanConfiguration`` they may sit elsewhere (in a composite's
/// `viewPlugins[1]`), so every such message is rebased here onto the path ``ConfigurationPath`` prints.
enum ConfigurationRebase {
    /// `error` with its message's leading path (any of the spellings above for `codingPath`, or `standaloneRoot`)
    /// replaced by `codingPath` as ``ConfigurationPath`` prints it. Other errors pass through unchanged.
    static func rebase(_ error: LumaScanError, at codingPath: [any CodingKey], standaloneRoot: String) -> LumaScanError
    {
        rebase(error, to: ConfigurationPath.string(codingPath), prefixes: spellings(of: codingPath) + [standaloneRoot])
    }

    /// `error` with the longest of `prefixes` that starts its message (followed by `.`, `[`, `:` or the end)
    /// replaced by `path`.
    static func rebase(_ error: LumaScanError, to path: String, prefixes: [String]) -> LumaScanError {
        guard error.code == .invalidConfiguration else { return error }
        let message = error.message
        let matching = prefixes.filter { prefix in
            guard message.hasPrefix(prefix) else { return false }
            guard let next = message.dropFirst(prefix.count).first else { return true }
            return next == "." || next == "[" || next == ":"
        }
        guard let prefix = matching.max(by: { $0.count < $1.count }) else { return error }
        return LumaScanError(error.code, path + message.dropFirst(prefix.count), underlying: error.underlying)
    }

    /// The ways the other modules' decoders write `codingPath`.
    static func spellings(of codingPath: [any CodingKey]) -> [String] {
        let bracketed = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
        return [
            ConfigurationPath.string(codingPath),
            codingPath.map(\.stringValue).joined(separator: "."),
            (["barcodeConfig"] + bracketed).joined(separator: "."),
        ]
    }

    /// Runs `body` (a validation) and rebases its error from `standaloneRoot` onto `path`.
    static func validating(
        at path: String, standaloneRoot: String, _ body: () throws(LumaScanError) -> Void
    ) throws(LumaScanError) {
        do {
            try body()
        } catch {
            throw rebase(error, to: path, prefixes: [standaloneRoot])
        }
    }
}
