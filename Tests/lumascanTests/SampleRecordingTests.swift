import Foundation
import Testing

/// The bundled sample recording that `scripts/run.sh` replays when no camera is attached.
///
/// `scripts/make-sample-recording.sh` makes it from the committed sample images; these tests check that the committed
/// file is what that command makes today, and that it replays to the payloads the images were made with.
@Suite("bundled sample recording")
struct SampleRecordingTests {
    static var recording: URL { SamplesTests.samplesFolder.appendingPathComponent("kiosk-demo.lsrec") }

    @Test("the sample recording replays to the sample images' payloads, each reported once")
    func replays() throws {
        let result = try runLumaScan(["scan", "--input", Self.recording.path, "--results-only"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let events = try jsonLines(result.stdout)
        #expect(events.first?["pixelFormat"] as? String == "GREY")
        let reports = events.filter { $0["event"] as? String == "report" }
        #expect(reports.count == SamplesTests.expected.count)
        for sample in SamplesTests.expected {
            let matching = reports.filter { $0["text"] as? String == sample.text }
            #expect(matching.count == 1, "\(sample.file)")
            #expect(matching.first?["symbology"] as? String == sample.symbology, "\(sample.file)")
        }
    }

    @Test("the committed sample recording is what scripts/make-sample-recording.sh's command makes")
    func regenerates() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-demo-\(UUID().uuidString).lsrec")
        defer { try? FileManager.default.removeItem(at: path) }
        let result = try runLumaScan([
            "record", "--input", SamplesTests.samplesFolder.path, "--fps", "2", "--repeat", "2", "--out", path.path,
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let committed = try Data(contentsOf: Self.recording)
        #expect(committed.count < 1_500_000)
        #expect(try Data(contentsOf: path) == committed, "run scripts/make-sample-recording.sh to update the sample")
    }
}
