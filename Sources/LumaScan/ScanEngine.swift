import LumaScanCapture
import LumaScanCore
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// LumaScan's engine: frames flow from a ``FrameSource`` through a lock-free ``FrameRing`` to the recognizers, and
/// their reports to a delegate and the ``events`` sequence.
///
/// ```
/// source ──(capture thread)──▶ FrameRing ──(recognition thread)──▶ recognizers ──▶ DeliveryQueue
///    ▲                              │                                                   │
///    └──── buffers requeued ◀───────┘ return ring                    (delivery thread) ▼
///                                                                   delegate + events
/// ```
///
/// Three named threads do the work: `lumascan-capture` blocks in the source (`poll`, `VIDIOC_DQBUF`) and requeues
/// buffers; `lumascan-recog` turns each frame into luma and runs the recognizers; `lumascan-deliver` calls the
/// delegate and feeds ``events``. None of them runs on Swift's cooperative thread pool, and a slow delegate never
/// stalls capture or recognition.
///
/// When recognition falls behind, the ring drops the oldest waiting frame (live sources) so the newest is read next;
/// finite sources (files, recordings) are never dropped: capture waits for room instead.
///
/// The source's failures are reported as events; a device that went away is reopened with backoff, and a broken
/// stream is restarted, until ``stop()`` is called.
public final class ScanEngine: Sendable {
    /// Options for the engine's machinery (recognizer-specific settings live with the recognizers).
    public struct Options: Sendable {
        /// Frames the ring holds; `nil` picks ``FrameRing/defaultCapacity(bufferCount:)``. Default: `nil`.
        public var ringCapacity: Int?
        /// Events the delivery queue holds for a slow delegate before it drops new ones. Default: 1024.
        public var deliveryQueueCapacity: Int
        /// Events the ``ScanEngine/events`` sequence buffers for a slow reader before dropping old ones.
        /// Default: 1024.
        public var eventBufferCapacity: Int
        /// Stop after this many frames have been captured (as if the input ended); `nil` for no limit. Default: `nil`.
        public var frameLimit: Int?
        /// How long the capture thread waits for a frame before checking for a stop request. Default: 200 ms.
        public var dequeueTimeout: Duration
        /// The first wait before reopening a lost device or restarting a broken stream; doubled after each failed
        /// attempt. Default: 100 ms.
        public var recoveryInitialDelay: Duration
        /// The longest wait between recovery attempts. Default: 2 s.
        public var recoveryMaximumDelay: Duration
        /// Recovery attempts before giving up; `nil` tries until stopped. Default: `nil`.
        public var recoveryMaximumAttempts: Int?

        /// Creates options; every parameter has the default its property documents.
        public init(
            ringCapacity: Int? = nil, deliveryQueueCapacity: Int = 1024, eventBufferCapacity: Int = 1024,
            frameLimit: Int? = nil, dequeueTimeout: Duration = .milliseconds(200),
            recoveryInitialDelay: Duration = .milliseconds(100), recoveryMaximumDelay: Duration = .seconds(2),
            recoveryMaximumAttempts: Int? = nil
        ) {
            self.ringCapacity = ringCapacity
            self.deliveryQueueCapacity = deliveryQueueCapacity
            self.eventBufferCapacity = eventBufferCapacity
            self.frameLimit = frameLimit
            self.dequeueTimeout = dequeueTimeout
            self.recoveryInitialDelay = recoveryInitialDelay
            self.recoveryMaximumDelay = recoveryMaximumDelay
            self.recoveryMaximumAttempts = recoveryMaximumAttempts
        }
    }

    private enum Phase {
        case idle
        case running([NativeThread])
        case finished
    }

    private struct Recognizers: @unchecked Sendable {
        // SAFETY (Sendable): recognizers are used on the recognition thread only; this box just carries them there.
        var list: [any Recognizer]
    }

    /// The source frames come from.
    public let source: any FrameSource
    /// The engine's options.
    public let options: Options

