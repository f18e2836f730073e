import Foundation
import HTTPTypes
import Hummingbird
import LumaScan
import LumaScanCore
import LumaScanEventJSON

/// Answers the kiosk server's requests (the contract is in the README's "Kiosk service" section): one switch over the
/// method and path, so that every answer, unknown paths included, is under the server's control.
struct KioskResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    /// The preview's multipart boundary.
    static let boundary = "lumascanframe"

    let server: KioskServer

    func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        let path = request.uri.path
        let method = request.method
        if path.hasPrefix("/api/scanning/") {
            let name = String(path.dropFirst("/api/scanning/".count))
            guard let command = ScanningCommand(rawValue: name) else { return notFound(path) }
            guard method == .post else { return methodNotAllowed(path, allowed: "POST") }
            if let refusal = unauthorized(request) { return refusal }
            if case .failure(let refusal) = await body(of: &request) { return refusal.response }
            return control(command)
        }
        switch path {
        case "/api/config":
            guard method == .get || method == .put else { return methodNotAllowed(path, allowed: "GET, PUT") }
            if let refusal = unauthorized(request) { return refusal }
            if method == .get {
                return json(.ok, server.configuration.withLock { $0.asJSONString(pretty: false) })
            }
            switch await body(of: &request) {
            case .failure(let refusal): return refusal.response
            case .success(let bytes): return replaceConfiguration(with: bytes)
            }
        case "/api/events":
            guard method == .get else { return methodNotAllowed(path, allowed: "GET") }
            return events()
        case "/preview.mjpg":
            guard method == .get else { return methodNotAllowed(path, allowed: "GET") }
            return preview()
        case "/api/status":
            guard method == .get else { return methodNotAllowed(path, allowed: "GET") }
            return json(.ok, encode(status()))
        case "/api/statistics":
            guard method == .get else { return methodNotAllowed(path, allowed: "GET") }
            return json(.ok, EventJSON.line(for: server.engine.statistics))
        case "/healthz":
            guard method == .get else { return methodNotAllowed(path, allowed: "GET") }
            return json(.ok, #"{"status":"ok"}"#)
        case "/readyz":
            guard method == .get else { return methodNotAllowed(path, allowed: "GET") }
            return readiness()
        case "/metrics":
            guard method == .get else { return methodNotAllowed(path, allowed: "GET") }
            return metrics()
        default:
            let name = path == "/" ? "index.html" : String(path.dropFirst())
            guard let file = PublicFiles.files[name] else { return notFound(path) }
            guard method == .get else { return methodNotAllowed(path, allowed: "GET") }
            var headers = HTTPFields()
            headers[.contentType] = file.contentType
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
        }
    }

    // MARK: - Control and configuration

    private func control(_ command: ScanningCommand) -> Response {
        let before = server.engine.scanningState
        let allowed: Bool
        do {
            allowed = try server.engine.perform(command)
        } catch {
            return failure(.serviceUnavailable, code: "engine-failed", message: "\(command.rawValue): \(error)")
        }
        let after = server.engine.scanningState
        guard allowed else {
            return failure(
                .conflict, code: "invalid-transition",
                message: "cannot \(command.rawValue) scanning while it is \(before.rawValue)")
        }
        server.logger.info("scanning control", metadata: ["command": "\(command.rawValue)", "state": "\(after)"])
        return json(.ok, #"{"ok":true,"scanning":"\#(after.rawValue)"}"#)
    }

    private func replaceConfiguration(with bytes: [UInt8]) -> Response {
        let configuration: ScanConfiguration
        let plugin: ScanPlugin
        do {
            configuration = try ScanConfiguration.decode(data: Data(bytes))
            plugin = try configuration.makePlugin(logger: server.logger)
        } catch {
            return configurationFailure(error)
        }
        server.configuration.withLock { $0 = configuration }
        server.engine.setPlugin(plugin)
        server.engine.applyCameraSettings(configuration.cameraConfig, flash: configuration.flashConfig)
        return json(.ok, #"{"ok":true}"#)
    }

    /// A 400 naming the JSON path (the message's first part, as the configuration's errors begin with it) and, for a
    /// syntax error, the line and column.
    private func configurationFailure(_ error: any Error) -> Response {
        let message = (error as? LumaScanError)?.message ?? "\(error)"
        var detail = ErrorDetail(code: "invalid-configuration", message: message)
        if let colon = message.range(of: ": ") {
            detail.path = String(message[..<colon.lowerBound])
        }
        if let match = message.firstMatch(of: #/line (\d+), column (\d+)/#) {
            detail.line = Int(match.1)
            detail.column = Int(match.2)
        }
        return json(.badRequest, encode(ErrorBody(error: detail)))
    }

    // MARK: - Streams

    private func events() -> Response {
        let stream = server.broadcaster.subscribe()
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                // A first comment sends the head at once, so a client knows it is connected before the first event.
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                for await message in stream { try await writer.write(ByteBuffer(string: message)) }
                try await writer.finish(nil)
            })
    }

    private func preview() -> Response {
        let frames = server.engine.preview.frames()
        var headers = HTTPFields()
        headers[.contentType] = "multipart/x-mixed-replace; boundary=\(Self.boundary)"
        headers[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                for await jpeg in frames {
                    var part = ByteBuffer(
                        string:
                            "--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n")
                    part.writeBytes(jpeg)
                    part.writeString("\r\n")
                    try await writer.write(part)
                }
                try await writer.finish(nil)
            })
    }

    // MARK: - Status, health, metrics

    private func status() -> Status {
        let engine = server.engine
        let format = engine.source.format
        let frame =
            format.width > 0 && format.height > 0 ? Status.FrameSize(width: format.width, height: format.height) : nil
        var cutout: Status.Cutout?
        if let frame, let config = server.configuration.withLock({ $0.viewPluginConfig?.cutoutConfig }) {
            let rect = config.geometry(frameSize: Size(width: frame.width, height: frame.height)).cutout
            cutout = Status.Cutout(
                x: Double(rect.x) / Double(frame.width), y: Double(rect.y) / Double(frame.height),
                width: Double(rect.width) / Double(frame.width), height: Double(rect.height) / Double(frame.height))
        }
        return Status(
            source: engine.source.name, running: engine.isRunning, scanning: engine.scanningState.rawValue,
            plugin: engine.currentPlugin.id, frame: frame, cutout: cutout,
            previewViewers: engine.preview.viewerCountNow, authRequired: server.options.token != nil)
    }

    private func readiness() -> Response {
        let engine = server.engine
        let reason: String?
        if !engine.isRunning {
            reason = "the engine is not running"
        } else if let last = engine.preview.lastFrameTime {
            let age = MonotonicInstant.now().since(last)
            reason =
                age > server.options.readinessWindow
                ? "no frame processed for \(String(format: "%.1f", Double(age.nanosecondsClamped) / 1e9)) s" : nil
        } else {
            reason = "no frame processed yet"
        }
        guard let reason else { return json(.ok, #"{"status":"ready"}"#) }
        return json(.serviceUnavailable, encode(["status": "not-ready", "reason": reason]))
    }

    private func metrics() -> Response {
        guard let exposition = server.metricsExposition else {
            return failure(.notFound, code: "no-metrics", message: "this server was started without a metrics registry")
        }
        server.metrics.refresh(
            engine: server.engine, eventsDroppedBySSE: server.broadcaster.dropped,
            eventClients: server.broadcaster.clientCount)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        let stages =
            histogramText("lumascan_luma_seconds", server.engine.stageTimes.luma)
            + histogramText("lumascan_recognition_seconds", server.engine.stageTimes.recognition)
        return Response(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: exposition() + stages)))
    }

    /// A stage histogram in the Prometheus text format; the engine keeps its buckets itself (no per-frame metrics
    /// calls), so it is rendered here rather than through the metrics factory.
    private func histogramText(_ name: String, _ snapshot: StageHistograms.Snapshot) -> String {
        var text = "# TYPE \(name) histogram\n"
        for (bound, count) in zip(StageHistograms.bounds, snapshot.cumulativeCounts) {
            text += "\(name)_bucket{le=\"\(bound)\"} \(count)\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(snapshot.count)\n"
        text += "\(name)_sum \(snapshot.sum)\n\(name)_count \(snapshot.count)\n"
        return text
    }

    // MARK: - Requests

    /// The request's body, at most ``KioskServer/Options/maximumBodySize`` bytes; a 413 answer for a larger one.
    private func body(of request: inout Request) async -> Result<[UInt8], ResponseFailure> {
        let limit = server.options.maximumBodySize
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            return .failure(ResponseFailure(tooLarge(limit)))
        }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return .success(Array(buffer.readableBytesView))
        } catch {
            return .failure(ResponseFailure(tooLarge(limit)))
        }
    }

    /// A 401 when the server has a token and the request does not carry it.
    private func unauthorized(_ request: Request) -> Response? {
        guard let token = server.options.token, !token.accepts(authorization: request.headers[.authorization]) else {
            return nil
        }
        var response = failure(
            .unauthorized, code: "unauthorized", message: "this endpoint needs Authorization: Bearer <token>")
        response.headers[.wwwAuthenticate] = "Bearer"
        return response
    }

    // MARK: - Answers

    private func tooLarge(_ limit: Int) -> Response {
        failure(.contentTooLarge, code: "body-too-large", message: "the request body is larger than \(limit) bytes")
    }

    private func notFound(_ path: String) -> Response {
        failure(.notFound, code: "not-found", message: "no such endpoint: \(path)")
    }

    private func methodNotAllowed(_ path: String, allowed: String) -> Response {
        var response = failure(.methodNotAllowed, code: "method-not-allowed", message: "\(path) allows \(allowed)")
        response.headers[.allow] = allowed
        return response
    }

    private func failure(_ status: HTTPResponse.Status, code: String, message: String) -> Response {
        json(status, encode(ErrorBody(error: ErrorDetail(code: code, message: message))))
    }

    private func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    private func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A response that refuses a request, carried as an error.
