import ArgumentParser
import Foundation
import Logging
import LumaScan
import LumaScanBenchKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `lumascan bench`: how fast LumaScan reads frames on this machine, and how much faster than raw zbar and raw
/// ZXing-C++.
///
/// Two passes over the same frames:
/// 1. The engine at full speed (or paced with `--fps`): the frames go through the ring, the recognizer and delivery
///    on the engine's threads, and the command measures frames per second, the recognizer's time per frame
///    (p50/p90/p99), capture-to-report latency, the engine's overhead, CPU use, peak memory and drops.
/// 2. The baselines: for the first `--baseline-frames` frames, read directly from a fresh source, the recognizer,
///    raw zbar (``ZBarBaseline``: zbar_scan_image with zbar's defaults) and raw ZXing-C++ (``ZXingBaseline``:
///    ReadBarcodes with default hints) take turns on the same luma buffer, so their ratios come from one run under
///    the same load.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract:
            "Measure recognizer throughput on this machine, against raw zbar and raw ZXing-C++ on the same frames.",
        discussion: """
            Frames come from --input (a recording, replayed as fast as possible, or an image file or a folder, read \
            as a camera stream) or are generated \
            (--synthetic WxH, LumaScan's SyntheticScene frames, 10 frames each in turn, on a textured background \
            with sensor noise by default: for barcode an EAN-13, a QR code and no code; for secure-qr a secure QR \
            code and no code; for meter a seven-segment meter in SyntheticScene.meterCutout and no meter). \
            Secure-QR and meter recognizers are reset after each completion, so every frame is analysed. Raw zbar \
            reads every symbology, or QR only for secure-qr and for --symbologies qr. \
            The engine runs at full speed (every frame processed) unless --fps paces \
            the synthetic source like a live camera, which then drops frames when recognition falls behind. Prints \
            a summary, or one JSON object with --json. A progress bar goes to stderr when it is a terminal. \
            --preview-viewers N connects N viewers to the engine's live preview (what `lumascan serve`'s \
            preview.mjpg reads) for the engine pass, so the cost of a watched preview shows in the throughput.
            """)

    @Option(
        help:
            "A recording (.\(RecordingFormat.fileExtension)), an image file or a folder of images to read frames from.")
    var input: String?

    @Option(help: "Generate frames of this size (WxH); the default when no --input is given is 1920x1080.")
    var synthetic: String?

    @Option(help: "Synthetic frames' background: flat, textured or noisy (textured with noise σ 4).")
    var background: String = "noisy"

    @Option(help: "The recognizer to measure: barcode, secure-qr or meter.")
    var recognizer: BenchRecognizer = .barcode

    @Option(help: "Symbologies the barcode recognizer reads, comma-separated (default: all).")
    var symbologies: String?

    @Option(
        help: ArgumentHelp(
            "Measure the recognizer a JSON configuration's plugin builds (a meter's cutout and mode, a barcode "
                + "plugin's symbologies) instead of --recognizer's, on --input's frames; it is reset after each "
                + "completion and raw zbar reads every symbology.",
            valueName: "file"))
    var config: String?

    @Option(help: "Frames to run through the engine.")
    var frames: Int = 300

    @Option(help: "Frames on which the recognizer is compared with raw zbar and ZXing-C++ (0 skips the comparison).")
    var baselineFrames: Int = 30

    @Option(help: "Pace the synthetic source at this frame rate, as a live camera (frames may be dropped).")
    var fps: Double?

    @Option(
        help: ArgumentHelp(
            "An issuer's key file for the secure-QR recognizer: the synthetic codes are made with the key's seed and "
                + "every completion is scored for authenticity (secureQRConfig.authenticity.keyFile).",
            valueName: "file"))
    var secureQRKeyFile: String?

    @Option(help: "Preview viewers to connect during the engine pass (0: none, so nothing is encoded).")
    var previewViewers: Int = 0

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
        if SyntheticScene.Background(rawValue: background) == nil {
            throw ValidationError("--background: '\(background)' is not one of flat, textured, noisy")
        }
        if frames < 1 || frames > 1_000_000 { throw ValidationError("--frames: \(frames) is outside 1...1000000") }
        if baselineFrames < 0 { throw ValidationError("--baseline-frames: must be 0 or more") }
        if !(0...16).contains(previewViewers) { throw ValidationError("--preview-viewers: must be 0...16") }
        if let fps, !(fps > 0 && fps <= 1000) { throw ValidationError("--fps: must be above 0 and at most 1000") }
        if fps != nil && input != nil { throw ValidationError("--fps paces synthetic frames only") }
        if config != nil && input == nil {
            throw ValidationError("--config needs --input: synthetic frames are drawn for --recognizer's own setup")
        }
        if secureQRKeyFile != nil && recognizer != .secureQR {
            throw ValidationError("--secure-qr-key-file is for --recognizer secure-qr")
        }
        _ = try parsedSymbologies()
    }

    func run() throws {
        let logger = try logging.makeLogger(label: "lumascan.bench")
        let configuration = try config.map { path throws(CommandFailure) in
            try loadConfigurationDocument(path, unreadable: ExitStatus.badArguments, invalid: ExitStatus.badArguments)
        }
        let symbologies =
            configuration == nil ? try recognizer.zbarSymbologies(barcode: parsedSymbologies()) : Symbology.allCases
        let resetOnCompletion = configuration != nil || recognizer.stopsAtCompletion
        func makeRecognizer() throws -> any Recognizer {
            do {
                if let configuration { return try configuration.makePlugin(logger: logger).recognizer }
                return try recognizer.make(symbologies: symbologies, keyFile: secureQRKeyFile, logger: logger)
            } catch {
                throw CommandFailure(status: ExitStatus.badArguments, message: "\(error)")
            }
        }

        let frameSource: BenchFrameSource
        if let input {
            frameSource = .files(input)
        } else {
            let size = synthetic.flatMap(parseSize) ?? Size(width: 1920, height: 1080)
            let kind = SyntheticScene.Background(rawValue: background) ?? .noisy
            let codes = recognizer.scenes(symbologies: symbologies)
            do {
                // With a key, the secure code carries the key's seed, so the recognizer's authenticity score runs.
                let seed = try secureQRKeyFile.map { file throws(LumaScanError) in
                    try SecureQRIssuerKey(contentsOfFile: file).seed(for: SyntheticScene.secureQRText)
                }
                let images = try codes.map { code throws(LumaScanError) in
                    try SyntheticScene(
                        width: size.width, height: size.height, background: kind, code: code,
                        secureQRSeed: seed ?? 42
                    ).image()
                }
                frameSource = .synthetic(images, description: "\(size.width)x\(size.height) \(kind.rawValue)")
            } catch {
                throw CommandFailure(status: ExitStatus.failed, message: "bench: \(error)")
            }
        }

        let progress = BenchProgress(enabled: !noProgress && isatty(STDERR_FILENO) == 1)
        defer { progress.finish() }

        // Pass 1: the engine.
        progress.begin("engine", total: frames)
        let source = frameSource.make(frames: frames, fps: fps, logger: logger)
        // Secure-QR and meter recognizers stop at a completion until reset; the bench resets them there, so that
        // every frame is analysed as in continuous scanning.
        let timed = TimedRecognizer(
            try makeRecognizer(), capacity: frames, resetOnCompletion: resetOnCompletion,
            afterFrame: { progress.advance() })
        let delegate = LatencyDelegate(capacity: frames)
        let engine = ScanEngine(
            source: source, recognizers: [timed], options: .init(frameLimit: frames), logger: logger)
        engine.delegate = delegate
        let viewers = PreviewViewers(engine.preview, count: previewViewers)
        defer { viewers.finish() }
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
        let preview = viewers.finish()
        let statistics = engine.statistics
        if case .error(let message) = delegate.stopReason {
            throw CommandFailure(status: ExitStatus.failed, message: message)
        }
        guard statistics.framesProcessed > 0, let format = delegate.format else {
            throw CommandFailure(status: ExitStatus.failed, message: "bench: no frame was processed")
        }

        // Pass 2: the same frames, the recognizer, raw zbar and raw ZXing-C++ in turn.
        let comparison = try compare(
            source: frameSource.make(frames: min(frames, baselineFrames), fps: nil, logger: logger),
            recognizer: TimedRecognizer(
                try makeRecognizer(), capacity: 0, resetOnCompletion: resetOnCompletion),
            symbologies: symbologies, progress: progress)
        progress.finish()

        let result = BenchResult(
            recognizer: recognizer, configuration: config, source: frameSource.description, format: format,
            symbologies: symbologies, framesRequested: frames, statistics: statistics,
            wallSeconds: wall.milliseconds / 1000, paced: fps, recognizerNanoseconds: timed.nanoseconds,
            steadyOverheadNanoseconds: timed.steadyState(from: min(10, timed.starts.count / 4))?
                .overheadNanosecondsPerFrame,
            latencies: delegate.latencies, usage: usage, preview: preview, comparison: comparison)
        if json {
            print(result.json())
        } else {
            print(result.summary())
        }
    }

    /// Reads up to `frames` frames from `source` directly (no engine) and times the recognizer, raw zbar and raw
    /// ZXing-C++ on each.
    private func compare(
        source: any FrameSource, recognizer: any Recognizer, symbologies: [Symbology], progress: BenchProgress
    ) throws -> BenchComparison? {
        guard baselineFrames > 0 else { return nil }
        let all = Set(symbologies) == Set(Symbology.allCases)
        let zbar: ZBarBaseline
        let zxing: ZXingBaseline
        do {
            zbar = try ZBarBaseline(symbologies: all ? nil : symbologies)
            zxing = try ZXingBaseline(symbologies: all ? nil : symbologies)
        } catch {
            throw CommandFailure(status: ExitStatus.failed, message: "\(error)")
        }
        do {
            try source.start()
        } catch {
            throw CommandFailure(status: ExitStatus.deviceUnavailable, message: "\(error)")
        }
        defer { source.stop() }
        progress.begin("zbar and ZXing-C++ baselines", total: min(frames, baselineFrames))
        var comparison = BenchComparison()
        var extractor: LumaExtractor?
        var reports: [ScanReport] = []
        reports.reserveCapacity(16)
        var ours: Set<String> = []
        var theirs: Set<String> = []
        var zxingCodes: Set<String> = []
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
            zxing.scan(luma)
            let last = MonotonicInstant.now()
            comparison.lumascanNanoseconds += middle.nanoseconds - start.nanoseconds
            comparison.zbarNanoseconds += end.nanoseconds - middle.nanoseconds
            comparison.zxingNanoseconds += last.nanoseconds - end.nanoseconds
            comparison.frames += 1
            for report in reports where report.reportType == .completedResult {
                ours.insert("\(report.symbology?.rawValue ?? "?"):\(report.text ?? "")")
            }
            for code in zbar.results where code.symbology.map(symbologies.contains) ?? false {
                theirs.insert("\(code.symbology?.rawValue ?? "?"):\(code.text)")
            }
            for code in zxing.results where code.symbology.map(symbologies.contains) ?? false {
                zxingCodes.insert("\(code.symbology?.rawValue ?? "?"):\(code.text)")
            }
            progress.advance()
        }
        comparison.lumascanCodes = ours.count
        comparison.zbarCodes = theirs.count
        comparison.zxingCodes = zxingCodes.count
        comparison.zxingAssertionFailures = zxing.assertionFailures
        return comparison.frames > 0 ? comparison : nil
    }

    private func parsedSymbologies() throws -> [Symbology] {
        guard let symbologies else { return Symbology.allCases }
        return try symbologies.split(separator: ",").map { name in
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let symbology = Symbology(rawValue: trimmed) else {
                let known = Symbology.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--symbologies: '\(trimmed)' is not one of \(known)")
            }
            return symbology
        }
    }
}

