import Foundation
import LumaScanCore
import LumaScanTestSupport
import Testing

@Suite("lumascan bench")
struct BenchCommandTests {
    @Test("bench --synthetic --json counts every frame, times the recognizer and compares it with zbar")
    func syntheticJSON() throws {
        let result = try runLumaScan([
            "bench", "--synthetic", "320x240", "--frames", "30", "--baseline-frames", "30", "--json", "--no-progress",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try jsonLines(result.stdout)
        #expect(lines.count == 1)
        let bench = try #require(lines.first)
        #expect(bench["schemaVersion"] as? Int == 1)
        #expect(bench["recognizer"] as? String == "barcode")
        #expect(bench["width"] as? Int == 320)
        #expect(bench["height"] as? Int == 240)
        // A finite source at full speed: every frame captured is processed, none dropped.
        #expect(bench["framesRequested"] as? Int == 30)
        #expect(bench["framesCaptured"] as? Int == 30)
        #expect(bench["framesProcessed"] as? Int == 30)
        #expect(bench["drops"] as? Int == 0)
        #expect((bench["framesPerSecond"] as? Double ?? 0) > 0)
        #expect((bench["cpuPercent"] as? Double ?? 0) > 0)
        #expect((bench["peakMemoryBytes"] as? Int ?? 0) > 0)
        let perFrame = try #require(bench["msPerFrame"] as? [String: Double])
        let (p50, p90, p99) = (perFrame["p50"] ?? 0, perFrame["p90"] ?? 0, perFrame["p99"] ?? 0)
        #expect(p50 > 0 && p50 <= p90 && p90 <= p99, "\(perFrame)")
        let zbar = try #require(bench["zbar"] as? [String: Any])
        #expect(zbar["frames"] as? Int == 30)
        #expect((zbar["ratio"] as? Double ?? 0) > 0)
        #expect((zbar["zbarMsPerFrame"] as? Double ?? 0) > 0)
        // The synthetic frames hold an EAN-13 and a QR code (10 frames each, then 10 without): LumaScan reads both.
        #expect(zbar["lumascanCodesRead"] as? Int == 2, "\(zbar)")
        let zxing = try #require(bench["zxing"] as? [String: Any])
        #expect(zxing["frames"] as? Int == 30)
        #expect((zxing["zxingMsPerFrame"] as? Double ?? 0) > 0)
        #expect((zxing["ratio"] as? Double ?? 0) > 0)
    }

    @Test("bench --fps paces a live source and reports drops and latency")
    func paced() throws {
        let result = try runLumaScan([
            "bench", "--synthetic", "320x240", "--frames", "15", "--fps", "60", "--baseline-frames", "0", "--json",
            "--no-progress",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let bench = try #require(try jsonLines(result.stdout).first)
        #expect(bench["fps"] as? Double == 60)
        #expect(bench["framesCaptured"] as? Int == 15)
        let processed = bench["framesProcessed"] as? Int ?? -1
        #expect(processed + (bench["drops"] as? Int ?? -1) == 15)
        #expect(bench["zbar"] == nil)
        let latency = try #require(bench["captureToReportMs"] as? [String: Double])
        #expect((latency["p50"] ?? 0) > 0)
    }

    @Test("bench --input over a folder reads each image once")
    func folder() throws {
        let (folder, expected) = try CLITests.makeImageFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runLumaScan(["bench", "--input", folder.path, "--frames", "100", "--json", "--no-progress"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let bench = try #require(try jsonLines(result.stdout).first)
        let images = expected.count + 1  // and one image without a code
        #expect(bench["framesProcessed"] as? Int == images)
        let zbar = try #require(bench["zbar"] as? [String: Any])
        #expect(zbar["frames"] as? Int == images)
        #expect((zbar["ratio"] as? Double ?? 0) > 0)
    }

    @Test("bench --config measures the recognizer the configuration builds, on --input's frames")
    func configuration() throws {
        let (folder, _) = try CLITests.makeImageFolder()
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: config)
        }
        try Data(
            #"{"viewPluginConfig": {"pluginConfig": {"id": "qr", "barcodeConfig": {"symbologies": ["qr"]}}}}"#.utf8
        ).write(to: config)
        // The folder holds an EAN-13, a Code 128, a QR code and an image without a code: a barcode recognizer
        // configured for QR only reads one of them, where --recognizer's default (every symbology) reads three.
        let result = try runLumaScan([
            "bench", "--input", folder.path, "--config", config.path, "--frames", "100", "--json", "--no-progress",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let bench = try #require(try jsonLines(result.stdout).first)
        #expect(bench["recognizer"] as? String == "configuration")
        #expect(bench["configuration"] as? String == config.path)
        let zbar = try #require(bench["zbar"] as? [String: Any])
        #expect(zbar["lumascanCodesRead"] as? Int == 1, "\(zbar)")
        #expect(zbar["zbarCodesRead"] as? Int == 3, "\(zbar)")
        let summary = try runLumaScan(["bench", "--input", folder.path, "--config", config.path, "--frames", "4"])
        #expect(summary.stdout.contains("lumascan bench: the recognizer of \(config.path) on"), "\(summary)")
        // Synthetic frames are drawn for --recognizer's own setup, and a bad document names its path.
        let synthetic = try runLumaScan(["bench", "--config", config.path])
        #expect(synthetic.status == 2 && synthetic.stderr.contains("--config needs --input"), "\(synthetic)")
        try Data(
            #"{"viewPluginConfig": {"pluginConfig": {"id": "qr", "barcodeConfig": {"symbologies": ["nope"]}}}}"#.utf8
        ).write(to: config)
        let bad = try runLumaScan(["bench", "--input", folder.path, "--config", config.path])
        #expect(
            bad.status == 2 && bad.stderr.contains("viewPluginConfig.pluginConfig.barcodeConfig.symbologies[0]"),
            "\(bad)")
    }

    @Test("the human summary names the figures")
    func summary() throws {
        let result = try runLumaScan(["bench", "--synthetic", "160x120", "--frames", "5", "--baseline-frames", "5"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        for label in [
            "frames/s", "p50", "p90", "p99", "CPU", "peak memory", "drops", "vs raw zbar", "vs raw ZXing-C++",
        ] {
            #expect(result.stdout.contains(label), "\(label) missing from: \(result.stdout)")
        }
    }

    @Test(
        "bench measures the secure-QR and meter recognizers on their synthetic scenes, resetting at completions",
        arguments: [("secure-qr", "qr"), ("meter", nil)] as [(String, String?)])
    func otherRecognizers(name: String, zbarSymbology: String?) throws {
        let result = try runLumaScan([
            "bench", "--recognizer", name, "--synthetic", "640x480", "--frames", "40", "--baseline-frames", "20",
            "--json", "--no-progress",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let bench = try #require(try jsonLines(result.stdout).first)
        #expect(bench["recognizer"] as? String == name)
        #expect(bench["framesProcessed"] as? Int == 40)
        let zbar = try #require(bench["zbar"] as? [String: Any])
        #expect(zbar["frames"] as? Int == 20)
        // 10 frames with the code or meter, then 10 without: the recognizer reads it (again after each reset).
        #expect(zbar["lumascanCodesRead"] as? Int == 1, "\(zbar)")
        if let zbarSymbology {
            #expect(bench["symbologies"] as? [String] == [zbarSymbology])
            #expect(zbar["zbarCodesRead"] as? Int == 1, "\(zbar)")
        }
        let summary = try runLumaScan([
            "bench", "--recognizer", name, "--synthetic", "640x480", "--frames", "5", "--baseline-frames", "5",
        ])
        #expect(summary.stdout.contains("lumascan bench: \(name) recognizer on synthetic 640x480 noisy"), "\(summary)")
    }

    @Test("bench with an issuer's key scores every secure-QR completion's authenticity, and the code is genuine")
    func secureQRKey() throws {
        let key = FileManager.default.temporaryDirectory.appendingPathComponent("bench-key-\(UUID().uuidString)")
        try Data((0..<32).map { UInt8($0 * 7 + 3) }).write(to: key)
        defer { try? FileManager.default.removeItem(at: key) }
        let result = try runLumaScan([
            "bench", "--recognizer", "secure-qr", "--secure-qr-key-file", key.path, "--synthetic", "640x480",
            "--frames", "20", "--baseline-frames", "0", "--no-progress", "--log-level", "debug",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let completions = result.stderr.split(separator: "\n").filter { $0.contains("secure-QR scan complete") }
        #expect(!completions.isEmpty, "\(result.stderr)")
        #expect(completions.allSatisfy { $0.contains("authenticity=genuine") }, "\(completions)")
        // Without the key the same completions are not scored.
        let plain = try runLumaScan([
            "bench", "--recognizer", "secure-qr", "--synthetic", "640x480", "--frames", "20", "--baseline-frames", "0",
            "--no-progress", "--log-level", "debug",
        ])
        #expect(plain.stderr.contains("authenticity=not scored") && !plain.stderr.contains("authenticity=genuine"))
        let wrongRecognizer = try runLumaScan(["bench", "--secure-qr-key-file", key.path])
        #expect(wrongRecognizer.status == 2 && wrongRecognizer.stderr.contains("--secure-qr-key-file"))
    }

    @Test("bad arguments exit with status 2")
    func badArguments() throws {
        let unknown = try runLumaScan(["bench", "--recognizer", "ocr"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--recognizer"))
        let both = try runLumaScan(["bench", "--input", "/tmp", "--synthetic", "640x480"])
        #expect(both.status == 2)
    }
}
