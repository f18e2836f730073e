import CLumaVision
import Foundation
import Logging
import LumaScanCore

/// A finite frame source over image files: one file, or every image in a folder and its subfolders, each delivered
/// once as a GREY frame, in path order.
///
/// Files are recognised by extension, case-insensitively (``imageExtensions``: PNG, JPEG, WebP, TIFF, GIF, BMP,
/// PGM/PPM/PBM; a single file named directly is read whatever its extension), and decoded by content. Hidden files and
/// folders are skipped; symbolic links to folders are not followed. Colour and 16-bit images are converted to 8-bit
/// grey. Paths are handled as the bytes the file system holds, so a name that is not valid UTF-8 is read like any
/// other; where a path is shown as a `String` (``imagePaths``, ``path(forFrameIndex:)``, ``UnreadableFile/path``), a
/// byte that is not valid UTF-8 reads as U+FFFD.
///
/// A file that cannot be read (no permission, not an image format LumaScan reads, truncated or corrupt, too large)
/// and a subfolder that cannot be listed never end the source: each is logged, added to ``unreadableFiles`` with a
/// ``CaptureError`` saying why, handed to the `onUnreadable` callback, and skipped. After the last image,
/// ``dequeue(timeout:)`` throws ``FrameSourceEnd``.
///
/// Images differ in size, so each frame's ``FrameMetadata/format`` carries its own width and height (rows are tight:
/// `bytesPerLine == width`); ``format`` is the format of the frame delivered last. Each buffer grows to the largest
/// image it has held and is reused. Capture times are the monotonic time each image was decoded, so a recognizer
/// with a duplicate interval treats a folder like a stream; scan folders of unrelated images with a still-image
/// configuration (`BarcodeConfiguration.stillImage`).
///
/// ``path(forFrameIndex:)`` tells which file a frame came from, so results can be printed with their file.
public final class ImageFileSource: FrameSource, @unchecked Sendable {
    // SAFETY (Sendable): `start`, `dequeue`, `requeue` and `stop` run on the engine's capture thread only, and
    // `bytes(of:)` on its recognition thread for a buffer it holds, which the capture thread does not touch until it
    // is requeued (the `FrameSource` contract); `path(forFrameIndex:)`, the file lists and the counters are read under
    // `lock`.

    /// The extensions read from folders (lower case).
    public static let imageExtensions: Set<String> = [
        "png", "jpg", "jpeg", "webp", "tif", "tiff", "gif", "bmp", "pgm", "ppm", "pbm",
    ]

    /// A file (or subfolder) the source could not read, and why.
    public struct UnreadableFile: Hashable, Sendable {
        /// The file's path as given or found (a byte that is not valid UTF-8 reads as U+FFFD).
        public var path: String
        /// Why it could not be read: ``CaptureError/code`` is the reason (``CaptureError/Code/notFound``,
        /// ``CaptureError/Code/permissionDenied``, ``CaptureError/Code/unsupportedFormat``,
        /// ``CaptureError/Code/corruptImage``, ``CaptureError/Code/tooLarge``, ``CaptureError/Code/invalidArgument``
        /// for a folder or a device, ``CaptureError/Code/other``), and the message names the file and the reason.
        public var error: CaptureError

        /// Creates the record of an unreadable file.
        public init(path: String, error: CaptureError) {
            self.path = path
            self.error = error
        }
    }

    /// The file or folder given.
    public let name: String
    /// Always true: the source ends after its last image.
    public let isFinite = true
    /// How many buffers the source owns.
    public let bufferCount: Int
    /// The most pixels an image may have: a larger one is refused from its header, before its pixels are allocated,
    /// as unreadable (``CaptureError/Code/tooLarge``).
    public let maxPixels: Int

    /// ``maxPixels``' default: 64 MP (2^26, 8192 x 8192; ``PixelBudget/defaultMaxPixels``).
    public static let defaultMaxPixels = PixelBudget.defaultMaxPixels
    /// The largest ``maxPixels`` there is: 2^30 (a larger value is lowered to it; ``PixelBudget/limit``).
    public static let maxPixelsLimit = PixelBudget.limit

