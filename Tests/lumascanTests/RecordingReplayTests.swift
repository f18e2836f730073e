import CLumaCapture
import Foundation
import Logging
import LumaScan
import LumaScanTestSupport
import Testing

/// Collects the reports and the final statistics of an engine run.
final class ReplayCollector: ScanEngineDelegate, @unchecked Sendable {
    // SAFETY (Sendable): every access holds the lock.
    private let lock = Lock(())
    private var collected: [ScanReport] = []
    private var stop: StopReason?

    func scanEngine(_ engine: ScanEngine, didReport report: ScanReport) {
        lock.withLock { _ in collected.append(report) }
    }

    func scanEngine(_ engine: ScanEngine, didStop reason: StopReason) { lock.withLock { _ in stop = reason } }

    var reports: [ScanReport] { lock.withLock { _ in collected } }
    var stopReason: StopReason? { lock.withLock { _ in stop } }
}

/// Scenes with codes, and recordings made of them; expected payloads come from how the scenes were made.
enum ReplayScenes {
    static let width = 400
    static let height = 300
    static let expected: [(file: String, symbology: String, text: String)] = [
        ("a-ean13.png", "ean13", "4006381333931"),
        ("b-code128.png", "code128", "LUMA-2026"),
        ("c-qr.png", "qr", "https://lumascan.example/k/42"),
    ]

    /// The three code scenes in `expected` order, then one without a code.
    static func scenes() throws -> [(file: String, canvas: TestCanvas)] {
        func scene(_ code: LumaImage, degrees: Double, seed: UInt64) -> TestCanvas {
            let canvas = BarcodeCorpus.background(width: width, height: height, seed: seed)
            _ = canvas.place(code, centre: Point(x: 200, y: 150), scale: 1, degrees: degrees)
            canvas.addNoise(sigma: 2, seed: seed)
            return canvas
        }
        let empty = BarcodeCorpus.background(width: width, height: height, seed: 9)
        empty.draw(text: "NO CODE", x: 40, y: 150)
        return [
            ("a-ean13.png", scene(EAN.ean13("400638133393").render(moduleWidth: 2, height: 90), degrees: 0, seed: 1)),
            (
                "b-code128.png",
                scene(Code128.encode("LUMA-2026").render(moduleWidth: 2, height: 80), degrees: 5, seed: 2)
            ),
            (
                "c-qr.png",
                scene(try QRCode("https://lumascan.example/k/42").render(moduleSize: 5), degrees: 15, seed: 3)
            ),
            ("d-nothing.png", empty),
        ]
    }

