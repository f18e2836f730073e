import Foundation
import Hummingbird
import Logging
import LumaScan
import LumaScanCore
import LumaScanEventJSON
import Metrics
import NIOCore
import ServiceLifecycle
import Synchronization

/// The kiosk service: an HTTP server over a running ``ScanEngine`` (`lumascan serve`), for a page on the kiosk's
/// screen or a remote control. It serves the embedded page, the engine's events as server-sent events, a live MJPEG
/// preview, the status, statistics and Prometheus metrics, health checks, and control and configuration endpoints.
///
/// Run it next to the engine in a `ServiceGroup`; on graceful shutdown it ends its streaming responses and stops
/// listening. The server reads the engine's ``ScanEngine/events`` (from its creation, so create it before starting the
/// engine): do not iterate them elsewhere; a delegate still receives every event.
///
/// When it runs with a token, control and configuration requests need `Authorization: Bearer <token>`; a server that
/// listens beyond the loopback interface must have one (``init(engine:configuration:options:logger:metricsFactory:metricsExposition:onListening:)``
/// refuses otherwise).
public final class KioskServer: Service, Sendable {
    /// How the server listens and what it allows.
    public struct Options: Sendable {
        /// Where to listen. Default: `127.0.0.1:8080`.
        public var address: ListenAddress
        /// The bearer token control and configuration requests must carry; `nil` for none (loopback only).
        /// Default: `nil`.
        public var token: AccessToken?
        /// The largest request body accepted; larger ones get 413. Default: 64 KiB.
        public var maximumBodySize: Int
        /// Events each event-stream client buffers before losing its oldest. Default: 256.
        public var eventBufferCapacity: Int
        /// How often an idle event stream gets a keepalive comment. Default: 15 s.
        public var keepaliveInterval: Duration
        /// How recent the last frame must be for `/readyz` to say ready. Default: 2 s.
        public var readinessWindow: Duration

        /// Creates options; every parameter has the default its property documents.
        public init(
            address: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8080), token: AccessToken? = nil,
            maximumBodySize: Int = 64 * 1024, eventBufferCapacity: Int = 256,
            keepaliveInterval: Duration = .seconds(15),
            readinessWindow: Duration = .seconds(2)
        ) {
            self.address = address
            self.token = token
            self.maximumBodySize = maximumBodySize
            self.eventBufferCapacity = eventBufferCapacity
            self.keepaliveInterval = keepaliveInterval
            self.readinessWindow = readinessWindow
        }
    }

    /// The engine the server shows and controls.
    public let engine: ScanEngine
    /// The server's options.
    public let options: Options

    let logger: Logger
    let metrics: ServerMetrics
    let metricsExposition: (@Sendable () -> String)?
    let configuration: Lock<ScanConfiguration>
    let broadcaster: EventBroadcaster
    private let events: ScanEvents
    private let onListening: @Sendable (ListenAddress) -> Void
    private let bound = Lock<ListenAddress?>(nil)

    /// Creates a server for `engine`, which runs with a plugin made from `configuration`.
    ///
    /// - Parameters:
    ///   - engine: the engine; the server starts reading its events now.
    ///   - configuration: the configuration the engine's plugin was made from (`GET /api/config` returns it,
    ///     `PUT /api/config` replaces it).
    ///   - options: where to listen and what to allow.
    ///   - logger: where the server logs; the server never bootstraps logging.
    ///   - metricsFactory: where the server's metrics go; the server never bootstraps metrics.
    ///   - metricsExposition: renders the metrics in the Prometheus text format for `GET /metrics` (the CLI passes its
    ///     registry's); `nil` answers `/metrics` with 404.
    ///   - onListening: called with the address the server is bound to (the chosen port for port 0) once it listens.
    /// - Throws: ``LumaScanError`` with code ``LumaScanError/Code/invalidConfiguration`` when the address is not a
    ///   loopback one and there is no token.
    public init(
        engine: ScanEngine, configuration: ScanConfiguration, options: Options = .init(), logger: Logger,
        metricsFactory: any MetricsFactory, metricsExposition: (@Sendable () -> String)? = nil,
        onListening: @escaping @Sendable (ListenAddress) -> Void = { _ in }
    ) throws(LumaScanError) {
        guard options.address.isLoopback || options.token != nil else {
            throw LumaScanError(
                .invalidConfiguration,
                """
                --listen \(options.address): a server reachable beyond this machine needs a token (--token-file); \
                listen on 127.0.0.1 or give one
                """)
        }
        self.engine = engine
        self.options = options
        self.logger = logger
        self.metrics = ServerMetrics(factory: metricsFactory)
        self.metricsExposition = metricsExposition
        self.configuration = Lock(configuration)
        self.broadcaster = EventBroadcaster(capacity: options.eventBufferCapacity)
        self.events = engine.events
        self.onListening = onListening
    }

    /// The address the server is bound to, once it listens.
    public var boundAddress: ListenAddress? { bound.withLock { $0 } }

    /// Events lost by slow event-stream clients, summed over clients.
    public var eventsDroppedForClients: UInt64 { broadcaster.dropped }

    /// Listens and serves until graceful shutdown or cancellation; passes the engine's events to event-stream clients.
    ///
    /// - Throws: when the address cannot be bound.
    public func run() async throws {
        let application = Application(
            responder: KioskResponder(server: self),
            configuration: .init(
                address: .hostname(options.address.host, port: options.address.port), serverName: "lumascan"),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? options.address.port
                let address = ListenAddress(host: options.address.host, port: port)
                bound.withLock { $0 = address }
                logger.notice("listening", metadata: ["address": "\(address)"])
                onListening(address)
            },
            logger: logger)
        let broadcaster = self.broadcaster
        let preview = engine.preview
        // Streaming responses (events, preview) last until their client goes: end them so that shutdown can finish.
        let endStreams: @Sendable () -> Void = {
            broadcaster.close()
            preview.disconnectAll()
        }
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { [self] in
                        for await event in events {
                            metrics.record(event)
                            broadcaster.publish("data: \(EventJSON.line(for: event))\n\n")
                        }
                    }
                    group.addTask { [options] in
                        while true {
                            try await Task.sleep(for: options.keepaliveInterval)
                            broadcaster.publish(": keepalive\n\n")
                        }
                    }
                    try await application.run()
                    group.cancelAll()
                }
            } onCancel: {
                endStreams()
            }
        } onGracefulShutdown: {
            endStreams()
        }
    }
}
