/// The events waiting for the delivery thread: a bounded ring, preallocated so that queueing an event allocates
/// nothing. A value held by ``EngineStateMachine``, so that an event is queued in the same step as the state change it
/// reports and the events leave in the order of the changes.
///
/// When full, a new event is dropped and counted, except the terminal ``ScanEvent/stopped(_:)``, which always fits.
struct EventOutbox {
    private var slots: [ScanEvent?]
    private var head = 0
    /// Events waiting.
    private(set) var count = 0
    /// Events dropped because the outbox was full, or discarded by an abort.
    private(set) var dropped: UInt64 = 0
    /// Whether the terminal event was queued: nothing is queued after it.
    private(set) var closed = false
    /// Events the outbox holds before it drops new ones (the terminal event has a slot of its own).
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "an event outbox needs room for at least one event")
        self.capacity = capacity
        slots = Array(repeating: nil, count: capacity + 1)
    }

    /// Whether no event waits.
    var isEmpty: Bool { count == 0 }

    /// Queues `event`; returns `false` (and counts the drop) when the outbox is full or closed.
    @discardableResult
    mutating func enqueue(_ event: ScanEvent, terminal: Bool = false) -> Bool {
        guard count < (terminal ? capacity + 1 : capacity), !closed else {
            dropped += 1
            return false
        }
        slots[(head + count) % slots.count] = event
        count += 1
        if terminal { closed = true }
        return true
    }

    /// Takes the oldest event, or `nil` when none waits.
    mutating func take() -> ScanEvent? {
        guard count > 0 else { return nil }
        let event = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return event
    }

    /// Discards every waiting event but the terminal one, counting them as dropped; returns how many.
    @discardableResult
    mutating func discardPending() -> Int {
        var kept: ScanEvent?
        var discarded = 0
        for offset in 0..<count {
            let index = (head + offset) % slots.count
            if let event = slots[index] {
                if case .stopped = event { kept = event } else { discarded += 1 }
            }
            slots[index] = nil
        }
        head = 0
        count = 0
        if let kept {
            slots[0] = kept
            count = 1
        }
        dropped += UInt64(discarded)
        return discarded
    }
}
