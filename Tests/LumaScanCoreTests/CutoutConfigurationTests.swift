import Foundation
import LumaScanCore
import Testing

@Suite("Cutout geometry")
struct CutoutGeometryTests {
    private let full1080 = Size(width: 1920, height: 1080)

    @Test("Anyline's published meter example: width 768, ratio 9:4, top_half, offset y 80, 1080p")
    func anylineMeterExample() {
        let config = CutoutConfiguration(
            ratioFromSize: .init(width: 9, height: 4), width: 768, alignment: .topHalf, offset: .init(x: 0, y: 80))
        let geometry = config.geometry(frameSize: full1080)
        // W = 768; H = 768 * 4 / 9 = 341.3 -> 341; x = (1920 - 768) / 2 = 576; y = (1080 - 341) / 3 + 80 = 246 + 80.
        #expect(geometry.cutout == Rect(x: 576, y: 326, width: 768, height: 341))
        #expect(geometry.crop == geometry.cutout)
    }

    @Test("640x480 with the defaults: a 1:1 cutout limited by the height, centred")
    func defaults640x480() {
        let geometry = CutoutConfiguration().geometry(frameSize: Size(width: 640, height: 480))
        // W = 640 gives H = 640 > 480, so H = 480 and W = 480; x = (640 - 480) / 2.
        #expect(geometry.cutout == Rect(x: 80, y: 0, width: 480, height: 480))
        #expect(geometry.crop == geometry.cutout)
    }

    @Test("1280x720, 16:9 at 80% width, with crop padding and crop offset")
    func padded1280x720() {
        let config = CutoutConfiguration(
            ratioFromSize: .init(width: 16, height: 9), maxWidthPercent: 80, cropPadding: .init(x: 20, y: 10),
            cropOffset: .init(x: -30, y: 0))
        let geometry = config.geometry(frameSize: Size(width: 1280, height: 720))
        // W = 1024, H = 576; x = 128, y = (720 - 576) / 2 = 72.
        #expect(geometry.cutout == Rect(x: 128, y: 72, width: 1024, height: 576))
        // Grown by 20 / 10 each side, moved 30 left: x = 128 - 20 - 30, y = 72 - 10.
        #expect(geometry.crop == Rect(x: 78, y: 62, width: 1064, height: 596))
    }

    @Test("1920x1080, 2:1 limited to half the height, at the bottom")
    func heightLimited1080() {
        let config = CutoutConfiguration(
            ratioFromSize: .init(width: 2, height: 1), maxHeightPercent: 50, alignment: .bottom)
        let geometry = config.geometry(frameSize: full1080)
        // W = 1920 gives H = 960 > 540: H = 540, W = 1080, x = 420, y = 1080 - 540.
        #expect(geometry.cutout == Rect(x: 420, y: 540, width: 1080, height: 540))
    }

    @Test("Offsets that push the cutout out are clamped; the crop is clipped to the frame")
    func clamping() {
        let config = CutoutConfiguration(
            ratioFromSize: .init(width: 3, height: 1), width: 300, alignment: .top, offset: .init(x: 1000, y: -50),
            cropPadding: .init(x: 50, y: 50))
        let geometry = config.geometry(frameSize: Size(width: 640, height: 480))
        #expect(geometry.cutout == Rect(x: 340, y: 0, width: 300, height: 100))
        // Grown: (290, -50, 400, 200); clipped to the frame.
        #expect(geometry.crop == Rect(x: 290, y: 0, width: 350, height: 150))
    }

    @Test("A crop offset that moves the crop out of the frame brings it back to the nearest edge")
    func cropMovedOut() {
        let config = CutoutConfiguration(width: 100, cropOffset: .init(x: 10_000, y: 0))
        let geometry = config.geometry(frameSize: Size(width: 640, height: 480))
        #expect(geometry.cutout == Rect(x: 270, y: 190, width: 100, height: 100))
        #expect(geometry.crop == Rect(x: 540, y: 190, width: 100, height: 100))
    }

    @Test("A width above the limit is capped at maxWidthPercent of the frame")
    func widthCapped() {
        let config = CutoutConfiguration(ratioFromSize: .init(width: 4, height: 1), width: 900, maxWidthPercent: 50)
        let geometry = config.geometry(frameSize: Size(width: 1280, height: 720))
        #expect(geometry.cutout == Rect(x: 320, y: 280, width: 640, height: 160))
    }

