import Dispatch
import Foundation
import Logging
import LumaScan
import LumaScanTestSupport
import Testing

/// Random valid configurations, drawn from the ranges the README documents for every field, each run on a few frames
/// of every source kind a unit test can open (synthetic frames in two pixel formats and sizes, an image file, a
/// recording): no crash, no hang, and no frame whose recognition takes longer than a bound far above any real frame's
/// (a hang detector, not a performance measure: those are the benchmarks').
@Suite("Configuration properties: random valid configurations on every source kind")
struct ConfigurationPropertyTests {
    static let logger = Logger(label: "lumascan.tests.configuration-property")

    /// How many configurations one run draws (each on three sources); the seeds are fixed, so a failure reproduces.
    static let configurations = 60

    /// No frame's recognition may take this long: about a thousand times a 1080p frame's, on any source.
    static let frameBound: Duration = .seconds(5)

    /// No engine run (a few frames) may take this long to finish.
    static let runBound: Double = 60

    @Test("random valid configurations decode, round-trip, build and run on every source kind")
    func randomConfigurations() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lumascan-config-property-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = try Self.frames()
        let imagePath = folder.appendingPathComponent("scene.png").path
        let canvas = TestCanvas(width: frames.scenes[0].width, height: frames.scenes[0].height)
        canvas.paste(frames.scenes[0], x: 0, y: 0)
        try #require(canvas.writePNG(to: imagePath) == 0)
        let recordingPath = folder.appendingPathComponent("scenes.lsrec").path
        try Self.writeRecording(frames.scenes, to: recordingPath)

