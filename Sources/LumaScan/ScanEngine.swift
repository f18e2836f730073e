import Logging
import LumaScanCapture
import LumaScanCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// LumaScan's engine: frames flow from a ``FrameSource`` through a lock-free ``FrameRing`` to the recognizers, and
/// their reports to a delegate and the ``events`` sequence.
///
/// ```
/// source ──(capture thread)──▶ FrameRing ──(recognition thread)──▶ recognizers ──▶ EventOutbox
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
///
/// This file is the façade: the public API and the threads' start and end. Each thread's loop has a file of its own
/// (`ScanEngine+Capture.swift`, `ScanEngine+Recognition.swift`, `ScanEngine+Delivery.swift`), and one state machine
/// (``EngineStateMachine``, in the engine's one lock) coordinates them: its changes return the actions the engine
/// performs after releasing the lock. No thread polls: each blocks in the source, on a wake-up from the thread it
/// waits for, on the state machine's condition, or until the session's next instant (its start delay or timeout).
public final class ScanEngine: Sendable {
    /// Options for the engine's machinery (recognizer-specific settings live with the recognizers).
    public struct Options: Sendable {
        /// Frames the ring holds; `nil` picks ``FrameRing/defaultCapacity(bufferCount:)``. Default: `nil`.
        public var ringCapacity: Int?
        /// Events the delivery queue holds for a slow delegate before it drops new ones. Default: 1024.
        public var deliveryQueueCapacity: Int
        /// Events the ``ScanEngine/events`` sequence buffers for a slow reader before dropping old ones (only once
        /// ``ScanEngine/events`` has been read: until then nothing is buffered). Default: 1024.
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

    /// The source frames come from.
    public let source: any FrameSource
    /// The engine's options.
    public let options: Options

    let logger: Logger
    /// The engine's one state machine (see ``EngineStateMachine``), in the engine's one lock.
    let machine: Lock<EngineStateMachine>
    /// Wakes the recognition thread: a frame was pushed, capture finished, the session changed, or stop was asked for.
    let frameAvailable = Semaphore()
    /// Wakes the capture thread: the recognition thread took a frame from the ring (room to push), released a
    /// frame's buffer or exited, or stop was asked for.
    let bufferReturned = Semaphore()
    /// Wakes a recovery backoff early: stop was asked for.
    let stopWake = Semaphore()
    let counters = Counters()
    let stream: AsyncStream<ScanEvent>
    let continuation: AsyncStream<ScanEvent>.Continuation
    /// The live preview: frames reach it only while it has viewers (see ``PreviewTap``).
    public let preview = PreviewTap()
    /// Histograms of the per-frame luma and recognition times.
    public let stageTimes = StageHistograms()

    /// Creates an engine that reads `source` with `plugin`.
    ///
    /// - Parameters:
    ///   - source: where frames come from; the engine starts and stops it.
    ///   - plugin: the recognizer and the scanning rules (delay, timeout, cancel on result).
    ///   - options: the engine's machinery settings.
    ///   - logger: where the engine logs; the engine never bootstraps logging.
    public init(source: any FrameSource, plugin: ScanPlugin, options: Options = .init(), logger: Logger) {
        self.source = source
        self.options = options
        self.logger = logger
        let machine = Lock(EngineStateMachine(plugin: plugin, outboxCapacity: options.deliveryQueueCapacity))
        self.machine = machine
        (stream, continuation) = AsyncStream.makeStream(
            of: ScanEvent.self, bufferingPolicy: .bufferingNewest(options.eventBufferCapacity))
        // A reader that ends its iteration (or is cancelled) wants no more events: stop buffering them.
        continuation.onTermination = { _ in machine.withLock { $0.eventsWanted = false } }
    }

    /// Creates an engine that runs `recognizers` on every frame, in order, with no scan timeout, no start delay and
    /// no cancel on result (a continuous scanner).
    public convenience init(
        source: any FrameSource, recognizers: [any Recognizer], options: Options = .init(), logger: Logger
    ) {
        let recognizer: any Recognizer =
            recognizers.count == 1
            ? recognizers[0] : CompositeRecognizer(id: "recognizers", mode: .parallel, members: recognizers)
        self.init(
            source: source, plugin: ScanPlugin(id: recognizer.id, recognizer: recognizer, scanTimeout: nil),
            options: options, logger: logger)
    }

