/// Counts the frames a driver dropped from the gaps in its buffer sequence numbers (V4L2's `sequence`, which
/// ``FrameMetadata/driverSequence`` carries and a recording keeps): the frame after sequence `s` should be `s + 1`.
/// The arithmetic wraps (from `UInt32.max` the next sequence is 0), and a jump of more than half the sequence space is
/// a restart of the driver's counter, not a gap. The camera, the engine and the recorder each keep one.
public struct SequenceGaps: Sendable {
    private var last: UInt32?

    /// Creates a counter that has seen no frame.
    public init() {}

    /// Notes the next frame's sequence number and returns how many frames are missing before it (0 for the first).
    public mutating func next(_ sequence: UInt32) -> UInt64 {
        defer { last = sequence }
        guard let last else { return 0 }
        let gap = sequence &- last &- 1
        return gap < UInt32.max / 2 ? UInt64(gap) : 0
    }

    /// Forgets the last sequence number, as after a restart, whose numbering starts again.
    public mutating func reset() { last = nil }
}
