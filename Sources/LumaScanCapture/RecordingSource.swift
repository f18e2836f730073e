import Logging
import LumaScanCore

#if canImport(Glibc)
import Glibc
#endif

/// A frame source that replays a recording (see ``RecordingFormat``): each frame's bytes exactly as the camera
/// delivered them, so the engine extracts luma from them (or decodes their JPEG) as from the live camera.
///
/// Two paces:
/// - ``Pacing/asFastAsPossible``: each frame as soon as it is asked for; a finite source, for tests, benchmarks and
///   batch runs (the engine processes every frame).
/// - ``Pacing/recorded(loop:)``: each frame when its recorded timestamp comes, measured from the first frame's
///   delivery, as a live camera delivers them; with `loop`, the recording starts over after its last frame (one
///   recorded frame interval later) and the source streams until stopped, as a camera does.
///
/// Capture times (``CaptureTimes``) are by default the first frame's delivery time plus each frame's recorded
/// offset, so time-based recognizer rules (duplicate interval, consistency) see the recorded spacing at any pace and
/// a fast replay gives the same reports as a paced one. Driver sequence numbers are the recorded ones (offset on each
/// loop, so gaps the driver left count as dropped frames again); frames the driver flagged as erroneous keep the
/// flag, and the engine counts them as corrupt.
///
/// ``start()`` opens the file, validates its header and allocates the buffers (each of the largest frame's size);
/// ``dequeue(timeout:)`` reads a frame with `pread` into a free buffer and its header into a scratch block made at
/// init, so no frame buffer is allocated per frame (no benchmark counts the replay's mallocs yet). A damaged file (see
/// ``RecordingFormat``) makes ``dequeue(timeout:)`` throw a ``CaptureError`` naming the file and the byte offset when
/// the replay reaches the damage; the frames before it are delivered.
public final class RecordingSource: FrameSource, @unchecked Sendable {
    // SAFETY (Sendable): `start`, `dequeue`, `requeue` and `stop` run on the engine's capture thread only, and
    // `bytes(of:)` on its recognition thread for a buffer it holds, which the capture thread does not touch until it
    // is requeued (the FrameSource contract).

    /// How the recording is paced.
    public enum Pacing: Hashable, Sendable {
        /// Every frame as soon as it is asked for; the source ends after the last frame.
        case asFastAsPossible
        /// Every frame at its recorded time after the first; with `loop`, start over after the last frame and stream
        /// until stopped.
        case recorded(loop: Bool)
    }

    /// What the frames' ``FrameMetadata/captureTime`` are.
    public enum CaptureTimes: Hashable, Sendable {
        /// The first frame's delivery time plus each frame's recorded offset: the recorded spacing, at any pace.
        case recorded
        /// The time each frame is read from the file, as ``ImageFileSource`` stamps images (for measuring latency).
        case dequeued
    }

    /// The recording's path.
    public let name: String
    /// How the recording is paced.
    public let pacing: Pacing
    /// What the frames' capture times are.
    public let captureTimes: CaptureTimes
    /// How many buffers the source owns.
    public let bufferCount: Int
    /// The most pixels a frame may have (the pixel budget images are read within): a recording of larger frames is
    /// refused by ``start()`` from its header, before any buffer is allocated.
    public let maxPixels: Int
    /// Whether the source ends after the last frame (it does unless it loops).
    public var isFinite: Bool { pacing != .recorded(loop: true) }
    /// The recording's frame format; valid once ``start()`` has returned.
    public private(set) var format = FrameFormat(pixelFormat: .grey, width: 0, height: 0)
    /// The recording's header; valid once ``start()`` has returned.
    public private(set) var header: RecordingHeader?

    private let logger: Logger
    private var descriptor: Int32 = -1
    private var fileSize = 0
    private var buffers: [Buffer] = []
    private var free: [Int] = []
    private let frameHeader: UnsafeMutableRawPointer
    /// The next frame's header, read but not yet delivered.
    private var pending: PendingFrame?
    private var offset = 0
    /// Frames of the current pass read so far.
    private var frameInPass = 0
    private var delivered: UInt64 = 0
    private var origin: MonotonicInstant?
    private var passOffsetNanoseconds: UInt64 = 0
    private var passSequenceOffset: UInt32 = 0
    private var firstSequence: UInt32?
    private var lastSequence: UInt32 = 0
    private var lastTimestamp: UInt64 = 0
    private var lastInterval: UInt64 = 0

