import LumaScanCore

/// The engine's one state machine: where the engine stands (idle, starting, running), what its threads have done
/// (stop requested, capture finished, recognition exited, last event delivered), the scanning session
/// (``ScanningStateMachine``, a pure part of it), the plugin and its generation, and the events waiting for delivery.
///
/// ``ScanEngine`` holds it in one lock and changes it only through its mutating methods, the model being
/// swift-kafka-client's `KafkaProducer.StateMachine`: a method changes the state and returns what the engine must do
/// in the world — wake a thread, resume waiting tasks — which the engine does after releasing the lock. Nothing under
/// the lock blocks, calls a delegate or a source, or allocates beyond a waiting task's slot. Queueing an event is a
/// change of this state, not an action: an event enters the ``EventOutbox`` in the same step as the change it
/// reports, so events leave in the order of the changes, and no report of a session is queued after the event that
/// ended it.
///
/// The threads wait on this state, never poll it: the delivery thread until an event waits, the capture thread until
/// recognition has exited, ``ScanEngine/waitUntilFinished()`` until the threads exist (the lock's condition,
/// broadcast after every change).
///
/// ```
///           start()                   threads started                 stop() / end of input / failure
///   idle ─────────────▶ starting ─────────────────────▶ running ────────────────────────────────────▶ (draining)
///     ▲   source failed    │                                               capture finished, recognition exited,
///     └────────────────────┘                                               last event delivered: finished
/// ```
struct EngineStateMachine {
    /// Where the engine stands.
    enum Phase: Equatable {
        /// Made, not started.
        case idle
        /// ``ScanEngine/start()`` is starting the source and the threads.
        case starting
        /// The threads run (or have run: see ``EngineStateMachine/delivered``).
        case running
        /// ``ScanEngine/waitUntilFinished()`` took the threads to join them.
        case joined
    }

    /// What the engine does after a change, with the lock released: a value with no storage to allocate unless tasks
    /// are to be resumed, so that the per-frame changes allocate nothing.
    struct Actions {
        /// Wake the capture and recognition threads and a recovery backoff: a stop was requested.
        var wakeWorkers = false
        /// Wake the recognition thread: the session changed, and with it the instant it waits for.
        var wakeRecognition = false
        /// Resume the tasks waiting in ``ScanEngine/finished()``.
        var resume: [CheckedContinuation<Void, Never>] = []

        /// Nothing to do.
        static var none: Actions { Actions() }

        /// Whether there is nothing to do.
        var isEmpty: Bool { !wakeWorkers && !wakeRecognition && resume.isEmpty }
    }

    /// What the recognition thread needs to know about a frame, read in one step.
    struct FrameTicket {
        /// The session the frame belongs to, when it is to be recognised (scanning, past the start delay).
        var session: Int?
        /// The plugin to use from this frame on, when it changed since `knownGeneration`.
        var newPlugin: (plugin: ScanPlugin, generation: Int)?
        /// Whether ``ScanEngine/stop()`` was called: the frame is still recognised, and the thread exits after it.
        var stop = false
    }

    private(set) var phase = Phase.idle
    /// Whether ``ScanEngine/stop()`` was called.
    private(set) var stopRequested = false
    /// Whether the capture thread has stopped capturing (it then waits for recognition to exit).
    private(set) var captureFinished = false
    /// Whether the recognition thread has exited.
    private(set) var recognitionExited = false
    /// Whether the delivery thread has delivered the last event: the engine has finished.
    private(set) var delivered = false
    /// The engine's threads, from the moment they are started until ``ScanEngine/waitUntilFinished()`` takes them.
    private var threads: [NativeThread] = []
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// The scanning session.
    private(set) var lifecycle = ScanningStateMachine()
    /// The plugin in use, or about to be.
    private(set) var plugin: ScanPlugin
    /// Counts plugin changes and session starts: the recognition thread resets its recognizer when it changes.
    private(set) var pluginGeneration = 0
    /// The frame ring, once started.
    private(set) var ring: FrameRing?
    /// The events waiting for the delivery thread.
    private(set) var outbox: EventOutbox
    /// Whether someone reads ``ScanEngine/events`` (from the first read of the property until its iteration ends).
    var eventsWanted = false
    /// The delegate, held weakly.
    weak var delegate: (any ScanEngineDelegate)?

    init(plugin: ScanPlugin, outboxCapacity: Int) {
        self.plugin = plugin
        outbox = EventOutbox(capacity: outboxCapacity)
    }

    // MARK: Starting and stopping the engine

    /// ``ScanEngine/start()`` begins: the engine must be idle.
    mutating func beginStart() throws(LumaScanError) {
        guard phase == .idle else {
            throw LumaScanError(.invalidState, "the engine was already started; make a new engine to scan again")
        }
        phase = .starting
    }

    /// The source could not start: the engine is idle again.
    mutating func startFailed() {
        phase = .idle
    }

