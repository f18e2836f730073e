// Engine: a synthetic source through the frame ring, a recognizer and delivery, on the engine's own three threads.
//
// - "overhead-barcode-...": a finite source at full speed (frames are never dropped) with the barcode recognizer. A
//   TimedRecognizer records when each frame's recognizer call started and ended and the process-wide allocation
//   count, so the custom metrics give the steady state (from the 10th frame on): wall time per frame on the
//   recognition thread, the recognizer's share, the engine's overhead (the difference, absolute and in per mille of
//   the recognizer's time) and allocations per frame, in all and outside the recognizer's calls.
// - "overhead-null-recognizer-...": the same with a recognizer that only reports, on a live source (the ring drops
//   what recognition has no time for), measured over the second half of 40000 frames: the engine's own cost per
//   frame. (The first ~1024 events of an engine's life grow the `events` stream's buffer, about ten allocations in
//   all; at this frame rate the delivery thread is still doing so thousands of frames in.)
// - "latency-...": a live source paced at 30 fps with the barcode recognizer, or with the null recognizer for the
//   engine's own latency; each frame's capture-to-delivery time (the delegate's call) after the first second is one
//   sample.
import Benchmark
import BenchmarkFrames
import Logging
import LumaScan
import LumaScanBenchKit

let benchmarks: @Sendable () -> Void = {
    let custom = [
        EngineMetrics.perFrame, EngineMetrics.recognizer, EngineMetrics.overhead, EngineMetrics.overheadShare,
        EngineMetrics.mallocs, EngineMetrics.engineMallocs, EngineMetrics.latency, EngineMetrics.dropped,
    ]
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .milliseconds,
        units: Dictionary(uniqueKeysWithValues: custom.map { ($0, .count) }), warmupIterations: 1,
        maxDuration: .seconds(5), maxIterations: 10,
        // An engine run's allocations are its start-up and shutdown (threads, locks, buffers) plus, per frame, the
        // recognizer's and the event buffer's growth until it is full; thread timing moves the total by a few. A
        // per-frame allocation anywhere would add one per frame: 80 to 40000 per run.
        thresholds: [.mallocCountTotal: BenchmarkThresholds(absolute: [.p90: 20])])
    // mallocCountTotal also switches the malloc interposer's counting on, which the steady-state count reads.
    let overheadMetrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal] + custom.prefix(6)

    // The engine alone: the recognizer only reports, so a frame costs the ring, the report and its delivery. The
    // source is live (it never waits for room: the ring drops the oldest frame), so recognition is never starved by
    // the back-off a finite source's capture loop takes when the ring is full; the run stops after `frames`
    // recognised frames.
    Benchmark(
        "overhead-null-recognizer-1920x1080-live", configuration: .init(metrics: overheadMetrics, maxIterations: 20)
    ) { benchmark in
        try run(
            benchmark, spec: SyntheticScene(width: 1920, height: 1080, background: .flat, code: .none), frames: 40000,
            steadyFrom: 20000, live: true
        ) { NullRecognizer() }
    }

    for (width, height) in SyntheticScene.sizes {
        for code in [SyntheticScene.Code.ean13, .none] {
            let spec = SyntheticScene(width: width, height: height, background: .noisy, code: code)
            // About two seconds of frames per run.
            let frames = width >= 1920 ? 80 : width >= 1280 ? 150 : 300
            Benchmark("overhead-barcode-\(spec.name)", configuration: .init(metrics: overheadMetrics)) { benchmark in
                try run(benchmark, spec: spec, frames: frames, steadyFrom: 10, live: false) { barcodeRecognizer() }
            }
        }
    }

    // Capture to delivery at 30 fps: with the barcode recognizer at each size, and with the null recognizer at 1080p,
    // whose latency is the engine's own (ring, luma view, report, delivery queue and thread hand-offs).
    for (width, height) in SyntheticScene.sizes {
        let spec = SyntheticScene(width: width, height: height, background: .noisy, code: .ean13)
        latencyBenchmark("latency-30fps-barcode-\(spec.name)", spec: spec) { barcodeRecognizer() }
    }
    latencyBenchmark(
        "latency-30fps-null-recognizer-1920x1080",
        spec: SyntheticScene(width: 1920, height: 1080, background: .flat, code: .none)
    ) { NullRecognizer() }
}

