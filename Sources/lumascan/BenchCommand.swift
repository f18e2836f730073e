import ArgumentParser
import Foundation
import Logging
import LumaScan
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `lumascan bench`: how fast LumaScan reads frames on this machine, and how much faster than raw zbar.
///
/// Two passes over the same frames:
/// 1. The engine at full speed (or paced with `--fps`): the frames go through the ring, the recognizer and delivery
///    on the engine's threads, and the command measures frames per second, the recognizer's time per frame
///    (p50/p90/p99), capture-to-report latency, the engine's overhead, CPU use, peak memory and drops.
/// 2. The baseline: for the first `--baseline-frames` frames, read directly from a fresh source, the recognizer and
///    raw zbar (``ZBarBaseline``: zbar_scan_image with zbar's defaults) take turns on the same luma buffer, so their
///    ratio comes from one run under the same load.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure recognizer throughput on this machine, against raw zbar on the same frames.",
        discussion: """
            Frames come from --input (an image file or a folder, read as a camera stream) or are generated \
            (--synthetic WxH: an EAN-13, a QR code and no code, 10 frames each in turn, on a textured background \
            with sensor noise by default). The engine runs at full speed (every frame processed) unless --fps paces \
            the synthetic source like a live camera, which then drops frames when recognition falls behind. Prints \
            a summary, or one JSON object with --json. A progress bar goes to stderr when it is a terminal.
            """)

    @Option(help: "An image file or a folder of images to read frames from.")
    var input: String?

    @Option(help: "Generate frames of this size (WxH); the default when no --input is given is 1920x1080.")
    var synthetic: String?

    @Option(help: "Synthetic frames' background: flat, textured or noisy (textured with noise σ 4).")
    var background: String = "noisy"

    @Option(help: "The recognizer to measure: barcode, secure-qr or meter.")
    var recognizer: String = "barcode"

    @Option(help: "Symbologies the barcode recognizer reads, comma-separated (default: all).")
    var symbologies: String?

    @Option(help: "Frames to run through the engine.")
    var frames: Int = 300

    @Option(help: "Frames on which the recognizer is compared with raw zbar (0 skips the comparison).")
    var baselineFrames: Int = 30

    @Option(help: "Pace the synthetic source at this frame rate, as a live camera (frames may be dropped).")
    var fps: Double?

    @Flag(help: "Print one JSON object instead of a summary.")
    var json = false

    @Flag(help: "Do not draw a progress bar on stderr.")
    var noProgress = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if input != nil && synthetic != nil { throw ValidationError("--input and --synthetic exclude each other") }
        if let synthetic, parseSize(synthetic) == nil {
            throw ValidationError("--synthetic: '\(synthetic)' is not WxH")
        }
        if let size = synthetic.flatMap(parseSize),
            size.width < 64 || size.height < 64 || size.width > 8192
                || size.height > 8192
        {
            throw ValidationError("--synthetic: \(size.width)x\(size.height) is outside 64x64...8192x8192")
        }
        if BenchBackground(rawValue: background) == nil {
            throw ValidationError("--background: '\(background)' is not one of flat, textured, noisy")
        }
        if !["barcode", "secure-qr", "meter"].contains(recognizer) {
            throw ValidationError("--recognizer: '\(recognizer)' is not one of barcode, secure-qr, meter")
        }
        if frames < 1 || frames > 1_000_000 { throw ValidationError("--frames: \(frames) is outside 1...1000000") }
        if baselineFrames < 0 { throw ValidationError("--baseline-frames: must be 0 or more") }
        if let fps, !(fps > 0 && fps <= 1000) { throw ValidationError("--fps: must be above 0 and at most 1000") }
        if fps != nil && input != nil { throw ValidationError("--fps paces synthetic frames only") }
        _ = try parsedSymbologies()
    }

    func run() throws {
        guard recognizer == "barcode" else {
            throw CommandFailure(
                status: ExitStatus.badArguments,
                message: "bench: the \(recognizer) recognizer is not available yet; only barcode can be measured")
        }
        let logger = try logging.makeLogger(label: "lumascan.bench")
        var configuration = BarcodeConfiguration()
        configuration.symbologies = try parsedSymbologies()
        func makeRecognizer() throws -> BarcodeRecognizer {
            do {
                return try BarcodeRecognizer(configuration: configuration, logger: logger)
            } catch {
                throw CommandFailure(status: ExitStatus.badArguments, message: "\(error)")
            }
        }

        let frameSource: BenchFrameSource
        if let input {
            frameSource = .files(input)
        } else {
            let size = synthetic.flatMap(parseSize) ?? Size(width: 1920, height: 1080)
            let kind = BenchBackground(rawValue: background) ?? .noisy
            let codes: [BenchCode] = configuration.symbologies == [.qrCode] ? [.qr, .none] : [.ean13, .qr, .none]
            let images = codes.map {
                BenchFrames.image(width: size.width, height: size.height, background: kind, code: $0)
            }
            frameSource = .synthetic(images, description: "\(size.width)x\(size.height) \(kind.rawValue)")
        }

        let progress = BenchProgress(enabled: !noProgress && isatty(STDERR_FILENO) == 1)
        defer { progress.finish() }

        // Pass 1: the engine.
        progress.begin("engine", total: frames)
        let source = frameSource.make(frames: frames, fps: fps, logger: logger)
        let timed = TimingRecognizer(try makeRecognizer(), capacity: frames, progress: progress)
        let delegate = BenchDelegate(capacity: frames)
        let engine = ScanEngine(
            source: source, recognizers: [timed], options: .init(frameLimit: frames), logger: logger)
        engine.delegate = delegate
        let usageBefore = ResourceUsage.now()
        let started = MonotonicInstant.now()
        do {
            try engine.start()
        } catch {
            throw CommandFailure(status: ExitStatus.deviceUnavailable, message: "\(error)")
        }
        engine.waitUntilFinished()
        let wall = MonotonicInstant.now().since(started)
        let usage = ResourceUsage.now().since(usageBefore)
        let statistics = engine.statistics
        if case .error(let message) = delegate.stopReason {
            throw CommandFailure(status: ExitStatus.failed, message: message)
        }
        guard statistics.framesProcessed > 0, let format = delegate.format else {
            throw CommandFailure(status: ExitStatus.failed, message: "bench: no frame was processed")
        }

        // Pass 2: the same frames, the recognizer and raw zbar in turn.
        let comparison = try compare(
            source: frameSource.make(frames: min(frames, baselineFrames), fps: nil, logger: logger),
            recognizer: try makeRecognizer(), symbologies: configuration.symbologies, progress: progress)
        progress.finish()

        let result = BenchResult(
            recognizer: recognizer, source: frameSource.description, format: format,
            symbologies: configuration.symbologies, framesRequested: frames, statistics: statistics,
            wallSeconds: wall.milliseconds / 1000, paced: fps, recognizerNanoseconds: timed.nanoseconds,
            steadyOverheadNanoseconds: timed.steadyOverhead(from: min(10, timed.nanoseconds.count / 4)),
            latencies: delegate.latencies, usage: usage, comparison: comparison)
        if json {
            print(result.json())
        } else {
            print(result.summary())
        }
    }

    /// Reads up to `frames` frames from `source` directly (no engine) and times the recognizer and raw zbar on each.
    private func compare(
        source: any FrameSource, recognizer: BarcodeRecognizer, symbologies: [Symbology], progress: BenchProgress
    ) throws -> BenchComparison? {
        guard baselineFrames > 0 else { return nil }
        let all = Set(symbologies) == Set(Symbology.allCases)
        let zbar: ZBarBaseline
        do {
            zbar = try ZBarBaseline(symbologies: all ? nil : symbologies)
        } catch {
            throw CommandFailure(status: ExitStatus.failed, message: "\(error)")
        }
        do {
            try source.start()
        } catch {
            throw CommandFailure(status: ExitStatus.deviceUnavailable, message: "\(error)")
        }
        defer { source.stop() }
        progress.begin("zbar baseline", total: min(frames, baselineFrames))
        var comparison = BenchComparison()
        var extractor: LumaExtractor?
        var reports: [ScanReport] = []
        reports.reserveCapacity(16)
        var ours: Set<String> = []
        var theirs: Set<String> = []
        while comparison.frames < min(frames, baselineFrames) {
            let frame: DequeuedFrame
            do {
                guard let next = try source.dequeue(timeout: .seconds(1)) else { continue }
                frame = next
            } catch is FrameSourceEnd {
                break
            }
            defer { try? source.requeue(frame.bufferIndex) }
            if extractor?.format != frame.metadata.format {
                extractor = LumaExtractor(format: frame.metadata.format, sourceName: source.name)
            }
            guard let extractor,
                let luma = try? extractor.luma(
                    of: source.bytes(of: frame.bufferIndex), bytesUsed: frame.metadata.bytesUsed)
            else { continue }
            reports.removeAll(keepingCapacity: true)
            let start = MonotonicInstant.now()
            recognizer.process(luma, metadata: frame.metadata, into: &reports)
            let middle = MonotonicInstant.now()
            zbar.scan(luma)
            let end = MonotonicInstant.now()
            comparison.lumascanNanoseconds += middle.nanoseconds - start.nanoseconds
            comparison.zbarNanoseconds += end.nanoseconds - middle.nanoseconds
            comparison.frames += 1
            for report in reports where report.reportType == .completedResult {
                ours.insert("\(report.symbology?.rawValue ?? "?"):\(report.text ?? "")")
            }
            for code in zbar.results where code.symbology.map(symbologies.contains) ?? false {
                theirs.insert("\(code.symbology?.rawValue ?? "?"):\(code.text)")
            }
            progress.advance()
        }
        comparison.lumascanCodes = ours.count
        comparison.zbarCodes = theirs.count
        return comparison.frames > 0 ? comparison : nil
    }

    private func parsedSymbologies() throws -> [Symbology] {
        guard let symbologies else { return Symbology.allCases }
        return try symbologies.split(separator: ",").map { name in
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let symbology = Symbology(rawValue: trimmed) else {
                throw ValidationError(
                    "--symbologies: '\(trimmed)' is not one of \(Symbology.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return symbology
        }
    }
}

/// Where bench frames come from; each pass makes a fresh source, so both passes see the same frames.
enum BenchFrameSource {
    case files(String)
    case synthetic([LumaImage], description: String)

    var description: String {
        switch self {
        case .files(let path): path
        case .synthetic(_, let description): "synthetic \(description)"
        }
    }

    /// A source of `frames` frames: finite (every frame processed), or for synthetic frames paced at `fps`, live.
    func make(frames: Int, fps: Double?, logger: Logger) -> any FrameSource {
        switch self {
        case .files(let path):
            return ImageFileSource(path: path, logger: logger)
        case .synthetic(let images, _):
            // Ten frames of each image in turn: a code held in view for a moment, then the next.
            return SyntheticSource(
                name: "synthetic", images: images, schedule: .cycle(framesPerImage: 10),
                frameCount: fps == nil ? frames : nil, fps: fps)
        }
    }
}

/// What the baseline pass measured.
struct BenchComparison {
    var frames = 0
    var lumascanNanoseconds: UInt64 = 0
    var zbarNanoseconds: UInt64 = 0
    var lumascanCodes = 0
    var zbarCodes = 0

    var lumascanMilliseconds: Double { Double(lumascanNanoseconds) / 1e6 / Double(max(1, frames)) }
    var zbarMilliseconds: Double { Double(zbarNanoseconds) / 1e6 / Double(max(1, frames)) }
    /// How many times faster than zbar the recognizer is.
    var ratio: Double { Double(zbarNanoseconds) / Double(max(1, lumascanNanoseconds)) }
}

/// Everything `lumascan bench` reports.
struct BenchResult {
    var recognizer: String
    var source: String
    var format: FrameFormat
    var symbologies: [Symbology]
    var framesRequested: Int
    var statistics: ScanStatistics
    var wallSeconds: Double
    var paced: Double?
    var recognizerNanoseconds: [UInt64]
    var steadyOverheadNanoseconds: Double?
    var latencies: [UInt64]
    var usage: ResourceUsage
    var comparison: BenchComparison?

    var framesPerSecond: Double { Double(statistics.framesProcessed) / max(wallSeconds, 1e-9) }
    var drops: UInt64 { statistics.framesDroppedByRing + statistics.framesDroppedByDriver }
    var cpuPercent: Double { 100 * usage.cpuSeconds / max(wallSeconds, 1e-9) }

    func milliseconds(_ values: [UInt64], _ fraction: Double) -> Double { Double(percentile(values, fraction)) / 1e6 }

    func summary() -> String {
        let symbologyText =
            Set(symbologies) == Set(Symbology.allCases)
            ? "every symbology" : symbologies.map(\.rawValue).joined(separator: ",")
        func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
        var lines = [
            "lumascan bench: \(recognizer) recognizer (\(symbologyText)) on \(source), \(format.width)x\(format.height)"
                + " \(format.pixelFormat), \(statistics.framesProcessed) frames"
                + (paced.map { String(format: ", paced at %.1f fps", $0) } ?? ", full speed"),
            String(format: "  throughput       %.1f frames/s", framesPerSecond),
            "  recognizer       p50 \(ms(milliseconds(recognizerNanoseconds, 0.5)))   p90 "
                + "\(ms(milliseconds(recognizerNanoseconds, 0.9)))   p99 \(ms(milliseconds(recognizerNanoseconds, 0.99)))"
                + " per frame",
            "  capture-report   p50 \(ms(milliseconds(latencies, 0.5)))   p90 \(ms(milliseconds(latencies, 0.9)))   "
                + "p99 \(ms(milliseconds(latencies, 0.99)))",
        ]
        if let steadyOverheadNanoseconds {
            lines.append("  engine overhead  \(ms(steadyOverheadNanoseconds / 1e6)) per frame (recognition thread)")
        }
        lines += [
            String(
                format: "  CPU              %.0f %% (%.2f s user, %.2f s system)", cpuPercent, usage.userSeconds,
                usage.systemSeconds),
            String(format: "  peak memory      %.1f MiB", Double(usage.peakResidentBytes) / 1_048_576),
            "  drops            \(drops) (ring \(statistics.framesDroppedByRing), driver "
                + "\(statistics.framesDroppedByDriver)), corrupt \(statistics.framesCorrupt)",
        ]
        if let comparison {
            lines.append(
                String(format: "  vs raw zbar      %.1fx faster: ", comparison.ratio)
                    + "\(ms(comparison.lumascanMilliseconds)) vs \(ms(comparison.zbarMilliseconds)) per frame on the "
                    + "same \(comparison.frames) frames; codes read \(comparison.lumascanCodes) vs \(comparison.zbarCodes)"
            )
        }
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        func percentiles(_ values: [UInt64]) -> [String: Any] {
            ["p50": milliseconds(values, 0.5), "p90": milliseconds(values, 0.9), "p99": milliseconds(values, 0.99)]
        }
        var object: [String: Any] = [
            "schemaVersion": 1,
            "recognizer": recognizer,
            "symbologies": symbologies.map(\.rawValue),
            "source": source,
            "pixelFormat": format.pixelFormat.description,
            "width": format.width,
            "height": format.height,
            "framesRequested": framesRequested,
            "framesCaptured": Int(statistics.framesCaptured),
            "framesProcessed": Int(statistics.framesProcessed),
            "seconds": wallSeconds,
            "framesPerSecond": framesPerSecond,
            "msPerFrame": percentiles(recognizerNanoseconds),
            "captureToReportMs": percentiles(latencies),
            "cpuPercent": cpuPercent,
            "cpuUserSeconds": usage.userSeconds,
            "cpuSystemSeconds": usage.systemSeconds,
            "peakMemoryBytes": usage.peakResidentBytes,
            "drops": Int(drops),
            "droppedByRing": Int(statistics.framesDroppedByRing),
            "droppedByDriver": Int(statistics.framesDroppedByDriver),
            "corrupt": Int(statistics.framesCorrupt),
        ]
        if let paced { object["fps"] = paced }
        if let steadyOverheadNanoseconds { object["engineOverheadMs"] = steadyOverheadNanoseconds / 1e6 }
        if let comparison {
            object["zbar"] = [
                "frames": comparison.frames,
                "ratio": comparison.ratio,
                "lumascanMsPerFrame": comparison.lumascanMilliseconds,
                "zbarMsPerFrame": comparison.zbarMilliseconds,
                "lumascanCodesRead": comparison.lumascanCodes,
                "zbarCodesRead": comparison.zbarCodes,
            ]
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The value at `fraction` (0...1) of `values`, nearest rank; 0 for no values.
func percentile(_ values: [UInt64], _ fraction: Double) -> UInt64 {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(sorted.count - 1, max(0, rank))]
}

/// Wraps the recognizer under test and records each frame's time, without allocating per frame.
final class TimingRecognizer: Recognizer, @unchecked Sendable {
    // SAFETY (Sendable): `process` and `reset` run on the engine's recognition thread only; the recorded values are
    // read after the engine finished (its threads are joined first).
    var id: String { base.id }
    private(set) var nanoseconds: [UInt64] = []
    private var starts: [UInt64] = []
    private let base: any Recognizer
    private let progress: BenchProgress

    init(_ base: any Recognizer, capacity: Int, progress: BenchProgress) {
        self.base = base
        self.progress = progress
        nanoseconds.reserveCapacity(capacity)
        starts.reserveCapacity(capacity)
    }

    func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        let start = MonotonicInstant.now()
        base.process(luma, metadata: metadata, into: &reports)
        let end = MonotonicInstant.now()
        if nanoseconds.count < nanoseconds.capacity {
            starts.append(start.nanoseconds)
            nanoseconds.append(end.nanoseconds - start.nanoseconds)
        }
        progress.advance()
    }

    func reset() { base.reset() }

    /// The recognition thread's time per frame not spent in the recognizer, from frame `first` to the last: the start
    /// of one frame to the start of the next, minus the recognizer's time. `nil` with too few frames.
    func steadyOverhead(from first: Int) -> Double? {
        let last = starts.count - 1
        guard last > first else { return nil }
        let elapsed = Double(starts[last] - starts[first])
        let recognizer = Double(nanoseconds[first..<last].reduce(0, +))
        return max(0, elapsed - recognizer) / Double(last - first)
    }
}

/// Records capture-to-report latency (one per frame) and how the engine stopped.
final class BenchDelegate: ScanEngineDelegate, @unchecked Sendable {
    // SAFETY (Sendable): called on the engine's one delivery thread; read after the engine finished.
    private(set) var latencies: [UInt64] = []
    private(set) var stopReason: StopReason?
    private(set) var format: FrameFormat?
    private var lastFrame: UInt64?

    init(capacity: Int) { latencies.reserveCapacity(capacity) }

    func scanEngine(_ engine: ScanEngine, didStartOn source: String, format: FrameFormat) { self.format = format }

    func scanEngine(_ engine: ScanEngine, didReport report: ScanReport) {
        guard report.frameIndex != lastFrame else { return }
        lastFrame = report.frameIndex
        if latencies.count < latencies.capacity {
            latencies.append(MonotonicInstant.now().since(report.captureTime).nanosecondsClamped)
        }
    }

    func scanEngine(_ engine: ScanEngine, didStop reason: StopReason) { stopReason = reason }
}

/// CPU time and peak memory of this process (`getrusage`).
struct ResourceUsage {
    var userSeconds: Double
    var systemSeconds: Double
    /// The process's peak resident set so far (Linux reports it in KiB).
    var peakResidentBytes: Int

    var cpuSeconds: Double { userSeconds + systemSeconds }

    static func now() -> ResourceUsage {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ResourceUsage(
            userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime),
            peakResidentBytes: Int(usage.ru_maxrss) * 1024)
    }

    /// CPU time since `earlier`; the peak is this reading's.
    func since(_ earlier: ResourceUsage) -> ResourceUsage {
        ResourceUsage(
            userSeconds: userSeconds - earlier.userSeconds, systemSeconds: systemSeconds - earlier.systemSeconds,
            peakResidentBytes: peakResidentBytes)
    }
}

/// A progress bar on stderr, redrawn by its own thread four times a second while a phase runs.
final class BenchProgress: @unchecked Sendable {
    // SAFETY (Sendable): the counters are atomics, the label is behind a mutex.
    private let enabled: Bool
    private let done = Atomic<Int>(0)
    private let total = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)
    private let label = Mutex<String>("")
    private var thread: Thread?

    init(enabled: Bool) { self.enabled = enabled }

    /// Starts (or switches to) a phase of `total` steps.
    func begin(_ phase: String, total steps: Int) {
        guard enabled else { return }
        label.withLock { $0 = phase }
        done.store(0, ordering: .relaxed)
        total.store(steps, ordering: .relaxed)
        guard thread == nil else { return }
        running.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                draw()
                usleep(250_000)
            }
        }
        thread.name = "lumascan-progress"
        self.thread = thread
        thread.start()
    }

    /// Counts one step (from any thread).
    func advance() {
        if enabled { done.add(1, ordering: .relaxed) }
    }

    /// Stops drawing and clears the line.
    func finish() {
        guard enabled, running.exchange(false, ordering: .relaxed) else { return }
        usleep(260_000)
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    private func draw() {
        let steps = max(1, total.load(ordering: .relaxed))
        let count = min(steps, done.load(ordering: .relaxed))
        let width = 30
        let filled = count * width / steps
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let phase = label.withLock { $0 }
        FileHandle.standardError.write(Data("\r\u{1B}[K[\(bar)] \(count)/\(steps) \(phase)".utf8))
    }
}

