import LumaScanCore

/// Where the scanning lifecycle stands, for a remote control (`lumascan serve`'s `/api/status`).
public enum ScanningState: String, Hashable, Sendable, CaseIterable {
    /// No scanning session has started yet.
    case idle
    /// A session started and waits for its start delay to pass.
    case starting
    /// Frames are being recognised.
    case scanning
    /// The session is paused: frames are released unrecognised.
    case paused
    /// The last session ended (stopped, aborted, timed out or completed).
    case stopped
}

/// A lifecycle call, by name, for a remote control.
public enum ScanningCommand: String, Hashable, Sendable, CaseIterable {
    /// ``ScanEngine/startScanning()``.
    case start
    /// ``ScanEngine/pauseScanning()``.
    case pause
    /// ``ScanEngine/resumeScanning()``.
    case resume
    /// ``ScanEngine/stopScanning()``.
    case stop
    /// ``ScanEngine/abortScanning()``.
    case abort
}

extension ScanEngine {
    /// Where the scanning lifecycle stands now.
    public var scanningState: ScanningState {
        let now = MonotonicInstant.now()
        return machine.withLock { machine in
            let lifecycle = machine.lifecycle
            switch lifecycle.state {
            case .notScanning: return lifecycle.session == 0 ? .idle : .stopped
            case .scanning(let from, _): return now < from ? .starting : .scanning
            case .paused: return .paused
            }
        }
    }

    /// Whether the engine has started (or is starting) and not yet finished (its source streams, or recovers).
    public var isRunning: Bool {
        machine.withLock { $0.phase != .idle && !$0.delivered }
    }

    /// Events waiting for the delivery thread (the delegate and ``events``) now.
    public var deliveryQueueDepth: Int { machine.withLock { $0.outbox.count } }

    /// Performs a lifecycle call and says whether it was allowed where the lifecycle stood: a call that is not (a
    /// pause while not scanning, a start while scanning) changes nothing and returns `false`.
    ///
    /// - Throws: the source's error when ``ScanningCommand/start`` has to start the engine and the source cannot start.
    @discardableResult
    public func perform(_ command: ScanningCommand) throws -> Bool {
        switch command {
        case .start:
            if machine.withLock({ $0.phase == .idle }) {
                try start()
                return true
            }
            return transition { [current = currentPlugin] in $0.start(plugin: current, now: .now()) }
        case .pause: return transition { $0.pause(now: .now()) }
        case .resume: return transition { $0.resume(now: .now()) }
        case .stop: return transition { $0.stop(.requested) }
        case .abort: return transition { $0.abort() }
        }
    }
}
