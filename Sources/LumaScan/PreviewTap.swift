import CLumaCapture
import LumaScanCore
import Synchronization

/// A live preview of the engine's frames as grey JPEGs, for a kiosk page (`lumascan serve`'s `/preview.mjpg`).
///
/// The recognition thread hands frames over without blocking: while at least one viewer is connected, at most once per
/// ``minimumInterval`` it downscales the frame's luma plane (to at most ``maximumWidth`` pixels wide, by an integer
/// step, aspect kept) into a staging plane allocated once per frame size, unless the encoder still holds the previous
/// one (then the frame is skipped), and wakes the encoder thread, which encodes it with TurboJPEG and passes the JPEG
/// to every viewer. With no viewer nothing is copied or encoded: the recognition thread only stores the frame's time.
///
/// A viewer that reads slower than frames come loses the older frames: each viewer holds only the newest.
public final class PreviewTap: Sendable {
    /// The widest preview, in pixels.
    public static let maximumWidth = 640
    /// The shortest time between two preview frames (at most 10 per second).
    public static let minimumInterval: Duration = .milliseconds(100)
    /// The JPEG quality of preview frames (1–100).
    public static let quality: Int32 = 70

    private enum Staging {
        static let empty = 0
        static let writing = 1
        static let full = 2
        static let reading = 3
    }

    private let viewerCount = Atomic<Int>(0)
    private let lastFrameNanoseconds = Atomic<UInt64>(0)
    private let lastOfferNanoseconds = Atomic<UInt64>(0)
    private let encoded = Atomic<UInt64>(0)
    private let staging = Atomic<Int>(Staging.empty)
    private let plane = StagingPlane()
    private let frameReady = Semaphore()
    private let closed = Atomic<Bool>(false)
    private let viewers = Lock<(next: Int, continuations: [Int: AsyncStream<[UInt8]>.Continuation])>((0, [:]))
    private let encoderStarted = Atomic<Bool>(false)

    init() {}

    deinit {
        closed.store(true, ordering: .releasing)
        frameReady.signal()
    }

    /// How many viewers are connected.
    public var viewerCountNow: Int { viewerCount.load(ordering: .relaxed) }

    /// How many preview frames have been encoded (0 while nobody has watched).
    public var previewFramesEncoded: UInt64 { encoded.load(ordering: .relaxed) }

    /// When the recognition thread last took a frame from the ring (recognised or not), or `nil` before the first.
    public var lastFrameTime: MonotonicInstant? {
        let nanoseconds = lastFrameNanoseconds.load(ordering: .relaxed)
        return nanoseconds == 0 ? nil : MonotonicInstant(nanoseconds: nanoseconds)
    }

