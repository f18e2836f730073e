import CLumaVision
import Foundation
import Logging
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// Frame sequences through the completion logic, the unsupported and limited modes, and the located geometry.
@Suite("SecureQRRecognizer")
struct SecureQRRecognizerTests {
    static let logger = Logger(label: "test.secure-qr")
    static let payload = SecureQRCorpus.issuer + "SEQ12345"
    static let modulePixels = 12

    /// A recognizer for the corpus's issuers.
    func recognizer(
        hybrid: Bool = false, mode: SecureQRMode = .secure, stable: Int = 3, timeout: Double = 4
    ) throws -> SecureQRRecognizer {
        var configuration = SecureQRCorpus.configuration(hybrid: hybrid, mode: mode)
        configuration.stableFrameCount = stable
        configuration.insufficientQualityTimeout = timeout
        return try SecureQRRecognizer(configuration: configuration, logger: Self.logger)
    }

    static func code(
        _ payload: String = payload, hybrid: Bool = false, secureGraphic: Bool = true, seed: UInt64 = 5
    ) throws -> SecureQRCode {
        try SecureQRGenerator(design: SecureQRDesign(hybrid: hybrid)).generate(
            payload: payload, seed: seed, modulePixels: modulePixels, secureGraphic: secureGraphic)
    }

    /// A 1280x720 frame of `code` at 12 px per module (3 px per cell), blurred by `blurCells` cells.
    static func frame(
        _ code: SecureQRCode, blurCells: Double = 0.1, modulePixels: Double = 12, centre: Point? = nil,
        rotation: Double = 20, yaw: Double = 10, noiseSeed: UInt64 = 1
    ) -> SecureQRCameraFrame {
        let shot = SecureQRShot(
            centre: centre, modulePixels: modulePixels, rotation: rotation, yaw: yaw, pitch: -5,
            blurSigma: max(0.3, blurCells * modulePixels / 4), noiseSigma: 2, noiseSeed: noiseSeed)
        return SecureQRCamera.shoot(code.image, codeModulePixels: Self.modulePixels, shot: shot)
    }

    static func emptyFrame() -> LumaImage { SecureQRCamera.background(width: 1280, height: 720, seed: 1) }

    /// Feeds `images` at `interval` seconds apart (starting at `start`) and returns each frame's reports.
    func feed(
        _ recognizer: SecureQRRecognizer, _ images: [LumaImage], start: Double = 0, interval: Double = 1.0 / 30,
        firstIndex: UInt64 = 0
    ) -> [[ScanReport]] {
        images.enumerated().map { offset, image in
            var reports: [ScanReport] = []
            let index = firstIndex + UInt64(offset)
            let metadata = FrameMetadata.test(
                index: index, seconds: start + Double(offset) * interval, width: image.width, height: image.height)
            image.withView { recognizer.process($0, metadata: metadata, into: &reports) }
            return reports
        }
    }

    func summary(_ reports: [[ScanReport]]) -> [String] {
        reports.map { frame in frame.map { "\($0.reportType.rawValue)/\($0.state.rawValue)" }.joined(separator: "+") }
    }

    // MARK: Completion

    @Test("stable OK frames complete with the sharpest frame's crop, payload, homography and pattern centres")
    func stableOK() throws {
        let code = try Self.code()
        let frames = [0.2, 0.05, 0.15].map { Self.frame(code, blurCells: $0) }
        let recognizer = try recognizer()
        let reports = feed(recognizer, frames.map(\.image) + [frames[0].image], firstIndex: 10)
        #expect(
            summary(reports) == ["IN_PROGRESS/OK", "IN_PROGRESS/OK", "COMPLETED_RESULT/OK", ""], "\(summary(reports))")
        #expect(reports[2].first?.text == Self.payload)
        #expect(recognizer.isComplete)

        let result = try #require(recognizer.lastCompletedResult)
        #expect(recognizer.completedResult(forReportFrame: 12) == result)
        #expect(reports[2].first?.detail?.secureQR == result, "the completion's report carries its result")
        // The IN_PROGRESS reports before it carry guidance, not a result.
        #expect(reports[0].first?.detail?.secureQRGuidance?.steadyState == .ok)
        #expect(reports[1].first?.detail?.secureQR == nil && reports[1].first?.detail?.secureQRGuidance != nil)
        #expect(result.reportType == .completedResult && result.state == .ok)
        #expect(result.reportFrameIndex == 12)
        #expect(result.frameIndex == 11, "the sharpest of the three (blur 0.05 cell)")
        #expect(result.text == Self.payload)
        let geometry = try #require(result.geometry)
        #expect(geometry.version == 4 && geometry.modules == 33)
        let best = frames[1]
        func truth(_ x: Double, _ y: Double) -> Point { best.framePoint(code.pixel(atModule: x, y)) }
        let centres = geometry.patternCentres
        for (found, expected) in [
            (centres.topLeft, truth(3.5, 3.5)), (centres.topRight, truth(29.5, 3.5)),
            (centres.bottomLeft, truth(3.5, 29.5)), (centres.alignment, truth(26.5, 26.5)),
        ] {
            #expect(hypot(found.x - expected.x, found.y - expected.y) < 1.0, "\(found) vs \(expected)")
        }
        for (x, y) in [(0.0, 0.0), (33.0, 0.0), (33.0, 33.0), (0.0, 33.0), (16.5, 16.5)] {
            let mapped = geometry.framePoint(module: x, y)
            let expected = truth(x, y)
            #expect(hypot(mapped.x - expected.x, mapped.y - expected.y) < 1.5, "module (\(x), \(y))")
        }
        let measurements = try #require(result.measurements)
        #expect(abs(measurements.modulePixels - 12) < 1.5)

