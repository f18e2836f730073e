import LumaScanCore

/// Why a scanning session ended.
public enum ScanStopReason: String, Hashable, Sendable {
    /// The plugin cancels on result and a COMPLETED_RESULT was reported.
    case completed
    /// The plugin's scan timeout passed without a completed result.
    case timeout
    /// ``ScanEngine/stopScanning()`` (or ``ScanEngine/stop()``) was called.
    case requested
    /// The source ended (files, a recording) or the engine's frame limit was reached.
    case endOfInput
    /// The source failed for good.
    case error
}

/// The scanning lifecycle, after the mobile SDKs' start/stop/pause/resume/abort: pure, returning the steps a change
/// takes. It is the session part of the engine's one state machine, ``EngineStateMachine``, which applies the steps
/// to itself in the same locked change (queue the event, bump the plugin generation, discard undelivered events), so
/// the events are queued in the order of the state changes.
///
/// ```
///                 start                 pause
///   notScanning ────────▶ scanning ◀──────────────▶ paused
///        ▲        (delay, then recognise)  resume      │
///        │                  │                          │
///        └──── stop / abort / timeout / completed ─────┘
/// ```
/// - `scanning` waits `startScanDelay` before recognising, then recognises every frame until a stop, an abort,
///   the scan timeout, or (with cancelOnResult) the first completed result.
/// - `paused`: the camera keeps streaming, frames are not recognised (the ring drains), and the delay and timeout
///   clocks stand still.
/// - Any other call is invalid where it is made: it changes nothing and returns ``Outcome/invalid(_:)`` with the
///   reason, which the engine logs.
struct ScanningStateMachine: Sendable {
    enum State: Hashable, Sendable {
        case notScanning
        case scanning(recogniseFrom: MonotonicInstant, deadline: MonotonicInstant?)
        case paused(delayLeft: Duration, timeoutLeft: Duration?)
    }

    enum Action: Hashable, Sendable {
        case emit(ScanEvent)
        case resetRecognizer
        case discardUndelivered
    }

    enum Outcome: Hashable, Sendable {
        case actions([Action])
        case invalid(String)
    }

    private(set) var state: State = .notScanning
    /// Counts sessions; reports made in one session are delivered only while it lasts.
    private(set) var session = 0
    private var pluginID = ""
    private var startScanDelay: Duration = .zero
    private var scanTimeout: Duration?

    /// Whether frames captured at `now` are to be recognised.
    func recognises(at now: MonotonicInstant) -> Bool {
        if case .scanning(let from, _) = state { return now >= from }
        return false
    }

    /// The next instant after `now` at which the state changes by itself: the end of the start delay, or the scan
    /// timeout; `nil` when none is coming (not scanning, paused, or scanning without a timeout past the delay).
    func nextInstant(after now: MonotonicInstant) -> MonotonicInstant? {
        guard case .scanning(let from, let deadline) = state else { return nil }
        return now < from ? from : deadline
    }

    /// Whether a session is under way (scanning or paused).
    var isActive: Bool { state != .notScanning }

    mutating func start(plugin: ScanPlugin, now: MonotonicInstant) -> Outcome {
        guard state == .notScanning else { return .invalid("startScanning(): already scanning") }
        pluginID = plugin.id
        session += 1
        startScanDelay = plugin.startScanDelay
        scanTimeout = plugin.scanTimeout
        let recogniseFrom = now.advanced(by: startScanDelay)
        state = .scanning(recogniseFrom: recogniseFrom, deadline: scanTimeout.map { recogniseFrom.advanced(by: $0) })
        return .actions([.resetRecognizer, .emit(.scanningStarted(plugin: plugin.id))])
    }

    mutating func stop(_ reason: ScanStopReason) -> Outcome {
        guard state != .notScanning else { return .invalid("stopScanning(): not scanning") }
        state = .notScanning
        return .actions([.emit(.scanningStopped(reason))])
    }

    mutating func abort() -> Outcome {
        guard state != .notScanning else { return .invalid("abortScanning(): not scanning") }
        state = .notScanning
        return .actions([.discardUndelivered, .emit(.scanningAborted)])
    }

    mutating func pause(now: MonotonicInstant) -> Outcome {
        guard case .scanning(let from, let deadline) = state else {
            return .invalid(state == .notScanning ? "pauseScanning(): not scanning" : "pauseScanning(): already paused")
        }
        state = .paused(delayLeft: from.since(now), timeoutLeft: deadline.map { $0.since(now) })
        return .actions([.emit(.scanningPaused)])
    }

    mutating func resume(now: MonotonicInstant) -> Outcome {
        guard case .paused(let delayLeft, let timeoutLeft) = state else {
            return .invalid(state == .notScanning ? "resumeScanning(): not scanning" : "resumeScanning(): not paused")
        }
        let from = now.advanced(by: delayLeft)
        state = .scanning(recogniseFrom: from, deadline: timeoutLeft.map { now.advanced(by: $0) })
        return .actions([.emit(.scanningResumed)])
    }

    /// Checks the scan timeout.
    mutating func tick(now: MonotonicInstant) -> [Action] {
        guard case .scanning(_, let deadline?) = state, now >= deadline else { return [] }
        state = .notScanning
        return [.emit(.scanningStopped(.timeout))]
    }

    /// A completed result was reported on a frame; with `cancels`, the session ends.
    mutating func completed(cancels: Bool) -> [Action] {
        guard cancels, case .scanning = state else { return [] }
        state = .notScanning
        return [.emit(.scanningStopped(.completed))]
    }
}

extension MonotonicInstant {
    /// The instant `duration` later (saturating).
    func advanced(by duration: Duration) -> MonotonicInstant {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(duration.nanosecondsClamped)
        return MonotonicInstant(nanoseconds: overflow ? .max : sum)
    }
}
