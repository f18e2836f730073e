import Logging
import LumaScanCore

/// What ``RecordingWriter/record(from:to:options:logger:describeFrame:shouldStop:)`` records.
public struct RecordingOptions: Hashable, Sendable {
    /// Stop after writing this many frames; `nil` for no limit. Default: `nil`.
    public var frameLimit: Int?
    /// Stop after this long (wall clock, from the first frame); `nil` for no limit. Default: `nil`.
    public var duration: Duration?
    /// Timestamps at this rate (frame `i` at `i / fps` seconds) instead of the frames' capture times, for sources
    /// without meaningful ones (image files); `nil` keeps capture times. Default: `nil`.
    public var fps: Double?
    /// How many times each source frame is written, as consecutive frames (a still image shown for a moment).
    /// Default: 1.
    public var repeatCount: Int
    /// How long one ``FrameSource/dequeue(timeout:)`` may wait, so that `shouldStop` and `duration` are checked.
    /// Default: 100 ms.
    public var dequeueTimeout: Duration

    /// Creates recording options; see each property for its default.
    public init(
        frameLimit: Int? = nil, duration: Duration? = nil, fps: Double? = nil, repeatCount: Int = 1,
        dequeueTimeout: Duration = .milliseconds(100)
    ) {
        self.frameLimit = frameLimit
        self.duration = duration
        self.fps = fps
        self.repeatCount = repeatCount
        self.dequeueTimeout = dequeueTimeout
    }
}

/// What a recording run wrote.
public struct RecordingSummary: Hashable, Sendable {
    /// The recording's path.
    public var path: String
    /// The frames' format.
    public var format: FrameFormat
    /// Frames written.
    public var frames: Int
    /// Frames taken from the source (fewer than ``frames`` when frames are repeated).
    public var sourceFrames: Int
    /// Bytes of the file.
    public var bytes: Int
    /// The last frame's timestamp: the recording's span, in nanoseconds.
    public var spanNanoseconds: UInt64
    /// Frames the driver dropped during the recording, from gaps in its sequence numbers.
    public var droppedByDriver: UInt64
}

extension RecordingWriter {
    /// Records frames from `source` into a new recording at `path`: starts the source, writes each frame's bytes
    /// exactly as the source delivered them (the first frame's format is the recording's), and stops the source.
    ///
    /// Recording ends at the source's end (``FrameSourceEnd``), at `options.frameLimit` frames, after
    /// `options.duration`, or when `shouldStop` returns true (checked before every frame). When the source fails or
    /// changes format, the frames written so far are kept and the recording is finished before the error is thrown;
    /// when the file cannot be written (a full disk), nothing is left at `path` (see ``RecordingWriter``).
    ///
    /// - Parameters:
    ///   - source: a camera, image files, any ``FrameSource``; not started.
    ///   - path: the file to write (an existing file is replaced).
    ///   - options: limits, timestamps and repeats.
    ///   - logger: where recording logs.
    ///   - describeFrame: names a frame in error messages (such as the image file it came from); `nil` for none.
    ///   - shouldStop: polled before each frame; returns true to end the recording (Ctrl-C).
    /// - Throws: the source's error when it cannot start or fails; ``CaptureError/Code/unsupportedFormat`` when a
    ///   frame's format differs from the first frame's; ``CaptureError/Code/notFound`` when the source ended without
    ///   a frame (nothing is written then); the file's error when it cannot be written.
    public static func record(
        from source: any FrameSource, to path: String, options: RecordingOptions = .init(), logger: Logger,
        describeFrame: ((FrameMetadata) -> String?)? = nil, shouldStop: () -> Bool = { false }
    ) throws -> RecordingSummary {
        let repeatCount = max(1, options.repeatCount)
        let interval = options.fps.map { UInt64((1e9 / $0).rounded()) }
        try source.start()
        defer { source.stop() }
        var writer: RecordingWriter?
        var sourceFrames = 0
        var droppedByDriver: UInt64 = 0
        var sequenceGaps = SequenceGaps()
        var started: MonotonicInstant?
        func finishKeepingFrames() {
            do { try writer?.finish() } catch {
                logger.error("cannot finish the recording", metadata: ["error": "\(error)"])
            }
        }
        recording: while !shouldStop() {
            if let limit = options.frameLimit, (writer?.frameCount ?? 0) >= limit { break }
            if let duration = options.duration, let started, MonotonicInstant.now().since(started) >= duration { break }
            let frame: DequeuedFrame
            do {
                guard let next = try source.dequeue(timeout: options.dequeueTimeout) else { continue }
                frame = next
            } catch is FrameSourceEnd {
                break
            } catch {
                logger.error(
                    "recording ended by a source error; the frames so far are kept",
                    metadata: ["source": "\(source.name)", "frames": "\(writer?.frameCount ?? 0)", "error": "\(error)"])
                finishKeepingFrames()
                throw error
            }
            defer {
                do { try source.requeue(frame.bufferIndex) } catch {
                    logger.warning("requeue failed", metadata: ["source": "\(source.name)", "error": "\(error)"])
                }
            }
            if started == nil { started = .now() }
            let metadata = frame.metadata
            droppedByDriver += sequenceGaps.next(metadata.driverSequence)
            do throws(CaptureError) {
                let output: RecordingWriter
                if let writer {
                    output = writer
                } else {
                    output = try RecordingWriter(path: path, format: metadata.format, logger: logger)
                    writer = output
                }
                try output.check(metadata.format)
                let bytes = source.bytes(of: frame.bufferIndex)
                for _ in 0..<repeatCount {
                    if let limit = options.frameLimit, output.frameCount >= limit { break recording }
                    if let interval {
                        let used = UnsafeRawBufferPointer(
                            rebasing: bytes.prefix(max(0, min(metadata.bytesUsed, bytes.count))))
                        try output.append(
                            used, timestamp: UInt64(output.frameCount) &* interval,
                            sequence: UInt32(truncatingIfNeeded: output.frameCount),
                            flags: metadata.driverFlaggedError ? .driverFlaggedError : [])
                    } else {
                        try output.append(bytes, metadata: metadata)
                    }
                }
                sourceFrames += 1
            } catch {
                finishKeepingFrames()
                var error = error
                if let name = describeFrame?(metadata) { error.message += " (frame from \(name))" }
                throw error
            }
        }
        guard let writer else {
            throw CaptureError(
                .notFound, device: source.name,
                message: "\(source.name): no frame to record; nothing was written to \(path)")
        }
        try writer.finish()
        logger.info(
            "recorded",
            metadata: [
                "path": "\(path)", "frames": "\(writer.frameCount)", "format": "\(writer.format)",
                "bytes": "\(writer.bytesWritten)",
            ])
        return RecordingSummary(
            path: path, format: writer.format, frames: writer.frameCount, sourceFrames: sourceFrames,
            bytes: writer.bytesWritten, spanNanoseconds: writer.lastTimestamp, droppedByDriver: droppedByDriver)
    }
}
