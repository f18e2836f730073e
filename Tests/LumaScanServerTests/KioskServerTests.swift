import CLumaCapture
import Foundation
import Logging
import LumaScan
import LumaScanBenchKit
import LumaScanEventJSON
import LumaScanTestSupport
import Prometheus
import ServiceLifecycle
import Synchronization
import Testing

@testable import LumaScanServer

/// Waits for `condition`, checking every 20 ms, for at most `seconds` (generous: the machine may be busy).
func eventually(_ seconds: Double = 600, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// Records every event the delegate receives as its JSON line.
final class LineRecorder: ScanEngineDelegate, @unchecked Sendable {
    // SAFETY (Sendable): `lines` is only touched under its mutex.
    let lines = Lock<[String]>([])
    private func add(_ event: ScanEvent) { lines.withLock { $0.append(EventJSON.line(for: event)) } }
    func scanEngine(_ engine: ScanEngine, didEmit event: ScanEvent) { add(event) }
}

/// A continuous barcode scanner's configuration (no scan timeout).
let barcodeConfiguration = #"""
    {"viewPluginConfig": {"pluginConfig": {"id": "kiosk", "scanTimeout": 0, "barcodeConfig": {}}}}
    """#

/// An engine over a synthetic EAN-13 scene and a server on a free loopback port, running until ``shutdown()``.
final class Harness: Sendable {
    let engine: ScanEngine
    let server: KioskServer
    let registry: PrometheusCollectorRegistry
    let recorder = LineRecorder()
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(width: Int = 640, height: Int = 480, token: String? = nil, startEngine: Bool = true) async throws {
        let scene = SyntheticScene(width: width, height: height, background: .flat, code: .ean13)
        let source = SyntheticSource(images: [try scene.image()], fps: 30)
        let configuration = try ScanConfiguration.decode(json: barcodeConfiguration)
        engine = ScanEngine(
            source: source, plugin: try configuration.makePlugin(logger: testLogger), logger: testLogger)
        engine.delegate = recorder
        registry = PrometheusCollectorRegistry()
        let registry = self.registry
        let bound = Lock<Int?>(nil)
        server = try KioskServer(
            engine: engine, configuration: configuration,
            options: .init(address: ListenAddress(host: "127.0.0.1", port: 0), token: token.flatMap(AccessToken.init)),
            logger: testLogger, metricsFactory: PrometheusMetricsFactory(registry: registry),
            metricsExposition: { registry.emitToString() },
            onListening: { address in bound.withLock { $0 = address.port } })
        // Graceful shutdown, as a daemon's ServiceGroup does it on SIGTERM: streaming responses must end by themselves.
        let group = ServiceGroup(services: [server], gracefulShutdownSignals: [], logger: testLogger)
        self.group = group
        task = Task { try await group.run() }
        #expect(try await eventually { bound.withLock { $0 } != nil })
        port = bound.withLock { $0 } ?? 0
        if startEngine { try engine.start() }
    }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> HTTPAnswer {
        try await TestHTTP.request("GET", path, port: port, headers: headers)
    }

    func send(
        _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) async throws
        -> HTTPAnswer
    {
        try await TestHTTP.request(method, path, port: port, headers: headers, body: body)
    }

    func shutdown() async {
        if engine.isRunning {
            engine.stop()
            await engine.finished()
        }
        await group.triggerGracefulShutdown()
        do {
            try await task.value
        } catch {
            Issue.record("the server ended with \(error)")
        }
    }
}

@Suite("KioskServer")
struct KioskServerTests {
    @Test("the page is embedded: GET / and each Public file, with their content types")
    func staticFiles() async throws {
        let harness = try await Harness(startEngine: false)
        let index = try await harness.get("/")
        #expect(index.status == 200)
        #expect(index.headers["content-type"] == "text/html; charset=utf-8")
        #expect(index.body == PublicFiles.files["index.html"]?.bytes)
        for (name, file) in PublicFiles.files {
            let answer = try await harness.get("/" + name)
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"] == file.contentType)
            #expect(answer.body == file.bytes)
        }
        await harness.shutdown()
    }

    @Test("PublicFiles.swift matches Sources/LumaScanServer/Public (run scripts/embed-public.py after a change)")
    func publicFilesUpToDate() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources/LumaScanServer/Public"
        ).standardizedFileURL
        var onDisk: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true,
                !url.lastPathComponent.hasPrefix(".")
            else { continue }
            let name = String(url.standardizedFileURL.path.dropFirst(folder.path.count + 1))
            onDisk[name] = Array(try Data(contentsOf: url))
        }
        #expect(!onDisk.isEmpty)
        #expect(Set(onDisk.keys) == Set(PublicFiles.files.keys), "run scripts/embed-public.py")
        for (name, bytes) in onDisk {
            #expect(PublicFiles.files[name]?.bytes == bytes, "\(name) changed: run scripts/embed-public.py")
        }
    }

    @Test("unknown paths are 404 JSON; a wrong method is 405 JSON")
    func unknownPaths() async throws {
        let harness = try await Harness(startEngine: false)
        let missing = try await harness.get("/nope")
        #expect(missing.status == 404)
        #expect((try missing.json()["error"] as? [String: Any])?["code"] as? String == "not-found")
        let unknownCommand = try await harness.send("POST", "/api/scanning/explode")
        #expect(unknownCommand.status == 404)
        let wrongMethod = try await harness.send("DELETE", "/api/status")
        #expect(wrongMethod.status == 405)
        #expect((try wrongMethod.json()["error"] as? [String: Any])?["code"] as? String == "method-not-allowed")
        await harness.shutdown()
    }

    @Test("status, statistics, health and readiness")
    func statusAndHealth() async throws {
        let harness = try await Harness(startEngine: false)
        let notReady = try await harness.get("/readyz")
        #expect(notReady.status == 503)
        #expect(try notReady.json()["status"] as? String == "not-ready")
        let idle = try await harness.get("/api/status").json()
        #expect(idle["scanning"] as? String == "idle")
        #expect(idle["running"] as? Bool == false)

        try harness.engine.start()
        #expect(try await eventually { try await harness.get("/readyz").status == 200 })
        #expect(try await harness.get("/readyz").json()["status"] as? String == "ready")
        let health = try await harness.get("/healthz")
        #expect(health.status == 200)
        #expect(try health.json()["status"] as? String == "ok")

        let status = try await harness.get("/api/status").json()
        #expect(status["schemaVersion"] as? Int == 1)
        #expect(status["source"] as? String == "synthetic")
        #expect(status["running"] as? Bool == true)
        #expect(status["scanning"] as? String == "scanning")
        #expect(status["plugin"] as? String == "kiosk")
        #expect((status["frame"] as? [String: Any])?["width"] as? Int == 640)
        #expect((status["frame"] as? [String: Any])?["height"] as? Int == 480)
        #expect(status["cutout"] is NSNull)
        #expect(status["previewViewers"] as? Int == 0)
        #expect(status["authRequired"] as? Bool == false)

        #expect(try await eventually { harness.engine.statistics.framesProcessed >= 3 })
        let statistics = try await harness.get("/api/statistics").json()
        #expect((statistics["framesProcessed"] as? Int ?? 0) >= 3)

        harness.engine.stop()
        await harness.engine.finished()
        let stopped = try await harness.get("/readyz")
        #expect(stopped.status == 503)
        #expect(try stopped.json()["reason"] as? String == "the engine is not running")
        await harness.shutdown()
    }

    @Test("the event stream carries exactly the delegate's events, as scan's JSON lines")
    func eventsMatchDelegate() async throws {
        let harness = try await Harness(startEngine: false)
        let stream = try TestHTTP(port: harness.port)
        try stream.send("GET", "/api/events")
        let connected = try await stream.read(until: { String(decoding: $0, as: UTF8.self).contains(": connected") })
        #expect(connected.headers["content-type"] == "text/event-stream")

        try harness.engine.start()
        #expect(
            try await eventually {
                harness.recorder.lines.withLock { $0.filter { $0.contains(#""event":"report""#) }.count >= 3 }
            })
        harness.engine.stop()
        await harness.engine.finished()
        let expected = harness.recorder.lines.withLock { $0 }
        #expect(expected.last?.contains(#""event":"stopped""#) == true)
        let answer = try await stream.read(until: { body in
            String(decoding: body, as: UTF8.self).contains(#""event":"stopped""#)
        })
        let lines = answer.text.components(separatedBy: "\n\n").compactMap { message -> String? in
            message.hasPrefix("data: ") ? String(message.dropFirst("data: ".count)) : nil
        }
        #expect(lines == expected)
        await harness.shutdown()
    }

    @Test("the preview sends decodable grey JPEGs of the downscaled frame, and encodes nothing without a viewer")
    func preview() async throws {
        let harness = try await Harness(width: 1280, height: 720)
        #expect(try await eventually { harness.engine.statistics.framesProcessed >= 10 })
        #expect(harness.engine.preview.previewFramesEncoded == 0)

        let stream = try TestHTTP(port: harness.port)
        try stream.send("GET", "/preview.mjpg")
        let answer = try await stream.read(until: { body in
            TestHTTP.find(Array("--lumascanframe".utf8), in: body, from: 1).map { _ in true } ?? false
        })
        #expect(answer.headers["content-type"] == "multipart/x-mixed-replace; boundary=lumascanframe")
        let jpeg = try firstPart(of: answer.body)
        let size = try jpegSize(jpeg)
        #expect(size.width == 640 && size.height == 360)
        var pixels = [UInt8](repeating: 0, count: size.width * size.height)
        var decoder: OpaquePointer?
        #expect(lc_jpeg_decoder_create(&decoder) == 0)
        defer { lc_jpeg_decoder_destroy(decoder) }
        let result = jpeg.withUnsafeBytes { data in
            pixels.withUnsafeMutableBytes { plane in
                lc_jpeg_decode_grey(
                    decoder, data.baseAddress, data.count, plane.baseAddress, size.width, Int32(size.width),
                    Int32(size.height))
            }
        }
        #expect(result == 0)
        #expect(Set(pixels).count > 2, "the frame has a barcode on it, so more than one grey level")
        #expect(harness.engine.preview.previewFramesEncoded >= 1)
        let status = try await harness.get("/api/status").json()
        #expect(status["previewViewers"] as? Int == 1)
        await harness.shutdown()
    }

    @Test("control endpoints drive the scanning lifecycle; a transition not allowed is 409 and changes nothing")
    func control() async throws {
        let harness = try await Harness()
        func post(_ command: String) async throws -> HTTPAnswer {
            try await harness.send("POST", "/api/scanning/\(command)")
        }
        #expect(try await eventually { harness.engine.scanningState == .scanning })
        let again = try await post("start")
        #expect(again.status == 409)
        #expect((try again.json()["error"] as? [String: Any])?["code"] as? String == "invalid-transition")

        let paused = try await post("pause")
        #expect(paused.status == 200)
        #expect(try paused.json()["scanning"] as? String == "paused")
        #expect(harness.engine.scanningState == .paused)
        #expect(try await post("pause").status == 409)
        #expect(harness.engine.scanningState == .paused)

        let resumed = try await post("resume")
        #expect(try resumed.json()["scanning"] as? String == "scanning")
        #expect(harness.engine.scanningState == .scanning)

        let stopped = try await post("stop")
        #expect(try stopped.json()["scanning"] as? String == "stopped")
        #expect(harness.engine.scanningState == .stopped)
        #expect(try await post("resume").status == 409)

        #expect(try await post("start").status == 200)
        #expect(harness.engine.scanningState == .scanning)
        let aborted = try await post("abort")
        #expect(try aborted.json()["scanning"] as? String == "stopped")
        #expect(harness.engine.scanningState == .stopped)
        await harness.shutdown()
    }

    @Test("PUT /api/config hot-swaps the plugin; bad JSON, a bad value and a large body are refused, changing nothing")
    func configuration() async throws {
        let harness = try await Harness()
        let current = try await harness.get("/api/config").json()
        #expect(current["viewPluginConfig"] != nil)

        let syntax = try await harness.send("PUT", "/api/config", body: Array("{\n  \"viewPluginConfig\": [,\n}".utf8))
        #expect(syntax.status == 400)
        let syntaxError = try syntax.json()["error"] as? [String: Any]
        #expect(syntaxError?["code"] as? String == "invalid-configuration")
        #expect(syntaxError?["line"] as? Int == 2)
        #expect(syntaxError?["column"] != nil)

        let unknown = barcodeConfiguration.replacingOccurrences(of: #""scanTimeout": 0"#, with: #""scanTimeot": 0"#)
        let badKey = try await harness.send("PUT", "/api/config", body: Array(unknown.utf8))
        #expect(badKey.status == 400)
        let badKeyError = try badKey.json()["error"] as? [String: Any]
        #expect(badKeyError?["path"] as? String == "viewPluginConfig.pluginConfig.scanTimeot")

        let huge = Array(repeating: UInt8(ascii: " "), count: 70 * 1024)
        let tooLarge = try await harness.send("PUT", "/api/config", body: huge)
        #expect(tooLarge.status == 413)
        #expect(harness.engine.currentPlugin.id == "kiosk")
        #expect(
            try await harness.get("/api/config").json()["viewPluginConfig"] as? NSDictionary
                == current["viewPluginConfig"] as? NSDictionary)

        let renamed = barcodeConfiguration.replacingOccurrences(of: #""id": "kiosk""#, with: #""id": "till""#)
        let accepted = try await harness.send("PUT", "/api/config", body: Array(renamed.utf8))
        #expect(accepted.status == 200)
        #expect(try accepted.json()["ok"] as? Bool == true)
        #expect(harness.engine.currentPlugin.id == "till")
        let after = try await harness.get("/api/config").json()
        #expect(
            ((after["viewPluginConfig"] as? [String: Any])?["pluginConfig"] as? [String: Any])?["id"] as? String
                == "till")
        await harness.shutdown()
    }

    @Test("with a token, control and configuration need Authorization: Bearer; the rest does not")
    func token() async throws {
        let harness = try await Harness(token: "s3cret-token\n")
        #expect(try await harness.send("POST", "/api/scanning/pause").status == 401)
        #expect(
            try await harness.send("POST", "/api/scanning/pause", headers: ["Authorization": "Bearer s3cret-tokem"])
                .status == 401)
        #expect(try await harness.get("/api/config").status == 401)
        #expect(try await harness.send("PUT", "/api/config", body: Array(barcodeConfiguration.utf8)).status == 401)
        #expect(harness.engine.scanningState != .paused)
        let allowed = try await harness.send(
            "POST", "/api/scanning/pause", headers: ["Authorization": "Bearer s3cret-token"])
        #expect(allowed.status == 200)
        #expect(try await harness.get("/api/config", headers: ["Authorization": "Bearer s3cret-token"]).status == 200)
        let status = try await harness.get("/api/status")
        #expect(status.status == 200)
        #expect(try status.json()["authRequired"] as? Bool == true)
        #expect(try await harness.get("/healthz").status == 200)
        await harness.shutdown()
    }

    @Test("a server beyond loopback without a token is refused")
    func exposedWithoutToken() throws {
        let engine = ScanEngine(
            source: SyntheticSource(images: [LumaImage(width: 32, height: 32)]), recognizers: [], logger: testLogger)
        #expect(throws: LumaScanError.self) {
            _ = try KioskServer(
                engine: engine, configuration: try ScanConfiguration.decode(json: barcodeConfiguration),
                options: .init(address: ListenAddress(host: "0.0.0.0", port: 0)), logger: testLogger,
                metricsFactory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
        }
        #expect(ListenAddress("127.0.0.1:0")?.isLoopback == true)
        #expect(ListenAddress("[::1]:8080")?.isLoopback == true)
        #expect(ListenAddress("192.168.1.4:80")?.isLoopback == false)
        #expect(ListenAddress("nonsense") == nil)
    }

    @Test("GET /metrics is Prometheus text whose frame counters follow the engine")
    func metrics() async throws {
        let harness = try await Harness()
        #expect(try await eventually { harness.engine.statistics.framesProcessed >= 3 })
        let first = try parsePrometheus(try await harness.get("/metrics"))
        let firstCaptured = try #require(first.values["lumascan_frames_captured_total"])
        #expect(firstCaptured >= 3)
        #expect(first.types["lumascan_frames_captured_total"] == "counter")
        #expect(first.types["lumascan_preview_viewers"] == "gauge")
        #expect(first.values[#"lumascan_frames_dropped_total{reason="ring"}"#] != nil)
        #expect(first.values[#"lumascan_frames_dropped_total{reason="driver"}"#] != nil)
        #expect(first.values["lumascan_preview_frames_encoded_total"] == 0)
        #expect(first.types["lumascan_capture_to_report_seconds"] == "histogram")
        #expect(first.types["lumascan_luma_seconds"] == "histogram")
        #expect(first.types["lumascan_recognition_seconds"] == "histogram")
        #expect((first.values["lumascan_recognition_seconds_count"] ?? 0) >= 1)
        #expect(
            first.values[#"lumascan_recognition_seconds_bucket{le="+Inf"}"#]
                == first.values["lumascan_recognition_seconds_count"])
        #expect(first.values.keys.contains { $0.hasPrefix("lumascan_reports_total{") && $0.contains("ean13") })

        let target = firstCaptured + 5
        #expect(
            try await eventually {
                let next = try parsePrometheus(try await harness.get("/metrics"))
                return (next.values["lumascan_frames_captured_total"] ?? 0) >= target
                    && (next.values["lumascan_frames_processed_total"] ?? 0) > first.values[
                        "lumascan_frames_processed_total"] ?? 0
            })
        await harness.shutdown()
    }
}

/// The exposition's samples (`name{labels}` → value) and `# TYPE` lines; throws on a line that is neither.
func parsePrometheus(_ answer: HTTPAnswer) throws -> (values: [String: Double], types: [String: String]) {
    guard answer.status == 200 else { throw TestHTTPError("/metrics: \(answer.status) \(answer.text)") }
    var values: [String: Double] = [:]
    var types: [String: String] = [:]
    for line in answer.text.split(separator: "\n") {
        if line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            guard parts.count == 4 else { throw TestHTTPError("bad TYPE line: \(line)") }
            types[String(parts[2])] = String(parts[3])
            continue
        }
        if line.hasPrefix("# HELP ") || line.hasPrefix("#") { continue }
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
            throw TestHTTPError("bad sample line: \(line)")
        }
        let name = String(line[..<space])
        guard name.firstMatch(of: #/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"]*",?)*\})?$/#) != nil
        else { throw TestHTTPError("bad sample name: \(name)") }
        values[name] = value
    }
    return (values, types)
}

/// The first part's JPEG of a multipart/x-mixed-replace body.
func firstPart(of body: [UInt8]) throws -> [UInt8] {
    guard let headerEnd = TestHTTP.find([13, 10, 13, 10], in: body) else { throw TestHTTPError("no part header") }
    let header = String(decoding: body[0..<headerEnd], as: UTF8.self)
    guard header.hasPrefix("--lumascanframe\r\n"), header.contains("Content-Type: image/jpeg"),
        let lengthLine = header.split(separator: "\r\n").first(where: { $0.hasPrefix("Content-Length: ") }),
        let length = Int(lengthLine.dropFirst("Content-Length: ".count))
    else { throw TestHTTPError("bad part header: \(header)") }
    let start = headerEnd + 4
    guard body.count >= start + length + 2 else { throw TestHTTPError("short part") }
    #expect(body[start + length] == 13 && body[start + length + 1] == 10)
    return Array(body[start..<start + length])
}

/// A baseline JPEG's size, from its SOF0 marker.
func jpegSize(_ jpeg: [UInt8]) throws -> (width: Int, height: Int) {
    var index = 2
    while index + 9 < jpeg.count {
        guard jpeg[index] == 0xFF else { throw TestHTTPError("not a JPEG marker at \(index)") }
        let marker = jpeg[index + 1]
        let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
        if marker == 0xC0 || marker == 0xC1 || marker == 0xC2 {
            let height = Int(jpeg[index + 5]) << 8 | Int(jpeg[index + 6])
            let width = Int(jpeg[index + 7]) << 8 | Int(jpeg[index + 8])
            return (width, height)
        }
        index += 2 + length
    }
    throw TestHTTPError("no SOF marker")
}