    @Test("An empty frame gives empty rectangles")
    func emptyFrame() {
        let geometry = CutoutConfiguration().geometry(frameSize: Size(width: 0, height: 480))
        #expect(geometry.cutout.isEmpty && geometry.crop.isEmpty)
    }

    @Test("The crop is a view into the frame: it shares the frame's memory")
    func cropIsAView() {
        let image = LumaImage(width: 640, height: 480, fill: 7)
        let geometry = CutoutConfiguration(width: 200).geometry(frameSize: Size(width: 640, height: 480))
        image.withView { frame in
            guard let crop = frame.cropped(to: geometry.crop) else {
                Issue.record("empty crop")
                return
            }
            #expect(crop.baseAddress == frame.baseAddress + geometry.crop.y * frame.stride + geometry.crop.x)
            #expect(crop.stride == frame.stride)
            #expect(crop.size == Size(width: geometry.crop.width, height: geometry.crop.height))
        }
    }

    // MARK: Properties

    /// SplitMix64, so the random configurations are the same on every run.
    private struct Random {
        var generator: SplitMix64
        init(state: UInt64) { generator = SplitMix64(seed: state) }
        mutating func next() -> UInt64 { generator.next() }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
        }
        mutating func double(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * Double(next() >> 11) / Double(1 << 53)
        }
    }

    private static let frames = [
        Size(width: 640, height: 480), Size(width: 1280, height: 720), Size(width: 1920, height: 1080),
        Size(width: 480, height: 640), Size(width: 33, height: 17),
    ]

    private func randomConfiguration(_ random: inout Random) -> CutoutConfiguration {
        CutoutConfiguration(
            ratioFromSize: .init(width: random.double(0.2...20), height: random.double(0.2...20)),
            width: random.int(0...3) == 0 ? 0 : random.int(1...2500), maxWidthPercent: random.double(1...100),
            maxHeightPercent: random.double(1...100),
            alignment: CutoutConfiguration.Alignment.allCases[random.int(0...4)],
            offset: .init(x: random.int(-2000...2000), y: random.int(-2000...2000)),
            cropPadding: .init(x: random.int(0...500), y: random.int(0...500)),
            cropOffset: .init(x: random.int(-3000...3000), y: random.int(-3000...3000)))
    }

    @Test("The crop and the cutout always lie inside the frame, and the crop is never empty")
    func insideTheFrame() {
        var random = Random(state: 1)
        for _ in 0..<3000 {
            let config = randomConfiguration(&random)
            for frame in Self.frames {
                let geometry = config.geometry(frameSize: frame)
                let bounds = Rect(x: 0, y: 0, width: frame.width, height: frame.height)
                #expect(bounds.contains(geometry.crop), "\(config) in \(frame): \(geometry)")
                #expect(bounds.contains(geometry.cutout), "\(config) in \(frame): \(geometry)")
                #expect(!geometry.crop.isEmpty && !geometry.cutout.isEmpty, "\(config) in \(frame)")
            }
        }
    }

    @Test("The ratio holds within a pixel unless the cutout was clamped to its minimum")
    func ratioHolds() {
        var random = Random(state: 2)
        for _ in 0..<3000 {
            let config = randomConfiguration(&random)
            for frame in Self.frames {
                let cutout = config.geometry(frameSize: frame).cutout
                guard cutout.width > 2, cutout.height > 2 else { continue }
                let q = config.ratioFromSize.height / config.ratioFromSize.width
                let heightError = abs(Double(cutout.height) - Double(cutout.width) * q)
                let widthError = abs(Double(cutout.width) - Double(cutout.height) / q)
                #expect(min(heightError, widthError) <= 1, "\(config) in \(frame): \(cutout)")
            }
        }
    }

    @Test("The cutout grows monotonically with maxWidthPercent")
    func monotonicInWidthPercent() {
        var random = Random(state: 3)
        for _ in 0..<500 {
            var config = randomConfiguration(&random)
            for frame in Self.frames {
                var previous = Rect(x: 0, y: 0, width: 0, height: 0)
                for percent in stride(from: 1.0, through: 100, by: 3) {
                    config.maxWidthPercent = percent
                    let cutout = config.geometry(frameSize: frame).cutout
                    #expect(cutout.width >= previous.width && cutout.height >= previous.height, "\(config) \(frame)")
                    previous = cutout
                }
            }
        }
    }

    @Test("Alignments order top <= top_half <= center <= bottom_half <= bottom")
    func alignmentOrder() {
        var random = Random(state: 4)
        for _ in 0..<1000 {
            var config = randomConfiguration(&random)
            for frame in Self.frames {
                let tops = CutoutConfiguration.Alignment.allCases.map { alignment in
                    config.alignment = alignment
                    return config.geometry(frameSize: frame).cutout.y
                }
                #expect(tops == tops.sorted(), "\(config) in \(frame): \(tops)")
            }
        }
    }
}

