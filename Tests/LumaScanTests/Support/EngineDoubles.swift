// Test doubles for the engine's tests (ScanEngineTests, ScanEngineServiceTests, ScanLifecycleTests): a recognizer
// that reports each frame's mean luma, a delegate that records every event, a recoverable source error, flat frames.
import Foundation
import LumaScan
import Synchronization

/// A recognizer that reports the mean luma of each frame as its text, so tests can tell frames apart by content.
final class MeanLumaRecognizer: Recognizer, @unchecked Sendable {
    let id: String
    let delay: Duration
    let seen = Lock<[UInt64]>([])
    let seenDequeueTimes = Lock<[MonotonicInstant]>([])
    let resets = Atomic<Int>(0)
    /// Called on the recognition thread with each frame's index, before the frame is read.
    let onFrame: (@Sendable (UInt64) -> Void)?

    init(id: String = "mean", delay: Duration = .zero, onFrame: (@Sendable (UInt64) -> Void)? = nil) {
        self.id = id
        self.delay = delay
        self.onFrame = onFrame
    }

    func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        onFrame?(metadata.index)
        var sum = 0
        for y in 0..<luma.height { for x in 0..<luma.width { sum += Int(luma[x, y]) } }
        seen.withLock { $0.append(metadata.index) }
        seenDequeueTimes.withLock { $0.append(metadata.dequeueTime) }
        if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.nanosecondsClamped) / 1e9) }
        reports.append(
            ScanReport(
                .completedResult, .ok, recognizerID: id, frame: metadata, text: "\(sum / (luma.width * luma.height))"))
    }

    func reset() { resets.add(1, ordering: .relaxed) }
}

/// Collects every event the delegate receives.
final class RecordingDelegate: ScanEngineDelegate, @unchecked Sendable {
    let events = Lock<[ScanEvent]>([])
    let gate: DispatchSemaphore?

    init(gate: DispatchSemaphore? = nil) { self.gate = gate }

    private func record(_ event: ScanEvent) {
        gate?.wait()
        gate?.signal()
        events.withLock { $0.append(event) }
    }

    func scanEngine(_ engine: ScanEngine, didStartOn source: String, format: FrameFormat) {
        record(.started(source: source, format: format))
    }
    func scanEngine(_ engine: ScanEngine, didReport report: ScanReport) { record(.report(report)) }
    func scanEngine(_ engine: ScanEngine, scanningDidChange event: ScanEvent) { record(event) }
    func scanEngine(_ engine: ScanEngine, didDetect detection: Detection) { record(.detection(detection)) }
    func scanEngine(_ engine: ScanEngine, sourceDidFail failure: SourceFailure) { record(.sourceFailed(failure)) }
    func scanEngine(_ engine: ScanEngine, sourceDidRecover source: String, attempts: Int) {
        record(.sourceRecovered(source: source, attempts: attempts))
    }
    func scanEngine(_ engine: ScanEngine, didStop reason: StopReason) { record(.stopped(reason)) }

    var reports: [ScanReport] {
        events.withLock { $0.compactMap { if case .report(let report) = $0 { report } else { nil } } }
    }
}

/// An error a test source throws, recoverable as the test says.
struct TestSourceError: RecoverableSourceError, Sendable, CustomStringConvertible {
    var recovery: SourceRecovery
    var description: String { "test source failure (\(recovery))" }
}

func flatImages(_ values: [UInt8], width: Int = 32, height: Int = 24) -> [LumaImage] {
    values.map { LumaImage(width: width, height: height, fill: $0) }
}
