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
    func deliveryLoop() {
        while true {
            // Waits (lock released) until an event is queued: the state machine's condition, broadcast on each change.
            guard
                let (event, delegate, wanted) = machine.withLock(
                    when: { !$0.outbox.isEmpty }, { $0.takeEvent() })
            else { continue }
            // The delegate gets the event as it is, as the `events` sequence does (one shape end to end).
            delegate?.scanEngine(self, didEmit: event)
            // Only while someone reads `events`; an event the full buffer pushes out is lost to that reader.
            if wanted, case .dropped = continuation.yield(event) {
                counters.eventsDropped.add(1, ordering: .relaxed)
            }
            counters.eventsDelivered.add(1, ordering: .relaxed)
            if case .stopped = event { break }
        }
        continuation.finish()
        carryOut(update { $0.deliveryEnded() })
    }
}
