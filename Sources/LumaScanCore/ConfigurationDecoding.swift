/// Helpers every configuration type uses so that a bad document is refused with the JSON path and the problem.
///
/// Configuration types decode with `JSONDecoder` and call ``ConfigurationKeys/reject(unknownKeysIn:known:)`` from
/// their `init(from:)`, so that a misspelt key is an error naming the closest known key rather than a silently
/// ignored setting. ``LumaScanError/configuration(_:)`` turns a `DecodingError` into a ``LumaScanError`` whose message
/// starts with the JSON path.
public enum ConfigurationKeys {
    /// Throws when the object being decoded has a key that is not in `known`, naming the key's path and the closest
    /// known key.
    public static func reject(unknownKeysIn decoder: any Decoder, known: [String]) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys where !known.contains(key.stringValue) {
            let path = ConfigurationPath.string(decoder.codingPath + [key])
            throw unknownKey(key.stringValue, at: path, known: known)
        }
    }

    /// The error for an unknown key at `path` (the key's own path): it names the closest known key when one is
    /// close, else lists the known keys. Every configuration type words unknown keys this way.
    public static func unknownKey(_ key: String, at path: String, known: [String]) -> LumaScanError {
        var message = "\(ConfigurationSyntax.excerpt(path)): unknown key '\(ConfigurationSyntax.excerpt(key))'"
        if let suggestion = closest(to: key, in: known) {
            message += "; did you mean '\(suggestion)'?"
        } else {
            message += "; known keys: \(known.sorted().joined(separator: ", "))"
        }
        return LumaScanError(.invalidConfiguration, message)
    }

    /// The known key closest to `key` by edit distance (ignoring case, `_` and `-`), when it is close enough to be a
    /// likely misspelling.
    public static func closest(to key: String, in known: [String]) -> String? {
        func normal(_ text: String) -> [Character] { Array(text.lowercased().filter { $0 != "_" && $0 != "-" }) }
        let target = normal(key)
        let limit = max(2, target.count / 3)
        var best: (key: String, distance: Int)?
        for candidate in known {
            let other = normal(candidate)
            // The distance is at least the difference in length: a key far longer than every known one (a 1 MB key)
            // is not compared character by character.
            guard abs(target.count - other.count) <= limit else { continue }
            let distance = editDistance(target, other)
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best, best.distance <= limit else { return nil }
        return best.key
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// A coding key for any string or index.
    ///
    /// The one coding key every configuration type decodes its objects with, so that it can list the keys an object
    /// holds.
    public struct AnyKey: CodingKey, Hashable, Sendable {
        /// The key's text.
        public var stringValue: String
        /// The array index, for array elements.
        public var intValue: Int?
        /// The key `name`.
        public init(_ name: String) { stringValue = name }
        /// Creates a key from text.
        public init(stringValue: String) { self.stringValue = stringValue }
        /// Creates a key for an array index.
        public init(intValue: Int) {
            stringValue = "\(intValue)"
            self.intValue = intValue
        }
    }
}

/// Formats coding paths the way LumaScan's messages print them: `viewPluginConfig.cutoutConfig.offset.y`, with
/// array elements as `[2]`.
public enum ConfigurationPath {
    /// The path as text; the empty path is `(root)`.
    public static func string(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "\(index)" || key.stringValue.hasPrefix("Index ") {
                text += "[\(index)]"
            } else {
                let name = ConfigurationSyntax.excerpt(key.stringValue)
                text += text.isEmpty ? name : "." + name
            }
        }
        return text.isEmpty ? "(root)" : text
    }

    /// `text` in double quotes, as messages echo a bad value: at most ``ConfigurationSyntax/echoLimit`` characters of
    /// it, so that a 50 MB value does not become a 50 MB message.
    public static func quoted(_ text: some StringProtocol) -> String { "\"\(ConfigurationSyntax.excerpt(text))\"" }

    /// The JSON path at `codingPath` inside a configuration type that a document holds under the key `key` and that
    /// may also be decoded on its own (`barcodeConfig`, `meterConfig`, `secureQRConfig`, `cutoutConfig`): inside a
    /// document (the coding path passes through `key`) the path as ``string(_:)`` prints it, such as
    /// `viewPluginCompositeConfig.viewPlugins[1].viewPlugin.pluginConfig.barcodeConfig.regionOfInterest`; decoded on
    /// its own, the same path under `standaloneRoot`, the path the type has in a plain Anyline document
    /// (`barcodeConfig.regionOfInterest`). Every such type names its paths this way, so that its messages are right
    /// wherever it sits and nothing rewrites them afterwards.
    public static func string(_ codingPath: [any CodingKey], under key: String, standaloneRoot: String) -> String {
        if codingPath.contains(where: { $0.stringValue == key }) { return string(codingPath) }
        guard !codingPath.isEmpty else { return standaloneRoot }
        let relative = string(codingPath)
        return relative.hasPrefix("[") ? standaloneRoot + relative : standaloneRoot + "." + relative
    }

    /// An ``LumaScanError/Code/invalidConfiguration`` error: `"path: problem"`.
    public static func error(_ codingPath: [any CodingKey], _ problem: String) -> LumaScanError {
        LumaScanError(.invalidConfiguration, "\(string(codingPath)): \(problem)")
    }
}

