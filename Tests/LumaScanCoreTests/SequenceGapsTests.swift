import LumaScanCore
import Testing

@Suite("SequenceGaps")
struct SequenceGapsTests {
    @Test("gaps between sequence numbers are the frames missing, across the wrap, and a restart is none")
    func gaps() {
        var gaps = SequenceGaps()
        #expect(gaps.next(10) == 0, "the first frame")
        #expect(gaps.next(11) == 0)
        #expect(gaps.next(14) == 2, "12 and 13 missing")
        #expect(gaps.next(14) == 0, "a repeated number is no gap")
        #expect(gaps.next(UInt32.max - 1) == 0, "a jump of more than half the space is a restart")
        #expect(gaps.next(UInt32.max) == 0)
        #expect(gaps.next(0) == 0, "from UInt32.max the next is 0")
        #expect(gaps.next(3) == 2, "1 and 2 missing")
        #expect(gaps.next(2) == 0, "backwards is a restart")
        gaps.reset()
        #expect(gaps.next(500) == 0, "after a reset, the first frame again")
        #expect(gaps.next(501 + UInt32.max / 2 - 1) == UInt64(UInt32.max / 2 - 1), "just under half the space")
    }
}
