import Synchronization

/// A fixed-capacity, lock-free, single-producer single-consumer ring that hands captured frames from the capture
/// thread to the recognition thread.
///
/// The ring carries buffer indices, not pixels: a frame stays in the source buffer it was captured into, and the
/// ring's per-buffer metadata table holds what is known about it. Each buffer index is at any moment in exactly one
/// place — the driver, the producer, the ring, or the consumer — so the metadata of a buffer is written only by the
/// side that owns it.
///
/// **When the ring is full** the producer evicts the oldest frame not yet claimed by the consumer (real-time scanning
/// wants the newest frame), hands its buffer back to be requeued, and counts it in ``Statistics/dropped``. Eviction and
/// the consumer's claim race for the same slot through one compare-and-exchange on the head index, so a frame is
/// either processed or dropped, never both and never neither. A ring whose ``FullPolicy`` is ``FullPolicy/reject``
/// (for finite sources, which must not lose frames) leaves the frame with the producer instead.
///
/// **Buffers return** from the consumer to the producer through a second lock-free ring, sized to hold every buffer,
/// so that the capture thread alone talks to the driver.
///
/// **Accounting.** `captured == processed + dropped + inFlight` holds in every ``statistics`` snapshot, where
/// `inFlight` counts frames in the ring or held by the consumer.
///
/// Create the ring, then take its two handles once each with ``makeProducer()`` and ``makeConsumer()``: the
/// ``Producer`` belongs to the capture thread and the ``Consumer`` to the recognition thread. Both are `~Copyable`, so the type system keeps each side
/// single.
public final class FrameRing: @unchecked Sendable {
    // SAFETY (Sendable): all shared state is atomic, except the per-buffer metadata table, whose entries are written
    // only by the side that owns the buffer, with ownership passed by releasing/acquiring stores of the ring indices.
    /// What ``Producer/push(_:)`` does when the ring is full.
    public enum FullPolicy: Sendable {
        /// Evict the oldest unclaimed frame and return its buffer for requeueing (live streams).
        case dropOldest
        /// Refuse the new frame and leave it with the producer, which retries (finite sources).
        case reject
    }

    /// A snapshot of the ring's counters.
    public struct Statistics: Hashable, Sendable {
        /// Frames pushed by the producer.
        public var captured: UInt64
        /// Frames claimed by the consumer and released.
        public var processed: UInt64
        /// Frames evicted because the ring was full.
        public var dropped: UInt64
        /// Frames in the ring or held by the consumer.
        public var inFlight: UInt64
    }

    /// The number of frames the ring holds; a power of two.
    public let capacity: Int
    /// The number of source buffers the ring can track (indices `0..<bufferCount`).
    public let bufferCount: Int
    /// What a push into a full ring does.
    public let fullPolicy: FullPolicy

    private let mask: Int
    // Positions are monotonically increasing 64-bit counters (never reused, so no ABA); slots are `position & mask`.
    // Each hot counter lives on its own cache line so the producer's and consumer's writes do not false-share.
    private let head: PaddedAtomic  // next position to claim; advanced by the consumer (claim) or producer (evict)
    private let tail: PaddedAtomic  // next position to publish; advanced by the producer only
    private let evicted: PaddedAtomic  // positions the producer evicted
    private let released: PaddedAtomic  // frames the consumer released
    private let returnHead: PaddedAtomic  // next return position the producer reads
    private let returnTail: PaddedAtomic  // next return position the consumer writes
    private let slots: AtomicArray  // buffer index per position
    private let returnSlots: AtomicArray  // released buffer indices
    private let returnMask: Int
    private let metadata: UnsafeMutablePointer<FrameMetadata?>  // per buffer; written by the buffer's owner only
    private let producerTaken = Atomic<Bool>(false)
    private let consumerTaken = Atomic<Bool>(false)

