import LumaScanCore

#if canImport(Glibc)
import Glibc
#endif

/// The LumaScan recording file format (`.lsrec`): captured frames exactly as the camera delivered them, so a replay
/// goes through the same luma extraction and MJPEG decoding as a live camera.
///
/// A recording is a header followed by frames, every integer little-endian. Version 1:
///
/// ```
/// header (40 bytes)
///   0  magic            8 bytes  "LSREC" 0x0D 0x0A 0x1A (detects text-mode transfers that mangle line ends)
///   8  version          u16      1
///  10  header size      u16      40; a reader skips header bytes it does not know (later minor additions)
///  12  pixel format     u32      V4L2 fourcc: GREY, NV12, YU12, YUYV, UYVY, MJPG or JPEG
///  16  width            u32      pixels, 1...16384
///  20  height           u32      pixels, 1...16384
///  24  bytes per line   u32      stride of the first plane as the driver set it (0 for MJPEG and JPEG)
///  28  size image       u32      the driver's largest frame size in bytes
///  32  frame count      u32      frames in the file; 0xFFFFFFFF while unknown (a recording that was not finished)
///  36  largest frame    u32      the largest frame's bytes used; 0 while unknown
/// frame (24 bytes + payload), repeated until the end of the file
///   0  marker           4 bytes  "LSFR"
///   4  flags            u32      bit 0: the driver flagged the buffer as erroneous (V4L2_BUF_FLAG_ERROR); other bits 0
///   8  timestamp        u64      capture time in nanoseconds after the first frame's (non-decreasing)
///  16  sequence         u32      the driver's sequence number (gaps are frames the driver dropped)
///  20  bytes used       u32      payload length, at most 256 MiB
///  24  payload                   the buffer's first `bytes used` bytes: raw YUYV/UYVY/GREY/NV12/YU12, or one JPEG
/// ```
///
/// Readers validate everything: a file that is not a recording, or of another version, or with a pixel format
/// LumaScan cannot read, is refused with ``CaptureError/Code/unsupportedFormat``; a damaged one (cut off, a frame
/// without its marker, unknown flags, a payload longer than the rest of the file, timestamps going back, bytes after
/// the last of the frames the header counts) with ``CaptureError/Code/corruptRecording``. Each message names the file and
/// the byte offset of the problem. Frames before a damaged one are still delivered.
public enum RecordingFormat {
    /// The file extension recordings use, without the dot.
    public static let fileExtension = "lsrec"
    /// The first eight bytes of every recording.
    public static let magic: [UInt8] = [0x4C, 0x53, 0x52, 0x45, 0x43, 0x0D, 0x0A, 0x1A]
    /// The format version this LumaScan writes and reads.
    public static let version: UInt16 = 1
    /// Bytes of a version 1 header.
    public static let headerSize = 40
    /// Bytes of a frame's header, before its payload.
    public static let frameHeaderSize = 24
    /// The marker that starts each frame: `"LSFR"` read as a little-endian u32.
    public static let frameMarker: UInt32 = 0x5246_534C
    /// The largest payload of one frame, and the largest size image a header may give.
    public static let maximumFrameBytes = 1 << 28
    /// The largest width and height a recording may have.
    public static let maximumDimension = 16384
    /// The frame count of a recording that was not finished.
    static let unknownCount: UInt32 = 0xFFFF_FFFF

    /// Byte offsets of the header's fields.
    enum Offset {
        static let version = 8
        static let headerSize = 10
        static let pixelFormat = 12
        static let width = 16
        static let height = 20
        static let bytesPerLine = 24
        static let sizeImage = 28
        static let frameCount = 32
        static let largestFrame = 36
    }

    /// Whether `path` names a recording: its extension is ``fileExtension`` (any case, whether or not the file
    /// exists, so that opening it reports what is wrong), or it is a regular file that starts with ``magic``.
    public static func isRecording(at path: String) -> Bool {
        if path.lowercased().hasSuffix("." + fileExtension) { return true }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var start = [UInt8](repeating: 0, count: magic.count)
        // SAFETY: pread writes at most start.count bytes into the array's own storage.
        let count = start.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return count == magic.count && start == magic
    }
}