    private struct Buffer {
        var memory: UnsafeMutableRawPointer
        var capacity: Int
    }

    private struct PendingFrame {
        var index: Int
        var offset: Int
        var flags: RecordingFrameFlags
        var timestamp: UInt64
        var sequence: UInt32
        var bytesUsed: Int
    }

    /// The interval assumed after the last frame of a loop when the recording holds a single frame or frames with
    /// equal timestamps.
    static let defaultLoopInterval: UInt64 = 33_333_333

    /// Creates a source replaying the recording at `path`; nothing is read until ``start()``.
    ///
    /// - Parameters:
    ///   - path: the recording.
    ///   - pacing: how frames are paced. Default: ``Pacing/asFastAsPossible``.
    ///   - captureTimes: what the frames' capture times are. Default: ``CaptureTimes/recorded``.
    ///   - bufferCount: buffers to own, at least 1. Default: 4, as a V4L2 camera.
    ///   - maxPixels: the pixel budget (``maxPixels``). Default: ``PixelBudget/defaultMaxPixels``, 64 MP.
    ///   - logger: where the source logs.
    public init(
        path: String, pacing: Pacing = .asFastAsPossible, captureTimes: CaptureTimes = .recorded,
        bufferCount: Int = 4, maxPixels: Int = PixelBudget.defaultMaxPixels, logger: Logger
    ) {
        precondition(bufferCount >= 1, "a recording source needs at least one buffer")
        self.maxPixels = maxPixels
        name = path
        self.pacing = pacing
        self.captureTimes = captureTimes
        self.bufferCount = bufferCount
        self.logger = logger
        frameHeader = .allocate(byteCount: RecordingFormat.frameHeaderSize, alignment: 8)
    }

    deinit {
        stop()
        frameHeader.deallocate()
    }

    /// Reads and validates the header of the recording at `path`.
    ///
    /// - Throws: ``CaptureError``: ``CaptureError/Code/notFound`` or ``CaptureError/Code/permissionDenied`` when the
    ///   file cannot be opened; ``CaptureError/Code/unsupportedFormat`` when it is not a recording LumaScan reads;
    ///   ``CaptureError/Code/corruptRecording`` when its header is damaged.
    public static func readHeader(path: String) throws(CaptureError) -> RecordingHeader {
        let descriptor = try openFile(path)
        defer { close(descriptor) }
        return try readHeader(descriptor: descriptor, path: path).header
    }