    /// The source started: queues ``ScanEvent/started(source:format:)`` and starts a scanning session with the
    /// current plugin.
    mutating func sourceStarted(
        ring: FrameRing, source: String, format: FrameFormat, now: MonotonicInstant
    ) -> Actions {
        self.ring = ring
        outbox.enqueue(.started(source: source, format: format))
        let current = plugin
        return scanning { $0.start(plugin: current, now: now) }.actions
    }

    /// The threads are running.
    mutating func threadsStarted(_ started: [NativeThread]) {
        threads = started
        phase = .running
    }

    /// ``ScanEngine/stop()``: the threads are to finish.
    mutating func requestStop() -> Actions {
        stopRequested = true
        return Actions(wakeWorkers: true)
    }

    /// The capture thread has stopped capturing.
    mutating func captureEnded() -> Actions {
        captureFinished = true
        return Actions(wakeRecognition: true)
    }

    /// The recognition thread has exited.
    mutating func recognitionEnded() {
        recognitionExited = true
    }

    /// The capture thread has stopped the source: ends the session, if one is under way, and queues the terminal
    /// ``ScanEvent/stopped(_:)``.
    mutating func sourceStopped(_ reason: StopReason) {
        let sessionReason: ScanStopReason =
            switch reason {
            case .requested: .requested
            case .endOfInput: .endOfInput
            case .error: .error
            }
        _ = scanning { $0.stop(sessionReason) }
        outbox.enqueue(.stopped(reason), terminal: true)
    }

    /// The delivery thread delivered the last event.
    mutating func deliveryEnded() -> Actions {
        delivered = true
        defer { waiters = [] }
        return Actions(resume: waiters)
    }

    /// A task waits for the engine to finish; returns `false` when it has already (resume the task now).
    mutating func awaitFinished(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard !delivered else { return false }
        waiters.append(continuation)
        return true
    }

    /// ``ScanEngine/waitUntilFinished()`` takes the threads to join (once; later calls get none).
    mutating func takeThreads() -> [NativeThread] {
        guard phase == .running else { return [] }
        phase = .joined
        defer { threads = [] }
        return threads
    }

    // MARK: Plugin and events

    /// Swaps the plugin; the recognition thread picks it up before its next frame.
    mutating func setPlugin(_ newPlugin: ScanPlugin) {
        plugin = newPlugin
        pluginGeneration += 1
    }

    /// Queues an event (a camera setting, a source failure or recovery).
    mutating func queue(_ event: ScanEvent) {
        outbox.enqueue(event)
    }

    /// The delivery thread takes the oldest event with what it needs to deliver it.
    mutating func takeEvent() -> (event: ScanEvent, delegate: (any ScanEngineDelegate)?, wanted: Bool)? {
        guard let event = outbox.take() else { return nil }
        return (event, delegate, eventsWanted)
    }

    // MARK: The scanning session

    /// Runs a scanning-session transition; returns the reason it was refused, or the actions to perform.
    mutating func scanning(
        _ change: (inout ScanningStateMachine) -> ScanningStateMachine.Outcome
    ) -> (refused: String?, actions: Actions) {
        switch change(&lifecycle) {
        case .invalid(let reason): return (reason, .none)
        case .actions(let steps): return (nil, apply(steps))
        }
    }

    /// Where the recognition thread stands for a frame dequeued at `time`: checks the scan timeout first (which may
    /// end the session), then whether the frame is to be recognised and whether the plugin changed.
    mutating func ticket(at time: MonotonicInstant, knownGeneration: Int) -> (FrameTicket, Actions) {
        let actions = apply(lifecycle.tick(now: time))
        var ticket = FrameTicket(stop: stopRequested)
        if lifecycle.recognises(at: time) { ticket.session = lifecycle.session }
        if pluginGeneration != knownGeneration { ticket.newPlugin = (plugin, pluginGeneration) }
        return (ticket, actions)
    }

    /// Checks the scan timeout while no frame arrives; returns the instant the recognition thread must look again
    /// (the end of the start delay or the timeout), or `nil` when only a frame or a change can matter.
    mutating func idle(now: MonotonicInstant) -> (wakeAt: MonotonicInstant?, actions: Actions) {
        let actions = apply(lifecycle.tick(now: now))
        return (lifecycle.nextInstant(after: now), actions)
    }

    /// Queues a recognised frame's events, if its session is still under way, and ends the session on a completed
    /// result when the plugin cancels on result and its recognizer has completed. Returns the actions, or `nil` when
    /// the session has ended meanwhile (the events are not queued).
    mutating func queueFrame(
        _ events: [ScanEvent], session: Int, completes: Bool
    ) -> Actions? {
        guard lifecycle.isActive && lifecycle.session == session else { return nil }
        for event in events { outbox.enqueue(event) }
        return completes ? apply(lifecycle.completed(cancels: true)) : .none
    }

    /// Performs a session transition's steps on this state.
    private mutating func apply(_ steps: [ScanningStateMachine.Action]) -> Actions {
        guard !steps.isEmpty else { return .none }
        for step in steps {
            switch step {
            case .emit(let event): outbox.enqueue(event)
            case .resetRecognizer: pluginGeneration += 1
            case .discardUndelivered: outbox.discardPending()
            }
        }
        return Actions(wakeRecognition: true)
    }
}
