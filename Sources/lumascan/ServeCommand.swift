import ArgumentParser
import Dispatch
import Foundation
import Logging
import LumaScan
import LumaScanAudio
import LumaScanServer
import Metrics
import Prometheus
import ServiceLifecycle
import Synchronization

/// `lumascan serve`: the kiosk service, an HTTP server over a scanning engine.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Scan a camera or a recording and serve the kiosk page, events, preview and control over HTTP.",
        discussion: """
            Runs the engine and the HTTP server until SIGTERM or Ctrl-C, which stop both gracefully. Scanning starts \
            at once, as with `scan`. A recording (--input FILE.\(RecordingFormat.fileExtension)) is replayed at its \
            recorded pace, as a camera would deliver it (add --loop to replay it over and over). Once listening, \
            prints one JSON line on stdout, {"event":"listening","address":"HOST:PORT"} (with --listen HOST:0 the \
            port the system chose). Listening beyond this machine (--listen other than 127.0.0.1, ::1 or localhost) \
            needs --token-file: control and configuration requests must then carry Authorization: Bearer TOKEN. The \
            endpoints are described in the README's "Kiosk service" section.
            """)

    @Option(help: "The V4L2 device to scan, such as /dev/video0.")
    var device: String?

    @Option(help: "A recording (.\(RecordingFormat.fileExtension)) to replay instead of a camera.")
    var input: String?

    @Flag(help: "Replay the recording at its recorded pace (the default for serve; kept for scan's spelling).")
    var realtime = false

    @Flag(help: "Replay the recording over and over, as a camera streams, until stopped.")
    var loop = false

    @Option(help: "A JSON configuration (see `lumascan config default`); PUT /api/config replaces its plugin.")
    var config: String?

    @Option(help: "Where to listen, HOST:PORT (port 0 lets the system choose).")
    var listen: String = "127.0.0.1:8080"

    @Option(help: "A file holding the bearer token that control and configuration requests must carry.")
    var tokenFile: String?

    @OptionGroup var capture: CaptureOptions

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if device != nil && input != nil { throw ValidationError("--device and --input exclude each other") }
        if let input, !RecordingFormat.isRecording(at: input) {
            throw ValidationError("--input: serve replays a recording (.\(RecordingFormat.fileExtension))")
        }
        if input != nil, capture.format != nil || capture.size != nil {
            throw ValidationError("--format and --size choose what a camera captures; they do not apply to --input")
        }
        if loop && input == nil { throw ValidationError("--loop replays a recording: give --input") }
        guard ListenAddress(listen) != nil else {
            throw ValidationError("--listen: '\(listen)' is not HOST:PORT (such as 127.0.0.1:8080)")
        }
    }

    func run() throws {
        let logger = try logging.makeLogger(label: "lumascan.serve")
        guard let address = ListenAddress(listen) else { throw ValidationError("--listen: not HOST:PORT") }
        let token = try readToken()
        if !address.isLoopback && token == nil {
            throw CommandFailure(
                status: ExitStatus.badArguments,
                message: """
                    --listen \(address) would let other machines control the scanner without a token: add \
                    --token-file FILE, or listen on 127.0.0.1
                    """)
        }
        let configuration = try loadConfiguration()
        let plugin: ScanPlugin
        do {
            plugin = try configuration.makePlugin(logger: logger)
        } catch {
            throw CommandFailure(status: ExitStatus.badArguments, message: "\(error)")
        }

        let source: any FrameSource
        var camera: V4L2Camera?
        if let input {
            source = RecordingSource(
                path: input, pacing: .recorded(loop: loop), bufferCount: capture.buffers,
                maxPixels: capture.maxPixels, logger: logger)
        } else {
            let settings = capture.settings(over: configuration.cameraConfig.cameraSettings, alwaysSetBuffers: false)
            let configured = configuration.cameraConfig.isAutomaticDevice ? nil : configuration.cameraConfig.device
            guard let path = device ?? configured ?? DeviceDiscovery.captureDevices(logger: logger).first?.path else {
                throw CommandFailure(
                    status: ExitStatus.deviceUnavailable,
                    message: "no camera found (no V4L2 capture node under /dev/video*); use --device or --input")
            }
            let opened = V4L2Camera(device: path, settings: settings, logger: logger)
            camera = opened
            source = opened
        }

        // Only the CLI bootstraps metrics; the server is handed the factory and renders the registry for /metrics.
        let registry = PrometheusCollectorRegistry()
        let factory = PrometheusMetricsFactory(registry: registry)
        MetricsSystem.bootstrap(factory)

        let engine = ScanEngine(source: source, plugin: plugin, logger: logger)
        let server: KioskServer
        do {
            server = try KioskServer(
                engine: engine, configuration: configuration, options: .init(address: address, token: token),
                logger: logger, metricsFactory: factory, metricsExposition: { registry.emitToString() },
                onListening: { bound in
                    print(#"{"event":"listening","address":"\#(bound)"}"#)
                    fflush(nil)
                })
        } catch {
            throw CommandFailure(status: ExitStatus.badArguments, message: "\(error)")
        }

        let group = ServiceGroup(
            configuration: .init(
                // The end of a recording (without --loop) ends the service as a graceful shutdown, not as a failure.
                services: [
                    .init(service: engine, successTerminationBehavior: .gracefullyShutdownGroup),
                    .init(service: server),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        // A camera takes the configuration's controls once it streams (the engine starts inside the group); the
        // configuration's audioFeedback sounds are decoded now and played on their own thread as events arrive.
        let audio = configuration.audioFeedback.map { AudioFeedback(configuration: $0, logger: logger) }
        let settings = ServeDelegate(
            camera: camera.map { _ in (configuration.cameraConfig, configuration.flashConfig) }, audio: audio)
        engine.delegate = settings
        let failure = Lock<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await group.run()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        withExtendedLifetime(settings) {}
        audio?.finish()  // the stop sound is heard before the command ends
        if let error = failure.withLock({ $0 }) {
            throw CommandFailure(status: ExitStatus.deviceUnavailable, message: "\(error)")
        }
    }

    private func readToken() throws -> AccessToken? {
        guard let tokenFile else { return nil }
        let data = try readConfigurationDocument(tokenFile, status: ExitStatus.badArguments)
        guard let token = AccessToken(String(decoding: data, as: UTF8.self)) else {
            throw CommandFailure(
                status: ExitStatus.badArguments, message: "--token-file \(tokenFile): the file is empty")
        }
        return token
    }

    /// The configuration file, or a continuous barcode scanner (no scan timeout) as `scan` runs without one.
    private func loadConfiguration() throws -> ScanConfiguration {
        guard let config else {
            return (try? ScanConfiguration.decode(json: Self.defaultConfiguration))
                ?? .defaultConfiguration(for: .barcode)
        }
        return try loadConfigurationDocument(
            config, unreadable: ExitStatus.badArguments, invalid: ExitStatus.badArguments)
    }

    /// Every symbology, scanning until stopped.
    static let defaultConfiguration = #"""
        {"viewPluginConfig": {"pluginConfig": {"id": "barcode", "scanTimeout": 0, "barcodeConfig": {}}}}
        """#
}

/// `serve`'s delegate: applies a configuration's camera controls and flash mode when the engine has started its camera,
/// and hands scanning events, detections and reports to the audio feedback (which only enqueues them).
final class ServeDelegate: ScanEngineDelegate, Sendable {
    private let settings: (camera: CameraConfig, flash: FlashConfig)?
    private let audio: AudioFeedback?

    init(camera settings: (CameraConfig, FlashConfig)?, audio: AudioFeedback?) {
        self.settings = settings.map { (camera: $0.0, flash: $0.1) }
        self.audio = audio
    }

    func scanEngine(_ engine: ScanEngine, didStartOn source: String, format: FrameFormat) {
        if let settings { engine.applyCameraSettings(settings.camera, flash: settings.flash) }
    }

    func scanEngine(_ engine: ScanEngine, scanningDidChange event: ScanEvent) { audio?.handle(event) }

    func scanEngine(_ engine: ScanEngine, didDetect detection: Detection) { audio?.handle(.detection(detection)) }

    func scanEngine(_ engine: ScanEngine, didReport report: ScanReport) { audio?.handle(.report(report)) }
}
