import ArgumentParser
import Dispatch
import Foundation
import Logging
import LumaScan
import LumaScanAudio
import LumaScanEventJSON
import Synchronization

/// `lumascan scan`: scan a camera, or image files, and print one JSON line per event.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan a camera, a recording or image files for barcodes; print one JSON object per event on stdout.",
        discussion: """
            With no --device and no --input, scans the first camera found. Each line on stdout is one JSON event \
            (schema version \(EventJSON.schemaVersion), see the README); a summary and the statistics go to stderr \
            at exit. With --input on images, each image is scanned once in still-image mode (trying harder than on \
            a stream) and each report carries the image's path. With --input on a recording \
            (.\(RecordingFormat.fileExtension), from `lumascan record`), its frames go through the engine as a \
            camera's would, as fast as possible by default, or at their recorded pace with --realtime. An image that \
            cannot be read gets an inputFailed event naming it and the reason, and the scan goes on with the others; \
            then the exit status is 3 when no image could be read, 4 when some could not.
            """)

    @Option(help: "The V4L2 device to scan, such as /dev/video0.")
    var device: String?

    @Option(
        help: """
            A recording (.\(RecordingFormat.fileExtension)), an image file or a folder of images (PNG, JPEG, WebP, \
            TIFF, GIF, BMP, PGM, PPM, PBM) to scan instead of a camera.
            """)
    var input: String?

    @Flag(help: "Replay a recording at its recorded pace, as a live camera, rather than as fast as possible.")
    var realtime = false

    @Flag(help: "With --realtime, replay the recording over and over, as a camera streams, until stopped.")
    var loop = false

    @Option(help: "A JSON configuration (see `lumascan config default`); command-line options override its camera.")
    var config: String?

    @OptionGroup var capture: CaptureOptions

    @Option(
        help: "Symbologies to read, comma-separated (\(Symbology.allCases.map(\.rawValue).joined(separator: ","))).")
    var symbologies: String?

    @Option(help: "Stop after this many frames.")
    var maxFrames: Int?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Option(
        help: ArgumentHelp(
            "After Ctrl-C or SIGTERM, end without the summary when stopping takes longer than this many seconds.",
            discussion: "The default, 0.9, ends a scan within a second even while a frame takes longer (0.1 to 3600)."
        ))
    var stopTimeout: Double = 0.9

    @Flag(help: "Stop after the first code read.")
    var once = false

    @Flag(help: "Print only results (COMPLETED_RESULT and UNSUPPORTED_RESULT reports) and lifecycle events.")
    var resultsOnly = false

    @Flag(help: "After the last event, print the engine's statistics as one more JSON line (event \"statistics\").")
    var statistics = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if device != nil && input != nil { throw ValidationError("--device and --input exclude each other") }
        if input != nil, capture.format != nil || capture.size != nil {
            // An input's frames keep the format and size they were stored with; silently ignoring the options would
            // let a user believe they took effect.
            throw ValidationError("--format and --size choose what a camera captures; they do not apply to --input")
        }
        if realtime || loop, !(input.map(RecordingFormat.isRecording(at:)) ?? false) {
            throw ValidationError(
                "--realtime and --loop replay a recording: give --input FILE.\(RecordingFormat.fileExtension)")
        }
        if loop && !realtime { throw ValidationError("--loop replays at the recorded pace: add --realtime") }
        if config != nil && symbologies != nil {
            throw ValidationError(
                "--symbologies and --config exclude each other: set barcodeConfig.symbologies instead")
        }
        if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames: must be at least 1") }
        if let duration, !(duration > 0) { throw ValidationError("--duration: must be above 0") }
        if !(0.1...3600).contains(stopTimeout) {
            throw ValidationError("--stop-timeout: \(stopTimeout) is out of range; give 0.1 to 3600 seconds")
        }
        _ = try parsedSymbologies()
    }

    func run() throws {
        let logger = try logging.makeLogger(label: "lumascan.scan")
        let configuration = try loadConfiguration()

        let source: any FrameSource
        var imageSource: ImageFileSource?
        let writer = LineWriter()
        let inputFailures = InputFailureLines(writer: writer)
        var camera: V4L2Camera?
        let isRecording = input.map(RecordingFormat.isRecording(at:)) ?? false
        if let input, isRecording {
            let pacing: RecordingSource.Pacing = realtime ? .recorded(loop: loop) : .asFastAsPossible
            source = RecordingSource(
                path: input, pacing: pacing, bufferCount: capture.buffers, maxPixels: capture.maxPixels, logger: logger)
        } else if let input {
            let images = ImageFileSource(
                pathBytes: rawArgument(option: "--input", value: input), maxPixels: capture.maxPixels, logger: logger,
                onUnreadable: inputFailures.add)
            imageSource = images
            source = images
        } else {
            let settings = capture.settings(
                over: configuration?.cameraConfig.cameraSettings ?? CameraSettings(),
                alwaysSetBuffers: configuration == nil)
            let configured = configuration.flatMap { $0.cameraConfig.isAutomaticDevice ? nil : $0.cameraConfig.device }
            let path = try device ?? configured ?? firstCamera(logger: logger)
            let opened = V4L2Camera(device: path, settings: settings, logger: logger)
            camera = opened
            source = opened
        }
        var plugin: ScanPlugin
        do {
            plugin = try makePlugin(
                configuration: configuration, stillImage: input != nil && !isRecording, logger: logger)
        } catch {
            throw CommandFailure(status: ExitStatus.badArguments, message: "\(error)")
        }
        if once { plugin.cancelOnResult = true }

        let images = imageSource
        let engine = ScanEngine(source: source, plugin: plugin, options: .init(frameLimit: maxFrames), logger: logger)
        // The configuration's audioFeedback: sounds decoded now, played on their own thread as events arrive.
        let audio = configuration?.audioFeedback.map { AudioFeedback(configuration: $0, logger: logger) }
        let printer = EventPrinter(
            engine: engine, writer: writer, resultsOnly: resultsOnly, beepOnResult: plugin.beepOnResult,
            inputPath: { frame in images?.path(forFrameIndex: frame) }, onStarted: inputFailures.release, audio: audio)
        engine.delegate = printer
        writer.onFailure { engine.stop() }

        // Ctrl-C and SIGTERM stop the engine cleanly: it finishes the frame in hand and the summary is printed. A
        // frame can take longer than a user (or systemd) waits, a 64-megapixel photograph's decode among them, so when
        // the engine has not finished --stop-timeout seconds (0.9) after the signal, the scan ends there, saying so,
        // with the shell's status for the signal (130, 143).
        let finished = Atomic<Bool>(false)
        let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                // The deadline first: stop() waits while the source is still starting (an image's decode).
                DispatchQueue.global().asyncAfter(deadline: .now() + stopTimeout) {
                    guard !finished.load(ordering: .acquiring) else { return }
                    printError(
                        "lumascan: still busy with a frame \(stopTimeout) s after the signal; stopping without the summary"
                    )
                    // _exit: the decoding thread may hold locks that exit's handlers and destructors would wait for.
                    _exit(128 + number)
                }
                engine.stop()
            }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }

        do {
            try engine.start()
        } catch {
            throw CommandFailure(status: ExitStatus.deviceUnavailable, message: "\(error)")
        }
        if let configuration, camera != nil {
            engine.applyCameraSettings(configuration.cameraConfig, flash: configuration.flashConfig)
        }
        if let duration {
            DispatchQueue.global().asyncAfter(deadline: .now() + duration) { engine.stop() }
        }
        engine.waitUntilFinished()
        audio?.finish()  // the stop sound is heard before the command ends
        finished.store(true, ordering: .releasing)
        inputFailures.release()  // in case the engine stopped before its started event
        let final = engine.statistics
        if statistics { writer.write(EventJSON.line(for: final)) }
        printer.printSummary(statistics: final)
        if let error = writer.failure, let failure = outputFailure(error) { throw failure }
        if case .error(let message) = printer.stopReason {
            throw CommandFailure(status: ExitStatus.failed, message: message)
        }
        if let images { try checkReadable(images) }
    }

    /// Exit 3 when no image could be read (with the file's own message when it was the only one), 4 when some could
    /// not; each unreadable file already has its `inputFailed` event.
    private func checkReadable(_ images: ImageFileSource) throws {
        let unreadable = images.unreadableFiles
        guard let first = unreadable.first else { return }
        let read = images.deliveredCount
        if read == 0 {
            throw CommandFailure(
                status: ExitStatus.deviceUnavailable,
                message: unreadable.count == 1
                    ? first.error.message
                    : "\(images.name): no image could be read: \(unreadable.count) unreadable (inputFailed events)")
        }
        throw CommandFailure(
            status: ExitStatus.someInputsUnreadable,
            message:
                "\(images.name): \(unreadable.count) input(s) could not be read, \(read) scanned (inputFailed events)")
    }

    /// The configuration file, decoded and validated; a bad one is a usage error naming the JSON path.
    private func loadConfiguration() throws -> ScanConfiguration? {
        guard let config else { return nil }
        return try loadConfigurationDocument(
            config, unreadable: ExitStatus.badArguments, invalid: ExitStatus.badArguments)
    }

    /// The plugin from the configuration or, without one, a barcode plugin from the command-line options; a
    /// command-line scan runs until stopped (no scan timeout) unless the configuration says otherwise.
    private func makePlugin(configuration: ScanConfiguration?, stillImage: Bool, logger: Logger) throws -> ScanPlugin {
        if let configuration { return try configuration.makePlugin(logger: logger) }
        var barcode = BarcodeConfiguration()
        barcode.symbologies = try parsedSymbologies()
        barcode.stillImage = stillImage
        let recognizer = try BarcodeRecognizer(configuration: barcode, logger: logger)
        return ScanPlugin(id: barcode.id, recognizer: recognizer, scanTimeout: nil)
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

    private func firstCamera(logger: Logger) throws -> String {
        guard let first = DeviceDiscovery.captureDevices(logger: logger).first else {
            throw CommandFailure(
                status: ExitStatus.deviceUnavailable,
                message: "no camera found (no V4L2 capture node under /dev/video*); use --device or --input")
        }
        return first.path
    }
}

