import CLumaCapture

#if canImport(Glibc)
import Glibc
#endif

/// A named, detached POSIX thread for the engine's blocking loops (never Swift's cooperative pool), whose end can be
/// waited for. Package-wide, so that LumaScanAudio's playback thread is one of these too.
///
/// The thread is detached so that its resources are released when it ends whether or not anybody waits for it (an
/// engine that is simply dropped after it finished must not leak threads); ``join()`` waits on a semaphore the thread
/// signals as its last act.
package final class NativeThread: Sendable {
    private let done = Semaphore()

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept, as Linux allows).
    package init(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Context {
            let name: String
            let body: @Sendable () -> Void
            let done: Semaphore
            init(name: String, body: @escaping @Sendable () -> Void, done: Semaphore) {
                self.name = name
                self.body = body
                self.done = done
            }
        }
        let context = Unmanaged.passRetained(Context(name: name, body: body, done: done)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                // SAFETY: `raw` is the retained Context passed below; this thread takes ownership of it.
                guard let raw else { return nil }
                let context = Unmanaged<Context>.fromOpaque(raw).takeRetainedValue()
                // The kernel-visible name (top -H, gdb); failing to set it changes nothing else.
                _ = lc_thread_set_name(context.name)
                context.body()
                context.done.signal()
                return nil
            }, context)
        // An engine that cannot start a thread cannot run at all; this only fails when the process is out of resources.
        precondition(result == 0, "pthread_create failed for \(name): \(String(cString: strerror(result)))")
        pthread_detach(thread)
    }

    /// Waits for the thread's body to finish. Call it from one thread, once.
    package func join() {
        done.wait()
    }
}

/// A counting semaphore over POSIX `sem_t`, used to wake a sleeping thread without locks or allocation.
package final class Semaphore: @unchecked Sendable {
    // SAFETY (Sendable): sem_t is designed for use from several threads; the pointer never changes.
    private let semaphore: UnsafeMutablePointer<sem_t>

    package init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Wakes one waiter (or lets the next wait pass).
    package func signal() { sem_post(semaphore) }

    /// Wakes the waiter unless a wake is already pending: any number of wakes before a wait let that one wait pass,
    /// and the count stays at one or two (two wakers can race), so a waiter that was busy does not spin through a
    /// backlog of stale wakes. For "something changed, look again" signals, not for counting items.
    package func wake() {
        var value: Int32 = 0
        sem_getvalue(semaphore, &value)
        if value <= 0 { sem_post(semaphore) }
    }

    /// Waits until signalled, however long that takes.
    package func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }

    /// Waits until signalled or until `milliseconds` have passed; returns whether it was signalled.
    @discardableResult
    package func wait(milliseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = deadline.tv_nsec + (milliseconds % 1000) * 1_000_000
        deadline.tv_sec += milliseconds / 1000 + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        while true {
            if sem_timedwait(semaphore, &deadline) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}
