import Foundation
import LumaScanCore
import LumaScanTestSupport
import Testing

/// The bundled sample images that `scripts/run.sh` scans when no camera is attached.
///
/// They were made by ``makeSamples()``; run the tests with `LUMASCAN_WRITE_SAMPLES=1` to write them again into
/// `Samples/`. The test checks that the committed files still decode to what they were made with.
@Suite("bundled samples")
struct SamplesTests {
    static let expected: [(file: String, symbology: String, text: String)] = [
        ("ean13-kiosk.png", "ean13", "4006381333931"),
        ("upca-can.png", "upca", "036000291452"),
        ("code128-ticket.png", "code128", "TICKET-000042"),
        ("qr-url.png", "qr", "https://lumascan.example/hello"),
    ]

    static var samplesFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Samples")
    }

    static func makeSamples() throws -> [String: TestCanvas] {
        var canvases: [String: TestCanvas] = [:]
        func scene(_ code: LumaImage, degrees: Double, seed: UInt64) -> TestCanvas {
            let canvas = BarcodeCorpus.background(width: 480, height: 360, seed: seed)
            _ = canvas.place(code, centre: Point(x: 240, y: 180), scale: 1, degrees: degrees)
            canvas.addNoise(sigma: 3, seed: seed)
            return canvas
        }
        canvases["ean13-kiosk.png"] = scene(
            EAN.ean13("400638133393").render(moduleWidth: 3, height: 110), degrees: 0, seed: 1)
        canvases["upca-can.png"] = scene(
            EAN.upcA("03600029145").render(moduleWidth: 3, height: 110), degrees: -6, seed: 2)
        canvases["code128-ticket.png"] = scene(
            Code128.encode("TICKET-000042").render(moduleWidth: 2, height: 90), degrees: 4, seed: 3)
        canvases["qr-url.png"] = scene(
            try QRCode("https://lumascan.example/hello").render(moduleSize: 5), degrees: 12, seed: 4)
        return canvases
    }

    @Test("the committed samples decode to the payloads they were made with")
    func samplesDecode() throws {
        if ProcessInfo.processInfo.environment["LUMASCAN_WRITE_SAMPLES"] == "1" {
            try FileManager.default.createDirectory(at: Self.samplesFolder, withIntermediateDirectories: true)
            for (name, canvas) in try Self.makeSamples() {
                #expect(canvas.writePNG(to: Self.samplesFolder.appendingPathComponent(name).path) == 0)
            }
        }
        let result = try runLumaScan(["scan", "--input", Self.samplesFolder.path, "--results-only"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let reports = try jsonLines(result.stdout).filter { $0["event"] as? String == "report" }
        #expect(reports.count == Self.expected.count)
        for sample in Self.expected {
            let report = reports.first { ($0["input"] as? String)?.hasSuffix("/" + sample.file) == true }
            #expect(report?["symbology"] as? String == sample.symbology, "\(sample.file)")
            #expect(report?["text"] as? String == sample.text, "\(sample.file)")
        }
    }
}
