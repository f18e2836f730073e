/// A strict JSON syntax check that only validates and locates, run on a configuration document before it is
/// decoded: Foundation's `JSONDecoder` reports every syntax error as "not valid JSON" with no position, accepts
/// duplicate keys (the first one winning) and recurses once per nesting level.
///
/// The check follows RFC 8259 and refuses, with the line, column and byte offset and what was expected there: an empty
/// document, a byte order mark, invalid UTF-8, a truncated document, anything after the document's one value, a key
/// given twice in one object (naming both positions and the object's JSON path), and nesting deeper than
/// ``maximumDepth``. It is iterative, so no input can exhaust the stack, and it allocates only the stack of open
/// containers and their keys.
public enum ConfigurationSyntax {
    /// The deepest nesting of objects and arrays a configuration may have; real documents need about 6.
    public static let maximumDepth = 64

    /// The most characters of a bad value or key a message echoes.
    public static let echoLimit = 200

    /// A position in the document.
    public struct Position: Hashable, Sendable, CustomStringConvertible {
        /// The line, from 1.
        public var line: Int
        /// The column, from 1, counting characters (Unicode scalars), not bytes.
        public var column: Int
        /// The byte offset from the start of the document, from 0.
        public var offset: Int

        /// `line 3, column 14 (byte 52)`.
        public var description: String { "line \(line), column \(column) (byte \(offset))" }
    }

    /// Throws ``LumaScanError/Code/invalidConfiguration`` when `bytes` is not one well-formed JSON value of UTF-8
    /// text, naming where and what was expected.
    public static func check(_ bytes: [UInt8]) throws(LumaScanError) {
        var scanner = Scanner(bytes: bytes)
        try scanner.document()
    }

    /// `text`, or its first ``echoLimit`` characters followed by how many were left out, so that a 50 MB value does
    /// not become a 50 MB message.
    public static func excerpt(_ text: some StringProtocol, limit: Int = echoLimit) -> String {
        guard text.count > limit else { return String(text) }
        return "\(text.prefix(limit))… (\(text.count - limit) more characters)"
    }

    /// What an open container is called in its parent: nothing at the root, a key in an object, an index in an
    /// array. Paths are put together from these only for a message, so scanning never copies them.
    private enum Name {
        case root
        case key(String)
        case index(Int)
    }

    /// An open object, an open array (the index of its current element), or an object member whose scalar value is
    /// being scanned (for the value's path in a message).
    private enum Kind {
        case object
        case array(index: Int)
        case member
    }

    private struct Container {
        var kind: Kind
        var name: Name
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var stack: [Container] = []
        /// The keys of each open object and their byte offsets, for duplicates: apart from `stack`, so that adding a
        /// key mutates the innermost dictionary in place instead of copying it.
        var keys: [[String: Int]] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        // MARK: Positions and errors

        func position(_ offset: Int) -> Position {
            var line = 1
            var lineStart = 0
            for i in 0..<min(offset, bytes.count) where bytes[i] == UInt8(ascii: "\n") {
                line += 1
                lineStart = i + 1
            }
            // Columns count scalars: every byte that does not continue a UTF-8 sequence.
            let column = bytes[lineStart..<min(offset, bytes.count)].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
            return Position(line: line, column: column, offset: offset)
        }

        /// The JSON path of the value being scanned: `viewPluginConfig.pluginConfig`, `(root)` at the top.
        var path: String {
            var text = ""
            for container in stack {
                switch container.name {
                case .root: break
                case .key(let key): text += text.isEmpty ? key : "." + key
                case .index(let index): text += "\(text.isEmpty ? "(root)" : "")[\(index)]"
                }
            }
            return text.isEmpty ? "(root)" : text
        }

        func fail(_ problem: String, at offset: Int? = nil) -> LumaScanError {
            let at = offset ?? index
            let found: String
            if at >= bytes.count {
                found = "the end of the document"
            } else {
                let byte = bytes[at]
                found =
                    byte >= 0x20 && byte < 0x7F
                    ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
            }
            return LumaScanError(.invalidConfiguration, "\(excerpt(path)): \(position(at)): \(problem), found \(found)")
        }

