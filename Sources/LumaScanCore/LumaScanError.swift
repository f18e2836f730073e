/// An error from LumaScan's core, engine or configuration: a code to match on and a message that names what failed.
public struct LumaScanError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; extensible, so match with `==` rather than exhaustively.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The configuration is invalid; the message names the JSON path or option.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The source could not be started.
        public static let sourceFailed = Code("sourceFailed")
        /// An operation is not valid in the engine's current state.
        public static let invalidState = Code("invalidState")
        /// A frame could not be read (corrupt or truncated).
        public static let corruptFrame = Code("corruptFrame")
        /// An image could not be read or written.
        public static let imageIO = Code("imageIO")
        /// The feature is not supported (yet, or by this device).
        public static let unsupported = Code("unsupported")
        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What failed, naming the device, file, JSON path or option concerned.
    public var message: String
    /// The error that caused this one, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The message, followed by the underlying error's description where there is one.
    public var description: String {
        if let underlying { return "\(message): \(underlying)" }
        return message
    }

    /// Errors are equal when their code and message are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }
    /// Hashes the code and the message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
