import Logging
import LumaScanCore

#if canImport(Glibc)
import Glibc
#endif

/// Writes a recording (see ``RecordingFormat``): a header, then each frame appended with its metadata and its bytes
/// exactly as captured.
///
/// The file is written under a temporary name beside ``path`` (``temporaryPath``: `.NAME.partial-PID`) and renamed
/// to ``path`` only by ``finish()``, so that ``path`` never holds a partial recording: a write that fails (a full
/// disk) removes the temporary file, and so does a writer released without ``finish()``. A process killed while
/// recording leaves its `.partial` file, which still replays (a reader reads frames to the end of the file).
///
/// The header is written when the writer is created, with the frame count unknown; ``finish()`` writes the count and
/// the largest frame's size into it, closes the file and renames it.
///
/// Use a writer from one thread at a time. Appending allocates nothing: each frame is two `write` calls.
public final class RecordingWriter {
    /// The recording's path, which the file gets when ``finish()`` renames it.
    public let path: String
    /// Where the file is written until ``finish()``: `.NAME.partial-PID` in ``path``'s folder (the same file system,
    /// so that the rename is atomic).
    public let temporaryPath: String
    /// The layout every frame must have.
    public let format: FrameFormat
    /// Frames appended so far.
    public private(set) var frameCount = 0
    /// Bytes written so far, header included.
    public private(set) var bytesWritten = 0
    /// The last frame's timestamp, in nanoseconds after the first frame's.
    public private(set) var lastTimestamp: UInt64 = 0

    private let logger: Logger
    private var descriptor: Int32
    private var firstCaptureTime: MonotonicInstant?
    private var largestFrame = 0
    private let frameHeader: UnsafeMutableRawPointer
    /// The write error that removed the file, which ``finish()`` reports again.
    private var failure: CaptureError?