/// The recognizers `lumascan bench` measures, and what each is measured on.
enum BenchRecognizer: String, CaseIterable, ExpressibleByArgument {
    /// The barcode recognizer, on EAN-13, QR and code-free frames (QR and code-free with `--symbologies qr`).
    case barcode
    /// The secure-QR recognizer (issuer ``SyntheticScene/secureQRIssuer``), on secure-QR and code-free frames.
    case secureQR = "secure-qr"
    /// The meter recognizer (cutout ``SyntheticScene/meterCutout``), on meter and meter-free frames.
    case meter

    /// Secure-QR and meter recognizers stop at a completion until reset; the bench resets them there, so that every
    /// frame is analysed as in continuous scanning.
    var stopsAtCompletion: Bool { self != .barcode }

    /// What raw zbar is restricted to, and for the barcode recognizer what it reads: `barcode` (`--symbologies`,
    /// default all) for the barcode recognizer; QR Code for the secure-QR recognizer; everything (zbar's defaults) for
    /// the meter recognizer.
    func zbarSymbologies(barcode: [Symbology]) -> [Symbology] {
        switch self {
        case .barcode: barcode
        case .secureQR: [.qrCode]
        case .meter: Symbology.allCases
        }
    }

    /// The synthetic scenes it is measured on, in turn.
    func scenes(symbologies: [Symbology]) -> [SyntheticScene.Code] {
        switch self {
        case .barcode: symbologies == [.qrCode] ? [.qr, .none] : [.ean13, .qr, .none]
        case .secureQR: [.secureQR, .none]
        case .meter: [.meter, .none]
        }
    }