    private let logger: Logger
    private let phase = Mutex<Phase>(.idle)
    private let delegateBox = Mutex<WeakDelegate>(WeakDelegate())
    private let pendingRecognizers: Mutex<Recognizers?>
    private let recognizerGeneration = Atomic<Int>(0)
    private let stopRequested = Atomic<Bool>(false)
    private let captureFinished = Atomic<Bool>(false)
    private let recognitionExited = Atomic<Bool>(false)
    private let frameAvailable = Semaphore()
    private let delivery: DeliveryQueue
    private let counters = Counters()
    private let stream: AsyncStream<ScanEvent>
    private let continuation: AsyncStream<ScanEvent>.Continuation
    private let finishedWaiters = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let ringBox = Mutex<FrameRing?>(nil)

    /// Creates an engine that reads `source` with `recognizers`.
    ///
    /// - Parameters:
    ///   - source: where frames come from; the engine starts and stops it.
    ///   - recognizers: run on every frame, in order; each report carries its recognizer's id.
    ///   - options: the engine's machinery settings.
    ///   - logger: where the engine logs; the engine never bootstraps logging.
    public init(source: any FrameSource, recognizers: [any Recognizer], options: Options = .init(), logger: Logger) {
        self.source = source
        self.options = options
        self.logger = logger
        pendingRecognizers = Mutex(Recognizers(list: recognizers))
        delivery = DeliveryQueue(capacity: options.deliveryQueueCapacity)
        (stream, continuation) = AsyncStream.makeStream(
            of: ScanEvent.self, bufferingPolicy: .bufferingNewest(options.eventBufferCapacity))
    }

    /// The delegate that receives events; held weakly.
    ///
    /// - Important: It is called on the engine's delivery thread and must not block (see ``ScanEngineDelegate``).
    public var delegate: (any ScanEngineDelegate)? {
        get { delegateBox.withLock { $0.value } }
        set { delegateBox.withLock { $0.value = newValue } }
    }

    /// The engine's events: the same content, in the same order, as the delegate receives. Iterate it once.
    public var events: ScanEvents { ScanEvents(stream: stream) }

    /// A snapshot of what the engine has done so far.
    public var statistics: ScanStatistics {
        var statistics = counters.snapshot()
        if let ring = ringBox.withLock({ $0 }) {
            let ringStatistics = ring.statistics
            statistics.framesCaptured = ringStatistics.captured
            statistics.framesProcessed = ringStatistics.processed
            statistics.framesDroppedByRing = ringStatistics.dropped
            statistics.framesInFlight = ringStatistics.inFlight
        }
        statistics.eventsDropped += delivery.dropped
        return statistics
    }

    /// Replaces the recognizers between two frames, while the source keeps streaming.
    ///
    /// The recognition thread picks the new set up before the next frame it takes from the ring: the frame being
    /// recognised finishes with the old set, and every later frame uses the new one, so no frame is processed by
    /// both or by neither.
    public func setRecognizers(_ recognizers: [any Recognizer]) {
        pendingRecognizers.withLock { $0 = Recognizers(list: recognizers) }
        recognizerGeneration.add(1, ordering: .releasing)
    }

    /// Starts the source and the engine's threads.
    ///
    /// - Throws: the source's error when it cannot start (for a camera, a `CaptureError` that names the device and
    ///   the call), or ``LumaScanError/Code/invalidState`` when the engine was already started.
    public func start() throws {
        try phase.withLock { phase in
            guard case .idle = phase else {
                throw LumaScanError(.invalidState, "the engine was already started; make a new engine to scan again")
            }
            try source.start()
            let ring = FrameRing(
                capacity: options.ringCapacity, bufferCount: source.bufferCount,
                fullPolicy: source.isFinite ? .reject : .dropOldest)
            ringBox.withLock { $0 = ring }
            let producer = HandleBox(ring.makeProducer())
            let consumer = HandleBox(ring.makeConsumer())
            logger.info(
                "scanning started",
                metadata: ["source": "\(source.name)", "format": "\(source.format)", "ring": "\(ring.capacity)"])
            emit(.started(source: source.name, format: source.format))
            let threads = [
                NativeThread(name: "lumascan-capture") { [self] in captureLoop(producer.take()) },
                NativeThread(name: "lumascan-recog") { [self] in recognitionLoop(consumer.take()) },
                NativeThread(name: "lumascan-deliver") { [self] in deliveryLoop() },
            ]
            phase = .running(threads)
        }
    }

