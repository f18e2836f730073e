import MallocInterposerSwift

/// The malloc interposer's count of allocations, process-wide (every thread).
///
/// It counts only while the Benchmark framework measures (between its hook and unhook calls around a benchmark's
/// closure); read it there, as a difference of two readings.
public enum Mallocs {
    /// Allocation calls (malloc, calloc, realloc, aligned variants) counted so far.
    public static var count: Int { MallocInterposerSwift.getStatistics().mallocCount }
}

// The measuring itself (TimedRecognizer, SteadyState, NullRecognizer, LatencyDelegate, percentile) is the bench kit's
// (LumaScanBenchKit's Measurement.swift), shared with `lumascan bench`; suites pass `{ Mallocs.count }` as the
// allocation counter.