    /// A new recognizer of this kind; the barcode recognizer reads `symbologies`, the secure-QR one scores
    /// authenticity with the issuer's key in `keyFile`.
    func make(symbologies: [Symbology], keyFile: String? = nil, logger: Logger) throws -> any Recognizer {
        switch self {
        case .barcode:
            var configuration = BarcodeConfiguration()
            configuration.symbologies = symbologies
            return try BarcodeRecognizer(configuration: configuration, logger: logger)
        case .secureQR:
            return try SecureQRRecognizer(
                configuration: SecureQRConfiguration(
                    issuerPrefixes: [SyntheticScene.secureQRIssuer],
                    authenticity: SecureQRAuthenticityConfiguration(keyFile: keyFile)),
                logger: logger)
        case .meter:
            return try MeterRecognizer(cutout: SyntheticScene.meterCutout, logger: logger)
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
        case .files(let path) where RecordingFormat.isRecording(at: path):
            // As fast as possible, every frame processed; read times as capture times, so latency is measured.
            return RecordingSource(path: path, captureTimes: .dequeued, logger: logger)
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

/// A progress bar on stderr, redrawn by its own thread four times a second while a phase runs.
final class BenchProgress: @unchecked Sendable {
    // SAFETY (Sendable): the counters are atomics, the label is behind a mutex, and the thread is started and joined
    // by the command's thread only.
    private let enabled: Bool
    private let done = Atomic<Int>(0)
    private let total = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)
    private let label = Lock<String>("")
    /// Signalled by `finish`: the drawing thread waits on it between redraws, so it ends at once.
    private let stopped = DispatchSemaphore(value: 0)
    /// Signalled by the drawing thread when it has cleared the line and ended.
    private let ended = DispatchSemaphore(value: 0)
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
            repeat { draw() } while stopped.wait(timeout: .now() + .milliseconds(250)) == .timedOut
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            ended.signal()
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
        stopped.signal()
        ended.wait()
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

/// Viewers of the engine's live preview for `lumascan bench --preview-viewers`: each reads the preview's JPEGs on its
/// own task, as `lumascan serve`'s `/preview.mjpg` does for a browser, and counts them.
final class PreviewViewers: Sendable {
    /// What the viewers saw.
    struct Outcome {
        /// Viewers connected.
        var viewers: Int
        /// JPEGs the preview encoded (0 with no viewer).
        var framesEncoded: UInt64
        /// JPEGs the viewers received, all together.
        var framesReceived: Int
    }

    private let preview: PreviewTap
    private let count: Int
    private let received = Atomic<Int>(0)
    private let tasks: Lock<[Task<Void, Never>]>

    /// Connects `count` viewers to `preview` before this returns, so that the first frames already find them.
    init(_ preview: PreviewTap, count: Int) {
        self.preview = preview
        self.count = count
        tasks = Lock([])
        for _ in 0..<count {
            let frames = preview.frames()
            let task = Task.detached {
                for await _ in frames { self.received.add(1, ordering: .relaxed) }
            }
            tasks.withLock { $0.append(task) }
        }
    }

    /// Disconnects the viewers (again, harmlessly) and says what they saw.
    @discardableResult
    func finish() -> Outcome {
        preview.disconnectAll()
        let running = tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return tasks
        }
        for task in running { task.cancel() }
        return Outcome(
            viewers: count, framesEncoded: preview.previewFramesEncoded,
            framesReceived: received.load(ordering: .relaxed))
    }
}