    /// The delegate that receives events; held weakly.
    ///
    /// - Important: It is called on the engine's delivery thread and must not block (see ``ScanEngineDelegate``).
    public var delegate: (any ScanEngineDelegate)? {
        get { machine.withLock { $0.delegate } }
        set { machine.withLock { $0.delegate = newValue } }
    }

    /// The engine's events: the same content, in the same order, as the delegate receives. Iterate it once.
    ///
    /// The sequence buffers events (up to ``Options/eventBufferCapacity``, dropping the oldest) only from the
    /// moment this property is first read until its iteration ends: an engine whose events nobody reads keeps no
    /// events alive and counts none as dropped. Read it before ``start()`` to receive every event.
    public var events: ScanEvents {
        machine.withLock { $0.eventsWanted = true }
        return ScanEvents(stream: stream)
    }

    /// A snapshot of what the engine has done so far.
    public var statistics: ScanStatistics {
        var statistics = counters.snapshot()
        let (ring, outboxDropped) = machine.withLock { ($0.ring, $0.outbox.dropped) }
        if let ring {
            let ringStatistics = ring.statistics
            statistics.framesCaptured = ringStatistics.captured
            statistics.framesProcessed = ringStatistics.processed
            statistics.framesDroppedByRing = ringStatistics.dropped
            statistics.framesInFlight = ringStatistics.inFlight
        }
        statistics.eventsDropped += outboxDropped
        return statistics
    }

    /// Swaps the plugin between two frames while the source keeps streaming (Anyline's `setScanViewPlugin`).
    ///
    /// The recognition thread picks the new plugin up before the next frame it takes from the ring and resets its
    /// recognizer: the frame being recognised finishes with the old plugin and every later frame uses the new one,
    /// so no frame is processed by both or by neither. The new plugin's delay and timeout apply from the next
    /// ``startScanning()``.
    public func setPlugin(_ newPlugin: ScanPlugin) {
        update { $0.setPlugin(newPlugin) }
        logger.info("plugin swapped", metadata: ["plugin": "\(newPlugin.id)"])
    }

    /// The plugin in use (or about to be, after ``setPlugin(_:)``).
    public var currentPlugin: ScanPlugin { machine.withLock { $0.plugin } }

    /// Applies a configuration's camera controls and flash mode to the source, when it is a ``ControllableCamera``
    /// (a ``V4L2Camera`` is), and reports each outcome as a ``ScanEvent/cameraSetting(_:)`` event: a control the
    /// camera lacks is reported as not supported, never as a failure of the scan. Call it after ``start()``.
    ///
    /// - Returns: the outcomes, in the order they were applied (empty for other sources).
    @discardableResult
    public func applyCameraSettings(_ camera: CameraConfig, flash: FlashConfig) -> [SettingOutcome] {
        guard let device = source as? any ControllableCamera else { return [] }
        let outcomes = camera.controls.apply(to: device) + flash.apply(to: device)
        for outcome in outcomes {
            logger.info("camera setting", metadata: ["outcome": "\(outcome)"])
            emit(.cameraSetting(outcome))
        }
        return outcomes
    }

    // MARK: - Scanning lifecycle

    /// Starts a scanning session: after the plugin's start delay, every frame is recognised until
    /// ``stopScanning()``, ``abortScanning()``, the plugin's scan timeout or, with cancelOnResult, its first
    /// completed result. Starts the engine first when it is not running. Emits ``ScanEvent/scanningStarted(plugin:)``.
    ///
    /// Calling it while a session is under way changes nothing; the reason is logged.
    public func startScanning() throws {
        try perform(.start)
    }

    /// Ends the scanning session; the camera keeps streaming. Emits ``ScanEvent/scanningStopped(_:)`` with
    /// ``ScanStopReason/requested``.
    public func stopScanning() {
        transition { $0.stop(.requested) }
    }

    /// Pauses recognition: the camera keeps streaming, frames are released unrecognised (the ring drains), and the
    /// start delay and scan timeout stand still. Emits ``ScanEvent/scanningPaused``.
    public func pauseScanning() {
        transition { $0.pause(now: .now()) }
    }

    /// Resumes recognition after ``pauseScanning()``. Emits ``ScanEvent/scanningResumed``.
    public func resumeScanning() {
        transition { $0.resume(now: .now()) }
    }

    /// Ends the scanning session and discards the reports not yet delivered (they count as dropped events). Emits
    /// ``ScanEvent/scanningAborted``.
    public func abortScanning() {
        transition { $0.abort() }
    }