    private let root: [UInt8]
    private let logger: Logger
    private let onUnreadable: (@Sendable (UnreadableFile) -> Void)?
    private let lock = Lock(())
    private var files: [[UInt8]] = []
    private var nextFile = 0
    private var delivered: [String] = []
    private var unreadable: [UnreadableFile] = []
    private var lastFormat = FrameFormat(pixelFormat: .grey, width: 0, height: 0)
    private var buffers: [Buffer]
    private var started = false

    private struct Buffer {
        var memory: UnsafeMutableRawPointer?
        var capacity = 0
        var used = 0
        var held = false
    }

    /// Creates a source over `path` (a file or a folder); nothing is read until ``start()``.
    ///
    /// - Parameters:
    ///   - bufferCount: how many frames may be out of the source at once (at least 1).
    ///   - maxPixels: the pixel budget (``maxPixels``), 1...``maxPixelsLimit``.
    ///   - onUnreadable: called with each file that cannot be read, as it is skipped: on the thread that calls
    ///     ``start()`` for subfolders that cannot be listed, on the thread that calls ``dequeue(timeout:)`` (the
    ///     engine's capture thread) for files. It must return quickly.
    public convenience init(
        path: String, bufferCount: Int = 2, maxPixels: Int = ImageFileSource.defaultMaxPixels, logger: Logger,
        onUnreadable: (@Sendable (UnreadableFile) -> Void)? = nil
    ) {
        self.init(
            pathBytes: Array(path.utf8), bufferCount: bufferCount, maxPixels: maxPixels, logger: logger,
            onUnreadable: onUnreadable)
    }

    /// Creates a source over the path whose bytes are `pathBytes` (a file or a folder), for a path that need not be
    /// valid UTF-8 (a file name from a command line or another program); nothing is read until ``start()``.
    ///
    /// - Parameters:
    ///   - bufferCount: how many frames may be out of the source at once (at least 1).
    ///   - maxPixels: the pixel budget (``maxPixels``), 1...``maxPixelsLimit``.
    ///   - onUnreadable: called with each file that cannot be read, as
    ///     ``init(path:bufferCount:maxPixels:logger:onUnreadable:)`` says.
    public init(
        pathBytes: [UInt8], bufferCount: Int = 2, maxPixels: Int = ImageFileSource.defaultMaxPixels, logger: Logger,
        onUnreadable: (@Sendable (UnreadableFile) -> Void)? = nil
    ) {
        precondition(bufferCount >= 1, "an image source needs at least one buffer")
        precondition(maxPixels >= 1, "a pixel budget of at least one pixel")
        self.maxPixels = min(maxPixels, Self.maxPixelsLimit)
        // Trailing slashes would double in the paths found below a folder ("/" itself keeps its one).
        var trimmed = pathBytes
        while trimmed.count > 1 && trimmed.last == UInt8(ascii: "/") { trimmed.removeLast() }
        root = trimmed
        name = Self.display(pathBytes)
        self.bufferCount = bufferCount
        self.logger = logger
        self.onUnreadable = onUnreadable
        buffers = Array(repeating: Buffer(), count: bufferCount)
    }

    deinit { release() }

    /// The format of the frame delivered last (GREY, 0x0 before the first).
    public var format: FrameFormat { lock.withLock { _ in lastFormat } }

    /// The image files found by ``start()``, in delivery order.
    public var imagePaths: [String] { lock.withLock { _ in files.map(Self.display) } }

    /// The files (and subfolders) that could not be read so far, in the order they were met.
    public var unreadableFiles: [UnreadableFile] { lock.withLock { _ in unreadable } }

    /// How many files could not be read and were skipped so far (``unreadableFiles``' count).
    public var skippedCount: Int { lock.withLock { _ in unreadable.count } }

    /// How many images were read and delivered as frames so far.
    public var deliveredCount: Int { lock.withLock { _ in delivered.count } }

