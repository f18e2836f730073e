import Testing

@testable import LumaScan

/// The engine's one state machine, driven directly: no threads, no source, every change and what it asks for.
@Suite("EngineStateMachine")
struct EngineStateMachineTests {
    final class NoRecognizer: Recognizer, @unchecked Sendable {
        let id = "none"
        func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {}
        func reset() {}
    }

    static func machine(
        delay: Duration = .zero, timeout: Duration? = nil, capacity: Int = 8
    ) -> EngineStateMachine {
        EngineStateMachine(
            plugin: ScanPlugin(
                id: "plugin", recognizer: NoRecognizer(), startScanDelay: delay, scanTimeout: timeout),
            outboxCapacity: capacity)
    }

    static func at(_ milliseconds: UInt64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: milliseconds * 1_000_000)
    }

    /// Whether a start is refused with an error.
    static func refusesStart(_ machine: inout EngineStateMachine) -> Bool {
        do {
            try machine.beginStart()
            return false
        } catch {
            return error.code == .invalidState
        }
    }

    /// The event's case name (`report`, `scanningStopped`).
    static func name(_ event: ScanEvent) -> String { String(String(describing: event).prefix { $0.isLetter }) }

    static func drain(_ machine: inout EngineStateMachine) -> [ScanEvent] {
        var events: [ScanEvent] = []
        while let (event, _, _) = machine.takeEvent() { events.append(event) }
        return events
    }

    static func started(_ machine: inout EngineStateMachine, at time: MonotonicInstant = at(0)) {
        try? machine.beginStart()
        let ring = FrameRing(capacity: 2, bufferCount: 4, fullPolicy: .dropOldest)
        _ = machine.sourceStarted(
            ring: ring, source: "test", format: FrameFormat(pixelFormat: .grey, width: 4, height: 4), now: time)
        machine.threadsStarted([])
    }

    @Test("start: idle, starting, running; a second start is refused; a failed source makes it idle again")
    func startPhases() throws {
        var machine = Self.machine()
        #expect(machine.phase == .idle)
        try machine.beginStart()
        #expect(machine.phase == .starting)
        #expect(Self.refusesStart(&machine))
        machine.startFailed()
        #expect(machine.phase == .idle)
        Self.started(&machine)
        #expect(machine.phase == .running)
        #expect(Self.refusesStart(&machine))
        #expect(Self.drain(&machine).map(Self.name) == ["started", "scanningStarted"])
    }

    @Test("the source's start queues started, then the session's scanningStarted, and bumps the plugin generation")
    func sourceStartedQueuesEvents() {
        var machine = Self.machine()
        Self.started(&machine)
        #expect(machine.pluginGeneration == 1)
        let (ticket, _) = machine.ticket(at: Self.at(1), knownGeneration: 0)
        #expect(ticket.session == 1)
        #expect(ticket.newPlugin?.generation == 1)
        let unchanged = machine.ticket(at: Self.at(2), knownGeneration: 1)
        #expect(unchanged.0.newPlugin == nil)
    }

    @Test("a frame's reports are queued only while its session lasts, and never after the event that ended it")
    func reportsOfAnEndedSessionAreNotQueued() {
        var machine = Self.machine()
        Self.started(&machine)
        _ = Self.drain(&machine)
        let report = ScanEvent.report(ScanReport(reportType: .inProgress, state: .unreadable, recognizerID: "none"))
        let queued = machine.queueFrame([report], session: 1, completes: false)
        #expect(queued != nil)
        let (refused, _) = machine.scanning { $0.stop(.requested) }
        #expect(refused == nil)
        let late = machine.queueFrame([report], session: 1, completes: false)
        #expect(late == nil)
        #expect(Self.drain(&machine).map(Self.name) == ["report", "scanningStopped"])
    }

    @Test("a completed result that cancels ends the session in the same step as its report")
    func completionEndsTheSession() {
        var machine = Self.machine()
        Self.started(&machine)
        _ = Self.drain(&machine)
        let done = ScanEvent.report(ScanReport(reportType: .completedResult, state: .ok, recognizerID: "none"))
        let actions = machine.queueFrame([done], session: 1, completes: true)
        #expect(actions?.wakeRecognition == true)
        #expect(!machine.lifecycle.isActive)
        #expect(Self.drain(&machine).map(Self.name) == ["report", "scanningStopped"])
    }

    @Test("the scan timeout ends the session on the next ticket or idle check; the idle check names the instant")
    func timeout() {
        var machine = Self.machine(delay: .milliseconds(100), timeout: .milliseconds(500))
        Self.started(&machine, at: Self.at(0))
        _ = Self.drain(&machine)
        let inDelay = machine.idle(now: Self.at(50))
        #expect(inDelay.wakeAt == Self.at(100))
        let delayed = machine.ticket(at: Self.at(50), knownGeneration: 1)
        #expect(delayed.0.session == nil)
        let recognised = machine.ticket(at: Self.at(150), knownGeneration: 1)
        #expect(recognised.0.session == 1)
        let afterDelay = machine.idle(now: Self.at(200))
        #expect(afterDelay.wakeAt == Self.at(600))
        let (wakeAt, actions) = machine.idle(now: Self.at(600))
        #expect(wakeAt == nil)
        #expect(actions.wakeRecognition)
        #expect(Self.drain(&machine) == [.scanningStopped(.timeout)])
    }

    @Test("stop wakes the workers; the end queues the session's stop before the terminal stopped, and nothing after")
    func stopAndEnd() {
        var machine = Self.machine()
        Self.started(&machine)
        _ = Self.drain(&machine)
        let stopActions = machine.requestStop()
        #expect(stopActions.wakeWorkers)
        #expect(machine.stopRequested)
        _ = machine.captureEnded()
        #expect(machine.captureFinished)
        machine.recognitionEnded()
        machine.sourceStopped(.requested)
        machine.queue(.scanningPaused)
        #expect(Self.drain(&machine) == [.scanningStopped(.requested), .stopped(.requested)])
        #expect(machine.outbox.dropped == 1)
    }

    @Test("finished: waiters are resumed once the last event is delivered; later ones resume at once")
    func threadsAndWaiters() {
        var machine = Self.machine()
        Self.started(&machine)
        let threads = machine.takeThreads()
        #expect(threads.isEmpty)
        #expect(machine.phase == .joined)
        let again = machine.takeThreads()
        #expect(again.isEmpty)
        let ended = machine.deliveryEnded()
        #expect(ended.resume.isEmpty)
        #expect(machine.delivered)
    }

    @Test("abort discards the undelivered events (counted as dropped) and queues scanningAborted")
    func abortDiscards() {
        var machine = Self.machine()
        Self.started(&machine)
        let report = ScanEvent.report(ScanReport(reportType: .inProgress, state: .unreadable, recognizerID: "none"))
        _ = machine.queueFrame([report, report], session: 1, completes: false)
        _ = machine.scanning { $0.abort() }
        #expect(Self.drain(&machine) == [.scanningAborted])
        #expect(machine.outbox.dropped == 4)
    }

    @Test("the outbox drops new events when full, but the terminal event always fits")
    func outboxBounds() {
        var outbox = EventOutbox(capacity: 2)
        let first = outbox.enqueue(.scanningPaused)
        #expect(first)
        let second = outbox.enqueue(.scanningResumed)
        #expect(second)
        let third = outbox.enqueue(.scanningAborted)
        #expect(!third)
        let terminal = outbox.enqueue(.stopped(.requested), terminal: true)
        #expect(terminal)
        let afterTerminal = outbox.enqueue(.scanningPaused, terminal: true)
        #expect(!afterTerminal)
        #expect(outbox.dropped == 2)
        let discarded = outbox.discardPending()
        #expect(discarded == 2)
        let kept = outbox.take()
        #expect(kept == .stopped(.requested))
        let empty = outbox.take()
        #expect(empty == nil)
    }
}
