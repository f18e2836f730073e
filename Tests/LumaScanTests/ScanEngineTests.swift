import Foundation
import Logging
import LumaScan
import LumaScanTestSupport
import Synchronization
import Testing

@Suite("ScanEngine")
struct ScanEngineTests {
    @Test("a source is never asked for a frame while the ring and the recognizer hold all its buffers")
    func waitsForReturnedBuffers() async {
        // Recognition (20 ms a frame) is far slower than the source, so capture keeps running out of buffers: it must
        // wait for the recognition thread to hand one back rather than call dequeue in a loop.
        let source = BufferCountingSource(
            base: SyntheticSource(images: flatImages([7]), frameCount: 15, bufferCount: 2))
        let recognizer = MeanLumaRecognizer(delay: .milliseconds(20))
        let engine = ScanEngine(source: source, recognizers: [recognizer], logger: testLogger)
        do { try engine.start() } catch { Issue.record("start failed: \(error)") }
        await engine.finished()
        #expect(recognizer.seen.withLock { $0 } == Array(0..<15))
        #expect(source.callsWithEveryBufferOut.load(ordering: .relaxed) == 0)
        // 15 frames and the end: nothing else (the source was never polled in a loop).
        #expect(source.dequeueCalls.load(ordering: .relaxed) == 16)
    }

