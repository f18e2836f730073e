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
        var message = "\(path): unknown key '\(key)'"
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
        var best: (key: String, distance: Int)?
        for candidate in known {
            let distance = editDistance(target, normal(candidate))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(2, target.count / 3) else { return nil }
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
    public struct AnyKey: CodingKey, Hashable, Sendable {
        /// The key's text.
        public var stringValue: String
        /// The array index, for array elements.
        public var intValue: Int?
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
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text.isEmpty ? "(root)" : text
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
