import Foundation
import LumaScanCore
import Synchronization
import Testing

private func frame(_ buffer: Int, index: UInt64) -> DequeuedFrame {
    let format = FrameFormat(pixelFormat: .grey, width: 4, height: 4)
    let metadata = FrameMetadata(
        index: index, driverSequence: UInt32(truncatingIfNeeded: index),
        captureTime: MonotonicInstant(nanoseconds: index * 1000), dequeueTime: MonotonicInstant(nanoseconds: 0),
        format: format, bytesUsed: 16)
    return DequeuedFrame(bufferIndex: buffer, metadata: metadata)
}

@Suite("FrameRing")
struct FrameRingTests {
    @Test("the default capacity leaves the driver a buffer while producer and consumer hold one each")
    func defaultCapacity() {
        #expect(FrameRing.defaultCapacity(bufferCount: 2) == 1)
        #expect(FrameRing.defaultCapacity(bufferCount: 4) == 1)
        #expect(FrameRing.defaultCapacity(bufferCount: 5) == 2)
        #expect(FrameRing.defaultCapacity(bufferCount: 8) == 4)
        #expect(FrameRing.defaultCapacity(bufferCount: 11) == 8)
        #expect(FrameRing(capacity: 3, bufferCount: 8).capacity == 4)
    }

