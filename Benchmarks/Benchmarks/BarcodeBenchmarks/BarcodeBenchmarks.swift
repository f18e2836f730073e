// Barcode: LumaScan's BarcodeRecognizer against raw zbar (zbar_scan_image with its default configuration, through
// ZBarBaseline) on the same luma buffer, at 640x480, 1280x720 and 1920x1080, on flat, textured and noisy (σ 4)
// backgrounds, with one code and without, with every symbology enabled (the code is an EAN-13) and with QR only (the
// code is a QR code, and zbar is restricted to QR as well).
//
// Two benchmarks per frame:
// - "<config> <frame> vs zbar" alternates the two readers frame by frame and records each one's time (custom metrics
//   `lumascan (µs)` and `zbar (µs)`) and their ratio (`zbar ÷ lumascan (x100)`), so the ratio comes from one run
//   under the same machine load.
// - "<config> <frame>" runs LumaScan's recognizer alone, for the guarded metric, allocations per frame
//   (Thresholds/), and wall clock for the record.
import Benchmark
import BenchmarkFrames
import LumaScan
import Logging

let benchmarks: @Sendable () -> Void = {
    let pairedMetrics: [BenchmarkMetric] = [
        BarcodeMetrics.lumascanMicroseconds, BarcodeMetrics.zbarMicroseconds, BarcodeMetrics.ratio,
        BarcodeMetrics.zbarReads,
    ]
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
        units: Dictionary(uniqueKeysWithValues: pairedMetrics.map { ($0, .count) }), warmupIterations: 2,
        maxDuration: .seconds(2), maxIterations: 40,
        thresholds: [.mallocCountTotal: BenchmarkThresholds(absolute: [.p90: 0])])

    for config in BarcodeBenchConfig.allCases {
        for (width, height) in Scenes.sizes {
            for background in SceneBackground.allCases {
                for code in [config.code, .none] {
                    let spec = SceneSpec(width: width, height: height, background: background, code: code)

                    Benchmark("\(config.rawValue) \(spec) vs zbar", configuration: .init(metrics: pairedMetrics, thresholds: nil)) {
                        (benchmark: Benchmark, state: BarcodeState) in
                        state.luma { luma in
                            for _ in benchmark.scaledIterations {
                                let start = MonotonicInstant.now()
                                state.process(luma)
                                let middle = MonotonicInstant.now()
                                let zbarCodes = state.zbar.scan(luma)
                                let end = MonotonicInstant.now()
                                let ours = max(1, Int(middle.nanoseconds - start.nanoseconds))
                                let theirs = Int(end.nanoseconds - middle.nanoseconds)
                                benchmark.measurement(BarcodeMetrics.lumascanMicroseconds, ours / 1000)
                                benchmark.measurement(BarcodeMetrics.zbarMicroseconds, theirs / 1000)
                                benchmark.measurement(BarcodeMetrics.ratio, theirs * 100 / ours)
                                benchmark.measurement(BarcodeMetrics.zbarReads, zbarCodes)
                            }
                        }
                    } setup: {
                        try BarcodeState(config: config, spec: spec)
                    }

                    Benchmark("\(config.rawValue) \(spec)") { (benchmark: Benchmark, state: BarcodeState) in
                        state.luma { luma in
                            for _ in benchmark.scaledIterations { state.process(luma) }
                        }
                    } setup: {
                        try BarcodeState(config: config, spec: spec)
                    }
                }
            }
        }
    }
}

/// The recognizer configurations measured.
enum BarcodeBenchConfig: String, CaseIterable, Sendable {
    /// Every symbology (the default configuration); zbar with its defaults.
    case all
    /// QR only; zbar restricted to QR.
    case qr

    /// The code drawn into frames with a code.
    var code: SceneCode { self == .all ? .ean13 : .qr }

    var symbologies: [Symbology] { self == .all ? Symbology.allCases : [.qrCode] }
}

enum BarcodeMetrics {
    static let lumascanMicroseconds = BenchmarkMetric.custom("lumascan (µs)", useScalingFactor: false)
    static let zbarMicroseconds = BenchmarkMetric.custom("zbar (µs)", useScalingFactor: false)
    static let ratio = BenchmarkMetric.custom(
        "zbar ÷ lumascan (x100)", polarity: .prefersLarger, useScalingFactor: false)
    /// Codes zbar read in the frame (LumaScan's read is checked once, in setup).
    static let zbarReads = BenchmarkMetric.custom("zbar codes read", polarity: .prefersLarger, useScalingFactor: false)
}

/// One frame, a streaming BarcodeRecognizer and a zbar baseline for it.
///
/// The recognizer sees the frame as a camera stream would show it: a new frame index every call, 33 ms apart, so a
/// code in view is reported once and then filtered as a duplicate, which is the steady state of a scanner.
final class BarcodeState: @unchecked Sendable {
    // SAFETY (Sendable): used by the benchmark's one thread.
    let image: LumaImage
    let recognizer: BarcodeRecognizer
    let zbar: ZBarBaseline
    let expected: (symbology: Symbology, text: String)?
    private var frame: UInt64 = 0
    private var reports: [ScanReport] = []

    init(config: BarcodeBenchConfig, spec: SceneSpec) throws {
        image = Scenes.image(spec)
        expected = Scenes.expected(spec)
        let logger = Logger(label: "lumascan.benchmarks")
        var configuration = BarcodeConfiguration()
        configuration.symbologies = config.symbologies
        recognizer = try BarcodeRecognizer(configuration: configuration, logger: logger)
        zbar = try ZBarBaseline(symbologies: config == .all ? nil : config.symbologies)
        reports.reserveCapacity(8)

        // The frame must be what it claims: LumaScan's recognizer (with no wait for consistency) reads its code, or
        // reads nothing on a frame without one. A benchmark of an unreadable frame would measure the wrong thing.
        var single = configuration
        single.consistencyCount = Dictionary(uniqueKeysWithValues: Symbology.allCases.map { ($0, 1) })
        let check = try BarcodeRecognizer(configuration: single, logger: logger)
        var found: [ScanReport] = []
        image.withView { check.process($0, metadata: metadata(index: 0), into: &found) }
        let results = found.filter { $0.reportType == .completedResult }
        if let expected {
            precondition(
                results.count == 1 && results[0].symbology == expected.symbology && results[0].text == expected.text,
                "LumaScan does not read the code of the \(spec) frame: \(results)")
        } else {
            precondition(results.isEmpty, "LumaScan reads a code in the \(spec) frame without one: \(results)")
        }
    }

    /// Lends the frame out.
    func luma(_ body: (LumaView) -> Void) { image.withView(body) }

    /// Runs the recognizer on the next frame of the stream.
    func process(_ luma: LumaView) {
        reports.removeAll(keepingCapacity: true)
        recognizer.process(luma, metadata: metadata(index: frame), into: &reports)
        frame += 1
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