    private static func openFile(_ path: String) throws(CaptureError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw RecordingIO.error(errno, path: path, call: "open", doing: "open") }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            throw CaptureError(
                .unsupportedFormat, device: path, message: "\(path): cannot open the recording: it is a folder")
        }
        return descriptor
    }

    private static func readHeader(
        descriptor: Int32, path: String
    ) throws(CaptureError) -> (header: RecordingHeader, fileSize: Int) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw RecordingIO.error(errno, path: path, call: "fstat", doing: "read")
        }
        let fileSize = Int(status.st_size)
        // SAFETY: the buffer lives until the defer below; only its first `count` bytes, just read, are copied out.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: RecordingFormat.headerSize, alignment: 8)
        defer { buffer.deallocate() }
        let count = try readFully(descriptor, into: buffer, at: 0, path: path)
        let bytes = Array(UnsafeRawBufferPointer(rebasing: buffer.prefix(count)))
        return (try RecordingHeader.parse(bytes, fileSize: fileSize, path: path), fileSize)
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many (fewer only at the end of the file).
    private static func readFully(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String
    ) throws(CaptureError) -> Int {
        var done = 0
        while done < buffer.count {
            // SAFETY: done < buffer.count, so the destination and length stay inside `buffer`.
            let count = pread(
                descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset + done))
            if count < 0 {
                if errno == EINTR { continue }
                throw RecordingIO.error(errno, path: path, call: "pread", doing: "read")
            }
            if count == 0 { break }
            done += count
        }
        return done
    }

    // MARK: - FrameSource

    /// Opens the recording, validates its header and allocates the buffers; a second start replays from the first
    /// frame again.
    ///
    /// - Throws: see ``readHeader(path:)``; ``CaptureError/Code/tooLarge`` when its frames have more pixels than
    ///   ``maxPixels``.
    public func start() throws(CaptureError) {
        stop()
        let descriptor = try Self.openFile(name)
        let parsed: (header: RecordingHeader, fileSize: Int)
        do throws(CaptureError) {
            parsed = try Self.readHeader(descriptor: descriptor, path: name)
        } catch {
            close(descriptor)
            throw error
        }
        let frame = parsed.header.format
        // Both sides are at most RecordingFormat.maximumDimension, so the product cannot overflow.
        guard frame.width * frame.height <= maxPixels else {
            close(descriptor)
            throw CaptureError(
                .tooLarge, device: name,
                message: "\(name): cannot replay the recording: its \(frame.width)x\(frame.height) frames have "
                    + "\(frame.width * frame.height) pixels, more than the pixel budget of \(maxPixels)")
        }
        self.descriptor = descriptor
        fileSize = parsed.fileSize
        header = parsed.header
        format = parsed.header.format
        let capacity = max(1, parsed.header.largestFrameBytes ?? 0, parsed.header.format.sizeImage)
        buffers = (0..<bufferCount).map { _ in
            Buffer(memory: .allocate(byteCount: capacity, alignment: 64), capacity: capacity)
        }
        free = Array((0..<bufferCount).reversed())
        pending = nil
        offset = parsed.header.headerSize
        frameInPass = 0
        delivered = 0
        origin = nil
        passOffsetNanoseconds = 0
        passSequenceOffset = 0
        firstSequence = nil
        lastTimestamp = 0
        lastInterval = 0
        logger.debug(
            "recording replay started",
            metadata: [
                "path": "\(name)", "format": "\(format)", "bytesPerLine": "\(format.bytesPerLine)",
                "frames": "\(parsed.header.frameCount.map { "\($0)" } ?? "unknown")", "pacing": "\(pacing)",
            ])
    }

    /// Reads the next frame into a free buffer, once it is due (paced replay): `nil` when it is not due within
    /// `timeout` or every buffer is out (requeue one).
    ///
    /// - Throws: ``FrameSourceEnd`` after the last frame (unless looping); ``CaptureError``:
    ///   ``CaptureError/Code/corruptRecording`` naming the file and the byte offset when the recording is damaged there
    ///   (cut off, a missing frame marker, unknown flags, timestamps going back, bytes after the counted frames),
    ///   ``CaptureError/Code/invalidState`` before ``start()``, or the `pread` error.
    public func dequeue(timeout: Duration) throws -> DequeuedFrame? {
        guard descriptor >= 0 else {
            throw CaptureError(.invalidState, device: name, message: "\(name): dequeue before start")
        }
        if pending == nil { pending = try readFrameHeader() }
        guard let frame = pending else { throw FrameSourceEnd() }
        if case .recorded = pacing, let origin {
            let due = MonotonicInstant(nanoseconds: origin.nanoseconds &+ passOffsetNanoseconds &+ frame.timestamp)
            let now = MonotonicInstant.now()
            if now < due {
                let wait = due.since(now)
                if wait > timeout {
                    Self.sleep(for: timeout)
                    return nil
                }
                Self.sleep(for: wait)
            }
        }
        guard let bufferIndex = free.popLast() else {
            // Every buffer is out; the engine gives them back as recognition releases them.
            Self.sleep(for: min(timeout, .microseconds(200)))
            return nil
        }
        var buffer = buffers[bufferIndex]
        if buffer.capacity < frame.bytesUsed {
            // Only when the header does not know the largest frame (an unfinished recording) and one is larger than
            // the driver's size image: the buffer grows once and keeps its size.
            // SAFETY: the buffer is free (not out), so nothing reads the memory being replaced.
            buffer.memory.deallocate()
            buffer = Buffer(memory: .allocate(byteCount: frame.bytesUsed, alignment: 64), capacity: frame.bytesUsed)
            buffers[bufferIndex] = buffer
            logger.debug("replay buffer grown", metadata: ["buffer": "\(bufferIndex)", "bytes": "\(frame.bytesUsed)"])
        }
        let payloadOffset = frame.offset + RecordingFormat.frameHeaderSize
        let count: Int
        // SAFETY: the buffer's capacity is at least bytesUsed (grown above when needed), and it is not out.
        do {
            count = try Self.readFully(
                descriptor, into: UnsafeMutableRawBufferPointer(start: buffer.memory, count: frame.bytesUsed),
                at: payloadOffset, path: name)
        } catch {
            free.append(bufferIndex)
            throw error
        }
        guard count == frame.bytesUsed else {
            free.append(bufferIndex)
            throw truncated(
                at: frame.offset,
                "frame \(frame.index) holds \(frame.bytesUsed) bytes, but the file ends after \(count) of them")
        }
        pending = nil
        let now = MonotonicInstant.now()
        let start = origin ?? now
        if origin == nil { origin = now }
        let captureTime: MonotonicInstant
        switch captureTimes {
        case .recorded:
            captureTime = MonotonicInstant(nanoseconds: start.nanoseconds &+ passOffsetNanoseconds &+ frame.timestamp)
        case .dequeued:
            captureTime = now
        }
        let metadata = FrameMetadata(
            index: delivered, driverSequence: frame.sequence &+ passSequenceOffset, captureTime: captureTime,
            dequeueTime: now, format: format, bytesUsed: frame.bytesUsed,
            driverFlaggedError: frame.flags.contains(.driverFlaggedError))
        delivered += 1
        return DequeuedFrame(bufferIndex: bufferIndex, metadata: metadata)
    }

    /// Reads and validates the header of the frame at `offset`, starting the next pass at the end of a looping
    /// replay; `nil` at the end of the recording.
    private func readFrameHeader() throws(CaptureError) -> PendingFrame? {
        let expected = header?.frameCount
        let remaining = fileSize - offset
        let atCountedEnd = expected.map { frameInPass >= $0 } ?? false
        if atCountedEnd && remaining > 0 {
            throw corrupt(
                at: offset,
                "\(remaining) unexpected bytes after the last of the \(frameInPass) frames the header counts")
        }
        if remaining == 0 || atCountedEnd {
            if let expected, frameInPass < expected {
                throw truncated(
                    at: offset,
                    "the header counts \(expected) frames, but the file ends after \(frameInPass)")
            }
            guard pacing == .recorded(loop: true), frameInPass > 0 else { return nil }
            // Start over, one recorded frame interval after the last frame, with sequence numbers continuing.
            passOffsetNanoseconds &+= lastTimestamp &+ (lastInterval > 0 ? lastInterval : Self.defaultLoopInterval)
            passSequenceOffset &+= lastSequence &- (firstSequence ?? 0) &+ 1
            offset = header?.headerSize ?? RecordingFormat.headerSize
            frameInPass = 0
            lastTimestamp = 0
            logger.trace("recording replay looped", metadata: ["path": "\(name)"])
            return try readFrameHeader()
        }
        guard remaining >= RecordingFormat.frameHeaderSize else {
            throw truncated(
                at: offset,
                "frame \(frameInPass)'s header is cut off: \(remaining) of \(RecordingFormat.frameHeaderSize) bytes")
        }
        let headerBuffer = UnsafeMutableRawBufferPointer(start: frameHeader, count: RecordingFormat.frameHeaderSize)
        let count = try Self.readFully(descriptor, into: headerBuffer, at: offset, path: name)
        guard count == RecordingFormat.frameHeaderSize else {
            throw truncated(
                at: offset,
                "frame \(frameInPass)'s header is cut off: \(count) of \(RecordingFormat.frameHeaderSize) bytes")
        }
        // SAFETY: frameHeader holds frameHeaderSize (24) bytes, all just read; the loads below end at byte 24.
        let marker = UInt32(littleEndian: frameHeader.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        let flags = RecordingFrameFlags(
            rawValue: UInt32(littleEndian: frameHeader.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        let timestamp = UInt64(littleEndian: frameHeader.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let sequence = UInt32(littleEndian: frameHeader.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        let bytesUsed = Int(UInt32(littleEndian: frameHeader.loadUnaligned(fromByteOffset: 20, as: UInt32.self)))
        guard marker == RecordingFormat.frameMarker else {
            throw corrupt(
                at: offset,
                "frame \(frameInPass) does not start with the frame marker 'LSFR' (found 0x"
                    + String(marker, radix: 16) + ")")
        }
        guard RecordingFrameFlags.known.isSuperset(of: flags) else {
            throw corrupt(
                at: offset + 4, "frame \(frameInPass) has unknown flags 0x\(String(flags.rawValue, radix: 16))")
        }
        guard frameInPass == 0 || timestamp >= lastTimestamp else {
            throw corrupt(
                at: offset + 8,
                "frame \(frameInPass)'s timestamp \(timestamp) ns is before the previous frame's \(lastTimestamp) ns")
        }
        guard bytesUsed <= RecordingFormat.maximumFrameBytes else {
            throw corrupt(
                at: offset + 20,
                "frame \(frameInPass) claims \(bytesUsed) bytes, above \(RecordingFormat.maximumFrameBytes)")
        }
        let available = remaining - RecordingFormat.frameHeaderSize
        guard bytesUsed <= available else {
            throw truncated(
                at: offset,
                "frame \(frameInPass) holds \(bytesUsed) bytes, but the file ends after \(available) of them")
        }
        let frame = PendingFrame(
            index: frameInPass, offset: offset, flags: flags, timestamp: timestamp, sequence: sequence,
            bytesUsed: bytesUsed)
        if frameInPass > 0 { lastInterval = timestamp - lastTimestamp }
        if firstSequence == nil { firstSequence = sequence }
        lastTimestamp = timestamp
        lastSequence = sequence
        offset += RecordingFormat.frameHeaderSize + bytesUsed
        frameInPass += 1
        return frame
    }

    private func corrupt(at offset: Int, _ reason: String) -> CaptureError {
        CaptureError(
            .corruptRecording, device: name, message: "\(name): corrupt recording: \(reason) (at byte offset \(offset))"
        )
    }

    private func truncated(at offset: Int, _ reason: String) -> CaptureError {
        CaptureError(
            .corruptRecording, device: name,
            message: "\(name): truncated recording: \(reason) (at byte offset \(offset)); the \(delivered) frames "
                + "before it were replayed")
    }

    /// Makes a buffer available again.
    ///
    /// - Throws: ``CaptureError/Code/invalidArgument`` for a buffer the source does not own or that is not out.
    public func requeue(_ bufferIndex: Int) throws(CaptureError) {
        guard buffers.indices.contains(bufferIndex), !free.contains(bufferIndex) else {
            throw CaptureError(
                .invalidArgument, device: name,
                message:
                    "\(name): requeue of buffer \(bufferIndex), which is not out (the source owns \(buffers.count))")
        }
        free.append(bufferIndex)
    }

    /// The bytes of a buffer the caller holds (only its first `bytesUsed` bytes are the frame); empty when the
    /// source is stopped or does not own the index.
    public func bytes(of bufferIndex: Int) -> UnsafeRawBufferPointer {
        guard buffers.indices.contains(bufferIndex) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        // SAFETY: the buffer stays allocated until stop(), which the engine calls only once it holds no buffer.
        return UnsafeRawBufferPointer(start: buffers[bufferIndex].memory, count: buffers[bufferIndex].capacity)
    }

    /// Closes the file and frees the buffers; safe to call more than once.
    public func stop() {
        // SAFETY: the engine stops a source only once it holds none of its buffers, so no view outlives them.
        for buffer in buffers { buffer.memory.deallocate() }
        buffers = []
        free = []
        pending = nil
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
            logger.debug("recording replay stopped", metadata: ["path": "\(name)", "frames": "\(delivered)"])
        }
    }

    private static func sleep(for duration: Duration) {
        let nanoseconds = duration.nanosecondsClamped
        guard nanoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
