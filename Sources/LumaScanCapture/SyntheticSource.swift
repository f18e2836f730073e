import LumaScanCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A frame source that serves frames made in memory, for tests, benchmarks and demonstrations.
///
/// It delivers a sequence of grey images as GREY or YUYV frames, optionally paced to a frame rate, either for a fixed
/// number of frames or forever. Each buffer remembers which image it holds, so a stream of one repeated image copies
/// no pixels in steady state.
public final class SyntheticSource: FrameSource, @unchecked Sendable {
    // SAFETY (Sendable): `start`, `dequeue`, `requeue` and `stop` run on the engine's capture thread only, and
    // `bytes(of:)` reads buffers the caller holds, per the FrameSource contract.

    /// How the source chooses the image for each frame.
    public enum Schedule: Sendable {
        /// Each image for `framesPerImage` frames, in order, then again from the first.
        case cycle(framesPerImage: Int)
        /// The image at `indices[frameIndex]`; the source ends after the last entry.
        case script([Int])
    }

    /// A name for logs.
    public let name: String
    /// GREY or YUYV frames of the images' size.
    public private(set) var format: FrameFormat
    /// Buffers the source owns.
    public let bufferCount: Int
    /// Whether the source ends by itself.
    public var isFinite: Bool { frameLimit != nil }

    private let images: [LumaImage]
    private let schedule: Schedule
    private let frameLimit: Int?
    private let frameInterval: Duration?
    private let sequenceStep: UInt32
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private var heldImage: [Int] = []  // the image each buffer holds, or -1
    private var free: [Int] = []
    private var produced: UInt64 = 0
    private var nextDue: MonotonicInstant = MonotonicInstant(nanoseconds: 0)
    private let failure = Lock<(any Error & Sendable)?>(nil)

    /// Creates a synthetic source.
    ///
    /// - Parameters:
    ///   - name: a name for logs. Default: `"synthetic"`.
    ///   - images: the images to serve; all of one size.
    ///   - pixelFormat: ``PixelFormat/grey`` or ``PixelFormat/yuyv`` (luma in even bytes, neutral chroma).
    ///   - schedule: which image each frame shows. Default: each image for one frame, cycling.
    ///   - frameCount: frames to serve before ending; `nil` streams until stopped (for `.script`, its length).
    ///   - fps: frames per second to pace at; `nil` serves frames as fast as they are asked for.
    ///   - bufferCount: buffers to own. Default: 4, as a V4L2 camera.
    ///   - sequenceStep: how far the driver sequence number advances per frame (2 simulates a driver dropping every
    ///     other frame). Default: 1.
    public init(
        name: String = "synthetic", images: [LumaImage], pixelFormat: PixelFormat = .grey,
        schedule: Schedule = .cycle(framesPerImage: 1), frameCount: Int? = nil, fps: Double? = nil,
        bufferCount: Int = 4, sequenceStep: UInt32 = 1
    ) {
        precondition(!images.isEmpty, "a synthetic source needs at least one image")
        precondition(pixelFormat == .grey || pixelFormat == .yuyv, "a synthetic source serves GREY or YUYV")
        let width = images[0].width
        let height = images[0].height
        precondition(images.allSatisfy { $0.width == width && $0.height == height }, "images differ in size")
        self.name = name
        self.images = images
        self.schedule = schedule
        if case .script(let indices) = schedule {
            precondition(indices.allSatisfy { images.indices.contains($0) }, "script names an image that is not there")
            frameLimit = min(frameCount ?? indices.count, indices.count)
        } else {
            frameLimit = frameCount
        }
        frameInterval = fps.map { .nanoseconds(Int64(1e9 / $0)) }
        self.bufferCount = bufferCount
        self.sequenceStep = sequenceStep
        format = FrameFormat(pixelFormat: pixelFormat, width: width, height: height)
    }

    deinit { stop() }

    /// Makes the next ``dequeue(timeout:)`` throw `error`, as a failing device would.
    public func injectFailure(_ error: any Error & Sendable) {
        failure.withLock { $0 = error }
    }

    /// Allocates the buffers.
    public func start() throws {
        stop()
        buffers = (0..<bufferCount).map { _ in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: format.sizeImage, alignment: 64)
            // Written once here, so that every buffer is resident from the start: the free list is a stack, and the
            // buffers deep in it are first written only when the consumer holds the others (a soak saw a frame's
            // worth of memory appear, once, minutes into a run, when the machine got busy).
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            return buffer
        }
        heldImage = Array(repeating: -1, count: bufferCount)
        free = Array((0..<bufferCount).reversed())
        produced = 0
        nextDue = .now()
    }

    /// Serves the next frame, or `nil` when every buffer is out or the pacing says not yet (after waiting up to
    /// `timeout`).
    public func dequeue(timeout: Duration) throws -> DequeuedFrame? {
        if let error = failure.withLock({ error in
            defer { error = nil }; return error
        }) {
            throw error
        }
        if let frameLimit, produced >= UInt64(frameLimit) { throw FrameSourceEnd() }
        guard let buffer = free.popLast() else {
            sleep(for: timeout)
            return nil
        }
        if let frameInterval {
            let now = MonotonicInstant.now()
            if now < nextDue {
                let wait = nextDue.since(now)
                if wait > timeout {
                    free.append(buffer)
                    sleep(for: timeout)
                    return nil
                }
                sleep(for: wait)
            }
            nextDue = MonotonicInstant(nanoseconds: nextDue.nanoseconds + frameInterval.nanosecondsClamped)
        }
        let imageIndex: Int
        switch schedule {
        case .cycle(let framesPerImage):
            imageIndex = Int((produced / UInt64(max(1, framesPerImage))) % UInt64(images.count))
        case .script(let indices):
            imageIndex = indices[Int(produced)]
        }
        if heldImage[buffer] != imageIndex {
            render(images[imageIndex], into: buffers[buffer])
            heldImage[buffer] = imageIndex
        }
        let now = MonotonicInstant.now()
        let metadata = FrameMetadata(
            index: produced, driverSequence: UInt32(truncatingIfNeeded: produced) &* sequenceStep, captureTime: now,
            dequeueTime: now, format: format, bytesUsed: format.sizeImage)
        produced += 1
        return DequeuedFrame(bufferIndex: buffer, metadata: metadata)
    }

    /// Makes a buffer available again.
    public func requeue(_ bufferIndex: Int) throws {
        precondition(!free.contains(bufferIndex), "buffer \(bufferIndex) requeued twice")
        free.append(bufferIndex)
    }

    /// The bytes of a buffer.
    public func bytes(of bufferIndex: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(buffers[bufferIndex]) }

    /// Frees the buffers.
    public func stop() {
        for buffer in buffers { buffer.deallocate() }
        buffers = []
        free = []
    }

    private func render(_ image: LumaImage, into buffer: UnsafeMutableRawBufferPointer) {
        image.withView { view in
            for row in 0..<view.height {
                let source = view.baseAddress + row * view.stride
                if format.pixelFormat == .grey {
                    // SAFETY: the buffer holds width * height bytes.
                    (buffer.baseAddress! + row * view.width).copyMemory(from: source, byteCount: view.width)
                } else {
                    let line = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * format.bytesPerLine
                    for column in 0..<view.width {
                        line[2 * column] = source[column]
                        line[2 * column + 1] = 128
                    }
                }
            }
        }
    }

    private func sleep(for duration: Duration) {
        let nanoseconds = duration.nanosecondsClamped
        guard nanoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
