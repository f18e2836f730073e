import Foundation
import LumaScan
import LumaScanTestSupport
import Synchronization
import Testing

/// Waits until `condition` holds, polling it every 5 ms for `seconds` of polls.
/// The parallel test run starves the cooperative pool while synchronous tests (the configuration property test, the
/// barcode corpora) hold both of its threads on a 2-core machine: once for over 300 s, so that a wall-clock deadline
/// passed before the engine under test (itself on the pool) had run at all. Counting polls, a starved wait is not a
/// spent one; a passing condition returns at once.
func eventually(_ seconds: Double = 300, _ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<Int(seconds * 200) {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// The scanning lifecycle over a scripted synthetic source: every transition, the timeout, the delay,
/// cancelOnResult and abort, and the order of events.
@Suite("Scan lifecycle")
struct ScanLifecycleTests {
    func lifecycleEvents(_ delegate: RecordingDelegate) -> [ScanEvent] {
        delegate.events.withLock { events in
            events.filter {
                switch $0 {
                case .report, .detection: false
                default: true
                }
            }
        }
    }

    @Test("pause stops recognition while frames stream on; resume picks up again")
    func pauseAndResume() async throws {
        let source = SyntheticSource(images: flatImages([50]), fps: 500)
        let recognizer = MeanLumaRecognizer()
        let engine = ScanEngine(source: source, recognizers: [recognizer], logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        try engine.start()
        #expect(try await eventually { recognizer.seen.withLock { $0.count } >= 5 })
        engine.pauseScanning()
        #expect(try await eventually { self.lifecycleEvents(delegate).contains(.scanningPaused) })
        // Let the frame that was being recognised when the pause came finish: once two more frames went through
        // the ring, recognition has moved past it.
        let processedAtPause = engine.statistics.framesProcessed
        #expect(try await eventually { engine.statistics.framesProcessed >= processedAtPause + 2 })
        let seenWhilePaused = recognizer.seen.withLock { $0.count }
        let capturedBefore = engine.statistics.framesCaptured
        try await Task.sleep(for: .milliseconds(150))
        #expect(
            try await eventually { engine.statistics.framesCaptured > capturedBefore }, "the camera keeps streaming")
        #expect(recognizer.seen.withLock { $0.count } == seenWhilePaused, "no frame is recognised while paused")
        #expect(engine.statistics.framesInFlight <= 2, "the ring drains")
        engine.resumeScanning()
        #expect(try await eventually { recognizer.seen.withLock { $0.count } > seenWhilePaused + 5 })
        engine.stop()
        await engine.finished()
        #expect(
            lifecycleEvents(delegate) == [
                .started(source: "synthetic", format: source.format), .scanningStarted(plugin: "mean"),
                .scanningPaused, .scanningResumed, .scanningStopped(.requested), .stopped(.requested),
            ])
    }

    @Test("invalid transitions change nothing and never crash")
    func invalidTransitions() async throws {
        let source = SyntheticSource(images: flatImages([50]), fps: 500)
        let engine = ScanEngine(source: source, recognizers: [MeanLumaRecognizer()], logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        engine.pauseScanning()  // before start
        engine.resumeScanning()
        engine.stopScanning()
        engine.abortScanning()
        try engine.start()
        try engine.startScanning()  // already scanning
        engine.resumeScanning()  // not paused
        engine.pauseScanning()
        engine.pauseScanning()  // already paused
        engine.stopScanning()
        engine.stopScanning()  // not scanning
        engine.pauseScanning()  // not scanning
        try engine.startScanning()  // a new session on the running camera
        engine.stop()
        await engine.finished()
        #expect(
            lifecycleEvents(delegate) == [
                .started(source: "synthetic", format: source.format), .scanningStarted(plugin: "mean"),
                .scanningPaused, .scanningStopped(.requested), .scanningStarted(plugin: "mean"),
                .scanningStopped(.requested), .stopped(.requested),
            ])
    }

    @Test("the scan timeout stops scanning by itself; the camera keeps streaming")
    func timeout() async throws {
        let source = SyntheticSource(images: flatImages([50]), fps: 500)
        let recognizer = MeanLumaRecognizer()
        let plugin = ScanPlugin(id: "timed", recognizer: recognizer, scanTimeout: .milliseconds(150))
        let engine = ScanEngine(source: source, plugin: plugin, logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        let started = ContinuousClock.now
        try engine.start()
        #expect(try await eventually { self.lifecycleEvents(delegate).contains(.scanningStopped(.timeout)) })
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(150))
        let seen = recognizer.seen.withLock { $0.count }
        #expect(seen > 0)
        let captured = engine.statistics.framesCaptured
        try await Task.sleep(for: .milliseconds(100))
        #expect(
            try await eventually { engine.statistics.framesCaptured > captured },
            "the camera streams on after the timeout")
        #expect(recognizer.seen.withLock { $0.count } <= seen + 1, "nothing is recognised after the timeout")
        engine.stop()
        await engine.finished()
        #expect(lifecycleEvents(delegate).last == .stopped(.requested))
    }

    @Test("the start delay holds recognition back, and frames in the meantime are released unread")
    func startDelay() async throws {
        let source = SyntheticSource(images: flatImages([50]), fps: 500)
        let recognizer = MeanLumaRecognizer()
        let plugin = ScanPlugin(
            id: "delayed", recognizer: recognizer, startScanDelay: .milliseconds(200), scanTimeout: nil)
        let engine = ScanEngine(source: source, plugin: plugin, logger: testLogger)
        let started = MonotonicInstant.now()
        try engine.start()
        #expect(try await eventually { !recognizer.seen.withLock { $0.isEmpty } })
        engine.stop()
        await engine.finished()
        let firstRecognised = recognizer.seen.withLock { $0 }.first ?? 0
        let times = recognizer.seenDequeueTimes.withLock { $0 }
        #expect(times.allSatisfy { $0.since(started) >= .milliseconds(200) }, "no frame of the delay is recognised")
        #expect(firstRecognised > 10, "frames captured during the delay went through the ring unrecognised")
    }

    @Test("cancelOnResult stops after the first completed result, which is delivered first")
    func cancelOnResult() async throws {
        let source = SyntheticSource(images: flatImages([50]), fps: 500)
        let recognizer = MeanLumaRecognizer()
        let plugin = ScanPlugin(id: "once", recognizer: recognizer, cancelOnResult: true, scanTimeout: nil)
        let engine = ScanEngine(source: source, plugin: plugin, logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        try engine.start()
        #expect(try await eventually { self.lifecycleEvents(delegate).contains(.scanningStopped(.completed)) })
        engine.stop()
        await engine.finished()
        let events = delegate.events.withLock { $0 }
        let reports = events.enumerated().filter { if case .report = $0.element { true } else { false } }
        #expect(reports.count == 1, "exactly one result before the session ends")
        let stoppedIndex = events.firstIndex(of: .scanningStopped(.completed))
        #expect(reports.first.map { $0.offset } ?? -1 < stoppedIndex ?? -1)
    }

    @Test("a sequential composite hands over on each completed result, then cancels")
    func sequentialComposite() async throws {
        let source = SyntheticSource(images: flatImages([50]), fps: 500)
        let first = MeanLumaRecognizer(id: "first")
        let second = MeanLumaRecognizer(id: "second")
        let composite = CompositeRecognizer(id: "both", mode: .sequential, members: [first, second])
        let plugin = ScanPlugin(id: "both", recognizer: composite, cancelOnResult: true, scanTimeout: nil)
        let engine = ScanEngine(source: source, plugin: plugin, logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        try engine.start()
        #expect(try await eventually { self.lifecycleEvents(delegate).contains(.scanningStopped(.completed)) })
        engine.stop()
        await engine.finished()
        #expect(delegate.reports.map(\.recognizerID) == ["first", "second"])
        #expect(first.seen.withLock { $0.count } == 1)
        #expect(second.seen.withLock { $0.count } == 1)
        #expect(second.seen.withLock { $0 }.first ?? 0 > first.seen.withLock { $0 }.first ?? 0)
    }

    @Test("abort discards the reports not yet delivered")
    func abortDiscards() async throws {
        let gate = DispatchSemaphore(value: 0)
        let source = SyntheticSource(images: flatImages([50]), fps: 1000)
        let engine = ScanEngine(source: source, recognizers: [MeanLumaRecognizer()], logger: testLogger)
        let delegate = RecordingDelegate(gate: gate)
        engine.delegate = delegate
        try engine.start()
        // The delegate is blocked, so reports pile up in the delivery queue.
        #expect(try await eventually { engine.statistics.reports >= 50 })
        engine.abortScanning()
        gate.signal()
        engine.stop()
        await engine.finished()
        let statistics = engine.statistics
        #expect(statistics.eventsDropped > 0, "undelivered reports were discarded")
        let events = lifecycleEvents(delegate)
        #expect(events.contains(.scanningAborted))
        #expect(events.last == .stopped(.requested))
        #expect(delegate.reports.count < Int(statistics.reports))
    }

    @Test("detections carry pixel and normalised polygons, and are emitted when the distance status changes")
    func detections() async throws {
        final class Locator: Recognizer, @unchecked Sendable {
            let id = "locator"
            func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
                // The frame's brightness says how wide the "code" is: 10 → 5 %, 100 → 50 %, 200 → 95 %.
                let widths: [Int: Double] = [10: 16, 100: 160, 200: 304]
                let width = widths[Int(luma[0, 0])] ?? 0
                let polygon = [Point(x: 0, y: 0), Point(x: width, y: 0), Point(x: width, y: 20), Point(x: 0, y: 20)]
                reports.append(
                    ScanReport(.inProgress, .unreadable, recognizerID: id, frame: metadata, polygon: polygon))
            }
            func reset() {}
        }
        let source = SyntheticSource(
            images: flatImages([10, 100, 200], width: 320, height: 240), schedule: .script([0, 0, 1, 1, 1, 2, 2, 0]))
        let engine = ScanEngine(source: source, recognizers: [Locator()], logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        let stream = engine.events
        let streamed = Task { () -> [Detection] in
            var detections: [Detection] = []
            for await event in stream {
                if case .detection(let detection) = event { detections.append(detection) }
            }
            return detections
        }
        try engine.start()
        await engine.finished()
        let detections = await streamed.value
        #expect(detections.map(\.distance) == [.tooFar, .ok, .tooClose, .tooFar])
        #expect(detections.map(\.frameIndex) == [0, 2, 5, 7])
        #expect(detections[1].polygon[1] == Point(x: 160, y: 0))
        #expect(detections[1].normalizedPolygon[2] == Point(x: 0.5, y: 20.0 / 240.0))
    }
}