@Suite("Cutout configuration")
struct CutoutConfigurationTests {
    private func decode(_ json: String) throws -> CutoutConfiguration {
        try JSONDecoder().decode(CutoutConfiguration.self, from: Data(json.utf8))
    }

    private func message(_ json: String) -> String? {
        do {
            _ = try decode(json)
            return nil
        } catch let error as LumaScanError {
            #expect(error.code == .invalidConfiguration)
            return error.message
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test("Decodes Anyline's meter cutout")
    func anylineJSON() throws {
        let config = try decode(
            """
            {"width": 768, "alignment": "top_half", "ratioFromSize": {"width": 9, "height": 4},
             "offset": {"x": 0, "y": 80}, "maxWidthPercent": "100%", "maxHeightPercent": "100%",
             "cropPadding": {"x": 0, "y": 0}, "cropOffset": {"x": 0, "y": 0}}
            """)
        #expect(
            config
                == CutoutConfiguration(
                    ratioFromSize: .init(width: 9, height: 4), width: 768, alignment: .topHalf,
                    offset: .init(x: 0, y: 80)))
    }

    @Test("Percentages as \"75%\", \"75\" or 75; every alignment spelling")
    func spellings() throws {
        #expect(try decode(#"{"maxWidthPercent": "75%"}"#).maxWidthPercent == 75)
        #expect(try decode(#"{"maxWidthPercent": "75"}"#).maxWidthPercent == 75)
        #expect(try decode(#"{"maxHeightPercent": 62.5}"#).maxHeightPercent == 62.5)
        for alignment in CutoutConfiguration.Alignment.allCases {
            #expect(try decode(#"{"alignment": "\#(alignment.rawValue)"}"#).alignment == alignment)
        }
        #expect(try decode("{}") == CutoutConfiguration())
    }

    @Test("Round-trips through JSON with Anyline's spellings")
    func roundTrip() throws {
        let config = CutoutConfiguration(
            ratioFromSize: .init(width: 9, height: 4), width: 768, maxWidthPercent: 75, alignment: .bottomHalf,
            offset: .init(x: -3, y: 80), cropPadding: .init(x: 4, y: 5), cropOffset: .init(x: 6, y: -7))
        let data = try JSONEncoder().encode(config)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""75%""#) && text.contains(#""bottom_half""#))
        #expect(try JSONDecoder().decode(CutoutConfiguration.self, from: data) == config)
    }

    @Test("Errors name the JSON path")
    func errors() {
        #expect(
            message(#"{"maxWidthPercent": "140%"}"#)
                == "viewPluginConfig.cutoutConfig.maxWidthPercent: 140% is above 100%")
        #expect(
            message(#"{"maxHeightPercent": 0}"#) == "viewPluginConfig.cutoutConfig.maxHeightPercent: 0% is below 1%")
        #expect(
            message(#"{"maxWidthPercent": "wide"}"#)?.hasPrefix("viewPluginConfig.cutoutConfig.maxWidthPercent:")
                == true)
        #expect(
            message(#"{"cropPadding": {"x": -4, "y": 0}}"#)
                == "viewPluginConfig.cutoutConfig.cropPadding.x: -4 px is below 0")
        #expect(
            message(#"{"alignment": "middle"}"#)
                == "viewPluginConfig.cutoutConfig.alignment: \"middle\" is not one of top, top_half, center, "
                + "bottom_half, bottom")
        #expect(
            message(#"{"strokeWidth": 2}"#)?.hasPrefix("viewPluginConfig.cutoutConfig.strokeWidth: unknown key") == true
        )
        #expect(
            message(#"{"offset": {"x": 1, "z": 2}}"#)?.hasPrefix("viewPluginConfig.cutoutConfig.offset.z: unknown key")
                == true)
        #expect(
            message(#"{"ratioFromSize": {"width": 0, "height": 4}}"#)
                == "viewPluginConfig.cutoutConfig.ratioFromSize.width: 0 is below 0.001")
        #expect(message(#"{"width": -5}"#) == "viewPluginConfig.cutoutConfig.width: -5 px is below 0")
        #expect(
            message(#"{"offset": {"x": 1.5}}"#)
                == "viewPluginConfig.cutoutConfig.offset.x: 1.5 is not a whole number; this field takes an integer")
    }

    @Test(
        "Every number has a range, checked at decode time with its path: the values that hung the meter reader fail",
        arguments: [
            (#"{"offset": {"x": 999999999}}"#, "offset.x: 999999999 px is above 65536 px"),
            (#"{"offset": {"y": -999999999}}"#, "offset.y: -999999999 px is below -65536 px"),
            (#"{"cropOffset": {"x": -70000}}"#, "cropOffset.x: -70000 px is below -65536 px"),
            (#"{"cropPadding": {"y": 70000}}"#, "cropPadding.y: 70000 px is above 65536 px"),
            (#"{"width": 1e300}"#, "width: 1e+300 is too large for an integer"),
            (#"{"width": 100000}"#, "width: 100000 px is above 65536 px"),
            (#"{"ratioFromSize": {"width": 1e-300, "height": 1}}"#, "ratioFromSize.width: 1e-300 is below 0.001"),
            (#"{"ratioFromSize": {"width": 1, "height": 1e300}}"#, "ratioFromSize.height: 1e+300 is above 100000"),
            (#"{"ratioFromSize": {"width": 1, "height": 101}}"#, "ratioFromSize.width: 1:101 is more elongated"),
            (#"{"ratioFromSize": {"width": 2000, "height": 1}}"#, "ratioFromSize.width: 2000:1 is more elongated"),
        ])
    func ranges(json: String, expected: String) {
        let got = message(json)
        #expect(got?.hasPrefix("viewPluginConfig.cutoutConfig." + expected) == true, "got: \(got ?? "valid")")
    }

    @Test("Any valid cutout gives rectangles inside the frame, never larger than it, for any frame size")
    func boundedGeometry() throws {
        var random = SplitMix64(seed: 14)
        func pixels(_ range: ClosedRange<Int>) -> Int { Int(random.next() % UInt64(range.count)) + range.lowerBound }
        let limit = CutoutConfiguration.pixelRange.upperBound
        for _ in 0..<2000 {
            let aspect = pow(CutoutConfiguration.maximumAspect, Double(pixels(-1000...1000)) / 1000)
            let configuration = CutoutConfiguration(
                ratioFromSize: .init(width: aspect, height: 1), width: pixels(0...limit),
                maxWidthPercent: Double(pixels(1...100)), maxHeightPercent: Double(pixels(1...100)),
                alignment: CutoutConfiguration.Alignment.allCases[pixels(0...4)],
                offset: .init(x: pixels(-limit...limit), y: pixels(-limit...limit)),
                cropPadding: .init(x: pixels(0...limit), y: pixels(0...limit)),
                cropOffset: .init(x: pixels(-limit...limit), y: pixels(-limit...limit)))
            try configuration.validate()
            let frame = Size(width: pixels(1...4000), height: pixels(1...3000))
            let geometry = configuration.geometry(frameSize: frame)
            let bounds = Rect(x: 0, y: 0, width: frame.width, height: frame.height)
            for rect in [geometry.cutout, geometry.crop] {
                #expect(!rect.isEmpty && rect.intersection(bounds) == rect, "\(geometry) from \(configuration)")
            }
        }
    }

    @Test("Nested in a larger document, errors name the document's path")
    func nestedPath() {
        struct Document: Decodable {
            struct View: Decodable { var cutoutConfig: CutoutConfiguration }
            var viewPluginConfig: View
        }
        do {
            _ = try JSONDecoder().decode(
                Document.self, from: Data(#"{"viewPluginConfig": {"cutoutConfig": {"maxWidthPercent": 140}}}"#.utf8))
            Issue.record("decoded an invalid document")
        } catch let error as LumaScanError {
            #expect(error.message == "viewPluginConfig.cutoutConfig.maxWidthPercent: 140% is above 100%")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("validate() checks a configuration made in code")
    func validateInCode() {
        #expect(
            throws: LumaScanError(
                .invalidConfiguration, "viewPluginConfig.cutoutConfig.cropPadding.y: -1 px is below 0")
        ) {
            try CutoutConfiguration(cropPadding: .init(x: 0, y: -1)).validate()
        }
        #expect(throws: Never.self) { try CutoutConfiguration().validate() }
    }
}