    /// Creates a ring for a source with `bufferCount` buffers.
    ///
    /// - Parameters:
    ///   - capacity: frames the ring holds; rounded up to a power of two. The default leaves the driver at least one
    ///     buffer while the producer and the consumer each hold one: the largest power of two not above
    ///     `bufferCount - 3`, and at least 1.
    ///   - bufferCount: the number of buffers the source owns.
    ///   - fullPolicy: what a push into a full ring does.
    public init(capacity: Int? = nil, bufferCount: Int, fullPolicy: FullPolicy = .dropOldest) {
        precondition(bufferCount > 0, "a frame ring needs at least one buffer")
        let wanted = capacity ?? Self.defaultCapacity(bufferCount: bufferCount)
        precondition(wanted > 0, "a frame ring needs a capacity of at least 1")
        var rounded = 1
        while rounded < wanted { rounded <<= 1 }
        self.capacity = rounded
        self.bufferCount = bufferCount
        self.fullPolicy = fullPolicy
        mask = rounded - 1
        var returnCapacity = 1
        while returnCapacity < bufferCount { returnCapacity <<= 1 }
        returnMask = returnCapacity - 1
        head = PaddedAtomic()
        tail = PaddedAtomic()
        evicted = PaddedAtomic()
        released = PaddedAtomic()
        returnHead = PaddedAtomic()
        returnTail = PaddedAtomic()
        slots = AtomicArray(count: rounded)
        returnSlots = AtomicArray(count: returnCapacity)
        metadata = .allocate(capacity: bufferCount)
        metadata.initialize(repeating: nil, count: bufferCount)
    }

    deinit {
        metadata.deinitialize(count: bufferCount)
        metadata.deallocate()
    }

    /// The default capacity for a source with `bufferCount` buffers (see ``init(capacity:bufferCount:fullPolicy:)``).
    public static func defaultCapacity(bufferCount: Int) -> Int {
        var capacity = 1
        while capacity * 2 <= bufferCount - 3 { capacity *= 2 }
        return capacity
    }

    /// Takes the ring's producer handle. Call it once; a second call is a programming error.
    public func makeProducer() -> Producer {
        let (exchanged, _) = producerTaken.compareExchange(expected: false, desired: true, ordering: .relaxed)
        precondition(exchanged, "FrameRing.makeProducer() called twice: a ring has one producer")
        return Producer(ring: self)
    }

    /// Takes the ring's consumer handle. Call it once; a second call is a programming error.
    public func makeConsumer() -> Consumer {
        let (exchanged, _) = consumerTaken.compareExchange(expected: false, desired: true, ordering: .relaxed)
        precondition(exchanged, "FrameRing.makeConsumer() called twice: a ring has one consumer")
        return Consumer(ring: self)
    }

    /// A consistent snapshot of the counters: `captured == processed + dropped + inFlight`.
    public var statistics: Statistics {
        // Read the counters that complete a frame's life first, then the one that starts it: every frame counted as
        // processed or dropped was captured before, so `captured` read last is never smaller than their sum.
        let processed = released.pointer.pointee.load(ordering: .acquiring)
        let dropped = evicted.pointer.pointee.load(ordering: .acquiring)
        let captured = tail.pointer.pointee.load(ordering: .acquiring)
        return Statistics(
            captured: UInt64(captured), processed: UInt64(processed), dropped: UInt64(dropped),
            inFlight: UInt64(captured - processed - dropped))
    }

    /// The producer's side of a ``FrameRing``; owned by the capture thread.
    public struct Producer: ~Copyable, @unchecked Sendable {
        // SAFETY (Sendable): the handle is ~Copyable, so it is moved to the capture thread, never shared.
        private let ring: FrameRing

        fileprivate init(ring: FrameRing) { self.ring = ring }

        /// The result of a push.
        public enum PushResult: Equatable, Sendable {
            /// The frame is in the ring.
            case queued
            /// The frame is in the ring; the oldest unclaimed frame was evicted and its buffer must be requeued.
            case queuedEvicting(bufferIndex: Int)
            /// The ring is full and its policy is ``FrameRing/FullPolicy/reject``: the frame's buffer stays with the
            /// producer.
            case rejected
        }