    @Test("frames come out in the order they went in, with their metadata")
    func ordering() {
        let ring = FrameRing(capacity: 4, bufferCount: 8)
        let producer = ring.makeProducer()
        let consumer = ring.makeConsumer()
        for buffer in 0..<4 { #expect(producer.push(frame(buffer, index: UInt64(10 + buffer))) == .queued) }
        for buffer in 0..<4 {
            let popped = consumer.pop()
            #expect(popped?.bufferIndex == buffer)
            #expect(popped?.metadata.index == UInt64(10 + buffer))
            #expect(popped?.metadata.captureTime.nanoseconds == UInt64(10 + buffer) * 1000)
            consumer.release(buffer)
        }
        #expect(consumer.pop() == nil)
        #expect((0..<4).map { _ in producer.reclaim() } == [0, 1, 2, 3])
        #expect(producer.reclaim() == nil)
    }

    @Test("positions wrap around the slots many times without losing order")
    func wraparound() {
        let ring = FrameRing(capacity: 2, bufferCount: 3)
        let producer = ring.makeProducer()
        let consumer = ring.makeConsumer()
        var free = [0, 1, 2]
        for index in 0..<1000 {
            let buffer = free.removeFirst()
            #expect(producer.push(frame(buffer, index: UInt64(index))) == .queued)
            let popped = consumer.pop()
            #expect(popped?.metadata.index == UInt64(index))
            if let popped { consumer.release(popped.bufferIndex) }
            while let returned = producer.reclaim() { free.append(returned) }
        }
        let statistics = ring.statistics
        #expect(statistics.captured == 1000)
        #expect(statistics.processed == 1000)
        #expect(statistics.dropped == 0)
        #expect(statistics.inFlight == 0)
    }

    @Test("a full ring evicts the oldest frame, hands its buffer back, and counts the drop")
    func dropOldest() {
        let ring = FrameRing(capacity: 2, bufferCount: 6)
        let producer = ring.makeProducer()
        let consumer = ring.makeConsumer()
        #expect(producer.push(frame(0, index: 0)) == .queued)
        #expect(producer.push(frame(1, index: 1)) == .queued)
        #expect(producer.push(frame(2, index: 2)) == .queuedEvicting(bufferIndex: 0))
        #expect(producer.push(frame(3, index: 3)) == .queuedEvicting(bufferIndex: 1))
        var statistics = ring.statistics
        #expect(statistics.captured == 4)
        #expect(statistics.dropped == 2)
        #expect(statistics.inFlight == 2)
        #expect(statistics.captured == statistics.processed + statistics.dropped + statistics.inFlight)
        // The consumer sees the two newest frames only.
        let first = consumer.pop()
        #expect(first?.metadata.index == 2)
        #expect(producer.consumerHeld == 1)
        // While the consumer holds frame 2, the ring still holds frame 3 and may take one more.
        #expect(producer.push(frame(4, index: 4)) == .queued)
        #expect(producer.push(frame(5, index: 5)) == .queuedEvicting(bufferIndex: 3))
        consumer.release(2)
        #expect(consumer.pop()?.metadata.index == 4)
        consumer.release(4)
        statistics = ring.statistics
        #expect(statistics.captured == 6)
        #expect(statistics.processed == 2)
        #expect(statistics.dropped == 3)
        #expect(statistics.inFlight == 1)
        #expect(statistics.captured == statistics.processed + statistics.dropped + statistics.inFlight)
    }

    @Test("a rejecting ring leaves the frame with the producer when full")
    func reject() {
        let ring = FrameRing(capacity: 1, bufferCount: 3, fullPolicy: .reject)
        let producer = ring.makeProducer()
        let consumer = ring.makeConsumer()
        #expect(producer.push(frame(0, index: 0)) == .queued)
        #expect(producer.push(frame(1, index: 1)) == .rejected)
        #expect(ring.statistics.captured == 1)
        #expect(consumer.pop()?.bufferIndex == 0)
        #expect(producer.push(frame(1, index: 1)) == .queued)
        #expect(ring.statistics.dropped == 0)
    }

    @Test("evictAll empties the ring but leaves the consumer's frame alone")
    func evictAll() {
        let ring = FrameRing(capacity: 4, bufferCount: 8)
        let producer = ring.makeProducer()
        let consumer = ring.makeConsumer()
        for buffer in 0..<4 { _ = producer.push(frame(buffer, index: UInt64(buffer))) }
        let held = consumer.pop()
        #expect(held?.bufferIndex == 0)
        #expect(producer.evictAll() == [1, 2, 3])
        #expect(consumer.pop() == nil)
        #expect(producer.consumerHeld == 1)
        consumer.release(0)
        #expect(producer.consumerHeld == 0)
        let statistics = ring.statistics
        #expect(statistics.captured == 4 && statistics.processed == 1 && statistics.dropped == 3)
        #expect(statistics.inFlight == 0)
    }

    @Test("outstanding counts the producer's buffers the ring and the consumer hold, until each comes back")
    func outstanding() {
        let ring = FrameRing(capacity: 2, bufferCount: 4)
        let producer = ring.makeProducer()
        let consumer = ring.makeConsumer()
        #expect(producer.outstanding == 0)
        #expect(producer.push(frame(0, index: 0)) == .queued)
        #expect(producer.push(frame(1, index: 1)) == .queued)
        #expect(producer.outstanding == 2)
        // An evicting push hands one buffer straight back: still two out.
        #expect(producer.push(frame(2, index: 2)) == .queuedEvicting(bufferIndex: 0))
        #expect(producer.outstanding == 2)
        let claimed = consumer.pop()
        #expect(claimed?.bufferIndex == 1)
        consumer.release(1)
        // Released but not yet reclaimed: the producer cannot dequeue into it yet.
        #expect(producer.outstanding == 2)
        #expect(producer.reclaim() == 1)
        #expect(producer.outstanding == 1)
        #expect(producer.evictAll() == [2])
        #expect(producer.outstanding == 0)
    }

    /// Two real threads hammer the ring while a third reads its statistics: every frame is either processed or
    /// dropped, exactly once, the consumer sees frames in order, and the accounting identity holds at every read.
    /// CI runs this under `--sanitize=thread`.
    @Test("threaded stress: each frame processed or dropped exactly once")
    func threadedStress() async throws {
        let total = 200_000
        let bufferCount = 6
        let ring = FrameRing(capacity: 2, bufferCount: bufferCount)
        let consumed = Lock<[UInt64]>([])
        let droppedIndices = Lock<[UInt64]>([])
        let producerDone = Atomic<Bool>(false)
        let checkerFailures = Atomic<Int>(0)
        let group = DispatchGroup()

        let producerBox = HandleBox(ring.makeProducer())
        let consumerBox = HandleBox(ring.makeConsumer())

        group.enter()
        let producerThread = Thread {
            let producer = producerBox.take()
            var free = Array(0..<bufferCount)
            var frameOfBuffer = [UInt64](repeating: 0, count: bufferCount)
            var dropped: [UInt64] = []
            var index: UInt64 = 0
            while index < UInt64(total) {
                while let returned = producer.reclaim() { free.append(returned) }
                guard let buffer = free.popLast() else {
                    sched_yield()
                    continue
                }
                frameOfBuffer[buffer] = index
                switch producer.push(frame(buffer, index: index)) {
                case .queued: break
                case .queuedEvicting(let victim):
                    dropped.append(frameOfBuffer[victim])
                    free.append(victim)
                case .rejected: Issue.record("a dropOldest ring rejected a frame")
                }
                index += 1
            }
            for victim in producer.evictAll() { dropped.append(frameOfBuffer[victim]) }
            droppedIndices.withLock { $0 = dropped }
            producerDone.store(true, ordering: .releasing)
            group.leave()
        }
        group.enter()
        let consumerThread = Thread {
            let consumer = consumerBox.take()
            var seen: [UInt64] = []
            seen.reserveCapacity(total)
            while true {
                if let popped = consumer.pop() {
                    seen.append(popped.metadata.index)
                    consumer.release(popped.bufferIndex)
                } else if producerDone.load(ordering: .acquiring) {
                    if let popped = consumer.pop() {  // drain anything published before the flag
                        seen.append(popped.metadata.index)
                        consumer.release(popped.bufferIndex)
                        continue
                    }
                    break
                }
            }
            consumed.withLock { $0 = seen }
            group.leave()
        }
        group.enter()
        let checkerThread = Thread {
            while !producerDone.load(ordering: .acquiring) {
                let statistics = ring.statistics
                if statistics.captured != statistics.processed + statistics.dropped + statistics.inFlight {
                    checkerFailures.add(1, ordering: .relaxed)
                }
            }
            group.leave()
        }
        producerThread.start()
        consumerThread.start()
        checkerThread.start()
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }

        let seen = consumed.withLock { $0 }
        let dropped = droppedIndices.withLock { $0 }
        #expect(checkerFailures.load(ordering: .relaxed) == 0)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "the consumer saw frames out of order")
        #expect(seen.count + dropped.count == total)
        #expect(Set(seen).isDisjoint(with: dropped))
        #expect(Set(seen).union(dropped) == Set((0..<UInt64(total))))
        let statistics = ring.statistics
        #expect(statistics.captured == UInt64(total))
        #expect(statistics.processed == UInt64(seen.count))
        #expect(statistics.dropped == UInt64(dropped.count))
        #expect(statistics.inFlight == 0)
        #expect(seen.count > 0)
    }
}

/// Moves a `~Copyable` ring handle into a thread.
private final class HandleBox<Handle: ~Copyable>: @unchecked Sendable {
    // SAFETY (Sendable): written at creation, taken exactly once by the one thread that uses the handle.
    private var handle: Handle?
    init(_ handle: consuming Handle) { self.handle = consume handle }
    func take() -> Handle {
        guard let handle = handle.take() else { preconditionFailure("handle taken twice") }
        return handle
    }
}