// MARK: - Synthetic frames
//
// The same frames as the Benchmarks package's BenchmarkFrames (Scenes.swift, Codes.swift), so that `lumascan bench
// --synthetic` and `swift package benchmark` measure the same pixels. (The executable cannot share a target with the
// nested Benchmarks package; a public generator in LumaScanCapture would let both use one copy.)

/// Synthetic frames' backgrounds.
enum BenchBackground: String {
    case flat, textured, noisy
}

/// The code drawn into a synthetic frame.
enum BenchCode {
    case none, ean13, qr
}

enum BenchFrames {
    static let ean13Payload = "400638133393"
    static let qrText = "https://lumascan.example/bench?id=42"
    static let noiseSigma = 4.0

    /// A frame with `code` (or none) centred at 45 % of the width and 55 % of the height: EAN-13 modules
    /// `max(2, height / 240)` px wide, QR modules `max(3, height / 180)` px; blurred (σ 0.7), then noise for `noisy`.
    static func image(width: Int, height: Int, background: BenchBackground, code: BenchCode) -> LumaImage {
        var canvas = BenchCanvas(width: width, height: height, fill: 200)
        let seed = UInt64(width * 7919 + height)
        if background != .flat { canvas.texture(seed: seed) }
        let centre = (x: Double(width) * 0.45, y: Double(height) * 0.55)
        switch code {
        case .none:
            break
        case .ean13:
            let module = max(2, height / 240)
            let modules = ean13(ean13Payload)
            let quiet = 11
            let codeWidth = (modules.count + 2 * quiet) * module
            let barHeight = 50 * module
            let left = Int(centre.x) - codeWidth / 2
            let top = Int(centre.y) - barHeight / 2
            canvas.fill(x: left, y: top - 2 * module, width: codeWidth, height: barHeight + 4 * module, value: 250)
            for (index, bar) in modules.enumerated() where bar {
                canvas.fill(x: left + (quiet + index) * module, y: top, width: module, height: barHeight, value: 20)
            }
        case .qr:
            let module = max(3, height / 180)
            guard let (size, modules) = qr(qrText) else { preconditionFailure("the QR text fits version 3-M") }
            let quiet = 4
            let side = (size + 2 * quiet) * module
            let left = Int(centre.x) - side / 2
            let top = Int(centre.y) - side / 2
            canvas.fill(x: left, y: top, width: side, height: side, value: 250)
            for y in 0..<size {
                for x in 0..<size where modules[y * size + x] {
                    canvas.fill(
                        x: left + (quiet + x) * module, y: top + (quiet + y) * module, width: module, height: module,
                        value: 20)
                }
            }
        }
        canvas.blur(sigma: 0.7)
        if background == .noisy { canvas.addNoise(sigma: noiseSigma, seed: seed ^ 0x5EED) }
        return LumaImage(width: width, height: height, pixels: canvas.pixels)
    }