        /// Publishes a frame to the consumer.
        ///
        /// The producer must own `frame.bufferIndex` (dequeued from the source, not yet pushed or requeued).
        public func push(_ frame: DequeuedFrame) -> PushResult {
            let ring = ring
            precondition(frame.bufferIndex >= 0 && frame.bufferIndex < ring.bufferCount, "buffer index out of range")
            let position = ring.tail.pointer.pointee.load(ordering: .relaxed)  // only this thread writes tail
            var result = PushResult.queued
            var claimed = ring.head.pointer.pointee.load(ordering: .acquiring)
            if position - claimed >= ring.capacity {
                if ring.fullPolicy == .reject { return .rejected }
                // Full: try to evict the oldest unclaimed frame; the consumer may claim it first, which frees a slot.
                let (exchanged, current) = ring.head.pointer.pointee.compareExchange(
                    expected: claimed, desired: claimed + 1, ordering: .acquiringAndReleasing)
                if exchanged {
                    let victim = ring.slots.load(claimed & ring.mask)  // written by this thread
                    ring.metadata[victim] = nil
                    ring.evicted.pointer.pointee.add(1, ordering: .releasing)
                    result = .queuedEvicting(bufferIndex: victim)
                } else {
                    claimed = current
                }
            }
            // SAFETY: this buffer is owned by the producer until the releasing store of `tail` publishes it.
            ring.metadata[frame.bufferIndex] = frame.metadata
            ring.slots.store(frame.bufferIndex, at: position & ring.mask)
            ring.tail.pointer.pointee.store(position + 1, ordering: .releasing)
            return result
        }

        /// Takes back one buffer the consumer has released, if any, for the producer to requeue to the source.
        public func reclaim() -> Int? {
            let ring = ring
            // Only this thread writes returnHead.
            let position = ring.returnHead.pointer.pointee.load(ordering: .relaxed)
            guard position < ring.returnTail.pointer.pointee.load(ordering: .acquiring) else { return nil }
            let buffer = ring.returnSlots.load(position & ring.returnMask)
            ring.returnHead.pointer.pointee.store(position + 1, ordering: .releasing)
            return buffer
        }

        /// Evicts every frame still waiting in the ring, returning their buffers for requeueing; frames the consumer
        /// already claimed are unaffected. Used before a source restarts, and at shutdown.
        public func evictAll() -> [Int] {
            var buffers: [Int] = []
            let ring = ring
            while true {
                let claimed = ring.head.pointer.pointee.load(ordering: .acquiring)
                let position = ring.tail.pointer.pointee.load(ordering: .relaxed)
                if claimed >= position { return buffers }
                let (exchanged, _) = ring.head.pointer.pointee.compareExchange(
                    expected: claimed, desired: claimed + 1, ordering: .acquiringAndReleasing)
                guard exchanged else { continue }
                let victim = ring.slots.load(claimed & ring.mask)
                ring.metadata[victim] = nil
                ring.evicted.pointer.pointee.add(1, ordering: .releasing)
                buffers.append(victim)
            }
        }

        /// How many buffers this producer has pushed and not yet taken back (by ``reclaim()``, by eviction, or from a
        /// push that evicted): the source's buffers the ring and the consumer hold. When it equals the source's
        /// buffer count, no buffer is left to dequeue into until the consumer releases one.
        public var outstanding: Int {
            let ring = ring
            // tail, returnHead and evicted are all written by this producer's thread.
            let pushed = ring.tail.pointer.pointee.load(ordering: .relaxed)
            let reclaimed = ring.returnHead.pointer.pointee.load(ordering: .relaxed)
            let evicted = ring.evicted.pointer.pointee.load(ordering: .relaxed)
            return pushed - reclaimed - evicted
        }

        /// How many frames the consumer has claimed and not yet released (0 or 1 for a consumer that releases each
        /// frame before claiming the next).
        public var consumerHeld: Int {
            let ring = ring
            let released = ring.released.pointer.pointee.load(ordering: .acquiring)
            let evicted = ring.evicted.pointer.pointee.load(ordering: .acquiring)
            let claimed = ring.head.pointer.pointee.load(ordering: .acquiring)
            return claimed - evicted - released
        }
    }