/// What a recording's header says.
public struct RecordingHeader: Hashable, Sendable {
    /// The frames' layout: pixel format, size, bytes per line and the driver's size image.
    public var format: FrameFormat
    /// How many frames the file holds; `nil` when the recording was not finished (then the file is read to its end).
    public var frameCount: Int?
    /// The largest frame's bytes used; `nil` when unknown.
    public var largestFrameBytes: Int?
    /// Bytes before the first frame.
    public var headerSize: Int

    /// Creates a header for frames of `format`.
    public init(format: FrameFormat, frameCount: Int? = nil, largestFrameBytes: Int? = nil) {
        self.format = format
        self.frameCount = frameCount
        self.largestFrameBytes = largestFrameBytes
        headerSize = RecordingFormat.headerSize
    }

    /// The header's 40 bytes, version 1.
    func encoded() -> [UInt8] {
        var bytes = RecordingFormat.magic
        bytes.appendLittleEndian(RecordingFormat.version)
        bytes.appendLittleEndian(UInt16(RecordingFormat.headerSize))
        bytes.appendLittleEndian(format.pixelFormat.fourcc)
        bytes.appendLittleEndian(UInt32(clamping: format.width))
        bytes.appendLittleEndian(UInt32(clamping: format.height))
        bytes.appendLittleEndian(UInt32(clamping: format.bytesPerLine))
        bytes.appendLittleEndian(UInt32(clamping: format.sizeImage))
        bytes.appendLittleEndian(frameCount.map { UInt32(clamping: $0) } ?? RecordingFormat.unknownCount)
        bytes.appendLittleEndian(UInt32(clamping: largestFrameBytes ?? 0))
        return bytes
    }

