import Glibc
import LumaScan

/// The value at `fraction` (0...1) of `values` sorted, nearest rank; 0 for no values.
public func percentile(_ values: [UInt64], _ fraction: Double) -> UInt64 {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(sorted.count - 1, max(0, rank))]
}

/// Wraps a recognizer and records, for each frame, when its `process` call started and ended and (with an allocation
/// counter) the allocation count at its start and end, without allocating per frame: room for `capacity` frames is
/// reserved up front, and later frames are not recorded. Read the records after the engine finished, to tell the
/// engine's cost from the recognizer's and steady-state allocations from start-up ones. `lumascan bench` and the
/// Benchmarks package measure through it.
public final class TimedRecognizer: Recognizer, @unchecked Sendable {
    // SAFETY (Sendable): `process` and `reset` run on the engine's recognition thread only; the recorded values are
    // read after the engine has finished (its threads are joined, which orders their writes before the read).

    /// The wrapped recognizer's id.
    public var id: String { base.id }
    /// When each call started (monotonic nanoseconds), in processing order.
    public private(set) var starts: [UInt64]
    /// When each call ended.
    public private(set) var ends: [UInt64]
    /// The allocation count when each call started (empty without an allocation counter).
    public private(set) var mallocs: [Int]
    /// The allocation count when each call ended (empty without an allocation counter).
    public private(set) var mallocsAfter: [Int]

    /// Called once, on the recognition thread, when `capacity` frames have been recorded (to stop a live engine).
    public var whenFull: (@Sendable () -> Void)?

    private let base: any Recognizer
    private let capacity: Int
    private let allocationCount: (@Sendable () -> Int)?
    private let resetOnCompletion: Bool
    private let afterFrame: (@Sendable () -> Void)?

    /// Wraps `base`, with room for `capacity` frames.
    ///
    /// - Parameters:
    ///   - allocationCount: the process's allocation count so far (the Benchmarks package's malloc interposer), read
    ///     around each call; `nil` records no allocations.
    ///   - resetOnCompletion: resets `base` after each frame that completed a result, so that a recognizer which stops
    ///     at a completion (secure QR, meter) keeps analysing frames as in continuous scanning.
    ///   - afterFrame: called after each frame (a progress bar's step); it must not allocate.
    public init(
        _ base: any Recognizer, capacity: Int, allocationCount: (@Sendable () -> Int)? = nil,
        resetOnCompletion: Bool = false, afterFrame: (@Sendable () -> Void)? = nil
    ) {
        self.base = base
        self.capacity = capacity
        self.allocationCount = allocationCount
        self.resetOnCompletion = resetOnCompletion
        self.afterFrame = afterFrame
        starts = []
        ends = []
        mallocs = []
        mallocsAfter = []
        prefault(&starts, capacity)
        prefault(&ends, capacity)
        if allocationCount != nil {
            prefault(&mallocs, capacity)
            prefault(&mallocsAfter, capacity)
        }
    }

    /// Times the wrapped recognizer's `process`.
    public func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        let room = starts.count < capacity
        if room, let allocationCount { mallocs.append(allocationCount()) }
        let first = reports.count
        let start = MonotonicInstant.now()
        base.process(luma, metadata: metadata, into: &reports)
        let end = MonotonicInstant.now()
        if room {
            if let allocationCount { mallocsAfter.append(allocationCount()) }
            starts.append(start.nanoseconds)
            ends.append(end.nanoseconds)
            if starts.count == capacity { whenFull?() }
        }
        if resetOnCompletion, reports[first...].contains(where: { $0.reportType != .inProgress }) { base.reset() }
        afterFrame?()
    }

    /// Resets the wrapped recognizer.
    public func reset() { base.reset() }

    /// The recognizer's time per recorded frame, in nanoseconds (allocates: read it after the run).
    public var nanoseconds: [UInt64] { zip(starts, ends).map { $1 - $0 } }

    /// The engine's steady state from frame `first` (0-based, in processing order) to the last frame recorded:
    /// wall time per frame from the start of frame `first` to the start of the last one, the recognizer's share of
    /// it, and (with an allocation counter) allocations per frame over the same frames, in all and outside the
    /// recognizer's calls. `nil` when fewer than `first + 2` frames were recorded.
    public func steadyState(from first: Int) -> SteadyState? {
        let last = starts.count - 1
        guard first >= 0, last > first else { return nil }
        let frames = last - first
        let elapsed = starts[last] - starts[first]
        var recognizer: UInt64 = 0
        for index in first..<last { recognizer += ends[index] - starts[index] }
        var total = 0
        var recognizerMallocs = 0
        if allocationCount != nil {
            for index in first..<last { recognizerMallocs += mallocsAfter[index] - mallocs[index] }
            total = mallocs[last] - mallocs[first]
        }
        return SteadyState(
            frames: frames, nanosecondsPerFrame: Double(elapsed) / Double(frames),
            recognizerNanosecondsPerFrame: Double(recognizer) / Double(frames),
            mallocsPerFrame: Double(total) / Double(frames),
            engineMallocsPerFrame: Double(total - recognizerMallocs) / Double(frames))
    }
}

