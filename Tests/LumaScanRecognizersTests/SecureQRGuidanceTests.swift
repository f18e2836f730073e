import Foundation
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// Far-away and blurred codes through the secure-QR recognizer, and the guidance its `IN_PROGRESS` reports carry:
/// pixels per cell, sharpness, outline and the steady (smoothed) state.
@Suite("SecureQRRecognizer guidance")
struct SecureQRGuidanceTests {
    typealias Helpers = SecureQRRecognizerTests

    /// A 1920x1080 frame of the standard secure code at `modulePixels` frame pixels per module.
    static func farFrame(modulePixels: Double, rotation: Double, seed: UInt64) throws -> LumaImage {
        let shot = SecureQRShot(
            frameWidth: 1920, frameHeight: 1080, centre: Point(x: 700 + 200 * Double(seed % 3), y: 500),
            modulePixels: modulePixels, rotation: rotation, yaw: 12, pitch: -6, blurSigma: 0.45, noiseSigma: 2,
            backgroundSeed: seed, noiseSeed: seed)
        return SecureQRCamera.shoot(try Helpers.code().image, codeModulePixels: Helpers.modulePixels, shot: shot).image
    }

    /// What a QR-only barcode recognizer reads in `image` at `downscale`, without the finder prefilter (so zbar alone
    /// reads the whole plane).
    static func plainRead(_ image: LumaImage, downscale: Int) throws -> [String] {
        let reader = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(
                id: "plain", symbologies: [.qrCode], duplicateInterval: 0, qrDownscale: downscale,
                qrFinderPrefilter: false),
            logger: Helpers.logger)
        var reports: [ScanReport] = []
        image.withView {
            reader.process($0, metadata: .test(width: image.width, height: image.height), into: &reports)
        }
        return reports.compactMap { $0.state == .ok ? $0.text : nil }
    }

    @Test(
        "a code at about 1 px per CDP cell in a 1080p frame, read only at full resolution, is TOO_SMALL with its size",
        arguments: [(4.2, 0.0, UInt64(1)), (4.6, 30.0, UInt64(2)), (4.0, -35.0, UInt64(3))])
    func tooSmallAtFullResolution(modulePixels: Double, rotation: Double, seed: UInt64) throws {
        let image = try Self.farFrame(modulePixels: modulePixels, rotation: rotation, seed: seed)
        // The premise: the frame shrunk by the configuration's qrDownscale (2) no longer decodes; full resolution does.
        #expect(try Self.plainRead(image, downscale: 2).isEmpty)
        #expect(try Self.plainRead(image, downscale: 1) == [Helpers.payload])

        let recognizer = try Helpers().recognizer()
        let reports = Helpers().feed(recognizer, [image])
        let report = try #require(reports.first?.first)
        #expect(report.reportType == .inProgress && report.state == .tooSmall, "\(report.state)")
        #expect(report.text == Helpers.payload)
        let guidance = try #require(report.detail?.secureQRGuidance)
        // 4 cells per module; the tilt (yaw 12°, pitch -6°) changes the apparent size by a few per cent.
        let pixelsPerCell = try #require(guidance.pixelsPerCell)
        #expect(abs(pixelsPerCell - modulePixels / 4) < 0.12 * modulePixels / 4, "\(pixelsPerCell)")
        #expect(guidance.minimumPixelsPerCell == 2 && (guidance.closerFactor ?? 0) > 1.5)
        #expect(guidance.steadyState == .tooSmall && guidance.polygon.count == 4)
    }

    @Test("a blurred code that still decodes is BLURRY, its sharpness under the threshold in the guidance")
    func blurredIsBlurry() throws {
        let code = try Helpers.code()
        let recognizer = try Helpers().recognizer()
        let image = Helpers.frame(code, blurCells: 0.7).image
        let report = try #require(Helpers().feed(recognizer, [image]).first?.first)
        #expect(report.state == .blurry && report.text == Helpers.payload, "\(report.state)")
        let guidance = try #require(report.detail?.secureQRGuidance)
        let sharpness = try #require(guidance.sharpness)
        #expect(sharpness < guidance.sharpnessThreshold && guidance.sharpnessThreshold == 0.04)
        #expect((guidance.pixelsPerCell ?? 0) >= guidance.minimumPixelsPerCell)
        #expect(guidance.polygon.count == 4)
    }

    @Test("a code blurred past decoding whose patterns are still located is BLURRY without a payload, never completed")
    func undecodableBlurIsBlurry() throws {
        let code = try Helpers.code()
        let recognizer = try Helpers().recognizer(timeout: 0.2)
        // 8 px per module (2 per cell) with a Gaussian blur of 1.9 cells (0.48 module): zbar cannot decode it at full
        // resolution, but the finder and alignment patterns are still found.
        let frames = (0..<10).map { Helpers.frame(code, blurCells: 1.9, modulePixels: 8, noiseSeed: UInt64($0 + 1)) }
        #expect(try Self.plainRead(frames[0].image, downscale: 1).isEmpty, "the premise: zbar decodes nothing")
        // Ten frames over 0.3 s, past the insufficient-quality timeout: nothing was decoded, so nothing completes.
        let reports = Helpers().feed(recognizer, frames.map(\.image)).flatMap { $0 }
        #expect(reports.count == 10)
        let centre = frames[0].framePoint(Point(x: Double(code.image.width) / 2, y: Double(code.image.height) / 2))
        for report in reports {
            #expect(report.reportType == .inProgress && report.state == .blurry, "\(report.state)")
            #expect(report.text == nil && report.bytes == nil)
            let guidance = try #require(report.detail?.secureQRGuidance)
            #expect((guidance.sharpness ?? 1) < guidance.sharpnessThreshold)
            // The outline is the code's: its corners' mean lies within a module of the code's centre.
            #expect(guidance.polygon.count == 4)
            let mean = Point(
                x: guidance.polygon.map(\.x).reduce(0, +) / 4, y: guidance.polygon.map(\.y).reduce(0, +) / 4)
            #expect(hypot(mean.x - centre.x, mean.y - centre.y) < 8, "\(mean) against \(centre)")
        }
        #expect(recognizer.lastFrameAnalysis?.isIssuerCode == false)
    }

    @Test("the steady state holds through single odd frames and follows a majority of the last five")
    func hysteresis() throws {
        let code = try Helpers.code()
        let recognizer = try Helpers().recognizer(stable: 100, timeout: 600)
        let blurred = Helpers.frame(code, blurCells: 0.7).image
        let empty = Helpers.emptyFrame()
        // Raw: B B U B U B B U U U U B
        let sequence = [blurred, blurred, empty, blurred, empty, blurred, blurred, empty, empty, empty, empty, blurred]
        let reports = Helpers().feed(recognizer, sequence)
        let raw = reports.map { $0.first?.state.rawValue ?? "-" }
        let steady = reports.map { $0.first?.detail?.secureQRGuidance?.steadyState.rawValue ?? "-" }
        let (b, u) = (ScanState.blurry.rawValue, ScanState.unreadable.rawValue)
        #expect(raw == [b, b, u, b, u, b, b, u, u, u, u, b], "\(raw)")
        // Window of 5: single UNREADABLE frames leave BLURRY; UNREADABLE takes over at the third UNREADABLE of the last
        // five (frame 8), and one BLURRY frame after four UNREADABLE ones does not bring BLURRY back.
        #expect(steady == [b, b, b, b, b, b, b, b, u, u, u, u], "\(steady)")
        // reset() forgets the smoothing: the next frame's state is steady at once.
        recognizer.reset()
        let after = Helpers().feed(recognizer, [blurred], firstIndex: 20)
        #expect(after.first?.first?.detail?.secureQRGuidance?.steadyState == .blurry)
    }

    @Test("frames without a code carry guidance without a code's measures")
    func emptyGuidance() throws {
        let recognizer = try Helpers().recognizer()
        let report = try #require(Helpers().feed(recognizer, [Helpers.emptyFrame()]).first?.first)
        let guidance = try #require(report.detail?.secureQRGuidance)
        #expect(report.state == .unreadable && guidance.steadyState == .unreadable)
        #expect(guidance.pixelsPerCell == nil && guidance.sharpness == nil && guidance.polygon.isEmpty)
        #expect(guidance.closerFactor == nil)
    }
}
