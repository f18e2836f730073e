import Foundation
import Testing

/// `lumascan scan` with the secure-QR plugin: a completed scan's report carries the result (`secureQR` in the JSON),
/// and its rectified crop is a faithful image of the code.
@Suite("lumascan scan: secure QR results")
struct SecureQRScanTests {
    static let payload = "https://scan.example.com/q/ABC123"

    /// A folder with a generated secure QR code (`code.png`, or as `--no-secure-graphic` asks) and a configuration
    /// naming its issuer that completes on one OK frame.
    static func fixture(_ generateOptions: [String] = []) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-sqr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let generated = try runLumaScan(
            [
                "secure-qr", "generate", "--payload", payload, "--seed", "7", "--out",
                folder.appendingPathComponent(
                    "code.png"
                ).path,
            ] + generateOptions)
        #expect(generated.status == 0, "stderr: \(generated.stderr)")
        let printed = try runLumaScan(["config", "default", "--plugin", "secure-qr"])
        let configuration = printed.stdout
            .replacingOccurrences(
                of: #""issuerPrefixes" : ["#, with: #""issuerPrefixes" : ["https://scan.example.com/q/""#
            )
            .replacingOccurrences(of: #""stableFrameCount" : 3"#, with: #""stableFrameCount" : 1"#)
        #expect(configuration.contains(#""stableFrameCount" : 1"#))
        try Data(configuration.utf8).write(to: folder.appendingPathComponent("config.json"))
        return folder
    }

    /// The one `COMPLETED_RESULT` report of scanning `image` with the fixture's configuration.
    static func completedReport(_ image: URL, folder: URL) throws -> [String: Any] {
        let scanned = try runLumaScan([
            "scan", "--input", image.path, "--config", folder.appendingPathComponent("config.json").path,
            "--results-only",
        ])
        #expect(scanned.status == 0, "stderr: \(scanned.stderr)")
        let reports = try jsonLines(scanned.stdout).filter { $0["event"] as? String == "report" }
        guard reports.count == 1, let report = reports.first else {
            throw CLIError("expected one result, got \(scanned.stdout)")
        }
        return report
    }

    @Test("an OK completion carries geometry, measurements and a crop that scans as the same code")
    func okCompletionCarriesCrop() throws {
        let folder = try Self.fixture()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = try Self.completedReport(folder.appendingPathComponent("code.png"), folder: folder)
        #expect(report["reportType"] as? String == "COMPLETED_RESULT" && report["state"] as? String == "OK")
        #expect(report["text"] as? String == Self.payload)
        let secureQR = try #require(report["secureQR"] as? [String: Any])
        #expect(secureQR["scanFrame"] as? Int == 0)
        #expect(secureQR["hybrid"] as? Bool == false)
        #expect(secureQR["version"] as? Int == 4 && secureQR["modules"] as? Int == 33)
        // 8 px per module, a 4-module quiet zone: the code's outer corners are at 32 and 32 + 33 × 8 = 296.
        let corners = try #require(secureQR["codePolygon"] as? [[Double]])
        #expect(corners.count == 4)
        for (corner, expected) in zip(corners, [[32.0, 32], [296, 32], [296, 296], [32, 296]]) {
            #expect(abs(corner[0] - expected[0]) < 1.5 && abs(corner[1] - expected[1]) < 1.5, "\(corners)")
        }
        // The centre 7 × 7 modules (13 to 20) hold the copy-detection pattern.
        let graphic = try #require(secureQR["secureGraphicPolygon"] as? [[Double]])
        #expect(abs(graphic[0][0] - (32 + 13 * 8)) < 1.5 && abs(graphic[2][0] - (32 + 20 * 8)) < 1.5, "\(graphic)")
        let measurements = try #require(secureQR["measurements"] as? [String: Any])
        #expect(abs((measurements["modulePixels"] as? Double ?? 0) - 8) < 0.2)
        #expect((measurements["sharpness"] as? Double ?? 0) > 0.04)

        let crop = try #require(secureQR["crop"] as? [String: Any])
        // The code and one module of margin, at 12 px per module: (33 + 2) × 12.
        #expect(crop["width"] as? Int == 420 && crop["height"] as? Int == 420 && crop["modulePixels"] as? Int == 12)
        let png = try #require(Data(base64Encoded: crop["pngBase64"] as? String ?? ""))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let cropFile = folder.appendingPathComponent("crop.png")
        try png.write(to: cropFile)
        let rescanned = try Self.completedReport(cropFile, folder: folder)
        #expect(rescanned["state"] as? String == "OK" && rescanned["text"] as? String == Self.payload)
        let rescannedGeometry = try #require(rescanned["secureQR"] as? [String: Any])
        #expect(
            abs(((rescannedGeometry["measurements"] as? [String: Any])?["modulePixels"] as? Double ?? 0) - 12) < 0.3)
    }

    @Test("a NO_AUTH completion carries the code's geometry and no crop")
    func noAuthCompletion() throws {
        let folder = try Self.fixture(["--no-secure-graphic"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = try Self.completedReport(folder.appendingPathComponent("code.png"), folder: folder)
        #expect(report["reportType"] as? String == "COMPLETED_RESULT" && report["state"] as? String == "NO_AUTH")
        let secureQR = try #require(report["secureQR"] as? [String: Any])
        #expect(secureQR["modules"] as? Int == 33)
        #expect(secureQR["crop"] == nil)
    }
}
