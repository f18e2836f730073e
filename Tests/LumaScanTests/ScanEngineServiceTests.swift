import LumaScan
import LumaScanTestSupport
import ServiceLifecycle
import Testing

@Suite("ScanEngine as a Service")
struct ScanEngineServiceTests {
    @Test("graceful shutdown of a ServiceGroup stops streaming, releases buffers and delivers the final event")
    func gracefulShutdown() async throws {
        let source = SyntheticSource(images: flatImages([20]), fps: 300)
        let engine = ScanEngine(source: source, recognizers: [MeanLumaRecognizer()], logger: testLogger)
        let delegate = RecordingDelegate()
        engine.delegate = delegate
        let group = ServiceGroup(services: [engine], gracefulShutdownSignals: [], logger: testLogger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(try await eventually { engine.statistics.framesProcessed >= 10 })
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let statistics = engine.statistics
        #expect(statistics.framesInFlight == 0)
        #expect(statistics.framesCaptured == statistics.framesProcessed + statistics.framesDroppedByRing)
        let events = delegate.events.withLock { $0 }
        #expect(events.suffix(2) == [.scanningStopped(.requested), .stopped(.requested)])
        #expect(Int(statistics.eventsDelivered) == events.count)
    }

    @Test("cancelling the task that runs the engine stops it")
    func cancellation() async throws {
        let source = SyntheticSource(images: flatImages([20]), fps: 300)
        let engine = ScanEngine(source: source, recognizers: [MeanLumaRecognizer()], logger: testLogger)
        let task = Task { try await engine.run() }
        #expect(try await eventually { engine.statistics.framesProcessed >= 5 })
        task.cancel()
        try await task.value
        #expect(engine.statistics.framesInFlight == 0)
    }
}
