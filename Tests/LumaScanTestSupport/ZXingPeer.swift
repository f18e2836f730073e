import CLumaTestKit
import LumaScanCore

/// ZXing-C++ as a peer reader: `ZXing::ReadBarcodes` over the whole image with default `DecodeHints` (every format,
/// tryHarder, tryRotate, tryDownscale; EAN add-ons ignored), as its README's example runs it.
public enum ZXingPeer {
    /// Reads `luma`; symbologies come by LumaScan's names (ZXing's own for a format LumaScan does not name).
    ///
    /// ZXing-C++ 1.4 aborts on some images (an assertion in `Result::operator==` when ReadBarcodes compares a result
    /// with a multi-line linear one: every GS1 DataBar photo); the read runs in a child process, and `aborted` tells
    /// that the reads come from a second try for one symbol at most.
    public static func read(_ luma: LumaView) -> (reads: [PeerRead], aborted: Bool) {
        let capacity = 64
        var reads = [lt_peer_read](repeating: lt_peer_read(), count: capacity)
        var data = [UInt8](repeating: 0, count: 256 * 1024)
        var aborted: Int32 = 0
        let count = reads.withUnsafeMutableBufferPointer { reads in
            data.withUnsafeMutableBufferPointer { data in
                lt_zxing_read(
                    luma.baseAddress, Int32(luma.width), Int32(luma.height), luma.stride, reads.baseAddress,
                    Int32(capacity), data.baseAddress, data.count, &aborted)
            }
        }
        precondition(count >= 0, "ZXing-C++ failed: \(count)")
        // Reads beyond the payload buffer's room are left zeroed, without a name.
        let found = reads.prefix(min(Int(count), capacity)).compactMap { read -> PeerRead? in
            let name = withUnsafeBytes(of: read.symbology) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !name.isEmpty else { return nil }
            let start = Int(read.data_offset)
            let text = String(decoding: data[start..<(start + Int(read.data_length))], as: UTF8.self)
            return PeerRead(symbology: name, text: text)
        }
        return (found, aborted != 0)
    }
}