    /// Connects a viewer: the sequence yields each new preview JPEG (grey, baseline) while it is iterated, keeping only
    /// the newest one for a slow reader. The viewer counts as connected until its iteration ends or is cancelled, or
    /// ``disconnectAll()`` ends it.
    public func frames() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(1))
        let id = viewers.withLock { state in
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        viewerCount.add(1, ordering: .relaxed)
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let removed = self.viewers.withLock { $0.continuations.removeValue(forKey: id) != nil }
            if removed { self.viewerCount.subtract(1, ordering: .relaxed) }
        }
        startEncoderOnce()
        return stream
    }

    /// Ends every viewer's sequence (a server shutting down ends its streaming responses this way).
    public func disconnectAll() {
        let continuations = viewers.withLock { state in
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        viewerCount.subtract(continuations.count, ordering: .relaxed)
        for continuation in continuations { continuation.finish() }
    }

    // MARK: - Recognition thread

    /// Notes that the recognition thread took a frame captured at `time`; returns whether it should hand its luma to
    /// ``offer(_:at:)``. No allocation, no lock: three relaxed loads and a store.
    func wantsFrame(at time: MonotonicInstant) -> Bool {
        lastFrameNanoseconds.store(max(1, time.nanoseconds), ordering: .relaxed)
        guard viewerCount.load(ordering: .relaxed) > 0 else { return false }
        let last = lastOfferNanoseconds.load(ordering: .relaxed)
        guard last == 0 || time.nanoseconds &- last >= UInt64(Self.minimumInterval.nanosecondsClamped) else {
            return false
        }
        return staging.load(ordering: .relaxed) == Staging.empty
    }

    /// Downscales `luma` into the staging plane and wakes the encoder; skips the frame when the encoder holds the plane.
    func offer(_ luma: LumaView, at time: MonotonicInstant) {
        guard
            staging.compareExchange(
                expected: Staging.empty, desired: Staging.writing, successOrdering: .acquiring,
                failureOrdering: .relaxed
            ).exchanged
        else { return }
        lastOfferNanoseconds.store(max(1, time.nanoseconds), ordering: .relaxed)
        plane.downscale(luma, maximumWidth: Self.maximumWidth)
        staging.store(Staging.full, ordering: .releasing)
        frameReady.signal()
    }

    // MARK: - Encoder thread

    private func startEncoderOnce() {
        guard
            encoderStarted.compareExchange(
                expected: false, desired: true, successOrdering: .relaxed, failureOrdering: .relaxed
            ).exchanged
        else { return }
        // The thread holds the tap weakly between frames, so dropping the engine ends it (see deinit).
        _ = NativeThread(name: "lumascan-preview") { [weak self] in
            var encoder: OpaquePointer?
            // Without an encoder (out of memory) every frame's encoding fails and is counted as not encoded.
            _ = lc_jpeg_encoder_create(&encoder)
            defer { lc_jpeg_encoder_destroy(encoder) }
            var output: [UInt8] = []
            while true {
                // Wait holding only the semaphore, not the tap, so that the tap can be released meanwhile.
                let ready: Semaphore? = self.flatMap { $0.closed.load(ordering: .acquiring) ? nil : $0.frameReady }
                guard let ready else { return }
                ready.wait()
                guard let tap = self, !tap.closed.load(ordering: .acquiring) else { return }
                tap.encodeStaged(encoder: encoder, output: &output)
            }
        }
    }

    private func encodeStaged(encoder: OpaquePointer?, output: inout [UInt8]) {
        guard
            staging.compareExchange(
                expected: Staging.full, desired: Staging.reading, successOrdering: .acquiring, failureOrdering: .relaxed
            ).exchanged
        else { return }
        let jpeg = plane.encode(encoder: encoder, quality: Self.quality, output: &output)
        staging.store(Staging.empty, ordering: .releasing)
        guard let jpeg else { return }
        encoded.add(1, ordering: .relaxed)
        let continuations = viewers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(jpeg) }
    }
}

/// The preview's staging plane, owned by whichever thread the tap's staging state gives it to.
private final class StagingPlane: @unchecked Sendable {
    // SAFETY (Sendable): only the thread that moved the tap's `staging` state to writing (the recognition thread) or
    // reading (the encoder thread) touches these fields, with acquire/release ordering on that state.
    var pixels: UnsafeMutablePointer<UInt8>?
    var capacity = 0
    var width = 0
    var height = 0

    deinit { pixels?.deallocate() }

    /// Copies every `step`-th pixel of every `step`-th row, `step` the smallest integer that brings the width to at
    /// most `maximumWidth`; allocates only when the frame size grows.
    func downscale(_ luma: LumaView, maximumWidth: Int) {
        let step = max(1, (luma.width + maximumWidth - 1) / maximumWidth)
        width = luma.width / step
        height = luma.height / step
        let needed = width * height
        if needed > capacity {
            pixels?.deallocate()
            pixels = .allocate(capacity: needed)
            capacity = needed
        }
        guard let pixels else { return }
        for row in 0..<height {
            let source = luma.baseAddress + row * step * luma.stride
            let destination = pixels + row * width
            if step == 1 {
                destination.update(from: source, count: width)
            } else {
                for column in 0..<width { destination[column] = source[column * step] }
            }
        }
    }

    /// Encodes the plane as a grey JPEG; `nil` when it is empty or the encoder fails.
    func encode(encoder: OpaquePointer?, quality: Int32, output: inout [UInt8]) -> [UInt8]? {
        guard let pixels, width > 0, height > 0, let encoder else { return nil }
        let capacity = lc_jpeg_grey_capacity(Int32(width), Int32(height))
        if output.count < capacity { output = [UInt8](repeating: 0, count: capacity) }
        let size = output.withUnsafeMutableBytes { buffer in
            lc_jpeg_encode_grey(
                encoder, pixels, width, Int32(width), Int32(height), quality, buffer.baseAddress, buffer.count)
        }
        guard size > 0 else { return nil }
        return Array(output[0..<size])
    }
}