extension LumaScanError {
    /// Turns an error thrown while decoding a configuration into a ``Code/invalidConfiguration`` error whose message
    /// names the JSON path and the problem. LumaScan's own validation errors pass through unchanged.
    public static func configuration(_ error: any Error) -> LumaScanError {
        if let error = error as? LumaScanError { return error }
        guard let error = error as? DecodingError else {
            return LumaScanError(.invalidConfiguration, "invalid configuration: \(error)")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return ConfigurationPath.error(
                context.codingPath, "expected \(describe(type)); \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            return ConfigurationPath.error(context.codingPath, "expected \(describe(type)), found null")
        case .keyNotFound(let key, let context):
            return ConfigurationPath.error(context.codingPath + [key], "missing required key")
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError).map { " (\($0))" } ?? ""
            return ConfigurationPath.error(context.codingPath, "\(context.debugDescription)\(underlying)")
        @unknown default:
            return LumaScanError(.invalidConfiguration, "invalid configuration: \(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int32.Type, is UInt32.Type, is UInt64.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        default:
            "\(type)".hasPrefix("Array") ? "an array" : (("\(type)".hasPrefix("Dictionary")) ? "an object" : "\(type)")
        }
    }
}

// MARK: - Integers

extension ConfigurationPath {
    /// The largest magnitude an integer field takes from JSON: 2^53, the largest a JSON number holds exactly.
    /// Fields have far smaller ranges of their own, checked after decoding.
    public static let integerMagnitude = 9_007_199_254_740_992.0

    /// `number` as an integer, or an error naming `path` and why it is not one: `0.5 is not a whole number` or
    /// `1e+308 is too large for an integer`. `JSONDecoder` refuses both as "not valid JSON", without a path.
    public static func integer(_ number: Double, at path: String) throws(LumaScanError) -> Int {
        guard number.isFinite, abs(number) <= integerMagnitude else {
            throw LumaScanError(
                .invalidConfiguration, "\(path): \(number) is too large for an integer; this field takes a whole number"
            )
        }
        guard number == number.rounded() else {
            throw LumaScanError(
                .invalidConfiguration, "\(path): \(number) is not a whole number; this field takes an integer")
        }
        return Int(number)
    }
}

extension KeyedDecodingContainer {
    /// The integer at `key`, or `nil` when it is absent or null; a fraction, a number too large for an integer or
    /// a value that is not a number is an error naming the key's JSON path.
    public func decodeIntegerIfPresent(forKey key: Key) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        let path = codingPath + [key]
        let number: Double
        do {
            number = try decode(Double.self, forKey: key)
        } catch {
            throw ConfigurationPath.error(path, "expected an integer")
        }
        return try ConfigurationPath.integer(number, at: ConfigurationPath.string(path))
    }