struct ResponseFailure: Error {
    let response: Response
    init(_ response: Response) { self.response = response }
}

/// `{"error": {...}}`.
struct ErrorBody: Encodable {
    var error: ErrorDetail
}

/// An error's code, message and, for a configuration, where in the document.
struct ErrorDetail: Encodable {
    var code: String
    var message: String
    var path: String?
    var line: Int?
    var column: Int?
}

/// `GET /api/status`.
struct Status: Encodable {
    struct FrameSize: Encodable {
        var width: Int
        var height: Int
    }

    struct Cutout: Encodable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double
    }

    var schemaVersion = EventJSON.schemaVersion
    var source: String
    var running: Bool
    var scanning: String
    var plugin: String
    var frame: FrameSize?
    var cutout: Cutout?
    var previewViewers: Int
    var authRequired: Bool

    enum CodingKeys: String, CodingKey {
        case schemaVersion, source, running, scanning, plugin, frame, cutout, previewViewers, authRequired
    }

    /// Writes `frame` and `cutout` as `null` when there is none, as the contract says.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(source, forKey: .source)
        try container.encode(running, forKey: .running)
        try container.encode(scanning, forKey: .scanning)
        try container.encode(plugin, forKey: .plugin)
        try container.encode(frame, forKey: .frame)
        try container.encode(cutout, forKey: .cutout)
        try container.encode(previewViewers, forKey: .previewViewers)
        try container.encode(authRequired, forKey: .authRequired)
    }
}
