// FrameRing: the cost of handing a frame from the producer (capture) thread to the consumer (recognition) thread,
// with the two sides on two real threads, and the allocations it makes (none).
import Benchmark
import BenchmarkFrames
import Foundation
import LumaScan
import Synchronization

let benchmarks: @Sendable () -> Void = {
    let guarded = BenchmarkThresholds(absolute: [.p90: 0])
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds,
        scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 200,
        thresholds: [.mallocCountTotal: guarded])

    // One frame at a time: the producer pushes a frame and waits until the consumer has popped and released it and
    // the buffer is back (push -> pop -> release -> reclaim). Each scaled iteration is one round trip: two handoffs,
    // each a cache line moving between cores.
    Benchmark("handoff-round-trip") { (benchmark: Benchmark, ring: RingHarness) in
        for index in benchmark.scaledIterations {
            _ = ring.producer.push(ring.frame(buffer: 0, index: index))
            var spins = 0
            while ring.producer.reclaim() == nil { RingHarness.pause(&spins) }
        }
    } setup: {
        RingHarness(bufferCount: 4, capacity: 1)
    } teardown: {
        RingHarness.current?.stop()
    }

    // Streaming: the producer keeps the ring full (8 buffers, 4 slots, rejecting when full as for a finite source)
    // while the consumer drains it. Each scaled iteration is one frame at the ring's throughput.
    Benchmark("handoff-streaming") { (benchmark: Benchmark, ring: RingHarness) in
        // The producer's free buffers, on the stack: the measured loop allocates nothing itself.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: ring.bufferCount) { free in
            var count = 0
            var spins = 0
            func reclaim() {
                if let buffer = ring.producer.reclaim() {
                    free[count] = buffer
                    count += 1
                } else {
                    RingHarness.pause(&spins)
                }
            }
            for buffer in 0..<ring.bufferCount { free[buffer] = buffer }
            count = ring.bufferCount
            for index in benchmark.scaledIterations {
                while count == 0 { reclaim() }
                count -= 1
                let buffer = free[count]
                while ring.producer.push(ring.frame(buffer: buffer, index: index)) == .rejected { reclaim() }
            }
            while count < ring.bufferCount { reclaim() }
        }
    } setup: {
        RingHarness(bufferCount: 8, capacity: 4)
    } teardown: {
        RingHarness.current?.stop()
    }
}

/// A frame ring whose consumer side runs on its own thread, popping and releasing frames as fast as they come; the
/// benchmark's thread is the producer.
final class RingHarness: @unchecked Sendable {
    // SAFETY (Sendable): the producer handle is used only by the benchmark's thread; the consumer handle is moved to
    // the consumer thread through `ConsumerBox`; the flags are atomics.
    nonisolated(unsafe) static var current: RingHarness?

    let ring: FrameRing
    let producer: FrameRing.Producer
    let bufferCount: Int
    private let format = FrameFormat(pixelFormat: .grey, width: 1920, height: 1080)
    private let stopping = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    init(bufferCount: Int, capacity: Int) {
        self.bufferCount = bufferCount
        ring = FrameRing(capacity: capacity, bufferCount: bufferCount, fullPolicy: .reject)
        producer = ring.makeProducer()
        let box = ConsumerBox(ring.makeConsumer())
        let thread = Thread { [self] in
            guard let consumer = box.take() else { return }
            var spins = 0
            while !stopping.load(ordering: .relaxed) {
                if let frame = consumer.pop() {
                    consumer.release(frame.bufferIndex)
                    spins = 0
                } else {
                    Self.pause(&spins)
                }
            }
            stopped.store(true, ordering: .releasing)
        }
        thread.name = "bench-consumer"
        thread.start()
        Self.current = self
    }

    /// Stops the consumer thread and waits for it.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        while !stopped.load(ordering: .acquiring) { usleep(100) }
        Self.current = nil
    }

    /// The frame to push: buffer `buffer`, frame number `index`. Allocates nothing.
    func frame(buffer: Int, index: Int) -> DequeuedFrame {
        let now = MonotonicInstant(nanoseconds: UInt64(index))
        return DequeuedFrame(
            bufferIndex: buffer,
            metadata: FrameMetadata(
                index: UInt64(index), driverSequence: UInt32(truncatingIfNeeded: index), captureTime: now,
                dequeueTime: now, format: format, bytesUsed: format.sizeImage))
    }

    /// Busy-waits briefly, then yields the core: on a machine with fewer free cores than spinning threads, a pure
    /// spin would wait for the other side's whole time slice.
    static func pause(_ spins: inout Int) {
        spins += 1
        if spins > 256 {
            sched_yield()
            spins = 0
        }
    }
}

/// Moves the `~Copyable` consumer handle into the thread that owns it.
final class ConsumerBox: @unchecked Sendable {
    // SAFETY (Sendable): taken exactly once, by the consumer thread.
    private var consumer: FrameRing.Consumer?
    init(_ consumer: consuming FrameRing.Consumer) { self.consumer = consume consumer }
    func take() -> FrameRing.Consumer? { consumer.take() }
}