    /// The modules of the EAN-13 for 12 digits (check digit computed), without quiet zones; `true` is a bar.
    static func ean13(_ payload: String) -> [Bool] {
        let digits = payload.compactMap { $0.wholeNumberValue }
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() { sum += digit * (offset % 2 == 0 ? 3 : 1) }
        let all = digits + [(10 - sum % 10) % 10]
        let setA = [
            "0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011",
            "0110111", "0001011",
        ]
        let setC = setA.map { String($0.map { $0 == "0" ? "1" : "0" }) }
        let setB = setC.map { String($0.reversed()) }
        let parity = [
            "AAAAAA", "AABABB", "AABBAB", "AABBBA", "ABAABB", "ABBAAB", "ABBBAA", "ABABAB", "ABABBA",
            "ABBABA",
        ]
        var pattern = "101"
        for (index, character) in parity[all[0]].enumerated() {
            pattern += character == "A" ? setA[all[index + 1]] : setB[all[index + 1]]
        }
        pattern += "01010"
        for index in 7...12 { pattern += setC[all[index]] }
        pattern += "101"
        return pattern.map { $0 == "1" }
    }

    /// A QR code's module grid (row by row, `true` dark, no quiet zone) for `text` of at most 42 UTF-8 bytes:
    /// versions 1–3, error correction M, byte mode, mask 0 (ISO/IEC 18004).
    static func qr(_ text: String) -> (size: Int, modules: [Bool])? {
        let bytes = Array(text.utf8)
        let versions = [(1, 26, 10), (2, 44, 16), (3, 70, 26)]  // (version, codewords, error-correction codewords)
        guard let (version, total, ecCount) = versions.first(where: { $0.1 - $0.2 - 2 >= bytes.count }) else {
            return nil
        }
        let dataCount = total - ecCount
        var bits: [Bool] = []
        func append(_ value: Int, _ length: Int) {
            for shift in stride(from: length - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, 8)
        for byte in bytes { append(Int(byte), 8) }
        append(0, min(4, dataCount * 8 - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var codewords: [UInt8] = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<(start + 8)].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < dataCount {
            codewords.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        codewords += reedSolomonRemainder(codewords, degree: ecCount)

        let size = 17 + 4 * version
        var modules = [Bool](repeating: false, count: size * size)
        var function = [Bool](repeating: false, count: size * size)
        func set(_ x: Int, _ y: Int, _ dark: Bool) {
            modules[y * size + x] = dark
            function[y * size + x] = true
        }
        for i in 0..<size {
            set(6, i, i % 2 == 0)
            set(i, 6, i % 2 == 0)
        }
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(cx + dx) && (0..<size).contains(cy + dy) {
                    let distance = max(abs(dx), abs(dy))
                    set(cx + dx, cy + dy, distance != 2 && distance != 4)
                }
            }
        }
        if version > 1 {
            let centre = size - 7
            for dy in -2...2 {
                for dx in -2...2 { set(centre + dx, centre + dy, max(abs(dx), abs(dy)) != 1) }
            }
        }
        let format = 0  // level M (00), mask 0
        var remainder = format
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let formatBits = (format << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (formatBits >> index) & 1 == 1 }
        for i in 0..<6 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for column in 0..<2 {
                    let x = right - column
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    if !function[y * size + x] && index < codewords.count * 8 {
                        modules[y * size + x] = (codewords[index >> 3] >> (7 - (index & 7))) & 1 == 1
                        index += 1
                    }
                }
            }
            right -= 2
        }
        for y in 0..<size {
            for x in 0..<size where !function[y * size + x] && (x + y) % 2 == 0 { modules[y * size + x].toggle() }
        }
        return (size, modules)
    }

    static func reedSolomonRemainder(_ data: [UInt8], degree: Int) -> [UInt8] {
        func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
            var z = 0
            for shift in stride(from: 7, through: 0, by: -1) {
                z = (z << 1) ^ ((z >> 7) * 0x11D)
                z ^= Int((y >> UInt8(shift)) & 1) * Int(x)
            }
            return UInt8(z)
        }
        var divisor = [UInt8](repeating: 0, count: degree)
        divisor[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                divisor[j] = multiply(divisor[j], root)
                if j + 1 < degree { divisor[j] ^= divisor[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        var result = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in 0..<degree { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }
}

/// A grey image being drawn (see BenchFrames).
struct BenchCanvas {
    let width: Int
    let height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, fill: UInt8) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: fill, count: width * height)
    }

    /// A gradient from 150 to 215, twelve soft grey blobs and a row of dark marks like a line of print, blurred
    /// (σ 3) as out-of-focus surroundings are.
    mutating func texture(seed: UInt64) {
        for y in 0..<height {
            for x in 0..<width {
                let t = (Double(x) / Double(max(1, width - 1)) + Double(y) / Double(max(1, height - 1))) / 2
                pixels[y * width + x] = UInt8(150 + 65 * t)
            }
        }
        var random = BenchRandom(seed: seed)
        for _ in 0..<12 {
            let cx = random.nextDouble() * Double(width)
            let cy = random.nextDouble() * Double(height)
            let radius = 5 + random.nextDouble() * Double(min(width, height)) / 6
            let sides = 3 + Int(random.next() % 9)
            let value = UInt8(truncatingIfNeeded: random.next() % 256)
            var polygon: [(Double, Double)] = []
            for side in 0..<sides {
                let angle = Double(side) / Double(sides) * 2 * Double.pi
                let r = radius * (0.6 + 0.4 * random.nextDouble())
                polygon.append((cx + r * cos(angle), cy + r * sin(angle)))
            }
            fill(polygon: polygon, value: value)
        }
        blur(sigma: 3)
        let markHeight = max(6, height / 40)
        var x = width / 20
        let y = height - height / 10
        while x < width * 3 / 4 {
            let markWidth = markHeight / 2 + Int(random.next() % UInt64(markHeight))
            fill(x: x, y: y, width: markWidth, height: markHeight, value: 40)
            x += markWidth + markHeight / 3 + (random.next() % 5 == 0 ? markHeight : 0)
        }
    }

    mutating func fill(x: Int, y: Int, width rectWidth: Int, height rectHeight: Int, value: UInt8) {
        // Clamped to the canvas: a code larger than a small frame is cut, never an empty or reversed range.
        let rows = max(0, y)..<max(max(0, y), min(height, y + rectHeight))
        let columns = max(0, x)..<max(max(0, x), min(width, x + rectWidth))
        for row in rows {
            for column in columns { pixels[row * width + column] = value }
        }
    }

    mutating func fill(polygon: [(Double, Double)], value: UInt8) {
        let top = max(0, Int(polygon.map(\.1).min() ?? 0))
        let bottom = min(height - 1, Int(polygon.map(\.1).max() ?? 0))
        guard top <= bottom else { return }
        for row in top...bottom {
            let y = Double(row) + 0.5
            var crossings: [Double] = []
            for index in polygon.indices {
                let (x0, y0) = polygon[index]
                let (x1, y1) = polygon[(index + 1) % polygon.count]
                if (y0 <= y && y < y1) || (y1 <= y && y < y0) {
                    crossings.append(x0 + (y - y0) / (y1 - y0) * (x1 - x0))
                }
            }
            crossings.sort()
            for pair in stride(from: 0, to: crossings.count - 1, by: 2) {
                let from = max(0, Int((crossings[pair] - 0.5).rounded(.up)))
                let to = min(width - 1, Int((crossings[pair + 1] - 0.5).rounded(.down)))
                if from <= to { for column in from...to { pixels[row * width + column] = value } }
            }
        }
    }

    mutating func blur(sigma: Double) {
        let radius = Int((3 * sigma).rounded(.up))
        var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        let (w, h) = (width, height)
        var rows = [Double](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0.0
                    for k in -radius...radius {
                        sum += kernel[k + radius] * Double(source[y * w + min(w - 1, max(0, x + k))])
                    }
                    rows[y * w + x] = sum
                }
            }
        }
        pixels.withUnsafeMutableBufferPointer { destination in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0.0
                    for k in -radius...radius { sum += kernel[k + radius] * rows[min(h - 1, max(0, y + k)) * w + x] }
                    destination[y * w + x] = UInt8(min(255, max(0, sum.rounded())))
                }
            }
        }
    }

    mutating func addNoise(sigma: Double, seed: UInt64) {
        var random = BenchRandom(seed: seed)
        for index in pixels.indices {
            let u1 = max(random.nextDouble(), 1e-12)
            let u2 = random.nextDouble()
            let z = sqrt(-2 * log(u1)) * cos(2 * Double.pi * u2)
            pixels[index] = UInt8(min(255, max(0, (Double(pixels[index]) + sigma * z).rounded())))
        }
    }
}

/// SplitMix64, so synthetic frames are the same on every run and machine.
struct BenchRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func nextDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
