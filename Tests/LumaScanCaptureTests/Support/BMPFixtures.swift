/// BMP files made by the tests, byte by byte.
enum BMPFixtures {
    /// A BMP file: the 14-byte file header, a BITMAPINFOHEADER, `palette` (BGRA entries) and `rows` (already in file
    /// order and padded to 4 bytes). `compression` is the header's field (0 none, 1 RLE8, 3 BITFIELDS).
    static func bmp(
        width: Int, height: Int, bitsPerPixel: Int, compression: Int = 0, palette: [[UInt8]] = [], rows: [UInt8]
    ) -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let dataOffset = 14 + 40 + 4 * palette.count
        var file: [UInt8] = Array("BM".utf8)
        for field in [le32(dataOffset + rows.count), le32(0), le32(dataOffset)] { file += field }
        let info: [[UInt8]] = [
            le32(40), le32(width), le32(height), le16(1), le16(bitsPerPixel), le32(compression), le32(rows.count),
            le32(2835), le32(2835), le32(palette.count), le32(0),
        ]
        for field in info { file += field }
        for entry in palette { file += entry }
        return file + rows
    }
}