        // MARK: Grammar

        mutating func document() throws(LumaScanError) {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                throw LumaScanError(
                    .invalidConfiguration,
                    "(root): \(position(0)): the document starts with a UTF-8 byte order mark (EF BB BF); "
                        + "save it as UTF-8 without one")
            }
            skipSpace()
            guard index < bytes.count else {
                throw LumaScanError(
                    .invalidConfiguration,
                    bytes.isEmpty
                        ? "(root): the document is empty; expected a JSON object"
                        : "(root): the document holds only white space; expected a JSON object")
            }
            try value()
            while !stack.isEmpty {
                try continueContainer()
            }
            skipSpace()
            if index < bytes.count {
                throw fail("expected nothing after the end of the document's value")
            }
        }

        /// Scans one value; an object or array is opened and left on the stack for ``continueContainer()``.
        mutating func value() throws(LumaScanError) {
            skipSpace()
            guard index < bytes.count else {
                throw fail("expected a value (object, array, string, number, true, false or null)")
            }
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): try open(named: childName())
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: throw fail("expected a value (object, array, string, number, true, false or null)")
            }
        }

        /// The name of an element of the innermost container (an array's current index; the root at the top).
        func childName() -> Name {
            if case .array(let index)? = stack.last?.kind { return .index(index) }
            return .root
        }

        /// Opens the object or array at `index`, which `name` names in its parent, and starts its first element.
        mutating func open(named name: Name) throws(LumaScanError) {
            let isObject = bytes[index] == UInt8(ascii: "{")
            guard stack.lazy.filter({ if case .member = $0.kind { false } else { true } }).count < maximumDepth else {
                throw fail("nested deeper than \(maximumDepth) objects and arrays; a configuration needs far fewer")
            }
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                index += 1
                return
            }
            stack.append(Container(kind: isObject ? .object : .array(index: 0), name: name))
            if isObject { keys.append([:]) }
            try beginElement(first: true)
        }

        /// Starts the next element of the innermost container: for an object its key and colon, then the value.
        mutating func beginElement(first: Bool) throws(LumaScanError) {
            guard case .object? = stack.last?.kind else {
                try value()
                return
            }
            skipSpace()
            let keyStart = index
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail(first ? "expected a key (a string) or '}'" : "expected a key (a string) after ','")
            }
            let key = try string()
            if let earlier = keys[keys.count - 1][key] {
                stack.append(Container(kind: .member, name: .key(key)))
                throw LumaScanError(
                    .invalidConfiguration,
                    "\(excerpt(path)): duplicate key at \(position(keyStart)); first given at \(position(earlier))")
            }
            keys[keys.count - 1][key] = keyStart
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail("expected ':' after the key \"\(excerpt(key))\"")
            }
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "[") {
                try open(named: .key(key))
            } else {
                // The member's scalar value is scanned with the member's path.
                stack.append(Container(kind: .member, name: .key(key)))
                try value()
                stack.removeLast()
            }
        }

        /// After a value inside the innermost container: a ',' and the next element, or the closing bracket.
        mutating func continueContainer() throws(LumaScanError) {
            skipSpace()
            guard let top = stack.last else { return }
            let isObject: Bool
            if case .object = top.kind { isObject = true } else { isObject = false }
            let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            guard index < bytes.count else {
                throw fail(
                    isObject
                        ? "the document ends inside an object; expected ',' or '}'"
                        : "the document ends inside an array; expected ',' or ']'")
            }
            if bytes[index] == closing {
                index += 1
                stack.removeLast()
                if isObject { keys.removeLast() }
                return
            }
            guard bytes[index] == UInt8(ascii: ",") else {
                throw fail(
                    isObject
                        ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element")
            }
            index += 1
            if case .array(let count) = top.kind { stack[stack.count - 1].kind = .array(index: count + 1) }
            try beginElement(first: false)
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func literal(_ word: String) throws(LumaScanError) {
            let start = index
            for byte in word.utf8 {
                guard index < bytes.count, bytes[index] == byte else {
                    throw fail("expected '\(word)' (a value starting at \(position(start)))")
                }
                index += 1
            }
        }

        mutating func number() throws(LumaScanError) {
            func digits(_ scanner: inout Scanner) -> Int {
                let start = scanner.index
                while scanner.index < scanner.bytes.count,
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(scanner.bytes[scanner.index])
                {
                    scanner.index += 1
                }
                return scanner.index - start
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    throw fail("a number may not have leading zeros")
                }
            } else if digits(&self) == 0 {
                throw fail("expected a digit in a number")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw fail("expected a digit after a number's decimal point") }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits(&self) > 0 else { throw fail("expected a digit in a number's exponent") }
            }
        }

        /// Scans a string from its opening quote and returns its value (escapes resolved), checking its UTF-8.
        mutating func string() throws(LumaScanError) -> String {
            let start = index
            index += 1
            var scalars = String.UnicodeScalarView()
            while true {
                guard index < bytes.count else {
                    throw fail("the document ends inside a string (opened at \(position(start))); expected '\"'")
                }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    scalars.append(try escape())
                case 0..<0x20:
                    throw fail("a control character must be escaped in a string (as \\n, \\t or \\u00XX)")
                case 0..<0x80:
                    scalars.append(Unicode.Scalar(byte))
                    index += 1
                default:
                    scalars.append(try multibyte())
                }
            }
        }

        mutating func escape() throws(LumaScanError) -> Unicode.Scalar {
            index += 1
            guard index < bytes.count else { throw fail("the document ends inside an escape in a string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let escapeStart = index - 2
                let high = try hex4()
                if (0xD800..<0xDC00).contains(high) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else {
                        throw fail("expected a low surrogate (\\uDC00-\\uDFFF) after \\u\(String(high, radix: 16))")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw fail("expected a low surrogate (\\uDC00-\\uDFFF)", at: index - 6)
                    }
                    // Invariant: a surrogate pair always encodes a scalar in U+10000...U+10FFFF.
                    return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
                }
                guard let scalar = Unicode.Scalar(high) else {
                    throw fail("a lone low surrogate escape is not a character", at: escapeStart)
                }
                return scalar
            default:
                throw fail("expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", at: index - 1)
            }
        }

        mutating func hex4() throws(LumaScanError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard index < bytes.count, let digit = Self.hexValue(bytes[index]) else {
                    throw fail("expected four hexadecimal digits after \\u")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        static func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        /// Decodes one multi-byte UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF).
        mutating func multibyte() throws(LumaScanError) -> Unicode.Scalar {
            let start = index
            let lead = bytes[index]
            let length: Int
            var value: UInt32
            let minimum: UInt32
            switch lead {
            case 0xC2...0xDF: (length, value, minimum) = (2, UInt32(lead & 0x1F), 0x80)
            case 0xE0...0xEF: (length, value, minimum) = (3, UInt32(lead & 0x0F), 0x800)
            case 0xF0...0xF4: (length, value, minimum) = (4, UInt32(lead & 0x07), 0x10000)
            default: throw fail("invalid UTF-8: a byte that cannot start a character")
            }
            for offset in 1..<length {
                guard start + offset < bytes.count, bytes[start + offset] & 0xC0 == 0x80 else {
                    throw fail("invalid UTF-8: the sequence that starts here is cut short", at: start)
                }
                value = value << 6 | UInt32(bytes[start + offset] & 0x3F)
            }
            guard value >= minimum, let scalar = Unicode.Scalar(value) else {
                throw fail("invalid UTF-8: an overlong form, a surrogate or a value above U+10FFFF", at: start)
            }
            index += length
            return scalar
        }
    }
}
