#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in time on the system's monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds.
///
/// V4L2 drivers stamp buffers with this clock, so capture times and report times compare directly.
public struct MonotonicInstant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Nanoseconds since an unspecified start (boot, on Linux).
    public var nanoseconds: UInt64

    /// Creates an instant from nanoseconds on the monotonic clock.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The current time on the monotonic clock.
    public static func now() -> MonotonicInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicInstant(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    /// Seconds, as a floating-point number (for JSON and logs).
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// Orders instants by time.
    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The time from `earlier` to this instant (zero when `earlier` is later).
    public func since(_ earlier: MonotonicInstant) -> Duration {
        .nanoseconds(Int64(clamping: nanoseconds &- min(nanoseconds, earlier.nanoseconds)))
    }

    /// Seconds with nanosecond digits.
    public var description: String { "\(seconds)s" }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `0...UInt64.max`.
    public var nanosecondsClamped: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        return whole &+ UInt64(attoseconds / 1_000_000_000)
    }

    /// The duration in milliseconds, as a floating-point number.
    public var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

/// What is known about one captured frame.
public struct FrameMetadata: Hashable, Sendable {
    /// LumaScan's own count of frames delivered by the source, starting at 0.
    public var index: UInt64
    /// The driver's sequence number; gaps between consecutive frames are frames the driver dropped.
    public var driverSequence: UInt32
    /// When the driver captured the frame (the buffer's timestamp, monotonic clock).
    public var captureTime: MonotonicInstant
    /// When LumaScan dequeued the frame from the driver.
    public var dequeueTime: MonotonicInstant
    /// The frame's layout.
    public var format: FrameFormat
    /// Bytes of the buffer the frame fills (for MJPEG, the size of the JPEG).
    public var bytesUsed: Int
    /// Whether the driver flagged the buffer as erroneous (`V4L2_BUF_FLAG_ERROR`).
    public var driverFlaggedError: Bool

    /// Creates frame metadata.
    public init(
        index: UInt64, driverSequence: UInt32, captureTime: MonotonicInstant, dequeueTime: MonotonicInstant,
        format: FrameFormat, bytesUsed: Int, driverFlaggedError: Bool = false
    ) {
        self.index = index
        self.driverSequence = driverSequence
        self.captureTime = captureTime
        self.dequeueTime = dequeueTime
        self.format = format
        self.bytesUsed = bytesUsed
        self.driverFlaggedError = driverFlaggedError
    }
}

/// A frame a source has dequeued: which of its buffers holds the pixels, and the frame's metadata.
public struct DequeuedFrame: Sendable {
    /// The source's buffer that holds the frame; it stays out of the driver's queue until it is requeued.
    public var bufferIndex: Int
    /// The frame's metadata.
    public var metadata: FrameMetadata

    /// Creates a dequeued frame.
    public init(bufferIndex: Int, metadata: FrameMetadata) {
        self.bufferIndex = bufferIndex
        self.metadata = metadata
    }
}

/// Something that produces frames into a fixed set of buffers: a V4L2 camera, image files, a recording, a synthetic
/// generator.
///
/// A source owns `bufferCount` buffers. ``dequeue(timeout:)`` hands one out; it stays the caller's until it goes back
/// through ``requeue(_:)``. The engine calls `start`, `dequeue`, `requeue` and `stop` on its capture thread only, and
/// ``bytes(of:)`` from its recognition thread for buffers it holds; implementations rely on that confinement.
public protocol FrameSource: AnyObject, Sendable {
    /// A name for logs and messages, such as `/dev/video0` or a file path.
    var name: String { get }
    /// The layout of the frames, valid once ``start()`` has returned. When a source's frames vary in size (image
    /// files), each frame's ``FrameMetadata/format`` is authoritative.
    var format: FrameFormat { get }
    /// How many buffers the source owns; valid once ``start()`` has returned.
    var bufferCount: Int { get }
    /// Whether the source ends by itself (files, recordings) rather than streaming until stopped.
    var isFinite: Bool { get }

    /// Opens and starts the source. Throws when it cannot.
    func start() throws
    /// Waits up to `timeout` for the next frame; returns `nil` when none arrived in time.
    ///
    /// Throws ``FrameSourceEnd`` when a finite source has delivered its last frame; other errors describe a failure.
    func dequeue(timeout: Duration) throws -> DequeuedFrame?
    /// Gives a buffer back to the source to be filled again.
    func requeue(_ bufferIndex: Int) throws
    /// The bytes of a buffer the caller holds (only its first `bytesUsed` bytes are the frame).
    func bytes(of bufferIndex: Int) -> UnsafeRawBufferPointer
    /// Stops the source and releases its buffers; safe to call more than once.
    func stop()
}

/// Thrown by a finite ``FrameSource`` when it has no more frames.
public struct FrameSourceEnd: Error, Sendable {
    /// Creates the end-of-source marker.
    public init() {}
}

/// How the engine can recover from a source's error.
public enum SourceRecovery: Sendable {
    /// The error is final for this source.
    case none
    /// Stop the stream and start it again (the device is still there, but its stream broke).
    case restartStream
    /// Close the device and reopen it, with backoff, until it comes back (the device went away).
    case reopenDevice
}

/// An error from a ``FrameSource`` that says how the engine can recover from it.
///
/// Errors that do not conform are treated as final.
public protocol RecoverableSourceError: Error {
    /// How the engine can recover.
    var recovery: SourceRecovery { get }
}