    /// The file frame `index` (``FrameMetadata/index``) was read from, or `nil` for an index not delivered.
    public func path(forFrameIndex index: UInt64) -> String? {
        lock.withLock { _ in index < UInt64(delivered.count) ? delivered[Int(index)] : nil }
    }

    /// Lists the images; throws ``LumaScanError`` (`.sourceFailed`) when the path does not exist, is a folder that
    /// cannot be listed, or holds no image.
    public func start() throws {
        var info = stat()
        guard stat(Self.cString(root), &info) == 0 else {
            let error = errno
            let reason =
                error == ENOENT || error == ENOTDIR
                ? "no such file or folder"
                : "\(CaptureError.errnoDescription(error)) (\(CaptureError.errnoName(error)))"
            throw LumaScanError(.sourceFailed, "\(name): \(reason)")
        }
        var found: [[UInt8]] = []
        var failures: [UnreadableFile] = []
        if info.st_mode & S_IFMT == S_IFDIR {
            if let error = Self.collect(folder: root, files: &found, failures: &failures) {
                throw LumaScanError(.sourceFailed, CaptureError(folder: name, errno: error).message)
            }
            found.sort { $0.lexicographicallyPrecedes($1) }
            guard !found.isEmpty else {
                let names = Self.imageExtensions.sorted().joined(separator: ", ")
                let unlisted = failures.map { "; \($0.error.message)" }.joined()
                throw LumaScanError(.sourceFailed, "\(name): no image files (\(names)) in the folder\(unlisted)")
            }
        } else {
            found = [root]
        }
        lock.withLock { _ in
            files = found
            nextFile = 0
            delivered = []
            unreadable = []
        }
        started = true
        failures.forEach(skip)
        logger.debug("image source started", metadata: ["path": "\(name)", "images": "\(found.count)"])
    }

    /// Reads the next readable image into a free buffer, without waiting (`timeout` is not needed: files are read
    /// synchronously). Returns `nil` when every buffer is out (requeue one); throws ``FrameSourceEnd`` after the last
    /// image, and ``LumaScanError`` (`.invalidState`) before ``start()``.
    public func dequeue(timeout: Duration) throws -> DequeuedFrame? {
        guard started else { throw LumaScanError(.invalidState, "\(root): dequeue before start") }
        guard lock.withLock({ _ in nextFile < files.count }) else { throw FrameSourceEnd() }
        guard let bufferIndex = buffers.firstIndex(where: { !$0.held }) else { return nil }
        while true {
            let file: [UInt8]? = lock.withLock { _ in
                guard nextFile < files.count else { return nil }
                defer { nextFile += 1 }
                return files[nextFile]
            }
            guard let file else { throw FrameSourceEnd() }
            var image: OpaquePointer?
            let status = lv_image_read_grey_within(Self.cString(file), UInt64(maxPixels), &image)
            guard status == 0, let image else {
                lv_image_destroy(image)
                let path = Self.display(file)
                skip(
                    UnreadableFile(
                        path: path, error: CaptureError(imageFile: path, status: status, maxPixels: maxPixels)))
                continue
            }
            defer { lv_image_destroy(image) }
            let width = Int(lv_image_width(image))
            let height = Int(lv_image_height(image))
            guard let pixels = lv_image_pixels(image), width > 0, height > 0 else {
                let path = Self.display(file)
                skip(
                    UnreadableFile(
                        path: path, error: CaptureError(imageFile: path, status: -EBADMSG, maxPixels: maxPixels)))
                continue
            }
            let size = width * height
            var buffer = buffers[bufferIndex]
            if buffer.capacity < size {
                buffer.memory?.deallocate()
                buffer.memory = .allocate(byteCount: size, alignment: 64)
                buffer.capacity = size
            }
            // SAFETY: capacity >= size was just ensured, and the shim's image holds exactly `size` bytes.
            buffer.memory?.copyMemory(from: pixels, byteCount: size)
            buffer.used = size
            buffer.held = true
            buffers[bufferIndex] = buffer
            let now = MonotonicInstant.now()
            let format = FrameFormat(pixelFormat: .grey, width: width, height: height)
            let index: UInt64 = lock.withLock { _ in
                lastFormat = format
                delivered.append(Self.display(file))
                return UInt64(delivered.count - 1)
            }
            let metadata = FrameMetadata(
                index: index, driverSequence: UInt32(truncatingIfNeeded: index), captureTime: now, dequeueTime: now,
                format: format, bytesUsed: size)
            return DequeuedFrame(bufferIndex: bufferIndex, metadata: metadata)
        }
    }