    /// Asks the engine to stop: capture stops, the frame being recognised finishes, queued events are delivered,
    /// the source is stopped, and ``ScanEvent/stopped(_:)`` is the last event. Returns at once; see
    /// ``waitUntilFinished()`` and ``finished()``.
    ///
    /// Safe to call from any thread, at any time, more than once (also from a signal-handling task).
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        frameAvailable.signal()
    }

    /// Blocks the calling thread until the engine has stopped and delivered its last event. Do not call it from the
    /// delegate.
    public func waitUntilFinished() {
        let threads: [NativeThread] = phase.withLock { phase in
            if case .running(let threads) = phase {
                phase = .finished
                return threads
            }
            return []
        }
        for thread in threads { thread.join() }
    }

    /// Waits until the engine has stopped and delivered its last event.
    public func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = finishedWaiters.withLock { state -> Bool in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    // MARK: - Capture thread

    private func captureLoop(_ producer: consuming FrameRing.Producer) {
        var reason = StopReason.requested
        var lastSequence: UInt32?
        var captured = 0
        var recoveryAttempts = 0
        capture: while !stopRequested.load(ordering: .acquiring) {
            requeueReturned(producer)
            let frame: DequeuedFrame
            do {
                guard let dequeued = try source.dequeue(timeout: options.dequeueTimeout) else { continue }
                frame = dequeued
            } catch is FrameSourceEnd {
                reason = .endOfInput
                break
            } catch {
                counters.sourceFailures.add(1, ordering: .relaxed)
                if let failure = recover(from: error, producer: producer, attempts: &recoveryAttempts) {
                    reason = failure
                    break
                }
                lastSequence = nil
                continue
            }
            recoveryAttempts = 0
            if let last = lastSequence {
                let gap = frame.metadata.driverSequence &- last &- 1
                // A jump of more than half the sequence space is a reset (a restart), not a gap.
                if gap < UInt32.max / 2 { counters.droppedByDriver.add(UInt64(gap), ordering: .relaxed) }
            }
            lastSequence = frame.metadata.driverSequence
            while true {
                switch producer.push(frame) {
                case .queued:
                    frameAvailable.signal()
                case .queuedEvicting(let victim):
                    frameAvailable.signal()
                    requeue(victim)
                case .rejected:
                    // A finite source waits for room: its frames must not be lost.
                    if stopRequested.load(ordering: .acquiring) {
                        requeue(frame.bufferIndex)
                        break capture
                    }
                    requeueReturned(producer)
                    usleep(200)
                    continue
                }
                break
            }
            captured += 1
            if let limit = options.frameLimit, captured >= limit {
                reason = .endOfInput
                break
            }
        }
        captureFinished.store(true, ordering: .releasing)
        frameAvailable.signal()
        // Let recognition finish (drain the ring on end of input; finish the current frame on stop).
        while !recognitionExited.load(ordering: .acquiring) { usleep(500) }
        for buffer in producer.evictAll() { requeue(buffer) }
        requeueReturned(producer)
        source.stop()
        if stopRequested.load(ordering: .acquiring), case .endOfInput = reason {
            reason = .requested
        }
        logger.info("scanning stopped", metadata: ["reason": "\(reason.name)", "source": "\(source.name)"])
        emit(.stopped(reason), terminal: true)
    }

    private func requeueReturned(_ producer: borrowing FrameRing.Producer) {
        while let buffer = producer.reclaim() { requeue(buffer) }
    }

    private func requeue(_ buffer: Int) {
        do {
            try source.requeue(buffer)
        } catch {
            // The next dequeue reports the same failure and drives recovery; a buffer lost here is restored when
            // the stream restarts.
            logger.warning("requeue failed", metadata: ["source": "\(source.name)", "error": "\(error)"])
        }
    }

    /// Tries to bring the source back after `error`; returns the stop reason when it cannot.
    private func recover(
        from error: any Error, producer: borrowing FrameRing.Producer, attempts: inout Int
    ) -> StopReason? {
        let recovery = (error as? any RecoverableSourceError)?.recovery ?? .none
        let message = "\(error)"
        let action: SourceFailure.Action
        switch recovery {
        case .none: action = .stopping
        case .restartStream: action = .restartingStream
        case .reopenDevice: action = .reopeningDevice
        }
        logger.error(
            "source failed", metadata: ["source": "\(source.name)", "error": "\(message)", "action": "\(action)"])
        emit(.sourceFailed(SourceFailure(source: source.name, message: message, action: action)))
        guard action != .stopping else { return .error(message) }

        // Take every buffer back before the source lets go of its memory: evict what waits in the ring and wait
        // for the recognition thread to release the frame it holds.
        _ = producer.evictAll()
        while producer.consumerHeld > 0 && !recognitionExited.load(ordering: .acquiring) { usleep(200) }
        while producer.reclaim() != nil {}
        source.stop()

        var delay = options.recoveryInitialDelay
        while !stopRequested.load(ordering: .acquiring) {
            attempts += 1
            do {
                try source.start()
                logger.notice("source recovered", metadata: ["source": "\(source.name)", "attempts": "\(attempts)"])
                emit(.sourceRecovered(source: source.name, attempts: attempts))
                return nil
            } catch {
                logger.warning(
                    "recovery attempt failed",
                    metadata: ["source": "\(source.name)", "attempt": "\(attempts)", "error": "\(error)"])
                if let maximum = options.recoveryMaximumAttempts, attempts >= maximum {
                    return .error("\(message); gave up after \(attempts) attempts: \(error)")
                }
            }
            sleepUnlessStopped(delay)
            delay = min(delay * 2, options.recoveryMaximumDelay)
        }
        return .requested
    }

    private func sleepUnlessStopped(_ duration: Duration) {
        var remaining = duration.nanosecondsClamped / 1000
        while remaining > 0 && !stopRequested.load(ordering: .acquiring) {
            let slice = min(remaining, 20_000)
            usleep(UInt32(slice))
            remaining -= slice
        }
    }

    // MARK: - Recognition thread

    private func recognitionLoop(_ consumer: consuming FrameRing.Consumer) {
        var recognizers: [any Recognizer] = []
        var generation = -1
        var extractor: LumaExtractor?
        var reports: [ScanReport] = []
        reports.reserveCapacity(64)
        while true {
            if stopRequested.load(ordering: .acquiring) { break }
            guard let frame = consumer.pop() else {
                if captureFinished.load(ordering: .acquiring) {
                    // Capture has stopped; anything it pushed before the flag is visible now.
                    guard let last = consumer.pop() else { break }
                    process(last, consumer: consumer, recognizers: &recognizers, generation: &generation,
                        extractor: &extractor, reports: &reports)
                    continue
                }
                frameAvailable.wait(milliseconds: 50)
                continue
            }
            process(frame, consumer: consumer, recognizers: &recognizers, generation: &generation,
                extractor: &extractor, reports: &reports)
        }
        recognitionExited.store(true, ordering: .releasing)
    }

    private func process(
        _ frame: DequeuedFrame, consumer: borrowing FrameRing.Consumer, recognizers: inout [any Recognizer],
        generation: inout Int, extractor: inout LumaExtractor?, reports: inout [ScanReport]
    ) {
        let currentGeneration = recognizerGeneration.load(ordering: .acquiring)
        if currentGeneration != generation {
            if let replacement = pendingRecognizers.withLock({ $0 }) { recognizers = replacement.list }
            for recognizer in recognizers { recognizer.reset() }
            generation = currentGeneration
        }
        defer { consumer.release(frame.bufferIndex) }
        let metadata = frame.metadata
        if metadata.driverFlaggedError {
            counters.corrupt.add(1, ordering: .relaxed)
            return
        }
        if extractor?.format != metadata.format {
            extractor = LumaExtractor(format: metadata.format, sourceName: source.name)
        }
        guard let extractor else { return }
        let lumaStart = MonotonicInstant.now()
        let luma: LumaView
        do {
            luma = try extractor.luma(of: source.bytes(of: frame.bufferIndex), bytesUsed: metadata.bytesUsed)
        } catch {
            counters.corrupt.add(1, ordering: .relaxed)
            logger.debug("corrupt frame skipped", metadata: ["frame": "\(metadata.index)", "error": "\(error)"])
            return
        }
        let recognitionStart = MonotonicInstant.now()
        reports.removeAll(keepingCapacity: true)
        for recognizer in recognizers { recognizer.process(luma, metadata: metadata, into: &reports) }
        let end = MonotonicInstant.now()
        counters.lumaNanoseconds.add(recognitionStart.nanoseconds - lumaStart.nanoseconds, ordering: .relaxed)
        counters.recognitionNanoseconds.add(end.nanoseconds - recognitionStart.nanoseconds, ordering: .relaxed)
        counters.pipelineNanoseconds.add(end.since(metadata.dequeueTime).nanosecondsClamped, ordering: .relaxed)
        counters.reports.add(UInt64(reports.count), ordering: .relaxed)
        for report in reports { emit(.report(report)) }
    }

    // MARK: - Delivery thread

    private func emit(_ event: ScanEvent, terminal: Bool = false) {
        delivery.enqueue(event, terminal: terminal)
    }

    private func deliveryLoop() {
        while true {
            guard let event = delivery.dequeue(waitingMilliseconds: 100) else { continue }
            let delegate = delegateBox.withLock { $0.value }
            if let delegate {
                switch event {
                case .started(let source, let format): delegate.scanEngine(self, didStartOn: source, format: format)
                case .report(let report): delegate.scanEngine(self, didReport: report)
                case .sourceFailed(let failure): delegate.scanEngine(self, sourceDidFail: failure)
                case .sourceRecovered(let source, let attempts):
                    delegate.scanEngine(self, sourceDidRecover: source, attempts: attempts)
                case .stopped(let reason): delegate.scanEngine(self, didStop: reason)
                }
            }
            if case .dropped = continuation.yield(event) { counters.eventsDropped.add(1, ordering: .relaxed) }
            counters.eventsDelivered.add(1, ordering: .relaxed)
            if case .stopped = event { break }
        }
        continuation.finish()
        let waiters = finishedWaiters.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// The engine's counters, updated with relaxed atomics from its threads.
private final class Counters: Sendable {
    let droppedByDriver = Atomic<UInt64>(0)
    let corrupt = Atomic<UInt64>(0)
    let reports = Atomic<UInt64>(0)
    let eventsDelivered = Atomic<UInt64>(0)
    let eventsDropped = Atomic<UInt64>(0)
    let sourceFailures = Atomic<UInt64>(0)
    let lumaNanoseconds = Atomic<UInt64>(0)
    let recognitionNanoseconds = Atomic<UInt64>(0)
    let pipelineNanoseconds = Atomic<UInt64>(0)

    func snapshot() -> ScanStatistics {
        var statistics = ScanStatistics()
        statistics.framesDroppedByDriver = droppedByDriver.load(ordering: .relaxed)
        statistics.framesCorrupt = corrupt.load(ordering: .relaxed)
        statistics.reports = reports.load(ordering: .relaxed)
        statistics.eventsDelivered = eventsDelivered.load(ordering: .relaxed)
        statistics.eventsDropped = eventsDropped.load(ordering: .relaxed)
        statistics.sourceFailures = sourceFailures.load(ordering: .relaxed)
        statistics.lumaTime = .nanoseconds(Int64(clamping: lumaNanoseconds.load(ordering: .relaxed)))
        statistics.recognitionTime = .nanoseconds(Int64(clamping: recognitionNanoseconds.load(ordering: .relaxed)))
        statistics.pipelineTime = .nanoseconds(Int64(clamping: pipelineNanoseconds.load(ordering: .relaxed)))
        return statistics
    }
}

/// Holds the delegate weakly.
private struct WeakDelegate {
    weak var value: (any ScanEngineDelegate)?
}

/// Moves a `~Copyable` ring handle into the thread that owns it.
final class HandleBox<Handle: ~Copyable>: @unchecked Sendable {
    // SAFETY (Sendable): written at creation, taken exactly once by the one thread that uses the handle.
    private var handle: Handle?
    init(_ handle: consuming Handle) { self.handle = consume handle }
    func take() -> Handle {
        guard let handle = handle.take() else { preconditionFailure("ring handle taken twice") }
        return handle
    }
}