        var random = SplitMix64(seed: 0xC0_F1_6C)
        var kinds: [String: Int] = [:]
        for index in 0..<Self.configurations {
            let json = RandomConfiguration.document(&random)
            let configuration: ScanConfiguration
            do {
                configuration = try ScanConfiguration.decode(json: json)
            } catch {
                Issue.record(
                    "configuration \(index) is valid by the documented ranges but was refused: \(error)\n\(json)")
                continue
            }
            // What the document says is what a configuration written back says.
            let again = try ScanConfiguration.decode(json: configuration.asJSONString(pretty: false))
            #expect(again == configuration, "configuration \(index) does not round-trip\n\(json)")
            for plugin in configuration.viewPlugins {
                kinds[plugin.pluginConfig.recognizer.jsonKey, default: 0] += 1
            }

            let sources: [(String, () -> any FrameSource)] = [
                ("grey 640x480", { SyntheticSource(images: frames.scenes, frameCount: 4) }),
                ("YUYV 34x17", { SyntheticSource(images: [frames.tiny], pixelFormat: .yuyv, frameCount: 3) }),
                ("image file", { ImageFileSource(path: imagePath, logger: Self.logger) }),
                ("recording", { RecordingSource(path: recordingPath, logger: Self.logger) }),
            ]
            for (name, makeSource) in sources {
                var plugin = try configuration.makePlugin(logger: Self.logger)
                let timed = TimedRecognizer(plugin.recognizer, capacity: 16)
                plugin.recognizer = timed
                plugin.scanTimeout = nil
                let engine = ScanEngine(
                    source: makeSource(), plugin: plugin, options: .init(frameLimit: 8), logger: Self.logger)
                try engine.start()
                let finished = DispatchSemaphore(value: 0)
                Thread {
                    engine.waitUntilFinished()
                    finished.signal()
                }.start()
                guard finished.wait(timeout: .now() + Self.runBound) == .success else {
                    Issue.record("configuration \(index) on \(name) did not finish within \(Self.runBound) s\n\(json)")
                    engine.stop()
                    continue
                }
                let statistics = engine.statistics
                #expect(statistics.framesProcessed > 0, "configuration \(index) on \(name) processed no frame\n\(json)")
                #expect(
                    statistics.framesCaptured
                        == statistics.framesProcessed + statistics.framesDroppedByRing + statistics.framesInFlight)
                let slowest = timed.nanoseconds.max() ?? 0
                #expect(
                    Duration.nanoseconds(Int64(slowest)) < Self.frameBound,
                    "configuration \(index) on \(name): a frame took \(Double(slowest) / 1e9) s\n\(json)")
            }
        }
        // The generator exercises every recognizer.
        #expect(Set(kinds.keys) == ["barcodeConfig", "meterConfig", "secureQRConfig"], "\(kinds)")
    }

    /// Scenes with each kind of code (640x480, noisy) and a tiny odd-sized frame.
    static func frames() throws -> (scenes: [LumaImage], tiny: LumaImage) {
        let codes: [SyntheticScene.Code] = [.ean13, .qr, .secureQR, .meter, .none]
        let scenes = try codes.map { code throws(LumaScanError) in
            try SyntheticScene(width: 640, height: 480, background: .noisy, code: code).image()
        }
        var random = SplitMix64(seed: 17)
        let tiny = LumaImage(
            width: 34, height: 17, pixels: (0..<(34 * 17)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        return (scenes, tiny)
    }

    /// A GREY recording of `images`, one frame each, 100 ms apart.
    static func writeRecording(_ images: [LumaImage], to path: String) throws {
        let format = FrameFormat(pixelFormat: .grey, width: images[0].width, height: images[0].height)
        let writer = try RecordingWriter(path: path, format: format, logger: logger)
        for (index, image) in images.enumerated() {
            try image.pixels.withUnsafeBytes { bytes in
                try writer.append(bytes, timestamp: UInt64(index) * 100_000_000, sequence: UInt32(index))
            }
        }
        try writer.finish()
    }
}

/// Draws configuration documents whose every value lies in its documented range (README, "Configuration"), with
/// extremes more often than a uniform draw would give them, and which keep the documented rules between fields: no
/// cutout for secure QR, a cutout or a barcode region of interest (not both), a consistency count above 1 only with a
/// duplicate interval above 0 (so every count is 1 without one), length bounds that include a fixed length, a non-empty percent region within 100 %, and one set
/// of scanning rules and distance bounds for a composite's members, none of which delays the start.
enum RandomConfiguration {
    /// A JSON object of `members` (already JSON values).
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// A JSON string.
    static func string(_ text: String) -> String { "\"" + text + "\"" }

    static func document(_ random: inout SplitMix64) -> String {
        if random.next() % 5 == 0 {
            let rules = scanningRules(&random, composite: true)
            let first = object([("viewPluginConfig", viewPlugin(&random, id: "first", rules: rules))])
            let second = object([("viewPluginConfig", viewPlugin(&random, id: "second", rules: rules))])
            let mode = random.next() % 2 == 0 ? "parallel" : "sequential"
            let composite = object([
                ("id", string("pair")), ("processingMode", string(mode)), ("viewPlugins", "[\(first), \(second)]"),
            ])
            return object([("viewPluginCompositeConfig", composite)])
        }
        return object([
            ("viewPluginConfig", viewPlugin(&random, id: "plugin", rules: scanningRules(&random, composite: false)))
        ])
    }

    /// A plugin's scanning rules and its scan feedback (a composite's members share one set).
    static func scanningRules(
        _ random: inout SplitMix64, composite: Bool
    ) -> (plugin: [(String, String)], feedback: String?) {
        let delay = composite ? 0 : pick(&random, [0, 1, 250, 60_000], in: 0...60_000)
        let plugin = [
            ("cancelOnResult", "\(random.next() % 2 == 0)"), ("startScanDelay", "\(delay)"),
            ("scanTimeout", "\(pick(&random, [0, 1, 30, 86_400], in: 0...86_400))"),
        ]
        guard random.next() % 2 == 0 else { return (plugin, nil) }
        let far = Double(random.next() % 500) / 100
        let close = min(10, far + 0.01 + Double(random.next() % UInt64((10 - far - 0.01) * 100)) / 100)
        let bounds = object([("tooFarBelow", "\(far)"), ("tooCloseAbove", "\(close)")])
        return (plugin, object([("beepOnResult", "\(random.next() % 2 == 0)"), ("distanceBounds", bounds)]))
    }

    static func viewPlugin(
        _ random: inout SplitMix64, id: String, rules: (plugin: [(String, String)], feedback: String?)
    ) -> String {
        var plugin: [(String, String)] = [("id", string(id))] + rules.plugin
        let kind = random.next() % 3
        var hasRegion = false
        switch kind {
        case 0:
            let (configuration, region) = barcode(&random)
            plugin.append(("barcodeConfig", configuration))
            hasRegion = region
        case 1: plugin.append(("secureQRConfig", secureQR(&random)))
        default: plugin.append(("meterConfig", meter(&random)))
        }
        var members: [(String, String)] = [("pluginConfig", object(plugin))]
        if kind != 1, !hasRegion, random.next() % 3 != 0 { members.append(("cutoutConfig", cutout(&random))) }
        if let feedback = rules.feedback { members.append(("scanFeedbackConfig", feedback)) }
        return object(members)
    }

    /// A barcode configuration, and whether it has a region of interest.
    static func barcode(_ random: inout SplitMix64) -> (String, Bool) {
        let all = Symbology.allCases
        var chosen = all.filter { _ in random.next() % 3 == 0 }
        if chosen.isEmpty { chosen = [all[Int(random.next() % UInt64(all.count))]] }
        let interval = pickDouble(&random, [0, 0.001, 1, 3600], in: 0...3600)
        var members: [(String, String)] = [
            ("symbologies", "[" + chosen.map { string($0.rawValue) }.joined(separator: ", ") + "]"),
            ("duplicateInterval", "\(interval)"),
            ("qrFinderPrefilter", "\(random.next() % 2 == 0)"),
            ("stillImage", "\(random.next() % 4 == 0)"),
        ]
        if random.next() % 2 == 0 { members.append(("qrDownscale", "\(pick(&random, [1, 4], in: 1...4))")) }
        if random.next() % 2 == 0 {
            let x = pick(&random, [0, 32], in: 0...32)
            let y = x == 0 ? pick(&random, [1, 32], in: 1...32) : pick(&random, [0, 32], in: 0...32)
            members.append(("scanDensity", object([("x", "\(x)"), ("y", "\(y)")])))
        }
        let symbology = chosen[Int(random.next() % UInt64(chosen.count))].rawValue
        if random.next() % 3 == 0 {
            // A symbology of one fixed length (EAN, UPC, ISBN) takes only bounds that include it.
            let fixed = BarcodeConfiguration.fixedLength(of: chosen.first { $0.rawValue == symbology }!)
            let low = fixed.map { pick(&random, [1, $0], in: 1...$0) } ?? pick(&random, [1, 7089], in: 1...7089)
            let high = pick(&random, [max(low, fixed ?? low), 7089], in: max(low, fixed ?? low)...7089)
            members.append(("minLength", object([(symbology, "\(low)")])))
            members.append(("maxLength", object([(symbology, "\(high)")])))
        }
        if interval == 0 {
            // Without a duplicate interval every read is reported at once: there is nothing to count.
            members.append(("consistencyCount", object(chosen.map { ($0.rawValue, "1") })))
        } else if random.next() % 3 == 0 {
            members.append(("consistencyCount", object([(symbology, "\(pick(&random, [1, 30], in: 1...30))")])))
        }
        let region = random.next() % 3 == 0
        if region {
            if random.next() % 2 == 0 {
                let x = pick(&random, [0, 99], in: 0...99)
                let y = pick(&random, [0, 99], in: 0...99)
                let rect: [(String, String)] = [
                    ("x", "\(x)"), ("y", "\(y)"), ("width", "\(pick(&random, [1, 100 - x], in: 1...(100 - x)))"),
                    ("height", "\(pick(&random, [1, 100 - y], in: 1...(100 - y)))"),
                ]
                members.append(("regionOfInterest", object([("percent", object(rect))])))
            } else {
                let rect: [(String, String)] = [
                    ("x", "\(pick(&random, [0, 65536], in: 0...65536))"),
                    ("y", "\(pick(&random, [0, 300], in: 0...65536))"),
                    ("width", "\(pick(&random, [1, 65536], in: 1...65536))"),
                    ("height", "\(pick(&random, [1, 65536], in: 1...65536))"),
                ]
                members.append(("regionOfInterest", object([("pixels", object(rect))])))
            }
        }
        return (object(members), region)
    }

    static func secureQR(_ random: inout SplitMix64) -> String {
        let modes = SecureQRMode.allCases.map(\.rawValue)
        return object([
            ("issuerPrefixes", "[" + string(SyntheticScene.secureQRIssuer) + "]"),
            ("mode", string(modes[Int(random.next() % UInt64(modes.count))])),
            ("qrDownscale", "\(pick(&random, [1, 4], in: 1...4))"),
        ])
    }

    static func meter(_ random: inout SplitMix64) -> String {
        let modes = ["digital_meter", "counter_meter", "auto_meter"]
        return object([
            ("scanMode", string(modes[Int(random.next() % 3)])),
            ("minConfidence", "\(pick(&random, [0, 100], in: 0...100))"),
            ("maxNumDecimalDigits", "\(pick(&random, [-1, 10], in: -1...10))"),
            ("consecutiveFrames", "\(pick(&random, [1, 1000], in: 1...1000))"),
        ])
    }

    static func cutout(_ random: inout SplitMix64) -> String {
        let width = pickDouble(&random, [0.001, 1, 3, 100_000], in: 0.001...100_000)
        // Within the documented ratio of 1:100 to 100:1.
        let height = min(100_000, max(0.001, width * pickDouble(&random, [0.0101, 1, 99], in: 0.0101...99)))
        let alignments = CutoutConfiguration.Alignment.allCases.map(\.rawValue)
        func offset(_ random: inout SplitMix64, _ range: ClosedRange<Int>) -> String {
            let extremes = [range.lowerBound, 0, range.upperBound]
            return object([
                ("x", "\(pick(&random, extremes, in: range))"), ("y", "\(pick(&random, extremes, in: range))"),
            ])
        }
        return object([
            ("ratioFromSize", object([("width", "\(width)"), ("height", "\(height)")])),
            ("width", "\(pick(&random, [0, 1, 65536], in: 0...65536))"),
            ("maxWidthPercent", string("\(pick(&random, [1, 100], in: 1...100))%")),
            ("maxHeightPercent", string("\(pick(&random, [1, 100], in: 1...100))%")),
            ("alignment", string(alignments[Int(random.next() % UInt64(alignments.count))])),
            ("offset", offset(&random, -65536...65536)),
            ("cropPadding", offset(&random, 0...65536)),
            ("cropOffset", offset(&random, -65536...65536)),
        ])
    }

    /// One of `extremes` a third of the time, otherwise uniform in `range`.
    static func pick(_ random: inout SplitMix64, _ extremes: [Int], in range: ClosedRange<Int>) -> Int {
        if random.next() % 3 == 0 { return extremes[Int(random.next() % UInt64(extremes.count))] }
        return range.lowerBound + Int(random.next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// One of `extremes` a third of the time, otherwise uniform in `range`.
    static func pickDouble(_ random: inout SplitMix64, _ extremes: [Double], in range: ClosedRange<Double>) -> Double {
        if random.next() % 3 == 0 { return extremes[Int(random.next() % UInt64(extremes.count))] }
        return range.lowerBound + random.nextDouble() * (range.upperBound - range.lowerBound)
    }
}
