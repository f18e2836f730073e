import CLumaVision
import Foundation
import Logging
import LumaScanCore

/// A finite frame source over image files: one file, or every image in a folder and its subfolders, each delivered
/// once as a GREY frame, in path order.
///
/// Files are recognised by extension, case-insensitively: `png`, `jpg`, `jpeg`, `pgm`, `ppm`, `bmp` (a single file
/// named directly is read whatever its extension). Hidden files and folders are skipped. Colour and 16-bit images are
/// converted to 8-bit grey. A file that cannot be read is logged, counted in ``skippedCount`` and skipped; it never
/// ends the source. After the last image, ``dequeue(timeout:)`` throws ``FrameSourceEnd``.
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
    // is requeued (the `FrameSource` contract); `path(forFrameIndex:)` and the counters are read under `lock`.

    /// The extensions read from folders (lower case).
    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "pgm", "ppm", "bmp"]

    /// The file or folder given.
    public let name: String
    /// Always true: the source ends after its last image.
    public let isFinite = true
    /// How many buffers the source owns.
    public let bufferCount: Int

    private let root: String
    private let logger: Logger
    private let lock = NSLock()
    private var files: [String] = []
    private var nextFile = 0
    private var delivered: [String] = []
    private var skipped = 0
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
    /// - Parameter bufferCount: how many frames may be out of the source at once (at least 1).
    public init(path: String, bufferCount: Int = 2, logger: Logger) {
        precondition(bufferCount >= 1, "an image source needs at least one buffer")
        name = path
        root = path
        self.bufferCount = bufferCount
        self.logger = logger
        buffers = Array(repeating: Buffer(), count: bufferCount)
    }

    deinit { release() }

    /// The format of the frame delivered last (GREY, 0x0 before the first).
    public var format: FrameFormat { lock.withLock { lastFormat } }

    /// The image files found by ``start()``, in delivery order.
    public var imagePaths: [String] { lock.withLock { files } }

    /// How many files could not be read and were skipped so far.
    public var skippedCount: Int { lock.withLock { skipped } }

    /// The file frame `index` (``FrameMetadata/index``) was read from, or `nil` for an index not delivered.
    public func path(forFrameIndex index: UInt64) -> String? {
        lock.withLock { index < UInt64(delivered.count) ? delivered[Int(index)] : nil }
    }

    /// Lists the images; throws ``LumaScanError`` (`.sourceFailed`) when the path does not exist or holds no image.
    public func start() throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder) else {
            throw LumaScanError(.sourceFailed, "\(root): no such file or folder")
        }
        var found: [String] = []
        if isFolder.boolValue {
            let url = URL(fileURLWithPath: root, isDirectory: true)
            guard
                let walker = FileManager.default.enumerator(
                    at: url, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
            else { throw LumaScanError(.sourceFailed, "\(root): cannot list the folder") }
            for case let file as URL in walker where Self.imageExtensions.contains(file.pathExtension.lowercased()) {
                if (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                    found.append(file.path)
                }
            }
            found.sort()
            guard !found.isEmpty else {
                let names = Self.imageExtensions.sorted().joined(separator: ", ")
                throw LumaScanError(.sourceFailed, "\(root): no image files (\(names)) in the folder")
            }
        } else {
            found = [root]
        }
        lock.withLock {
            files = found
            nextFile = 0
            delivered = []
            skipped = 0
        }
        started = true
        logger.debug("image source started", metadata: ["path": "\(root)", "images": "\(found.count)"])
    }

    /// Reads the next readable image into a free buffer, without waiting (`timeout` is not needed: files are read
    /// synchronously). Returns `nil` when every buffer is out (requeue one); throws ``FrameSourceEnd`` after the last
    /// image, and ``LumaScanError`` (`.invalidState`) before ``start()``.
    public func dequeue(timeout: Duration) throws -> DequeuedFrame? {
        guard started else { throw LumaScanError(.invalidState, "\(root): dequeue before start") }
        guard lock.withLock({ nextFile < files.count }) else { throw FrameSourceEnd() }
        guard let bufferIndex = buffers.firstIndex(where: { !$0.held }) else { return nil }
        while true {
            let file: String? = lock.withLock {
                guard nextFile < files.count else { return nil }
                defer { nextFile += 1 }
                return files[nextFile]
            }
            guard let file else { throw FrameSourceEnd() }
            var image: OpaquePointer?
            let status = lv_image_read_grey(file, &image)
            guard status == 0, let image else {
                lock.withLock { skipped += 1 }
                logger.warning(
                    "cannot read image, skipped",
                    metadata: ["path": "\(file)", "error": "\(Self.describe(status))"])
                continue
            }
            defer { lv_image_destroy(image) }
            let width = Int(lv_image_width(image))
            let height = Int(lv_image_height(image))
            guard let pixels = lv_image_pixels(image), width > 0, height > 0 else {
                lock.withLock { skipped += 1 }
                logger.warning("empty image, skipped", metadata: ["path": "\(file)"])
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
            let index: UInt64 = lock.withLock {
                lastFormat = format
                delivered.append(file)
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

    private static func describe(_ status: Int32) -> String {
        switch -status {
        case ENOENT: return "no such file"
        case EIO: return "not a decodable image"
        case EINVAL: return "not a regular file"
        case ENOMEM: return "out of memory"
        default: return String(cString: strerror(-status))
        }
    }
}
