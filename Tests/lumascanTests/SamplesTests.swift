import Foundation
import LumaScanCore
import LumaScanTestSupport
import Testing

/// The bundled sample images that `scripts/run.sh` records and scans when no camera is attached
/// (``BundledSamples``; `swift run barcode-corpus samples Samples` writes them again). The tests only read them.
@Suite("bundled samples")
struct SamplesTests {
    static var expected: [(file: String, symbology: String, text: String)] { BundledSamples.expected }

    static var samplesFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Samples")
    }

    @Test("the committed samples are what BundledSamples makes now")
    func samplesRegenerate() throws {
        let differing = try BundledSamples.differences(in: Self.samplesFolder.path)
        #expect(differing.isEmpty, "\(differing): run `swift run barcode-corpus samples Samples` to update them")
    }

    @Test("the committed samples decode to the payloads they were made with")
    func samplesDecode() throws {
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
