import Logging
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// Reads 500 generated meters per scan mode, one frame each, with the recognizer at its default settings, and scores
/// the readings against the generator's ground truth. The score (accuracy and digit confusions) is printed.
@Suite("Meter accuracy on generated meters")
struct MeterAccuracyTests {
    static let meters = 500

    private func score(
        mode: MeterConfiguration.ScanMode, kinds: [SyntheticMeterKind], seedBase: UInt64
    ) throws
        -> MeterScore
    {
        let fixture = try MeterFixture()
        let configuration = MeterConfiguration(scanMode: mode)
        let recognizer = try MeterRecognizer(
            configuration: configuration, cutout: MeterFixture.cutout, logger: Logger(label: "MeterAccuracyTests"))
        let image = LumaImage(width: MeterFixture.frameSize.width, height: MeterFixture.frameSize.height)
        var score = MeterScore()
        var reports: [ScanReport] = []
        for index in 0..<Self.meters {
            let kind = kinds[index % kinds.count]
            let meter = fixture.meter(seed: seedBase + UInt64(index), kind: kind)
            fixture.generator.render(meter, into: image)
            recognizer.reset()
            reports.removeAll(keepingCapacity: true)
            image.withView { recognizer.process($0, metadata: MeterFixture.metadata(UInt64(index)), into: &reports) }
            let reading = recognizer.lastReading
            score.add(
                truth: meter.truth, read: reading?.text ?? "", confidence: reading?.confidence ?? 0,
                threshold: Double(configuration.minConfidence))
        }
        print("meter accuracy, \(mode.rawValue): \(score)")
        return score
    }

    /// The targets: 98 % of digits and 95 % of readings right.
    private func checkTargets(_ score: MeterScore, floor: (digits: Double, readings: Double)) {
        // What the readers reach now; a drop below it is a regression.
        #expect(score.digitAccuracy >= floor.digits, "\(score)")
        #expect(score.readingAccuracy >= floor.readings, "\(score)")
        #expect(score.digitAccuracy >= 0.98, "\(score)")
        #expect(score.readingAccuracy >= 0.95, "\(score)")
    }

    @Test("digital_meter: 500 seven-segment displays")
    func digital() throws {
        checkTargets(try score(mode: .digitalMeter, kinds: [.digital], seedBase: 100_000), floor: (0.99, 0.975))
    }

    @Test("counter_meter: 500 roller counters")
    func counter() throws {
        checkTargets(try score(mode: .counterMeter, kinds: [.counter], seedBase: 200_000), floor: (0.98, 0.955))
    }

    @Test("auto_meter: 500 meters, half of each kind")
    func auto() throws {
        checkTargets(
            try score(mode: .autoMeter, kinds: [.digital, .counter], seedBase: 300_000), floor: (0.985, 0.965))
    }
}
