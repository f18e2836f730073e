import Synchronization

/// A bounded, multi-producer queue of events for the delivery thread, preallocated so that enqueueing allocates
/// nothing.
///
/// When full, a new event is dropped and counted, except a terminal event, which always fits.
final class DeliveryQueue: Sendable {
    private struct State {
        var slots: [ScanEvent?]
        var head = 0
        var count = 0
        var dropped: UInt64 = 0
        var closed = false
    }

    private let state: Lock<State>
    private let wakeup = Semaphore()
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "a delivery queue needs room for at least one event")
        self.capacity = capacity
        // One spare slot so that the terminal event always fits.
        state = Lock(State(slots: Array(repeating: nil, count: capacity + 1)))
    }

    /// Adds an event; returns `false` (and counts the drop) when the queue is full.
    @discardableResult
    func enqueue(_ event: ScanEvent, terminal: Bool = false) -> Bool {
        let accepted = state.withLock { state -> Bool in
            let limit = terminal ? capacity + 1 : capacity
            guard state.count < limit, !state.closed else {
                state.dropped += 1
                return false
            }
            state.slots[(state.head + state.count) % state.slots.count] = event
            state.count += 1
            if terminal { state.closed = true }
            return true
        }
        if accepted { wakeup.signal() }
        return accepted
    }

    /// Takes the oldest event, waiting up to `milliseconds` for one. Returns `nil` on timeout.
    func dequeue(waitingMilliseconds milliseconds: Int) -> ScanEvent? {
        if let event = take() { return event }
        wakeup.wait(milliseconds: milliseconds)
        return take()
    }

    /// Events dropped because the queue was full.
    var dropped: UInt64 { state.withLock { $0.dropped } }

    /// Events waiting for the delivery thread.
    var depth: Int { state.withLock { $0.count } }

    /// Discards every queued event that is not terminal, counting them as dropped; returns how many.
    func discardPending() -> Int {
        state.withLock { state in
            var kept: [ScanEvent] = []
            var discarded = 0
            for offset in 0..<state.count {
                let index = (state.head + offset) % state.slots.count
                if let event = state.slots[index] {
                    if case .stopped = event { kept.append(event) } else { discarded += 1 }
                }
                state.slots[index] = nil
            }
            state.head = 0
            state.count = kept.count
            for (index, event) in kept.enumerated() { state.slots[index] = event }
            state.dropped += UInt64(discarded)
            return discarded
        }
    }

    private func take() -> ScanEvent? {
        state.withLock { state in
            guard state.count > 0 else { return nil }
            let event = state.slots[state.head]
            state.slots[state.head] = nil
            state.head = (state.head + 1) % state.slots.count
            state.count -= 1
            return event
        }
    }
}
