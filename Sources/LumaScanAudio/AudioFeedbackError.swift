#if canImport(Glibc)
import Glibc
#endif

/// Why a feedback sound could not be loaded or played.
///
/// ``AudioFeedback`` never throws these at its caller: a sound that cannot be loaded is logged and stays silent, and a
/// playback failure is logged and counted in ``AudioFeedback/Statistics/failed``.
public struct AudioFeedbackError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The sound file could not be read or decoded.
        public static let unreadableFile = Code("unreadableFile")
        /// The sound file is longer or larger than a feedback sound may be, or has an unusable shape.
        public static let fileTooLarge = Code("fileTooLarge")
        /// The ALSA PCM could not be opened, set up or written to.
        public static let playbackFailed = Code("playbackFailed")
        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure.
    public var code: Code
    /// What failed, naming the file or the ALSA device.
    public var message: String
    /// The errno the failing call returned (negated by ALSA), when there is one.
    public var errno: Int32?

    /// Creates an error.
    public init(_ code: Code, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    /// The message.
    public var description: String { message }
}
