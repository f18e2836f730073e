import CLumaVision
import Foundation
import Testing

/// Roller counters built from real digit photographs (the validation split: Apache-2.0, see
/// CSupport/CLumaVision/models/NOTICE) and framed as a user frames a display (`scripts/eval-meter.sh --cutout 4:1@70
/// --framing`: 40-85 % of the cutout's width, seen from the side and rolled up to 10 degrees), as the recognizer crops
/// them: the cutout of one camera frame with its padding, halved to 472 x 136 (Fixtures/counter/framed<S>-<M>-f<F>.png:
/// seed S, meter M, frame F). Each is rolled by 6-10 degrees, more than the digit network was trained on (4), and its
/// drum windows cut level showed each digit turned: a "1" with a flag read as a surer "7" (613596 as 673596, 776163
/// as 715163, confident misreads), a "7" as a "1" (735673 as 735613), or nothing read (39875). Cut turned with the
/// row, each reads right and surely.
@Suite("Roller counters rolled past the digit network's training: drum windows turned with the row")
struct MeterCounterCropTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/counter")

    /// Reads the fixture `name` in counter mode with a new reader: the digits and the least digit confidence.
    func read(_ name: String) throws -> (text: String, confidence: Float) {
        let (result, count) = try meterResult(
            imageAt: Self.fixtures.appendingPathComponent(name).path, mode: Int32(LV_METER_MODE_COUNTER))
        let text = withUnsafeBytes(of: result.digits) { String(decoding: $0.prefix(Int(count)), as: UTF8.self) }
        return (text, result.reading_confidence)
    }

    @Test(
        "a counter rolled 6-10 degrees is read upright: every drum right, the reading confident",
        arguments: [
            ("framed7-52-f1.png", "613596"), ("framed7-86-f1.png", "776163"), ("framed7-43-f0.png", "735673"),
            ("framed11-106-f0.png", "39875"),
        ])
    func rolledCounter(name: String, truth: String) throws {
        let (text, confidence) = try read(name)
        #expect(text == truth)
        // The recognizer's default minConfidence is 60.
        #expect(confidence >= 60, "\(text) at \(confidence)")
    }
}
