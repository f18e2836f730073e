import Benchmark
import Logging
import LumaScan
import LumaScanBenchKit

/// One synthetic frame shown to a recognizer as a camera stream would show it, with a raw zbar baseline for it.
///
/// Every call is a new frame index, 33 ms after the last, so a barcode in view is reported once and then filtered as
/// a duplicate (a scanner's steady state). A recognizer that stops at a completion until reset (secure QR, meter) is
/// reset right after it, so every frame measured is analysed in full, as in continuous scanning.
public final class RecognizerStream: @unchecked Sendable {
    // SAFETY (Sendable): used by the benchmark's one thread.
    /// The frame.
    public let image: LumaImage
    /// The recognizer measured.
    public let recognizer: any Recognizer
    /// Raw zbar on the same frame.
    public let zbar: ZBarBaseline
    private let resetOnCompletion: Bool
    private var frame: UInt64 = 0
    private var reports: [ScanReport] = []

    /// Draws `scene`, makes the recognizer and the baseline (zbar's defaults, or restricted to `zbarSymbologies`),
    /// and checks that the frame is what it claims: within five frames the recognizer completes the scene's text, or
    /// on a scene without a code completes nothing. A benchmark of an unreadable frame would measure the wrong thing.
    public init(
        scene: SyntheticScene, zbarSymbologies: [Symbology]?, resetOnCompletion: Bool,
        recognizer makeRecognizer: (Logger) throws -> any Recognizer
    ) throws {
        image = try scene.image()
        let logger = Logger(label: "lumascan.benchmarks")
        recognizer = try makeRecognizer(logger)
        zbar = try ZBarBaseline(symbologies: zbarSymbologies)
        self.resetOnCompletion = resetOnCompletion
        reports.reserveCapacity(8)

        var completed: Set<String> = []
        for _ in 0..<5 {
            image.withView { process($0) }
            for report in reports where report.reportType != .inProgress { completed.insert(report.text ?? "") }
        }
        let expected: Set<String> = scene.expected.map { [$0.text] } ?? []
        precondition(completed == expected, "the \(scene) frame reads as \(completed), not \(expected)")
        recognizer.reset()
    }

    /// Lends the frame out.
    public func luma(_ body: (LumaView) -> Void) { image.withView(body) }

    /// Runs the recognizer on the next frame of the stream.
    public func process(_ luma: LumaView) {
        reports.removeAll(keepingCapacity: true)
        recognizer.process(luma, metadata: metadata(index: frame), into: &reports)
        frame += 1
        if resetOnCompletion, reports.contains(where: { $0.reportType != .inProgress }) { recognizer.reset() }
        blackHole(reports.count)
    }

    private func metadata(index: UInt64) -> FrameMetadata {
        let time = MonotonicInstant(nanoseconds: 1_000_000_000 + index * 33_333_333)
        return FrameMetadata(
            index: index, driverSequence: UInt32(truncatingIfNeeded: index), captureTime: time, dequeueTime: time,
            format: FrameFormat(pixelFormat: .grey, width: image.width, height: image.height),
            bytesUsed: image.width * image.height)
    }
}

/// The metrics of the "-vs-zbar" benchmarks.
public enum RecognizerMetrics {
    /// LumaScan's recognizer, per frame.
    public static let lumascanMicroseconds = BenchmarkMetric.custom("lumascan (µs)", useScalingFactor: false)
    /// Raw zbar, per frame.
    public static let zbarMicroseconds = BenchmarkMetric.custom("zbar (µs)", useScalingFactor: false)
    /// How many times faster than zbar, ×100.
    public static let ratio = BenchmarkMetric.custom(
        "zbar ÷ lumascan (x100)", polarity: .prefersLarger, useScalingFactor: false)
    /// Codes zbar read in the frame (LumaScan's reading is checked once, in setup).
    public static let zbarReads = BenchmarkMetric.custom(
        "zbar codes read", polarity: .prefersLarger, useScalingFactor: false)

    /// All four.
    public static let all = [lumascanMicroseconds, zbarMicroseconds, ratio, zbarReads]
}

/// Registers the two benchmarks of one recognizer on one scene:
/// - "`name`-vs-zbar" alternates the recognizer and raw zbar frame by frame and records each one's time and their
///   ratio, so the ratio comes from one run under the same machine load;
/// - "`name`" runs the recognizer alone, for the guarded metric (allocations per frame, Thresholds/) and wall clock.
///
/// Each benchmark's setup makes its own ``RecognizerStream`` with `makeStream`.
public func registerRecognizerBenchmarks(name: String, makeStream: @escaping @Sendable () throws -> RecognizerStream) {
    let paired = Benchmark.Configuration(metrics: RecognizerMetrics.all, thresholds: nil)
    Benchmark("\(name)-vs-zbar", configuration: paired) { (benchmark: Benchmark, stream: RecognizerStream) in
        stream.luma { luma in
            for _ in benchmark.scaledIterations {
                let start = MonotonicInstant.now()
                stream.process(luma)
                let middle = MonotonicInstant.now()
                let zbarCodes = stream.zbar.scan(luma)
                let end = MonotonicInstant.now()
                let ours = max(1, Int(middle.nanoseconds - start.nanoseconds))
                let theirs = Int(end.nanoseconds - middle.nanoseconds)
                benchmark.measurement(RecognizerMetrics.lumascanMicroseconds, ours / 1000)
                benchmark.measurement(RecognizerMetrics.zbarMicroseconds, theirs / 1000)
                benchmark.measurement(RecognizerMetrics.ratio, theirs * 100 / ours)
                benchmark.measurement(RecognizerMetrics.zbarReads, zbarCodes)
            }
        }
    } setup: {
        try makeStream()
    }

    Benchmark(name) { (benchmark: Benchmark, stream: RecognizerStream) in
        stream.luma { luma in
            for _ in benchmark.scaledIterations { stream.process(luma) }
        }
    } setup: {
        try makeStream()
    }
}

/// The default configuration of the recognizer suites: wall clock in µs and allocations, whose p90 per frame is
/// guarded by the committed thresholds (Thresholds/). A p90 above a suite's threshold by more than `mallocSlack` is a
/// regression: 0 where every allocation is the recognizer's own or zbar's and repeats exactly frame after frame;
/// a few where OpenCV's functions allocate internally and their count moves by one or two between runs.
public func recognizerSuiteConfiguration(maxIterations: Int = 40, mallocSlack: Int = 0) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
        units: Dictionary(uniqueKeysWithValues: RecognizerMetrics.all.map { ($0, .count) }), warmupIterations: 2,
        maxDuration: .seconds(2), maxIterations: maxIterations,
        thresholds: [.mallocCountTotal: BenchmarkThresholds(absolute: [.p90: mallocSlack])])
}