    /// Runs a scanning-session transition in the state machine and performs its actions; logs and returns `false`
    /// when the transition is not allowed where the session stands.
    @discardableResult
    func transition(_ change: (inout ScanningStateMachine) -> ScanningStateMachine.Outcome) -> Bool {
        let (refused, actions) = update { $0.scanning(change) }
        carryOut(actions)
        if let refused { logger.notice("lifecycle call ignored", metadata: ["reason": "\(refused)"]) }
        return refused == nil
    }

    // MARK: - The state machine

    /// Changes the state machine under the lock, then wakes every thread that waits on it to look again.
    @discardableResult
    func update<R, E: Error>(_ change: (inout EngineStateMachine) throws(E) -> R) throws(E) -> R {
        defer { machine.broadcast() }
        return try machine.withLock(change)
    }

    /// Does what the state machine asked for, with its lock released.
    func carryOut(_ actions: EngineStateMachine.Actions) {
        if actions.wakeWorkers {
            frameAvailable.wake()
            bufferReturned.wake()
            stopWake.wake()
        }
        if actions.wakeRecognition { frameAvailable.wake() }
        for waiter in actions.resume { waiter.resume() }
    }

    /// Does what a change made without ``update(_:)`` asked for, broadcasting first when it asked for anything (only
    /// then did the change touch what a waiting thread reads): the per-frame steps take this path.
    func carryOutChange(_ actions: EngineStateMachine.Actions) {
        guard !actions.isEmpty else { return }
        machine.broadcast()
        carryOut(actions)
    }

    /// Queues an event for the delegate and the ``events`` sequence.
    func emit(_ event: ScanEvent) {
        update { $0.queue(event) }
    }

    /// Whether ``stop()`` was called.
    var stopRequested: Bool { machine.withLock { $0.stopRequested } }

    // MARK: - Engine

    /// Starts the source and the engine's threads, and a scanning session with the current plugin.
    ///
    /// - Throws: the source's error when it cannot start (for a camera, a `CaptureError` that names the device and
    ///   the call), or ``LumaScanError/Code/invalidState`` when the engine was already started.
    public func start() throws {
        try update { machine throws(LumaScanError) in try machine.beginStart() }
        do {
            try source.start()
        } catch {
            update { $0.startFailed() }
            throw error
        }
        let ring = FrameRing(
            capacity: options.ringCapacity, bufferCount: source.bufferCount,
            fullPolicy: source.isFinite ? .reject : .dropOldest)
        let producer = HandleBox(ring.makeProducer())
        let consumer = HandleBox(ring.makeConsumer())
        logger.info(
            "scanning started",
            metadata: ["source": "\(source.name)", "format": "\(source.format)", "ring": "\(ring.capacity)"])
        let (name, format) = (source.name, source.format)
        carryOut(update { $0.sourceStarted(ring: ring, source: name, format: format, now: .now()) })
        let threads = [
            NativeThread(name: "lumascan-capture") { [self] in captureLoop(producer.take()) },
            NativeThread(name: "lumascan-recog") { [self] in recognitionLoop(consumer.take()) },
            NativeThread(name: "lumascan-deliver") { [self] in deliveryLoop() },
        ]
        update { $0.threadsStarted(threads) }
    }

    /// Asks the engine to stop: capture stops, the frame being recognised finishes, queued events are delivered,
    /// the source is stopped, and ``ScanEvent/stopped(_:)`` is the last event. Returns at once; see
    /// ``waitUntilFinished()`` and ``finished()``.
    ///
    /// Safe to call from any thread, at any time, more than once (also from a signal-handling task).
    public func stop() {
        carryOut(update { $0.requestStop() })
    }

    /// Blocks the calling thread until the engine has stopped and delivered its last event. Do not call it from the
    /// delegate.
    public func waitUntilFinished() {
        // A start under way is waited for (its threads are about to exist); an engine never started has none.
        let threads = machine.withLock(when: { $0.phase != .starting }) { $0.takeThreads() }
        for thread in threads { thread.join() }
    }

    /// Waits until the engine has stopped and delivered its last event.
    public func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = machine.withLock { $0.awaitFinished(continuation) }
            if !waiting { continuation.resume() }
        }
    }
}

/// The engine's counters, updated with relaxed atomics from its threads.
final class Counters: Sendable {
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