        // The crop is the code rectified at 12 px per module with one module of margin, as PNG.
        let crop = try #require(result.crop)
        #expect(crop.width == 35 * 12 && crop.height == 35 * 12 && crop.modulePixels == 12)
        #expect(crop.region == SecureQRModuleRect(x: -1, y: -1, width: 35, height: 35))
        var decoded: OpaquePointer?
        #expect(crop.png.withUnsafeBytes { lv_image_decode_grey($0.baseAddress, $0.count, &decoded) } == 0)
        let image = try #require(decoded)
        defer { lv_image_destroy(image) }
        #expect(lv_image_width(image) == 420 && lv_image_height(image) == 420)
        let pixels = try #require(lv_image_pixels(image))
        func cropPixel(_ x: Double, _ y: Double) -> Int {
            Int(pixels[Int((y + 1) * 12) * 420 + Int((x + 1) * 12)])
        }
        #expect(cropPixel(3.5, 3.5) < 100, "finder core is dark")
        #expect(cropPixel(1.5, 3.5) > 150, "finder's light ring is light")
        // The CDP in the crop matches the seed's cells (sampled at cell centres).
        let graphic = code.secureGraphic
        let cells = SecureQRGenerator.cells(seed: code.seed, across: code.cells.across, down: code.cells.down)
        var agree = 0
        for row in 0..<code.cells.down {
            for column in 0..<code.cells.across {
                let dark = cropPixel(graphic.x + (Double(column) + 0.5) / 4, graphic.y + (Double(row) + 0.5) / 4) < 128
                if dark == cells[row * code.cells.across + column] { agree += 1 }
            }
        }
        #expect(Double(agree) / Double(cells.count) > 0.9, "\(agree) of \(cells.count) cells")
    }

    @Test("an OK streak must be consecutive and of one code")
    func streak() throws {
        let code = try Self.code()
        let other = try Self.code(SecureQRCorpus.issuer + "OTHER999", seed: 9)
        let sharp = Self.frame(code).image
        let blurry = Self.frame(code, blurCells: 0.8).image
        let recognizer = try recognizer()
        let reports = feed(recognizer, [sharp, blurry, sharp, sharp, Self.frame(other).image, sharp, sharp, sharp])
        #expect(
            summary(reports) == [
                "IN_PROGRESS/OK", "IN_PROGRESS/BLURRY", "IN_PROGRESS/OK", "IN_PROGRESS/OK", "IN_PROGRESS/OK",
                "IN_PROGRESS/OK", "IN_PROGRESS/OK", "COMPLETED_RESULT/OK",
            ], "\(summary(reports))")
    }

    @Test("persistent blur completes as BLURRY after the timeout, delivering the sharpest scan seen")
    func persistentBlur() throws {
        let code = try Self.code()
        // Frames every 0.25 s; frame 5 is the least blurred (still blurry).
        let blurs = (0..<20).map { $0 == 5 ? 0.58 : 0.75 + 0.1 * Double($0 % 3) }
        let images = blurs.map { Self.frame(code, blurCells: $0).image }
        let recognizer = try recognizer()
        let reports = feed(recognizer, images, interval: 0.25)
        let states = summary(reports)
        // t = 0 ... 3.75 s in progress; at t = 4 s (frame 16) the insufficient-quality event; then silence.
        #expect(states[0..<16].allSatisfy { $0 == "IN_PROGRESS/BLURRY" }, "\(states)")
        #expect(states[16] == "COMPLETED_RESULT/BLURRY", "\(states)")
        #expect(states[17...].allSatisfy { $0.isEmpty }, "\(states)")
        let result = try #require(recognizer.lastCompletedResult)
        #expect(result.state == .blurry && result.reportType == .completedResult)
        #expect(result.frameIndex == 5 && result.reportFrameIndex == 16)
        #expect(result.crop != nil && result.text == Self.payload)
        #expect(reports[16].first?.detail?.secureQR == result && reports[16].first?.symbology == .qrCode)
        #expect((result.measurements?.sharpness ?? 1) < recognizer.configuration.sharpnessThreshold)
    }

    @Test("an absence longer than the tolerance restarts the insufficient-quality timer")
    func absenceRestartsTimer() throws {
        let code = try Self.code()
        let blurry = Self.frame(code, blurCells: 0.8).image
        let empty = Self.emptyFrame()
        let recognizer = try recognizer()
        // Blurry 0-3 s, nothing 3.5-4.5 s, blurry again from 5 s: completes at 9 s, not at 4 s.
        var reports = feed(recognizer, Array(repeating: blurry, count: 7), start: 0, interval: 0.5)
        reports += feed(recognizer, Array(repeating: empty, count: 3), start: 3.5, interval: 0.5, firstIndex: 7)
        reports += feed(recognizer, Array(repeating: blurry, count: 9), start: 5, interval: 0.5, firstIndex: 10)
        let states = summary(reports)
        #expect(states[0..<7].allSatisfy { $0 == "IN_PROGRESS/BLURRY" }, "\(states)")
        #expect(states[7..<10].allSatisfy { $0 == "IN_PROGRESS/UNREADABLE" }, "\(states)")
        #expect(states[10..<18].allSatisfy { $0 == "IN_PROGRESS/BLURRY" }, "\(states)")
        #expect(states[18] == "COMPLETED_RESULT/BLURRY", "\(states)")
    }

    @Test("NOT_PROPRIETARY and NO_AUTH stop processing; reset() resumes it")
    func terminalStatesAndRestart() throws {
        let foreign = Self.frame(try Self.code(SecureQRCorpus.foreign + "X1")).image
        let plain = Self.frame(try Self.code(secureGraphic: false)).image
        let secure = Self.frame(try Self.code()).image
        let recognizer = try recognizer()

        var reports = feed(recognizer, [foreign, foreign, secure])
        #expect(summary(reports) == ["COMPLETED_RESULT/NOT_PROPRIETARY", "", ""], "\(summary(reports))")
        #expect(recognizer.lastCompletedResult?.state == .notProprietary)
        #expect(recognizer.lastCompletedResult?.text == SecureQRCorpus.foreign + "X1")
        #expect(reports[0].first?.detail?.secureQR == recognizer.lastCompletedResult)

        recognizer.reset()
        reports = feed(recognizer, [plain, secure], firstIndex: 3)
        #expect(summary(reports) == ["COMPLETED_RESULT/NO_AUTH", ""], "\(summary(reports))")
        let noAuth = try #require(recognizer.lastCompletedResult)
        #expect(noAuth.state == .noAuth && noAuth.geometry != nil && noAuth.crop == nil)

        recognizer.reset()
        reports = feed(recognizer, [secure, secure, secure, secure], firstIndex: 5)
        #expect(
            summary(reports) == ["IN_PROGRESS/OK", "IN_PROGRESS/OK", "COMPLETED_RESULT/OK", ""], "\(summary(reports))")
        #expect(recognizer.completedResult(forReportFrame: 0)?.state == .notProprietary)
        #expect(recognizer.completedResult(forReportFrame: 3)?.state == .noAuth)
        #expect(recognizer.completedResult(forReportFrame: 7)?.state == .ok)
    }

    @Test("TOO_SMALL, FP_NOT_IN_FRAME and UNREADABLE keep processing")
    func inProgressStates() throws {
        let hybrid = try Self.code(hybrid: true)
        let recognizer = try recognizer(hybrid: true)
        // The fingerprint zone (right of the code) runs off the frame's right edge.
        let outside = Self.frame(hybrid, modulePixels: 10, centre: Point(x: 1080, y: 360), rotation: 0, yaw: 0).image
        let small = Self.frame(hybrid, modulePixels: 6.8, rotation: 0, yaw: 0).image
        let inside = Self.frame(hybrid, modulePixels: 10, rotation: 0, yaw: 0).image
        let reports = feed(recognizer, [outside, small, Self.emptyFrame(), inside])
        #expect(
            summary(reports) == [
                "IN_PROGRESS/FP_NOT_IN_FRAME", "IN_PROGRESS/TOO_SMALL", "IN_PROGRESS/UNREADABLE", "IN_PROGRESS/OK",
            ], "\(summary(reports))")
        let analysis = try #require(recognizer.lastFrameAnalysis)
        #expect(analysis.state == .ok && analysis.geometry?.secureGraphic.x == 35)
    }

    @Test("the issuer's code is chosen over another code in the same frame")
    func issuerFirst() throws {
        let secure = try Self.code()
        let foreign = try Self.code(SecureQRCorpus.foreign + "NEXT", seed: 3)
        let frame = TestCanvas(width: 1280, height: 720)
        frame.paste(foreign.image, x: 40, y: 100)
        frame.paste(secure.image, x: 700, y: 150)
        let recognizer = try recognizer()
        let analysis = frame.image.withView { recognizer.analyze($0) }
        #expect(analysis.text == Self.payload && analysis.isIssuerCode && analysis.state == .ok)
    }

    @Test(
        "versions are read from the finder spacing and the timing patterns",
        arguments: [(2, false), (3, false), (5, false), (6, false), (7, true), (10, true)])
    func versions(version: Int, hybrid: Bool) throws {
        let design = SecureQRDesign(version: version, hybrid: hybrid)
        let payload = version <= 3 ? SecureQRCorpus.shortIssuer + "V\(version)" : Self.payload
        let code = try SecureQRGenerator(design: design).generate(payload: payload, seed: 8, modulePixels: 8)
        #expect(code.version == version)
        let shot = SecureQRShot(
            frameWidth: 1920, frameHeight: 1080, modulePixels: 9, rotation: 35, yaw: 12, blurSigma: 0.4,
            noiseSigma: 2)
        let frame = SecureQRCamera.shoot(code.image, codeModulePixels: 8, shot: shot)
        var configuration = SecureQRCorpus.configuration(hybrid: hybrid)
        configuration.design = design
        let recognizer = try SecureQRRecognizer(configuration: configuration, logger: Self.logger)
        let analysis = frame.image.withView { recognizer.analyze($0) }
        #expect(analysis.state == .ok, "version \(version): \(analysis.state)")
        #expect(analysis.geometry?.version == version && analysis.geometry?.modules == code.modules)
        let n = Double(code.modules)
        if let alignment = analysis.geometry?.patternCentres.alignment {
            let truth = frame.framePoint(code.pixel(atModule: n - 6.5, n - 6.5))
            #expect(hypot(alignment.x - truth.x, alignment.y - truth.y) < 1.5)
        }
    }

    // MARK: Modes

    @Test("unsupported mode is a plain QR reader with UNSUPPORTED_RESULT reports")
    func unsupportedMode() throws {
        let recognizer = try recognizer(mode: .unsupported)
        let blurry = Self.frame(try Self.code(), blurCells: 0.8).image
        let foreign = Self.frame(try Self.code(SecureQRCorpus.foreign + "U1", secureGraphic: false)).image
        var reports = feed(recognizer, [Self.emptyFrame(), blurry, blurry])
        #expect(
            summary(reports) == ["UNSUPPORTED_RESULT/UNREADABLE", "UNSUPPORTED_RESULT/OK", ""], "\(summary(reports))")
        #expect(recognizer.lastCompletedResult?.reportType == .unsupportedResult)
        #expect(recognizer.lastCompletedResult?.text == Self.payload)
        recognizer.reset()
        reports = feed(recognizer, [foreign, foreign])
        #expect(summary(reports) == ["UNSUPPORTED_RESULT/NOT_PROPRIETARY", ""], "\(summary(reports))")
    }

    @Test("limited mode reads QR and 1D codes: OK for the issuer's, NOT_PROPRIETARY for others")
    func limitedMode() throws {
        let recognizer = try recognizer(mode: .limited)
        let ean = TestCanvas(width: 1280, height: 720)
        ean.place(EAN.ean13("400638133393").render(moduleWidth: 3, height: 120), centre: Point(x: 640, y: 360))
        var reports = feed(recognizer, [Self.emptyFrame(), ean.image, ean.image, ean.image])
        // EAN-13 needs two reads (the barcode recognizer's consistency count).
        #expect(
            summary(reports) == [
                "IN_PROGRESS/UNREADABLE", "IN_PROGRESS/UNREADABLE", "COMPLETED_RESULT/NOT_PROPRIETARY", "",
            ], "\(summary(reports))")
        #expect(reports[2].first?.symbology == .ean13 && reports[2].first?.text == "4006381333931")
        recognizer.reset()
        reports = feed(recognizer, [Self.frame(try Self.code(), blurCells: 0.8).image], start: 10, firstIndex: 4)
        #expect(summary(reports) == ["COMPLETED_RESULT/OK"], "\(summary(reports))")
        #expect(recognizer.lastCompletedResult?.symbology == .qrCode)
    }

    @Test("an invalid configuration is refused with its JSON path")
    func invalidConfiguration() {
        #expect(throws: LumaScanError.self) { try SecureQRRecognizer(configuration: .init(), logger: Self.logger) }
        do {
            _ = try SecureQRRecognizer(configuration: .init(), logger: Self.logger)
        } catch let error as LumaScanError {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.hasPrefix("viewPluginConfig.pluginConfig.secureQRConfig.issuerPrefixes: "))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
