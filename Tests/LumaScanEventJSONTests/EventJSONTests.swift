import Foundation
import LumaScan
import LumaScanEventJSON
import Testing

/// The JSON lines of reports that carry a completed result's ``ScanReportDetail``.
@Suite("event JSON: report details")
struct EventJSONTests {
    static func object(_ report: ScanReport) throws -> [String: Any] {
        let line = EventJSON.line(for: .report(report))
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    @Test("a completed meter reading is written as a `meter` object")
    func meterDetail() throws {
        let crop = LumaImage(width: 3, height: 2, pixels: [0, 50, 100, 150, 200, 250])
        let reading = MeterReading(
            text: "0042.7", digitConfidences: [91, 88.5, 97, 64.25, 80], confidence: 64.25, reader: .counter,
            lightOnDark: true, cutout: Rect(x: 100, y: 80, width: 400, height: 120),
            crop: Rect(x: 110, y: 90, width: 380, height: 100),
            digitBounds: Rect(x: 130, y: 95, width: 300, height: 80),
            status: .completed, cropImage: crop, frameIndex: 9)
        let report = ScanReport(
            reportType: .completedResult, state: .ok, recognizerID: "meter", text: "0042.7",
            bytes: Array("0042.7".utf8),
            frameIndex: 9, detail: reading)
        let object = try Self.object(report)
        #expect(object["text"] as? String == "0042.7")
        let meter = try #require(object["meter"] as? [String: Any])
        #expect(meter["confidence"] as? Double == 64.25)
        #expect(meter["digitConfidences"] as? [Double] == [91, 88.5, 97, 64.25, 80])
        #expect(meter["reader"] as? String == "counter" && meter["lightOnDark"] as? Bool == true)
        #expect(meter["cutout"] as? [String: Int] == ["x": 100, "y": 80, "width": 400, "height": 120])
        #expect(meter["crop"] as? [String: Int] == ["x": 110, "y": 90, "width": 380, "height": 100])
        #expect(meter["digitBounds"] as? [String: Int] == ["x": 130, "y": 95, "width": 300, "height": 80])
        let png = try #require(reading.cropPNG)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(Data(base64Encoded: meter["cropPNGBase64"] as? String ?? "") == Data(png))
        #expect(object["secureQR"] == nil)
    }

    @Test("a secure-QR IN_PROGRESS report's guidance is written as a `guidance` object")
    func secureQRGuidance() throws {
        let guidance = SecureQRGuidance(
            steadyState: .tooSmall, pixelsPerCell: 1.25, minimumPixelsPerCell: 2, sharpness: nil,
            sharpnessThreshold: 0.04, polygon: [Point(x: 10, y: 20), Point(x: 60, y: 20), Point(x: 60, y: 70)])
        let object = try Self.object(
            ScanReport(
                reportType: .inProgress, state: .unreadable, recognizerID: "sqr", frameIndex: 3,
                detail: guidance))
        #expect(object["state"] as? String == "UNREADABLE")
        let written = try #require(object["guidance"] as? [String: Any])
        #expect(written["steadyState"] as? String == "TOO_SMALL")
        #expect(written["pixelsPerCell"] as? Double == 1.25 && written["minimumPixelsPerCell"] as? Double == 2)
        #expect(written["closerFactor"] as? Double == 1.6)
        #expect(written["sharpness"] == nil && written["sharpnessThreshold"] as? Double == 0.04)
        #expect(written["polygon"] as? [[Double]] == [[10, 20], [60, 20], [60, 70]])
        #expect(object["secureQR"] == nil)
    }

    @Test("a report without a detail has neither object")
    func noDetail() throws {
        let object = try Self.object(
            ScanReport(reportType: .inProgress, state: .unreadable, recognizerID: "meter", text: "004"))
        #expect(object["meter"] == nil && object["secureQR"] == nil)
        #expect(object["text"] as? String == "004")
    }

    @Test("a secure-QR result without geometry, measurements or crop writes what it has")
    func secureQRWithoutGeometry() throws {
        let result = SecureQRResult(
            reportType: .completedResult, state: .notProprietary, recognizerID: "sqr", reportFrameIndex: 4,
            frameIndex: 4, captureTime: MonotonicInstant(nanoseconds: 2_500_000_000), symbology: .qrCode,
            text: "https://elsewhere.example/x", bytes: nil, polygon: [], isHybrid: true, geometry: nil,
            measurements: nil, crop: nil)
        let object = try Self.object(
            ScanReport(
                reportType: .completedResult, state: .notProprietary, recognizerID: "sqr", frameIndex: 4,
                detail: result))
        let secureQR = try #require(object["secureQR"] as? [String: Any])
        #expect(secureQR["scanFrame"] as? Int == 4 && secureQR["scanCaptureTime"] as? Double == 2.5)
        #expect(secureQR["hybrid"] as? Bool == true)
        #expect(Set(secureQR.keys) == ["scanFrame", "scanCaptureTime", "hybrid"])
    }

    @Test("a secure-QR result's authenticity is written with its decision and measures")
    func secureQRAuthenticity() throws {
        let authenticity = SecureQRAuthenticity(
            ncc: 0.5, bitErrorRate: 0.25, threshold: 0.9, pixelsPerCell: 3.25, blurCells: 0.3)
        let result = SecureQRResult(
            reportType: .completedResult, state: .ok, recognizerID: "sqr", reportFrameIndex: 9, frameIndex: 7,
            captureTime: MonotonicInstant(nanoseconds: 0), symbology: .qrCode, text: "https://scan.example.com/q/1",
            bytes: nil, polygon: [], isHybrid: false, geometry: nil, measurements: nil, crop: nil,
            authenticity: authenticity)
        let object = try Self.object(
            ScanReport(
                reportType: .completedResult, state: .ok, recognizerID: "sqr", frameIndex: 9,
                detail: result))
        let secureQR = try #require(object["secureQR"] as? [String: Any])
        let written = try #require(secureQR["authenticity"] as? [String: Any])
        // 0.9 × 0.5 + 0.1 × (1 − 2 × 0.25) = 0.5, below the threshold.
        #expect(written["score"] as? Double == 0.5 && written["decision"] as? String == "copy")
        #expect(written["threshold"] as? Double == 0.9 && written["ncc"] as? Double == 0.5)
        #expect(written["bitErrorRate"] as? Double == 0.25 && written["pixelsPerCell"] as? Double == 3.25)
        #expect(written["blurCells"] as? Double == 0.3)
    }
}