/// What ``TimedRecognizer/steadyState(from:)`` measured.
public struct SteadyState: Sendable {
    /// Frames measured.
    public var frames: Int
    /// Wall time per frame on the recognition thread (start of one frame to the start of the next).
    public var nanosecondsPerFrame: Double
    /// The recognizer's time per frame.
    public var recognizerNanosecondsPerFrame: Double
    /// Allocations per frame, process-wide (every engine thread); 0 without an allocation counter.
    public var mallocsPerFrame: Double
    /// Allocations per frame made while the recognizer was not running: the engine's own (the counters are
    /// process-wide, so an engine thread allocating during a recognizer call would be counted as the recognizer's).
    public var engineMallocsPerFrame: Double
    /// Wall time per frame minus the recognizer's: the engine's overhead on the recognition thread.
    public var overheadNanosecondsPerFrame: Double { max(0, nanosecondsPerFrame - recognizerNanosecondsPerFrame) }
}

/// A recognizer that reads nothing and reports, for each frame, the one `IN_PROGRESS` / `UNREADABLE` report a barcode
/// recognizer makes for a frame without a code: the engine's own cost (ring, report, delivery), with no recognition.
public final class NullRecognizer: Recognizer, @unchecked Sendable {
    // SAFETY (Sendable): stateless.
    /// `"null"`.
    public let id = "null"
    /// Creates one.
    public init() {}
    /// Reports the frame as unreadable.
    public func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        reports.append(ScanReport(.inProgress, .unreadable, recognizerID: id, frame: metadata))
    }
    /// Does nothing.
    public func reset() {}
}

/// Counts the reports an engine delivers, records each frame's capture-to-delivery latency without allocating per
/// event (room for `capacity` latencies is reserved up front), and how the engine started and stopped.
public final class LatencyDelegate: ScanEngineDelegate, @unchecked Sendable {
    // SAFETY (Sendable): the engine calls the delegate on its one delivery thread; the values are read after the
    // engine has finished.
    /// Nanoseconds from each reported frame's capture to the delegate's call, one per frame (its first report).
    public private(set) var latencies: [UInt64]
    /// Reports delivered.
    public private(set) var reports = 0
    /// Results (`COMPLETED_RESULT`) delivered.
    public private(set) var results = 0
    /// The frame format the source started with.
    public private(set) var format: FrameFormat?
    /// Why the engine stopped, once it did.
    public private(set) var stopReason: StopReason?
    private var lastFrame: UInt64?

    /// Creates a delegate with room for `capacity` latencies.
    public init(capacity: Int) {
        latencies = []
        prefault(&latencies, capacity)
    }

    /// Records the format.
    public func scanEngine(_ engine: ScanEngine, didStartOn source: String, format: FrameFormat) {
        self.format = format
    }

    /// Records the report.
    public func scanEngine(_ engine: ScanEngine, didReport report: ScanReport) {
        reports += 1
        if report.reportType == .completedResult { results += 1 }
        guard report.frameIndex != lastFrame else { return }
        lastFrame = report.frameIndex
        if latencies.count < latencies.capacity {
            latencies.append(MonotonicInstant.now().since(report.captureTime).nanosecondsClamped)
        }
    }

    /// Records why the engine stopped.
    public func scanEngine(_ engine: ScanEngine, didStop reason: StopReason) { stopReason = reason }
}

/// CPU time and peak memory of this process (`getrusage`).
public struct ResourceUsage: Sendable {
    /// User CPU seconds.
    public var userSeconds: Double
    /// System CPU seconds.
    public var systemSeconds: Double
    /// The process's peak resident set so far (Linux reports it in KiB).
    public var peakResidentBytes: Int

    /// User and system CPU seconds.
    public var cpuSeconds: Double { userSeconds + systemSeconds }

    /// The process's usage so far.
    public static func now() -> ResourceUsage {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ResourceUsage(
            userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime),
            peakResidentBytes: Int(usage.ru_maxrss) * 1024)
    }

    /// CPU time since `earlier`; the peak is this reading's.
    public func since(_ earlier: ResourceUsage) -> ResourceUsage {
        ResourceUsage(
            userSeconds: userSeconds - earlier.userSeconds, systemSeconds: systemSeconds - earlier.systemSeconds,
            peakResidentBytes: peakResidentBytes)
    }
}

/// Reserves room for `capacity` elements in `array` and writes it once, so that the memory is resident from the start:
/// samples stored during a run then neither allocate nor grow the process's resident memory (scripts/soak.sh measures
/// the engine's, not the bench's).
func prefault<Element: BinaryInteger>(_ array: inout [Element], _ capacity: Int) {
    array.removeAll(keepingCapacity: false)
    array.append(contentsOf: repeatElement(0, count: capacity))
    array.removeAll(keepingCapacity: true)
}
