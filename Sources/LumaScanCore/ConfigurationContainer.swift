// The configuration types' reading of a JSON object, key by key: defaults for absent or null keys, integers that are
// integers, enumerations by their spellings with the closest one suggested, and every error naming its JSON path.
// Part of the one decoding toolkit (with ConfigurationDecoding.swift) that every configuration type uses.

extension KeyedDecodingContainer where Key == ConfigurationKeys.AnyKey {
    /// The value at `key`, or `fallback` when the key is absent or null.
    public func value<T: Decodable>(_ key: String, default fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: ConfigurationKeys.AnyKey(stringValue: key)) ?? fallback
    }

    /// The value at `key`, or `nil` when the key is absent or null.
    public func optional<T: Decodable>(_ key: String) throws -> T? {
        try decodeIfPresent(T.self, forKey: ConfigurationKeys.AnyKey(stringValue: key))
    }

    /// The integer at `key`, or `fallback` when the key is absent or null; a fraction or a number too large for an
    /// integer is an error naming the key's path (JSONDecoder would call it "not valid JSON", without a path).
    public func value(_ key: String, default fallback: Int) throws -> Int {
        try decodeIntegerIfPresent(forKey: ConfigurationKeys.AnyKey(stringValue: key)) ?? fallback
    }

    /// The integer at `key`, or `nil` when the key is absent or null; checked as the integer `value(_:default:)` is.
    public func optional(_ key: String) throws -> Int? {
        try decodeIntegerIfPresent(forKey: ConfigurationKeys.AnyKey(stringValue: key))
    }

    /// The object of integers at `key`, or `fallback` when the key is absent or null.
    public func value(_ key: String, default fallback: [String: Int]) throws -> [String: Int] {
        try decodeIntegersIfPresent(forKey: ConfigurationKeys.AnyKey(stringValue: key)) ?? fallback
    }

    /// Whether `key` is present with a value other than null.
    public func has(_ key: String) throws -> Bool {
        let codingKey = ConfigurationKeys.AnyKey(stringValue: key)
        return try contains(codingKey) && !decodeNil(forKey: codingKey)
    }

    /// The coding path of `key` in this container.
    public func path(_ key: String) -> [any CodingKey] { codingPath + [ConfigurationKeys.AnyKey(stringValue: key)] }

    /// The enumeration value spelt by the string at `key`, or `fallback` when the key is absent or null. A string
    /// that spells none of `cases` is an error naming the key's path, the values allowed and the closest one.
    public func choice<T>(_ key: String, _ cases: [T], spelling: (T) -> String, default fallback: T) throws -> T {
        guard let text = try decodeIfPresent(String.self, forKey: ConfigurationKeys.AnyKey(stringValue: key)) else {
            return fallback
        }
        if let match = cases.first(where: { spelling($0) == text }) { return match }
        let names = cases.map(spelling)
        var problem = "\(ConfigurationPath.quoted(text)) is not one of \(names.joined(separator: ", "))"
        if let suggestion = ConfigurationKeys.closest(to: text, in: names) {
            problem += "; did you mean \"\(suggestion)\"?"
        }
        throw ConfigurationPath.error(path(key), problem)
    }
}