/// Parses `"WxH"`.
func parseSize(_ text: String) -> Size? {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
        return nil
    }
    return Size(width: width, height: height)
}

/// The `inputFailed` lines of the files an image source skips. The source reads on the engine's capture thread while
/// the delivery thread prints events, so a file can fail before the `started` event is printed: lines wait until
/// ``release()``, which the printer calls after `started`, and are written at once after that.
final class InputFailureLines: @unchecked Sendable {
    // SAFETY (Sendable): `held` is read and written under `lock`.
    private let lock = Lock(())
    private let writer: LineWriter
    private var held: [String]? = []

    init(writer: LineWriter) { self.writer = writer }

    /// Writes (or holds) the event for `file`; called on the source's thread.
    func add(_ file: ImageFileSource.UnreadableFile) {
        let line = EventJSON.line(for: file)
        lock.withLock { _ in
            if held != nil { held?.append(line) } else { writer.write(line) }
        }
    }

    /// Writes the held lines, and every later one at once; safe to call more than once.
    func release() {
        lock.withLock { _ in
            held?.forEach(writer.write)
            held = nil
        }
    }
}

/// Prints events as JSON lines and keeps what the summary needs.
final class EventPrinter: ScanEngineDelegate, @unchecked Sendable {
    // SAFETY (Sendable): the engine calls the delegate on its one delivery thread; `printSummary` runs after the
    // engine finished, so the mutable counters are never touched by two threads at once.
    private unowned let engine: ScanEngine
    private let writer: LineWriter
    private let resultsOnly: Bool
    private let beepOnResult: Bool
    private let inputPath: @Sendable (UInt64) -> String?
    private let onStarted: (@Sendable () -> Void)?
    private let audio: AudioFeedback?
    private var results: [String: Int] = [:]
    private(set) var stopReason: StopReason?