    /// Gives a buffer back; throws ``LumaScanError`` (`.invalidState`) for a buffer that is not out.
    public func requeue(_ bufferIndex: Int) throws {
        guard buffers.indices.contains(bufferIndex), buffers[bufferIndex].held else {
            throw LumaScanError(.invalidState, "\(root): buffer \(bufferIndex) is not dequeued")
        }
        buffers[bufferIndex].held = false
    }

    /// The pixels of a buffer the caller holds: `bytesUsed` bytes of tight GREY rows.
    public func bytes(of bufferIndex: Int) -> UnsafeRawBufferPointer {
        guard buffers.indices.contains(bufferIndex), let memory = buffers[bufferIndex].memory else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: memory, count: buffers[bufferIndex].used)
    }

    /// Stops the source and frees its buffers; safe to call more than once.
    public func stop() {
        release()
        started = false
    }

    private func release() {
        for index in buffers.indices {
            buffers[index].memory?.deallocate()
            buffers[index] = Buffer()
        }
    }

    /// Records an unreadable file, logs it and tells the `onUnreadable` callback.
    private func skip(_ file: UnreadableFile) {
        lock.withLock { _ in unreadable.append(file) }
        logger.warning(
            "cannot read image, skipped",
            metadata: ["path": "\(file.path)", "reason": "\(file.error.code)", "error": "\(file.error.message)"])
        onUnreadable?(file)
    }

    /// A path's bytes as a NUL-terminated C string.
    private static func cString(_ path: [UInt8]) -> [CChar] { path.map { CChar(bitPattern: $0) } + [0] }

    /// A path's bytes as a `String`, a byte that is not valid UTF-8 shown as U+FFFD.
    private static func display(_ path: [UInt8]) -> String { String(decoding: path, as: UTF8.self) }

    /// Whether a file name's extension (after its last dot, compared ignoring ASCII case) is one of
    /// ``imageExtensions``.
    static func isImageName(_ name: [UInt8]) -> Bool {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let ext = name[(dot + 1)...].map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        return imageExtensions.contains(String(decoding: ext, as: UTF8.self))
    }

    /// Appends the image files below `folder` (depth first, hidden entries skipped) to `files`, and each subfolder
    /// that cannot be listed to `failures`. Returns the `errno` when `folder` itself cannot be listed.
    ///
    /// readdir rather than FileManager, whose enumerator leaves out names that are not valid UTF-8: a file would be
    /// skipped without a word.
    private static func collect(folder: [UInt8], files: inout [[UInt8]], failures: inout [UnreadableFile]) -> Int32? {
        guard let stream = opendir(cString(folder)) else { return errno }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            // SAFETY: readdir's entry stays valid until the next readdir or closedir on this stream; it is copied here.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard let first = name.first, first != UInt8(ascii: ".") else { continue }  // hidden, `.` and `..`
            let path = folder + [UInt8(ascii: "/")] + name
            var isFolder = Int(entry.pointee.d_type) == DT_DIR
            if Int(entry.pointee.d_type) == DT_UNKNOWN {
                // Some file systems leave the type out: lstat says (a link is not followed, so no loop).
                var info = stat()
                isFolder = lstat(cString(path), &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
            }
            if isFolder {
                if let error = collect(folder: path, files: &files, failures: &failures) {
                    let shown = display(path)
                    failures.append(UnreadableFile(path: shown, error: CaptureError(folder: shown, errno: error)))
                }
            } else if isImageName(name) {
                files.append(path)
            }
        }
        return nil
    }
}
