import Logging
import LumaScanCapture
import LumaScanCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The delivery thread (`lumascan-deliver`): hands queued events to the delegate and, while someone reads it, to the
/// ``ScanEngine/events`` sequence; a slow delegate holds up only this thread.
extension ScanEngine {
    func emit(_ event: ScanEvent, terminal: Bool = false) {
        delivery.enqueue(event, terminal: terminal)
    }

    func deliveryLoop() {
        while true {
            guard let event = delivery.dequeue(waitingMilliseconds: 100) else { continue }
            let delegate = delegateBox.withLock { $0.value }
            // The delegate gets the event as it is, as the `events` sequence does (one shape end to end).
            delegate?.scanEngine(self, didEmit: event)
            // Only while someone reads `events`; an event the full buffer pushes out is lost to that reader.
            if counters.eventsWanted.load(ordering: .acquiring), case .dropped = continuation.yield(event) {
                counters.eventsDropped.add(1, ordering: .relaxed)
            }
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