    init(
        engine: ScanEngine, writer: LineWriter, resultsOnly: Bool, beepOnResult: Bool,
        inputPath: @escaping @Sendable (UInt64) -> String?, onStarted: (@Sendable () -> Void)? = nil,
        audio: AudioFeedback? = nil
    ) {
        self.engine = engine
        self.writer = writer
        self.resultsOnly = resultsOnly
        self.beepOnResult = beepOnResult
        self.inputPath = inputPath
        self.onStarted = onStarted
        self.audio = audio
    }

    func scanEngine(_ engine: ScanEngine, didEmit event: ScanEvent) {
        audio?.handle(event)
        switch event {
        case .report(let report):
            let isResult = report.reportType != .inProgress
            if isResult {
                results["\(report.symbology?.rawValue ?? report.state.rawValue)", default: 0] += 1
            }
            if isResult || !resultsOnly {
                writer.write(EventJSON.line(for: event, input: inputPath(report.frameIndex)))
            }
            if isResult && beepOnResult { FileHandle.standardError.write(Data("\u{07}".utf8)) }
        case .detection:
            if !resultsOnly { writer.write(EventJSON.line(for: event)) }
        case .started:
            writer.write(EventJSON.line(for: event))
            onStarted?()
        case .scanningStopped:
            writer.write(EventJSON.line(for: event))
            // The CLI runs one scanning session: when it ends (completed, timeout), the command ends.
            engine.stop()
        case .stopped(let reason):
            stopReason = reason
            writer.write(EventJSON.line(for: event))
        case .scanningStarted, .scanningPaused, .scanningResumed, .scanningAborted, .cameraSetting, .sourceFailed,
            .sourceRecovered:
            writer.write(EventJSON.line(for: event))
        }
    }

    func printSummary(statistics: ScanStatistics) {
        let found = results.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        printError("lumascan: \(results.values.reduce(0, +)) result(s)\(found.isEmpty ? "" : ": " + found)")
        printError(
            """
            lumascan: frames captured \(statistics.framesCaptured), processed \(statistics.framesProcessed), \
            dropped by ring \(statistics.framesDroppedByRing), dropped by driver \(statistics.framesDroppedByDriver), \
            corrupt \(statistics.framesCorrupt); events delivered \(statistics.eventsDelivered), dropped \
            \(statistics.eventsDropped); per frame: luma \(String(format: "%.2f", statistics.meanLumaMilliseconds)) ms, \
            recognition \(String(format: "%.2f", statistics.meanRecognitionMilliseconds)) ms, pipeline \
            \(String(format: "%.2f", statistics.meanPipelineMilliseconds)) ms
            """)
    }
}
