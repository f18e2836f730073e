#if canImport(Glibc)
import Glibc
#endif

/// A lock around a value, over `pthread_mutex_t`: the one lock type of LumaScan's modules (for state a class keeps
/// in several fields, a `Lock(())` guards them). A thread can also wait, lock released, until the value satisfies a
/// condition (``withLock(when:_:)``), woken by ``broadcast()`` from the thread that changed it: a
/// `pthread_cond_t` beside the mutex, so that no thread polls for a change.
///
/// LumaScan uses it rather than `Synchronization.Mutex` because the thread sanitizer understands pthread mutexes (it
/// intercepts them), while `Mutex`'s futex slow path lives in the uninstrumented standard library: under contention
/// the sanitizer misses the ordering it creates and reports races that are not there. The engine must run clean under
/// the sanitizer, so its locks must be ones the sanitizer can see. Package-wide (in the lowest module), so that every
/// module locks the same way.
package final class Lock<State>: @unchecked Sendable {
    // SAFETY (Sendable): `state` is only touched inside `withLock`, with the mutex held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    private var state: State

    package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        pthread_cond_destroy(changed)
        changed.deinitialize(count: 1)
        changed.deallocate()
    }

    /// Runs `body` with the lock held and the value lent for mutation.
    package func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Waits, with the lock released meanwhile, until `condition` holds for the value, then runs `body` with the lock
    /// held. A thread that changes what `condition` reads calls ``broadcast()`` afterwards.
    package func withLock<R, E: Error>(
        when condition: (borrowing State) -> Bool, _ body: (inout State) throws(E) -> R
    ) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !condition(state) { pthread_cond_wait(changed, mutex) }
        return try body(&state)
    }

    /// Wakes every thread waiting in ``withLock(when:_:)`` to look at the value again.
    package func broadcast() {
        pthread_cond_broadcast(changed)
    }
}