    /// The integer at `key`; absent or null is an error naming the key's JSON path (see
    /// ``decodeIntegerIfPresent(forKey:)``).
    public func decodeInteger(forKey key: Key) throws -> Int {
        guard let value = try decodeIntegerIfPresent(forKey: key) else {
            throw ConfigurationPath.error(codingPath + [key], "missing required integer")
        }
        return value
    }

    /// The object of integers at `key` (`{"ean13": 13}`), or `nil` when it is absent or null; each member is checked
    /// as ``decodeIntegerIfPresent(forKey:)`` checks one.
    public func decodeIntegersIfPresent(forKey key: Key) throws -> [String: Int]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        let members = try nestedContainer(keyedBy: ConfigurationKeys.AnyKey.self, forKey: key)
        var result: [String: Int] = [:]
        for member in members.allKeys {
            result[member.stringValue] = try members.decodeInteger(forKey: member)
        }
        return result
    }
}

// MARK: - Identifiers

extension ConfigurationPath {
    /// Why `id` cannot name a plugin or recognizer, or `nil` when it can: it must not be empty, and must hold no
    /// control character (a NUL would cut it short in C and in logs; a newline would split an event line).
    public static func identifierProblem(_ id: String) -> String? {
        if id.isEmpty { return "must not be empty" }
        if let control = id.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = String(control.value, radix: 16, uppercase: true)
            return "\(quoted(id.debugDescription.dropFirst().dropLast())) holds the control character U+"
                + String(repeating: "0", count: max(0, 4 - code.count)) + code + "; an id must be printable"
        }
        return nil
    }
}

/// Building path-naming validation errors on JSON paths written as text.
public struct ConfigurationCheck: Sendable {
    /// The JSON path of the object being checked, such as `viewPluginConfig.pluginConfig`.
    public var path: String

    /// A check of the object at `path` (empty for the document's root).
    public init(path: String) { self.path = path }

    /// The path of `key` in the object.
    public func path(_ key: String) -> String { path.isEmpty || path == "(root)" ? key : "\(path).\(key)" }

    /// An ``LumaScanError/Code/invalidConfiguration`` error: `"path.key: problem"`.
    public func fail(_ key: String, _ problem: String) -> LumaScanError {
        LumaScanError(.invalidConfiguration, "\(path(key)): \(problem)")
    }

    /// The check of the object at `key`.
    public func nested(_ key: String) -> ConfigurationCheck { ConfigurationCheck(path: path(key)) }

    /// Throws unless `value` lies in `range`, saying which end it passes: `"-1 s is below 0"`,
    /// `"90000 s is above 86400 s"`.
    public func check<T: Comparable>(
        _ key: String, _ value: T, in range: ClosedRange<T>, unit: String = ""
    ) throws(LumaScanError) {
        if let double = value as? Double, !double.isFinite { throw fail(key, "\(double) is not a finite number") }
        func text(_ number: T, unitless: Bool = false) -> String {
            let digits = Self.text(number)
            return unit.isEmpty || unitless ? digits : "\(digits) \(unit)"
        }
        let lower = range.lowerBound
        if value < lower {
            throw fail(key, "\(text(value)) is below \(text(lower, unitless: Self.text(lower) == "0"))")
        }
        if value > range.upperBound { throw fail(key, "\(text(value)) is above \(text(range.upperBound))") }
    }

    /// A number as messages print it: whole doubles without a fraction (`0`, not `0.0`).
    public static func text(_ value: some Any) -> String {
        if let double = value as? Double, double == double.rounded(), abs(double) < 1e15 {
            return String(Int64(double))
        }
        return "\(value)"
    }
}

extension KeyedDecodingContainer where Key == ConfigurationKeys.AnyKey {
    /// Throws ``LumaScanError/Code/invalidConfiguration`` for the first key (in sorted order) not in `allowed`, naming
    /// it under `path` (the object's JSON path) as ``ConfigurationKeys/unknownKey(_:at:known:)`` words it.
    public func rejectUnknownKeys(allowed: [String], path: String) throws(LumaScanError) {
        let unknown = allKeys.map(\.stringValue).filter { !allowed.contains($0) }.sorted()
        if let first = unknown.first {
            throw ConfigurationKeys.unknownKey(first, at: "\(path).\(first)", known: allowed)
        }
    }
}
