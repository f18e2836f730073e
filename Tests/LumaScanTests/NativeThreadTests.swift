import Foundation
import Synchronization
import Testing

@testable import LumaScan

@Suite("NativeThread")
struct NativeThreadTests {
    @Test("a thread carries its name as the kernel shows it, cut to Linux's 15 bytes, and join waits for its body")
    func nameAndJoin() {
        let seen = Lock<String?>(nil)
        let thread = NativeThread(name: "lumascan-named-thread") {
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.withLock { $0 = comm?.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        thread.join()
        #expect(seen.withLock { $0 } == "lumascan-named-")
    }

    @Test("wake lets exactly one wait pass however often it was called, and a wait without a wake times out")
    func wakeDoesNotAccumulate() {
        let semaphore = Semaphore()
        for _ in 0..<100 { semaphore.wake() }
        #expect(semaphore.wait(milliseconds: 1))
        #expect(!semaphore.wait(milliseconds: 1))
        semaphore.signal()
        semaphore.signal()
        #expect(semaphore.wait(milliseconds: 1))
        #expect(semaphore.wait(milliseconds: 1))
    }
}