    /// Parses and validates the header at the start of `bytes` (at least ``RecordingFormat/headerSize`` bytes unless
    /// the file is shorter: `fileSize` tells), for the file at `path`.
    static func parse(_ bytes: [UInt8], fileSize: Int, path: String) throws(CaptureError) -> RecordingHeader {
        func unsupported(_ offset: Int, _ reason: String) -> CaptureError {
            CaptureError(
                .unsupportedFormat, device: path,
                message: "\(path): not a recording LumaScan can read: \(reason) (at byte offset \(offset))")
        }
        func corrupt(_ offset: Int, _ reason: String) -> CaptureError {
            CaptureError(
                .corruptRecording, device: path,
                message: "\(path): corrupt recording: \(reason) (at byte offset \(offset))"
            )
        }
        let magic = RecordingFormat.magic
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else {
            let found = bytes.prefix(magic.count).map { String($0, radix: 16, uppercase: true) }.joined(separator: " ")
            throw unsupported(
                0, "it does not start with the magic bytes of a recording (found \(found.isEmpty ? "nothing" : found))")
        }
        guard bytes.count >= RecordingFormat.headerSize else {
            throw corrupt(
                bytes.count,
                "the file ends inside its header: \(bytes.count) of \(RecordingFormat.headerSize) bytes (truncated)")
        }
        let version = bytes.littleEndian(UInt16.self, at: RecordingFormat.Offset.version)
        guard version == RecordingFormat.version else {
            throw unsupported(
                RecordingFormat.Offset.version,
                "version \(version); this LumaScan reads version \(RecordingFormat.version)")
        }
        let headerSize = Int(bytes.littleEndian(UInt16.self, at: RecordingFormat.Offset.headerSize))
        guard headerSize >= RecordingFormat.headerSize else {
            throw corrupt(
                RecordingFormat.Offset.headerSize,
                "header size \(headerSize) is below the \(RecordingFormat.headerSize) bytes of version 1")
        }
        guard headerSize <= fileSize else {
            throw corrupt(fileSize, "the file ends inside its \(headerSize)-byte header (truncated)")
        }
        let pixelFormat = PixelFormat(fourcc: bytes.littleEndian(UInt32.self, at: RecordingFormat.Offset.pixelFormat))
        guard pixelFormat.isSupported else {
            let known = PixelFormat.supported.map(\.description).joined(separator: ", ")
            throw unsupported(
                RecordingFormat.Offset.pixelFormat,
                "pixel format '\(pixelFormat)' (0x\(String(pixelFormat.fourcc, radix: 16))) is not one of \(known)")
        }
        let width = Int(bytes.littleEndian(UInt32.self, at: RecordingFormat.Offset.width))
        let height = Int(bytes.littleEndian(UInt32.self, at: RecordingFormat.Offset.height))
        let limit = RecordingFormat.maximumDimension
        guard (1...limit).contains(width) else {
            throw corrupt(RecordingFormat.Offset.width, "width \(width) is outside 1...\(limit)")
        }
        guard (1...limit).contains(height) else {
            throw corrupt(RecordingFormat.Offset.height, "height \(height) is outside 1...\(limit)")
        }
        let bytesPerLine = Int(bytes.littleEndian(UInt32.self, at: RecordingFormat.Offset.bytesPerLine))
        let tight = FrameFormat(pixelFormat: pixelFormat, width: width, height: height)
        if !pixelFormat.isCompressed && (bytesPerLine < tight.bytesPerLine || bytesPerLine > 4 * limit) {
            throw corrupt(
                RecordingFormat.Offset.bytesPerLine,
                "\(bytesPerLine) bytes per line do not fit \(tight) (a row needs \(tight.bytesPerLine))")
        }
        let sizeImage = Int(bytes.littleEndian(UInt32.self, at: RecordingFormat.Offset.sizeImage))
        guard sizeImage <= RecordingFormat.maximumFrameBytes else {
            throw corrupt(
                RecordingFormat.Offset.sizeImage,
                "size image \(sizeImage) is above \(RecordingFormat.maximumFrameBytes) bytes")
        }
        let count = bytes.littleEndian(UInt32.self, at: RecordingFormat.Offset.frameCount)
        let largest = Int(bytes.littleEndian(UInt32.self, at: RecordingFormat.Offset.largestFrame))
        guard largest <= RecordingFormat.maximumFrameBytes else {
            throw corrupt(
                RecordingFormat.Offset.largestFrame,
                "largest frame \(largest) is above \(RecordingFormat.maximumFrameBytes) bytes")
        }
        var header = RecordingHeader(
            format: FrameFormat(
                pixelFormat: pixelFormat, width: width, height: height, bytesPerLine: bytesPerLine,
                sizeImage: sizeImage),
            frameCount: count == RecordingFormat.unknownCount ? nil : Int(count),
            largestFrameBytes: largest == 0 ? nil : largest)
        header.headerSize = headerSize
        return header
    }
}

/// Flags stored with each recorded frame.
public struct RecordingFrameFlags: OptionSet, Hashable, Sendable {
    /// The flags' bits, as stored.
    public var rawValue: UInt32

    /// Creates flags from their stored bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The driver flagged the buffer as erroneous (`V4L2_BUF_FLAG_ERROR`); a replay counts it as corrupt, as the
    /// engine counts such a frame from a camera.
    public static let driverFlaggedError = RecordingFrameFlags(rawValue: 1 << 0)

    /// Every flag version 1 defines; other bits make a frame corrupt.
    public static let known: RecordingFrameFlags = [.driverFlaggedError]
}

extension [UInt8] {
    /// Appends `value`'s bytes, least significant first.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// The little-endian integer at byte `offset` (the caller checked that it fits).
    func littleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        // SAFETY: callers pass offsets with offset + MemoryLayout<T>.size <= count; loadUnaligned needs no alignment.
        withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
}