    /// Creates the temporary file for `path` (see ``temporaryPath``) and writes the header for frames of `format`;
    /// `path` itself is replaced only by ``finish()``.
    ///
    /// - Throws: ``CaptureError``: ``CaptureError/Code/unsupportedFormat`` for a pixel format LumaScan cannot read or
    ///   a size outside 1...16384; the `open` or `write` error (naming the file) when the file cannot be written.
    public init(path: String, format: FrameFormat, logger: Logger) throws(CaptureError) {
        let limit = RecordingFormat.maximumDimension
        guard format.pixelFormat.isSupported, (1...limit).contains(format.width), (1...limit).contains(format.height),
            format.bytesPerLine >= 0, format.sizeImage >= 0, format.sizeImage <= RecordingFormat.maximumFrameBytes
        else {
            throw CaptureError(
                .unsupportedFormat, device: path,
                message: "\(path): cannot record \(format) frames (\(format.bytesPerLine) bytes per line, size image "
                    + "\(format.sizeImage)): a recording holds a pixel format LumaScan reads, 1...\(limit) pixels a side"
            )
        }
        let temporaryPath = Self.temporaryPath(for: path)
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RecordingIO.error(errno, path: path, call: "open", doing: "create") }
        self.path = path
        self.temporaryPath = temporaryPath
        self.format = format
        self.logger = logger
        self.descriptor = descriptor
        frameHeader = .allocate(byteCount: RecordingFormat.frameHeaderSize, alignment: 8)
        let header = RecordingHeader(format: format).encoded()
        let result = header.withUnsafeBytes { bytes in
            Result { () throws(CaptureError) in try writeAll(bytes) }
        }
        // On failure writeAll has removed the file, and deinit frees frameHeader.
        try result.get()
        logger.debug("recording started", metadata: ["path": "\(path)", "format": "\(format)"])
    }

    deinit {
        if descriptor >= 0 {
            logger.warning(
                "recording not finished; its temporary file is removed and nothing is written to its path",
                metadata: ["path": "\(path)", "frames": "\(frameCount)"])
            abandon()
        }
        frameHeader.deallocate()
    }

    /// `.NAME.partial-PID` beside `path`.
    static func temporaryPath(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return "\(folder).\(name).partial-\(getpid())"
    }

    /// Closes and removes the temporary file without writing anything to ``path``; safe to call more than once, and
    /// a no-op after ``finish()``. Appending afterwards is an error.
    public func abandon() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }

    /// Appends a captured frame: its first `metadata.bytesUsed` bytes of `bytes`, its driver sequence, its driver
    /// error flag, and its capture time relative to the first appended frame's (never earlier than the previous
    /// frame's).
    ///
    /// - Throws: ``CaptureError/Code/unsupportedFormat`` when the frame's format differs from ``format``;
    ///   ``CaptureError/Code/invalidState`` after ``finish()``; the `write` error when the file cannot be written.
    public func append(_ bytes: UnsafeRawBufferPointer, metadata: FrameMetadata) throws(CaptureError) {
        try check(metadata.format)
        let first = firstCaptureTime ?? metadata.captureTime
        if firstCaptureTime == nil { firstCaptureTime = first }
        let timestamp = max(lastTimestamp, metadata.captureTime.since(first).nanosecondsClamped)
        let used = UnsafeRawBufferPointer(rebasing: bytes.prefix(max(0, min(metadata.bytesUsed, bytes.count))))
        try append(
            used, timestamp: timestamp, sequence: metadata.driverSequence,
            flags: metadata.driverFlaggedError ? .driverFlaggedError : [])
    }

    /// Throws ``CaptureError/Code/unsupportedFormat`` unless a frame of `frame` fits the recording's ``format``.
    func check(_ frame: FrameFormat) throws(CaptureError) {
        guard frame.pixelFormat == format.pixelFormat, frame.width == format.width, frame.height == format.height,
            frame.bytesPerLine == format.bytesPerLine
        else {
            throw CaptureError(
                .unsupportedFormat, device: path,
                message: "\(path): frame \(frameCount) is \(frame) with \(frame.bytesPerLine) bytes per line, but the "
                    + "recording holds \(format) with \(format.bytesPerLine); a recording holds frames of one format")
        }
    }

    /// Appends a frame with metadata of your own: `timestamp` in nanoseconds after the first frame (at least the
    /// previous frame's), the driver's `sequence` number, and `flags`.
    ///
    /// - Throws: ``CaptureError/Code/invalidArgument`` for a timestamp earlier than the previous frame's, a payload
    ///   above 256 MiB or flags version 1 does not define; ``CaptureError/Code/invalidState`` after ``finish()``; the
    ///   `write` error when the file cannot be written.
    public func append(
        _ bytes: UnsafeRawBufferPointer, timestamp: UInt64, sequence: UInt32, flags: RecordingFrameFlags = []
    ) throws(CaptureError) {
        guard descriptor >= 0 else {
            throw CaptureError(.invalidState, device: path, message: "\(path): append after the recording finished")
        }
        func invalid(_ reason: String) -> CaptureError {
            CaptureError(
                .invalidArgument, device: path, message: "\(path): cannot append frame \(frameCount): \(reason)")
        }
        guard frameCount == 0 || timestamp >= lastTimestamp else {
            throw invalid("timestamp \(timestamp) ns is before the previous frame's \(lastTimestamp) ns")
        }
        guard bytes.count <= RecordingFormat.maximumFrameBytes else {
            throw invalid("\(bytes.count) bytes is above \(RecordingFormat.maximumFrameBytes)")
        }
        guard RecordingFrameFlags.known.isSuperset(of: flags) else {
            throw invalid("unknown flags 0x\(String(flags.rawValue, radix: 16))")
        }
        guard frameCount < Int(RecordingFormat.unknownCount) - 1 else { throw invalid("the recording is full") }
        // SAFETY: frameHeader holds frameHeaderSize (24) bytes; the stores below end at byte 24.
        frameHeader.storeBytes(of: RecordingFormat.frameMarker.littleEndian, toByteOffset: 0, as: UInt32.self)
        frameHeader.storeBytes(of: flags.rawValue.littleEndian, toByteOffset: 4, as: UInt32.self)
        frameHeader.storeBytes(of: timestamp.littleEndian, toByteOffset: 8, as: UInt64.self)
        frameHeader.storeBytes(of: sequence.littleEndian, toByteOffset: 16, as: UInt32.self)
        frameHeader.storeBytes(of: UInt32(bytes.count).littleEndian, toByteOffset: 20, as: UInt32.self)
        try writeAll(UnsafeRawBufferPointer(start: frameHeader, count: RecordingFormat.frameHeaderSize))
        try writeAll(bytes)
        frameCount += 1
        lastTimestamp = timestamp
        largestFrame = max(largestFrame, bytes.count)
    }

    /// Writes the frame count and the largest frame's size into the header, closes the file and renames it to
    /// ``path``; safe to call more than once. When anything fails, the temporary file is removed and ``path`` is left
    /// as it was.
    ///
    /// - Throws: the `write`, `pwrite`, `close` or `rename` error, naming the file (a write error again when an
    ///   earlier `append` failed).
    public func finish() throws(CaptureError) {
        if let failure { throw failure }
        guard descriptor >= 0 else { return }
        let descriptor = self.descriptor
        self.descriptor = -1
        var fields: [UInt8] = []
        fields.appendLittleEndian(UInt32(frameCount))
        fields.appendLittleEndian(UInt32(largestFrame))
        let written = fields.withUnsafeBytes {
            pwrite(descriptor, $0.baseAddress, $0.count, off_t(RecordingFormat.Offset.frameCount))
        }
        if written != fields.count {
            let error = written < 0 ? errno : EIO
            close(descriptor)
            unlink(temporaryPath)
            throw RecordingIO.error(error, path: path, call: "pwrite", doing: "finish")
        }
        // fsync before the rename, so that after a crash the name never points at a file whose data is missing.
        if fsync(descriptor) != 0 {
            let error = errno
            close(descriptor)
            unlink(temporaryPath)
            throw RecordingIO.error(error, path: path, call: "fsync", doing: "finish")
        }
        if close(descriptor) != 0 {
            let error = errno
            unlink(temporaryPath)
            throw RecordingIO.error(error, path: path, call: "close", doing: "finish")
        }
        if rename(temporaryPath, path) != 0 {
            let error = errno
            unlink(temporaryPath)
            throw RecordingIO.error(error, path: path, call: "rename", doing: "finish")
        }
        logger.debug(
            "recording finished",
            metadata: ["path": "\(path)", "frames": "\(frameCount)", "bytes": "\(bytesWritten)"])
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(CaptureError) {
        var offset = 0
        while offset < bytes.count {
            // SAFETY: offset < bytes.count, so the pointer and length stay inside `bytes`.
            let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                // A recording that cannot be written whole is not kept: a partial file would replay a few frames
                // and then fail.
                let error = RecordingIO.error(errno, path: path, call: "write", doing: "write")
                failure = error
                abandon()
                throw error
            }
            offset += written
        }
        bytesWritten += bytes.count
    }
}

/// The error messages of recording files' system calls.
enum RecordingIO {
    /// `<path>: cannot <doing> the recording: <call> failed: <strerror> (<ENAME>)`; the code is
    /// ``CaptureError/Code/notFound`` or ``CaptureError/Code/permissionDenied`` where the errno says so, else
    /// ``CaptureError/Code/other``, never one the engine recovers from by restarting (that would replay a file from
    /// its start again).
    static func error(_ errno: Int32, path: String, call: String, doing: String) -> CaptureError {
        let code: CaptureError.Code
        switch errno {
        case ENOENT, ENOTDIR: code = .notFound
        case EACCES, EPERM: code = .permissionDenied
        default: code = .other
        }
        return CaptureError(
            code, device: path, call: call, errno: errno,
            message: "\(path): cannot \(doing) the recording: \(call) failed: "
                + "\(CaptureError.errnoDescription(errno)) (\(CaptureError.errnoName(errno)))")
    }
}
