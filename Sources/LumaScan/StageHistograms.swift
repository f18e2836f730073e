/// Fixed-bucket histograms of the time each recognised frame spent in luma extraction and in recognition, for a
/// metrics endpoint (`lumascan serve`'s `lumascan_luma_seconds` and `lumascan_recognition_seconds`).
///
/// The recognition thread records into counts allocated once, under an uncontended lock: no allocation per frame.
public final class StageHistograms: Sendable {
    /// The buckets' upper bounds, in seconds (a last, unbounded bucket follows).
    public static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// One histogram's figures.
    public struct Snapshot: Hashable, Sendable {
        /// How many observations were at most each of ``StageHistograms/bounds`` (cumulative, as Prometheus counts).
        public var cumulativeCounts: [UInt64]
        /// How many observations there were.
        public var count: UInt64
        /// Their sum, in seconds.
        public var sum: Double
    }

    private struct Counts {
        var buckets: [UInt64]
        var count: UInt64 = 0
        var nanoseconds: UInt64 = 0

        init() { buckets = Array(repeating: 0, count: StageHistograms.bounds.count) }

        mutating func add(_ nanoseconds: UInt64) {
            let seconds = Double(nanoseconds) / 1e9
            for index in 0..<StageHistograms.bounds.count where seconds <= StageHistograms.bounds[index] {
                buckets[index] += 1
                break
            }
            count += 1
            self.nanoseconds &+= nanoseconds
        }

        var snapshot: Snapshot {
            var running: UInt64 = 0
            let cumulative = buckets.map { count -> UInt64 in
                running += count
                return running
            }
            return Snapshot(cumulativeCounts: cumulative, count: count, sum: Double(nanoseconds) / 1e9)
        }
    }

    private let counts = Lock<(luma: Counts, recognition: Counts)>((Counts(), Counts()))

    init() {}

    /// Records one frame's stage times; called on the recognition thread.
    func record(lumaNanoseconds: UInt64, recognitionNanoseconds: UInt64) {
        counts.withLock { counts in
            counts.luma.add(lumaNanoseconds)
            counts.recognition.add(recognitionNanoseconds)
        }
    }

    /// The luma extraction times so far.
    public var luma: Snapshot { counts.withLock { $0.luma.snapshot } }

    /// The recognition times so far.
    public var recognition: Snapshot { counts.withLock { $0.recognition.snapshot } }
}