    /// A fresh folder holding the scenes as PNG files.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-rec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (file, canvas) in try scenes() {
            let path = folder.appendingPathComponent(file).path
            guard canvas.writePNG(to: path) == 0 else { throw CLIError("could not write \(path)") }
        }
        return folder
    }

    /// A temporary recording path.
    static func recordingPath() -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("lumascan-\(UUID().uuidString).\(RecordingFormat.fileExtension)").path
    }

    /// `image` as a packed YUYV frame: luma in the even bytes, neutral chroma.
    static func yuyv(_ image: LumaImage) -> [UInt8] {
        image.pixels.flatMap { [$0, 128] }
    }

    /// `image` as a one-component JPEG, through the capture shim's encoder (as a grey MJPEG camera would send it).
    static func jpeg(_ image: LumaImage) throws -> [UInt8] {
        var created: OpaquePointer?
        guard lc_jpeg_encoder_create(&created) == 0, let encoder = created else { throw CLIError("no JPEG encoder") }
        defer { lc_jpeg_encoder_destroy(encoder) }
        var output = [UInt8](repeating: 0, count: lc_jpeg_grey_capacity(Int32(image.width), Int32(image.height)))
        let capacity = output.count
        let size = image.withView { view in
            output.withUnsafeMutableBytes {
                lc_jpeg_encode_grey(
                    encoder, view.baseAddress, view.stride, Int32(view.width), Int32(view.height), 90, $0.baseAddress,
                    capacity)
            }
        }
        guard size > 0 else { throw CLIError("JPEG encoding failed: \(size)") }
        return Array(output.prefix(size))
    }

    /// Writes `frames` (bytes and flags) of `format`, 100 ms apart, to a new recording; returns its path.
    static func write(_ frames: [([UInt8], RecordingFrameFlags)], format: FrameFormat) throws -> String {
        let path = recordingPath()
        let writer = try RecordingWriter(path: path, format: format, logger: Logger(label: "test"))
        for (index, (bytes, flags)) in frames.enumerated() {
            try bytes.withUnsafeBytes {
                try writer.append(
                    $0, timestamp: UInt64(index) * 100_000_000, sequence: UInt32(index), flags: flags)
            }
        }
        try writer.finish()
        return path
    }

    /// Runs `source` through an engine with a barcode recognizer until it ends.
    static func scan(_ source: any FrameSource) throws -> (collector: ReplayCollector, statistics: ScanStatistics) {
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let recognizer = try BarcodeRecognizer(configuration: BarcodeConfiguration(), logger: logger)
        let engine = ScanEngine(
            source: source, plugin: ScanPlugin(id: "barcode", recognizer: recognizer, scanTimeout: nil),
            logger: logger)
        let collector = ReplayCollector()
        engine.delegate = collector
        try engine.start()
        engine.waitUntilFinished()
        return (collector, engine.statistics)
    }
}