    @Test("a finite source is read to the end: every frame processed once, in order, nothing dropped")
    func finiteSourceEndToEnd() async {
        let source = SyntheticSource(images: flatImages([10, 20, 30]), schedule: .script([0, 1, 2, 1, 0]))
        let recognizer = MeanLumaRecognizer()
        let engine = ScanEngine(source: source, recognizers: [recognizer], logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        let stream = engine.events
        let streamed = Task { () -> [ScanEvent] in
            var all: [ScanEvent] = []
            for await event in stream { all.append(event) }
            return all
        }
        #expect(throws: Never.self) { try engine.start() }
        await engine.finished()
        let reports = delegate.reports
        #expect(reports.map(\.text) == ["10", "20", "30", "20", "10"])
        #expect(reports.map(\.frameIndex) == [0, 1, 2, 3, 4])
        #expect(reports.allSatisfy { $0.recognizerID == "mean" && $0.reportType == .completedResult })
        let events = delegate.events.withLock { $0 }
        #expect(events.first == .started(source: "synthetic", format: source.format))
        #expect(events.dropFirst().first == .scanningStarted(plugin: "mean"))
        #expect(events.suffix(2) == [.scanningStopped(.endOfInput), .stopped(.endOfInput)])
        #expect(await streamed.value == events, "the event sequence carries what the delegate got, in order")
        let statistics = engine.statistics
        #expect(statistics.framesCaptured == 5)
        #expect(statistics.framesProcessed == 5)
        #expect(statistics.framesDroppedByRing == 0)
        #expect(statistics.framesInFlight == 0)
        #expect(statistics.reports == 5)
        #expect(statistics.eventsDelivered == 9)
    }

    @Test("a live source faster than recognition drops the oldest frames, and the accounting adds up")
    func liveSourceDropsOldest() async throws {
        let source = SyntheticSource(images: flatImages([1, 2, 3, 4]), bufferCount: 4)
        let recognizer = MeanLumaRecognizer(delay: .milliseconds(3))
        let engine = ScanEngine(source: source, recognizers: [recognizer], logger: testLogger)
        try engine.start()
        // Until recognition has seen more than ten frames and the ring has dropped some, however slowly this machine
        // runs: a fixed 300 ms saw only ten frames under the thread sanitizer on a loaded host.
        #expect(try await eventually { engine.statistics.framesProcessed > 10 })
        #expect(try await eventually { engine.statistics.framesDroppedByRing > 0 })
        let running = engine.statistics
        #expect(
            running.framesCaptured == running.framesProcessed + running.framesDroppedByRing + running.framesInFlight)
        engine.stop()
        await engine.finished()
        let statistics = engine.statistics
        #expect(statistics.framesDroppedByRing > 0)
        #expect(statistics.framesProcessed > 10)
        #expect(statistics.framesInFlight == 0)
        #expect(statistics.framesCaptured == statistics.framesProcessed + statistics.framesDroppedByRing)
        let seen = recognizer.seen.withLock { $0 }
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "frames are recognised in capture order")
    }

    @Test("a delegate that blocks stalls neither capture nor recognition; overflowing events are counted")
    func slowDelegate() async throws {
        let gate = DispatchSemaphore(value: 0)
        let source = SyntheticSource(images: flatImages([5]), frameCount: 200)
        let engine = ScanEngine(
            source: source, recognizers: [MeanLumaRecognizer()], options: .init(deliveryQueueCapacity: 16),
            logger: testLogger)
        let delegate = RecordingDelegate(gate: gate)
        engine.delegate = delegate
        try engine.start()
        // Recognition finishes all 200 frames although the delegate has not returned once.
        let deadline = ContinuousClock.now + .seconds(20)
        while engine.statistics.framesProcessed < 200 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(engine.statistics.framesProcessed == 200)
        #expect(delegate.events.withLock { $0.isEmpty })
        gate.signal()
        await engine.finished()
        let statistics = engine.statistics
        #expect(statistics.eventsDropped > 0)
        #expect(
            statistics.eventsDelivered + statistics.eventsDropped == 204,
            "started, scanningStarted, 200 reports, scanningStopped, stopped")
        #expect(delegate.events.withLock { $0.last } == .stopped(.endOfInput))
    }

    @Test("events nobody reads are neither buffered nor counted as dropped; a reader that lags loses only the oldest")
    func unreadEvents() async throws {
        func run(readEvents: Bool) async throws -> ScanStatistics {
            let source = SyntheticSource(images: flatImages([5]), frameCount: 300)
            let engine = ScanEngine(
                source: source, recognizers: [MeanLumaRecognizer()], options: .init(eventBufferCapacity: 16),
                logger: testLogger)
            let events = readEvents ? engine.events : nil
            try engine.start()
            await engine.finished()
            withExtendedLifetime(events) {}
            return engine.statistics
        }
        // started, scanningStarted, 300 reports, scanningStopped, stopped.
        let unread = try await run(readEvents: false)
        #expect(unread.eventsDelivered == 304)
        #expect(unread.eventsDropped == 0, "nobody iterated: nothing was lost to anyone")
        let lagging = try await run(readEvents: true)
        #expect(lagging.eventsDelivered == 304)
        #expect(lagging.eventsDropped == 304 - 16, "all but the newest 16 were pushed out of the reader's buffer")
    }

    @Test("gaps in the driver's sequence numbers are counted as frames the driver dropped")
    func driverDrops() async throws {
        let source = SyntheticSource(images: flatImages([9]), frameCount: 50, sequenceStep: 3)
        let engine = ScanEngine(source: source, recognizers: [MeanLumaRecognizer()], logger: testLogger)
        try engine.start()
        await engine.finished()
        #expect(engine.statistics.framesDroppedByDriver == 49 * 2)
    }

    @Test("a lost device is reported, reopened, and scanning goes on")
    func recoversFromLostDevice() async throws {
        let source = SyntheticSource(images: flatImages([7]), fps: 200)
        let engine = ScanEngine(
            source: source, recognizers: [MeanLumaRecognizer()],
            options: .init(recoveryInitialDelay: .milliseconds(5)), logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        try engine.start()
        try await Task.sleep(for: .milliseconds(100))
        let before = engine.statistics.framesProcessed
        source.injectFailure(TestSourceError(recovery: .reopenDevice))
        // Conditions, not a fixed wait: a loaded host (the thread sanitizer, parallel suites) may take long.
        #expect(
            try await eventually {
                delegate.events.withLock { $0 }.contains(.sourceRecovered(source: "synthetic", attempts: 1))
            })
        #expect(try await eventually { engine.statistics.framesProcessed > before + 5 })
        engine.stop()
        await engine.finished()
        let events = delegate.events.withLock { $0 }
        let failure = events.firstIndex {
            if case .sourceFailed(let failure) = $0 { failure.action == .reopeningDevice } else { false }
        }
        let recovered = events.firstIndex { $0 == .sourceRecovered(source: "synthetic", attempts: 1) }
        #expect(failure != nil)
        #expect(recovered != nil)
        if let failure, let recovered { #expect(failure < recovered) }
        #expect(engine.statistics.framesProcessed > before + 5, "frames flow again after recovery")
        #expect(engine.statistics.sourceFailures == 1)
        #expect(events.last == .stopped(.requested))
    }

    @Test("an unrecoverable source error stops the engine with the error")
    func fatalSourceError() async throws {
        let source = SyntheticSource(images: flatImages([7]), fps: 200)
        let engine = ScanEngine(source: source, recognizers: [MeanLumaRecognizer()], logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        try engine.start()
        source.injectFailure(TestSourceError(recovery: .none))
        await engine.finished()
        let events = delegate.events.withLock { $0 }
        #expect(events.last == .stopped(.error("test source failure (none)")))
        #expect(
            events.contains(
                .sourceFailed(
                    SourceFailure(
                        source: "synthetic", message: "test source failure (none)", action: .stopping))))
    }

    @Test("swapping recognizers mid-stream: every frame is processed by exactly one set")
    func hotSwap() async throws {
        let source = SyntheticSource(images: flatImages([3]), frameCount: 400, fps: 2000)
        let second = MeanLumaRecognizer(id: "second")
        let engineBox = Lock<ScanEngine?>(nil)
        // The swap is requested from the recognition thread itself while frame 100 is being recognised, the
        // hardest moment: frame 100 must still be the first recognizer's, frame 101 the second's.
        let first = MeanLumaRecognizer(id: "first") { index in
            if index == 100 {
                engineBox.withLock { $0 }?.setPlugin(ScanPlugin(id: "second", recognizer: second, scanTimeout: nil))
            }
        }
        let engine = ScanEngine(source: source, recognizers: [first], logger: testLogger)
        engineBox.withLock { $0 = engine }
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        try engine.start()
        await engine.finished()
        let byFirst = first.seen.withLock { $0 }
        let bySecond = second.seen.withLock { $0 }
        #expect(!byFirst.isEmpty && !bySecond.isEmpty)
        #expect(Set(byFirst).isDisjoint(with: bySecond))
        #expect(byFirst.count + bySecond.count == 400)
        #expect(byFirst.max() == 100 && bySecond.min() == 101, "the swap happens between two frames")
        #expect(second.resets.load(ordering: .relaxed) == 1, "a swapped-in recognizer starts fresh")
        #expect(engine.currentPlugin.id == "second")
        let ids = delegate.reports.map(\.recognizerID)
        #expect(ids.firstIndex(of: "second").map { index in ids[index...].allSatisfy { $0 == "second" } } == true)
    }

    @Test("frames the driver flags as erroneous are counted as corrupt and skipped")
    func driverFlaggedFrames() async throws {
        let source = FlaggingSource(
            base: SyntheticSource(images: flatImages([4]), frameCount: 20), flagged: [3, 4, 10])
        let recognizer = MeanLumaRecognizer()
        let engine = ScanEngine(source: source, recognizers: [recognizer], logger: testLogger)
        try engine.start()
        await engine.finished()
        #expect(engine.statistics.framesCorrupt == 3)
        #expect(engine.statistics.framesCaptured == 17, "flagged frames never enter the ring")
        #expect(engine.statistics.framesProcessed == 17)
        #expect(recognizer.seen.withLock { $0 }.count == 17)
        #expect(!recognizer.seen.withLock { $0 }.contains(4))
    }

    @Test("a frame taken from the ring after stop was asked for is recognised to the end: one report per frame")
    func frameAfterStopIsRecognised() async {
        final class EngineBox: @unchecked Sendable {
            // SAFETY (Sendable): set once before the engine starts, read on the recognition thread after.
            var engine: ScanEngine?
        }
        let box = EngineBox()
        // While frame 0 is recognised, wait until capture has pushed frame 1 into the ring, then ask for stop: the
        // recognition thread takes frame 1 after it, and must recognise it rather than release it unread.
        let recognizer = MeanLumaRecognizer { index in
            guard index == 0, let engine = box.engine else { return }
            let deadline = MonotonicInstant(nanoseconds: MonotonicInstant.now().nanoseconds + 10_000_000_000)
            while engine.statistics.framesCaptured < 2 && MonotonicInstant.now() < deadline { sched_yield() }
            engine.stop()
        }
        let source = SyntheticSource(images: flatImages([10, 20, 30, 40]), frameCount: 4)
        let engine = ScanEngine(source: source, recognizers: [recognizer], logger: testLogger)
        box.engine = engine
        #expect(throws: Never.self) { try engine.start() }
        await engine.finished()
        let statistics = engine.statistics
        #expect(statistics.framesProcessed >= 2, "frame 1 was in the ring when stop was asked for")
        #expect(statistics.reports == statistics.framesProcessed, "every processed frame was recognised")
    }

    @Test("a second start is refused with a clear error")
    func secondStart() async throws {
        let engine = ScanEngine(
            source: SyntheticSource(images: flatImages([1]), frameCount: 1), recognizers: [], logger: testLogger)
        try engine.start()
        #expect(throws: LumaScanError.self) { try engine.start() }
        await engine.finished()
    }
}

