import Foundation
import Testing

@Suite("lumascan scan --config")
struct ScanConfigTests {
    func write(_ json: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-\(UUID().uuidString).json")
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("the configuration's barcode settings and rules drive the scan")
    func configuredScan() throws {
        let (folder, _) = try CLITests.makeImageFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try write(
            """
            {"viewPluginConfig": {"pluginConfig": {"id": "tickets", "scanTimeout": 0,
              "barcodeConfig": {"symbologies": ["qr", "code128"], "stillImage": true}}}}
            """)
        defer { try? FileManager.default.removeItem(at: config) }
        let result = try runLumaScan(["scan", "--config", config.path, "--input", folder.path, "--results-only"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let events = try jsonLines(result.stdout)
        #expect(events.contains { $0["event"] as? String == "scanningStarted" && $0["plugin"] as? String == "tickets" })
        let reports = events.filter { $0["event"] as? String == "report" }
        #expect(Set(reports.compactMap { $0["symbology"] as? String }) == ["qr", "code128"], "EAN-13 is not enabled")
        #expect(reports.allSatisfy { $0["recognizer"] as? String == "tickets" })
    }

    @Test("an invalid configuration is refused with status 2 and the JSON path of the problem")
    func invalidConfiguration() throws {
        let config = try write(#"{"viewPluginConfig": {"pluginConfig": {"scanTimeot": 5, "barcodeConfig": {}}}}"#)
        defer { try? FileManager.default.removeItem(at: config) }
        let result = try runLumaScan(["scan", "--config", config.path, "--input", "/tmp"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("viewPluginConfig.pluginConfig.scanTimeot"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("scanTimeout"), "the closest known key is suggested")
    }
}