@Suite("Recording replay")
struct RecordingReplayTests {
    @Test(
        "a YUYV recording of code scenes replays through the engine: every payload read once", .timeLimit(.minutes(1)))
    func engineReplay() throws {
        let scenes = try ReplayScenes.scenes()
        // Each scene for two frames (1D codes with weak check digits need two reads), as a camera would see them.
        let frames = scenes.flatMap { scene in
            Array(repeating: (ReplayScenes.yuyv(scene.canvas.image), RecordingFrameFlags()), count: 2)
        }
        let path = try ReplayScenes.write(
            frames, format: FrameFormat(pixelFormat: .yuyv, width: ReplayScenes.width, height: ReplayScenes.height))
        defer { try? FileManager.default.removeItem(atPath: path) }

        let (collector, statistics) = try ReplayScenes.scan(
            RecordingSource(path: path, logger: Logger(label: "test")))
        #expect(collector.stopReason == .endOfInput)
        #expect(statistics.framesCaptured == 8)
        #expect(statistics.framesProcessed == 8)
        #expect(statistics.framesCorrupt == 0)
        let results = collector.reports.filter { $0.reportType == .completedResult }
        #expect(results.map { $0.text ?? "" }.sorted() == ReplayScenes.expected.map(\.text).sorted())
        for (_, symbology, text) in ReplayScenes.expected {
            let result = results.first { $0.text == text }
            #expect(result?.symbology?.rawValue == symbology, "\(text)")
            // The code shows in frames 2i and 2i+1: it is reported from one of them, at its recorded time.
            if let result { #expect(result.frameIndex <= 5) }
        }
    }

    @Test(
        "a corrupt MJPEG frame and a driver-flagged frame are counted as corrupt and skipped, as from a camera",
        .timeLimit(.minutes(1)))
    func corruptMJPEG() throws {
        let scenes = try ReplayScenes.scenes()
        let qr = try ReplayScenes.jpeg(scenes[2].canvas.image)
        let nothing = try ReplayScenes.jpeg(scenes[3].canvas.image)
        let cut = Array(qr.prefix(qr.count / 2))  // cut off mid-scan
        let frames: [([UInt8], RecordingFrameFlags)] = [
            (nothing, []), (cut, []), (nothing, .driverFlaggedError), (qr, []), (qr, []),
        ]
        let path = try ReplayScenes.write(
            frames, format: FrameFormat(pixelFormat: .mjpeg, width: ReplayScenes.width, height: ReplayScenes.height))
        defer { try? FileManager.default.removeItem(atPath: path) }

        let (collector, statistics) = try ReplayScenes.scan(
            RecordingSource(path: path, logger: Logger(label: "test")))
        #expect(collector.stopReason == .endOfInput)
        #expect(statistics.framesCorrupt == 2)
        #expect(statistics.framesCaptured == 4)
        #expect(statistics.framesProcessed == 4)  // the flagged frame never enters the ring; the cut one does
        let results = collector.reports.filter { $0.reportType == .completedResult }
        #expect(results.map(\.text) == ["https://lumascan.example/k/42"])
        #expect(results.first?.frameIndex == 3)
    }

    @Test("record --input, then scan --input the recording: the JSON reports carry the exact payloads")
    func recordThenScan() throws {
        let folder = try ReplayScenes.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = ReplayScenes.recordingPath()
        defer { try? FileManager.default.removeItem(atPath: path) }

        let record = try runLumaScan(["record", "--input", folder.path, "--fps", "5", "--repeat", "2", "--out", path])
        #expect(record.status == 0, "stderr: \(record.stderr)")
        #expect(record.stderr.contains("recorded 8 frame(s) of GREY 400x300"), "\(record.stderr)")
        let header = try RecordingSource.readHeader(path: path)
        #expect(header.frameCount == 8)
        #expect(header.format == FrameFormat(pixelFormat: .grey, width: 400, height: 300))

        for pace in [[], ["--realtime"]] {
            let result = try runLumaScan(["scan", "--input", path] + pace)
            #expect(result.status == 0, "\(pace) stderr: \(result.stderr)")
            let events = try jsonLines(result.stdout)
            #expect(events.first?["event"] as? String == "started")
            #expect(events.first?["source"] as? String == path)
            #expect(events.first?["pixelFormat"] as? String == "GREY")
            #expect(events.first?["width"] as? Int == 400)
            #expect(events.last?["event"] as? String == "stopped")
            #expect(events.last?["reason"] as? String == "endOfInput")
            let reports = events.filter { $0["event"] as? String == "report" }
            #expect(reports.allSatisfy { $0["input"] == nil }, "a replay reports as a camera, without files")
            #expect(reports.count == 8, "one report per frame: a result, or IN_PROGRESS")
            let results = reports.filter { $0["reportType"] as? String == "COMPLETED_RESULT" }
            #expect(results.count == ReplayScenes.expected.count, "\(pace): \(results)")
            for (_, symbology, text) in ReplayScenes.expected {
                let matching = results.filter { $0["text"] as? String == text }
                #expect(matching.count == 1, "\(pace) \(text)")
                #expect(matching.first?["symbology"] as? String == symbology)
                let bytes = (matching.first?["bytesBase64"] as? String).flatMap { Data(base64Encoded: $0) }
                #expect(bytes.map { String(decoding: $0, as: UTF8.self) } == text)
            }
            #expect(result.stderr.contains("3 result(s)"), "\(result.stderr)")
        }
    }

    @Test("a recording that cannot be written whole exits 1 and leaves no file, partial or temporary")
    func failedWrite() throws {
        let folder = try ReplayScenes.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = ReplayScenes.recordingPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A file-size limit of 256 KiB fails the write that crosses it (EFBIG, with SIGXFSZ ignored), as a full disk
        // fails it with ENOSPC; 40 frames of 120,000 bytes need 4.8 MB.
        let limit = ["/bin/bash", "-c", #"trap "" XFSZ; ulimit -f 256; exec "$0" "$@""#]
        let record = try runLumaScan(
            ["record", "--input", folder.path, "--repeat", "10", "--out", path], wrapper: limit)
        #expect(record.status == 1, "stderr: \(record.stderr)")
        #expect(record.stderr.contains("write failed"), "\(record.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        let folderOfPath = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folderOfPath).filter {
            $0.hasPrefix("." + URL(fileURLWithPath: path).lastPathComponent)
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test("a truncated recording: reports of the frames before the damage, then exit 1 naming the file and offset")
    func truncatedRecording() throws {
        let folder = try ReplayScenes.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = ReplayScenes.recordingPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let record = try runLumaScan(["record", "--input", folder.path, "--repeat", "2", "--out", path])
        try #require(record.status == 0, "stderr: \(record.stderr)")
        // Keep the first six frames and half of the seventh.
        let frameBytes = RecordingFormat.frameHeaderSize + 400 * 300
        let seventh = RecordingFormat.headerSize + 6 * frameBytes
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(seventh + frameBytes / 2).write(to: URL(fileURLWithPath: path))

        let result = try runLumaScan(["scan", "--input", path, "--results-only"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let events = try jsonLines(result.stdout)
        let texts = events.compactMap { $0["event"] as? String == "report" ? $0["text"] as? String : nil }
        #expect(texts.sorted() == ReplayScenes.expected.map(\.text).sorted())
        let failure = events.first { $0["event"] as? String == "sourceFailed" }
        #expect((failure?["message"] as? String)?.contains("byte offset \(seventh)") == true, "\(events)")
        #expect(events.last?["reason"] as? String == "error")
        #expect(result.stderr.contains(path), "\(result.stderr)")
        #expect(result.stderr.contains("truncated recording"), "\(result.stderr)")
        #expect(result.stderr.contains("byte offset \(seventh)"), "\(result.stderr)")
    }

    @Test("a file named .lsrec that is not a recording cannot be opened (exit 3); replay flags need a recording")
    func badInputs() throws {
        let path = ReplayScenes.recordingPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("hello, not a recording".utf8).write(to: URL(fileURLWithPath: path))
        let magic = try runLumaScan(["scan", "--input", path])
        #expect(magic.status == 3)
        #expect(magic.stderr.contains(path), "\(magic.stderr)")
        #expect(magic.stderr.contains("not a recording"), "\(magic.stderr)")
        #expect(magic.stderr.contains("byte offset 0"), "\(magic.stderr)")

        let missing = "/nonexistent/lumascan.\(RecordingFormat.fileExtension)"
        let absent = try runLumaScan(["scan", "--input", missing, "--realtime"])
        #expect(absent.status == 3)
        #expect(absent.stderr.contains(missing + ": cannot open the recording"), "\(absent.stderr)")

        let folder = try ReplayScenes.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let realtime = try runLumaScan(["scan", "--input", folder.path, "--realtime"])
        #expect(realtime.status == 2)
        #expect(realtime.stderr.contains("--realtime"), "\(realtime.stderr)")

        let camera = try runLumaScan(["record", "--device", "/dev/video-lumascan-missing", "--out", path])
        #expect(camera.status == 2)
        #expect(camera.stderr.contains("--frames"), "\(camera.stderr)")
        let noCamera = try runLumaScan([
            "record", "--device", "/dev/video-lumascan-missing", "--frames", "1", "--out", path,
        ])
        #expect(noCamera.status == 3)
        #expect(noCamera.stderr.contains("/dev/video-lumascan-missing"), "\(noCamera.stderr)")

        let mixed = try runLumaScan(["record", "--input", folder.path, "--size", "64x48", "--out", path])
        #expect(mixed.status == 2)
    }

    @Test("bench --input accepts a recording")
    func benchRecording() throws {
        let folder = try ReplayScenes.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = ReplayScenes.recordingPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let record = try runLumaScan(["record", "--input", folder.path, "--out", path])
        try #require(record.status == 0, "stderr: \(record.stderr)")
        let bench = try runLumaScan([
            "bench", "--input", path, "--frames", "4", "--baseline-frames", "2", "--json", "--no-progress",
        ])
        #expect(bench.status == 0, "stderr: \(bench.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(bench.stdout.utf8)) as? [String: Any]
        #expect(object?["framesProcessed"] as? Int == 4)
        #expect(object?["pixelFormat"] as? String == "GREY")
        #expect(object?["source"] as? String == path)
    }
}