/// Wraps a source and flags chosen frames as erroneous, as a driver does with `V4L2_BUF_FLAG_ERROR`.
final class FlaggingSource: FrameSource, @unchecked Sendable {
    let base: SyntheticSource
    let flagged: Set<UInt64>
    init(base: SyntheticSource, flagged: Set<UInt64>) {
        self.base = base
        self.flagged = flagged
    }
    var name: String { base.name }
    var format: FrameFormat { base.format }
    var bufferCount: Int { base.bufferCount }
    var isFinite: Bool { base.isFinite }
    func start() throws { try base.start() }
    func dequeue(timeout: Duration) throws -> DequeuedFrame? {
        guard var frame = try base.dequeue(timeout: timeout) else { return nil }
        frame.metadata.driverFlaggedError = flagged.contains(frame.metadata.index)
        return frame
    }
    func requeue(_ bufferIndex: Int) throws { try base.requeue(bufferIndex) }
    func bytes(of bufferIndex: Int) -> UnsafeRawBufferPointer { base.bytes(of: bufferIndex) }
    func stop() { base.stop() }
}

/// Wraps a source and counts its dequeue calls, and those made while the caller held every buffer.
final class BufferCountingSource: FrameSource, @unchecked Sendable {
    let base: SyntheticSource
    let dequeueCalls = Atomic<Int>(0)
    let callsWithEveryBufferOut = Atomic<Int>(0)
    private let out = Atomic<Int>(0)
    init(base: SyntheticSource) { self.base = base }
    var name: String { base.name }
    var format: FrameFormat { base.format }
    var bufferCount: Int { base.bufferCount }
    var isFinite: Bool { base.isFinite }
    func start() throws { try base.start() }
    func dequeue(timeout: Duration) throws -> DequeuedFrame? {
        dequeueCalls.add(1, ordering: .relaxed)
        if out.load(ordering: .relaxed) >= base.bufferCount { callsWithEveryBufferOut.add(1, ordering: .relaxed) }
        let frame = try base.dequeue(timeout: timeout)
        if frame != nil { out.add(1, ordering: .relaxed) }
        return frame
    }
    func requeue(_ bufferIndex: Int) throws {
        out.subtract(1, ordering: .relaxed)
        try base.requeue(bufferIndex)
    }
    func bytes(of bufferIndex: Int) -> UnsafeRawBufferPointer { base.bytes(of: bufferIndex) }
    func stop() { base.stop() }
}