    /// The consumer's side of a ``FrameRing``; owned by the recognition thread.
    public struct Consumer: ~Copyable, @unchecked Sendable {
        // SAFETY (Sendable): the handle is ~Copyable, so it is moved to the recognition thread, never shared.
        private let ring: FrameRing

        fileprivate init(ring: FrameRing) { self.ring = ring }

        /// Claims the oldest frame in the ring, or returns `nil` when the ring is empty.
        ///
        /// The consumer owns the frame's buffer until it calls ``release(_:)``.
        public func pop() -> DequeuedFrame? {
            let ring = ring
            var claimed = ring.head.pointer.pointee.load(ordering: .relaxed)
            while true {
                let published = ring.tail.pointer.pointee.load(ordering: .acquiring)
                guard claimed < published else { return nil }
                // Read the slot before claiming it: once the claim succeeds the producer cannot reuse this slot until
                // it is a full lap ahead, and if it evicted the frame first, the claim fails and the read is dropped.
                let buffer = ring.slots.load(claimed & ring.mask)
                let (exchanged, current) = ring.head.pointer.pointee.compareExchange(
                    expected: claimed, desired: claimed + 1, ordering: .acquiringAndReleasing)
                if exchanged {
                    // SAFETY: the claim made this buffer the consumer's; its metadata was published before `tail`.
                    guard let metadata = ring.metadata[buffer] else {
                        preconditionFailure("frame ring invariant broken: claimed buffer \(buffer) has no metadata")
                    }
                    return DequeuedFrame(bufferIndex: buffer, metadata: metadata)
                }
                claimed = current
            }
        }

        /// Hands a claimed frame's buffer back to the producer and counts the frame as processed.
        public func release(_ bufferIndex: Int) {
            let ring = ring
            precondition(bufferIndex >= 0 && bufferIndex < ring.bufferCount, "buffer index out of range")
            ring.metadata[bufferIndex] = nil
            // Only this thread writes returnTail.
            let position = ring.returnTail.pointer.pointee.load(ordering: .relaxed)
            // Never full: every buffer is in at most one place and the return ring holds them all.
            ring.returnSlots.store(bufferIndex, at: position & ring.returnMask)
            ring.returnTail.pointer.pointee.store(position + 1, ordering: .releasing)
            ring.released.pointer.pointee.add(1, ordering: .releasing)
        }
    }
}

/// An atomic integer alone on a 64-byte cache line.
private final class PaddedAtomic: @unchecked Sendable {
    // SAFETY (Sendable): the pointee is an Atomic; the pointer itself never changes.
    let pointer: UnsafeMutablePointer<Atomic<Int>>

    init() {
        // SAFETY: a 64-byte, 64-aligned block holds one Atomic<Int> at its start and nothing else.
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)
        pointer = raw.initializeMemory(as: Atomic<Int>.self, to: Atomic(0))
    }

    deinit {
        pointer.deinitialize(count: 1)
        UnsafeMutableRawPointer(pointer).deallocate()
    }
}

/// A fixed array of atomic integers, allocated once.
private final class AtomicArray: @unchecked Sendable {
    // SAFETY (Sendable): the pointees are Atomics; the pointer itself never changes.
    private let storage: UnsafeMutablePointer<Atomic<Int>>
    private let count: Int

    init(count: Int) {
        self.count = count
        storage = .allocate(capacity: count)
        for index in 0..<count { (storage + index).initialize(to: Atomic(0)) }
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// A relaxed load: callers order it through the ring's head and tail.
    func load(_ index: Int) -> Int {
        // SAFETY: callers pass a masked index below `count`.
        (storage + index).pointee.load(ordering: .relaxed)
    }

    /// A relaxed store: callers publish it with a releasing store of the ring's tail.
    func store(_ value: Int, at index: Int) {
        // SAFETY: callers pass a masked index below `count`.
        (storage + index).pointee.store(value, ordering: .relaxed)
    }
}