/// Registers a benchmark of capture-to-delivery latency: 120 frames of `spec` from a source paced at 30 fps through
/// an engine with `recognizer`; each frame's latency after the first second is one sample.
func latencyBenchmark(_ name: String, spec: SyntheticScene, recognizer: @escaping @Sendable () -> any Recognizer) {
    Benchmark(
        name,
        configuration: .init(
            metrics: [EngineMetrics.latency, EngineMetrics.dropped], warmupIterations: 0, maxDuration: .seconds(8),
            maxIterations: 2, thresholds: nil)
    ) { benchmark in
        let image = try spec.image()
        let frames = 120
        let source = SyntheticSource(images: [image], fps: 30)
        let engine = ScanEngine(
            source: source, recognizers: [recognizer()], options: .init(frameLimit: frames), logger: logger)
        let delegate = LatencyDelegate(capacity: frames)
        engine.delegate = delegate
        do { try engine.start() } catch { fatalError("the engine did not start: \(error)") }
        engine.waitUntilFinished()
        // Skip the first second (start-up, cold caches); every later frame is one sample.
        for latency in delegate.latencies.dropFirst(30) {
            benchmark.measurement(EngineMetrics.latency, Int(latency / 1000))
        }
        let statistics = engine.statistics
        benchmark.measurement(
            EngineMetrics.dropped, Int(statistics.framesDroppedByRing + statistics.framesDroppedByDriver))
    }
}

let logger = Logger(label: "lumascan.benchmarks")

func barcodeRecognizer() -> BarcodeRecognizer {
    do { return try BarcodeRecognizer(configuration: BarcodeConfiguration(), logger: logger) } catch {
        fatalError("the barcode recognizer could not be built: \(error)")
    }
}

/// Runs `frames` frames of `spec` through an engine at full speed and records the steady state. A finite source
/// (`live` false) has every frame processed; a live one streams until `frames` frames were recognised, and the ring
/// drops the frames recognition has no time for.
func run(
    _ benchmark: Benchmark, spec: SyntheticScene, frames: Int, steadyFrom first: Int, live: Bool,
    recognizer: () -> any Recognizer
) throws {
    let image = try spec.image()
    let source = SyntheticSource(images: [image], frameCount: live ? nil : frames)
    let timed = TimedRecognizer(recognizer(), capacity: frames, allocationCount: { Mallocs.count })
    let engine = ScanEngine(source: source, recognizers: [timed], logger: logger)
    if live { timed.whenFull = { engine.stop() } }
    do { try engine.start() } catch { fatalError("the engine did not start: \(error)") }
    engine.waitUntilFinished()
    timed.whenFull = nil  // the closure holds the engine, which holds the recognizer
    let statistics = engine.statistics
    precondition(
        live || statistics.framesProcessed == UInt64(frames), "processed \(statistics.framesProcessed) of \(frames)")
    guard let steady = timed.steadyState(from: first) else { fatalError("too few frames for a steady state") }
    benchmark.measurement(EngineMetrics.perFrame, Int(steady.nanosecondsPerFrame / 1000))
    benchmark.measurement(EngineMetrics.recognizer, Int(steady.recognizerNanosecondsPerFrame / 1000))
    benchmark.measurement(EngineMetrics.overhead, Int(steady.overheadNanosecondsPerFrame))
    if steady.recognizerNanosecondsPerFrame >= 1000 {  // a share of a null recognizer's nothing means nothing
        benchmark.measurement(
            EngineMetrics.overheadShare,
            Int(1000 * steady.overheadNanosecondsPerFrame / steady.recognizerNanosecondsPerFrame))
    }
    benchmark.measurement(EngineMetrics.mallocs, Int((1000 * steady.mallocsPerFrame).rounded()))
    benchmark.measurement(EngineMetrics.engineMallocs, Int((1000 * steady.engineMallocsPerFrame).rounded()))
}

enum EngineMetrics {
    static let perFrame = BenchmarkMetric.custom("frame, recognition thread (µs)", useScalingFactor: false)
    static let recognizer = BenchmarkMetric.custom("recognizer (µs)", useScalingFactor: false)
    static let overhead = BenchmarkMetric.custom("engine overhead (ns)", useScalingFactor: false)
    static let overheadShare = BenchmarkMetric.custom("overhead (‰ of recognizer)", useScalingFactor: false)
    static let mallocs = BenchmarkMetric.custom("steady mallocs per 1000 frames", useScalingFactor: false)
    static let engineMallocs = BenchmarkMetric.custom(
        "steady mallocs per 1000 frames, engine only", useScalingFactor: false)
    static let latency = BenchmarkMetric.custom("capture to delivery (µs)", useScalingFactor: false)
    static let dropped = BenchmarkMetric.custom("frames dropped", useScalingFactor: false)
}
