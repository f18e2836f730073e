// The small JSON writer behind LumaScan's event lines: the event encoder (LumaScanEventJSON) writes the envelope
// with it and every ScanReportDetail its own object, so a recognizer in another package encodes its detail the same
// way. Numbers keep a fixed, short form (integers without a fraction, others to six decimals), which the schema
// promises; Foundation's JSONEncoder would neither keep key order nor that form.

/// Builds a JSON object's text, key by key, in the order the keys are added.
public struct JSONObject: Sendable {
    private var body = "{"
    private var empty = true

    /// An empty object.
    public init() {}

    /// The object's text, closed.
    public var text: String { body + "}" }

    /// Adds `key` with `raw`, JSON text written by the caller (a number, an array, a nested object's ``text``).
    public mutating func addRaw(_ key: String, _ raw: String) {
        if !empty { body += "," }
        empty = false
        body += JSONText.quoted(key) + ":" + raw
    }

    /// Adds `key` with a string value.
    public mutating func add(_ key: String, _ value: String) { addRaw(key, JSONText.quoted(value)) }
    /// Adds `key` with an integer value.
    public mutating func add(_ key: String, _ value: Int) { addRaw(key, String(value)) }
    /// Adds `key` with a number (see ``JSONText/number(_:)``).
    public mutating func add(_ key: String, _ value: Double) { addRaw(key, JSONText.number(value)) }
    /// Adds `key` with `true` or `false`.
    public mutating func add(_ key: String, _ value: Bool) { addRaw(key, String(value)) }
    /// Adds `key` with a nested object.
    public mutating func add(_ key: String, _ object: JSONObject) { addRaw(key, object.text) }
}

/// JSON text for the values LumaScan writes.
public enum JSONText {
    /// A JSON number: integers without a fraction, others with up to six decimals; `null` when not finite.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        let scaled = (value * 1_000_000).rounded() / 1_000_000
        return "\(scaled)"
    }

    /// A JSON string literal.
    public static func quoted(_ string: String) -> String {
        var output = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    /// An array of `elements`, each already JSON text.
    public static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }

    /// `[[x, y], …]`.
    public static func points(_ polygon: [Point]) -> String {
        array(polygon.map { "[\(number($0.x)),\(number($0.y))]" })
    }

    /// `{"x":…,"y":…,"width":…,"height":…}`.
    public static func rect(_ rect: Rect) -> String {
        var object = JSONObject()
        object.add("x", rect.x)
        object.add("y", rect.y)
        object.add("width", rect.width)
        object.add("height", rect.height)
        return object.text
    }

    /// Standard base64 with padding.
    public static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for (offset, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * offset) }
            for position in 0..<4 {
                if position <= chunk.count {
                    output.append(alphabet[(value >> (18 - 6 * position)) & 63])
                } else {
                    output.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
