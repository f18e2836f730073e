import CLumaVision
import Foundation
import LumaScanCore
import LumaScanTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A decoded image, or the code decoding returned.
struct Decoded {
    var status: Int32
    var width = 0
    var height = 0
    var pixels: [UInt8] = []

    /// Decodes `bytes` with `lv_image_decode_grey_within` and a budget of `maxPixels` (0: the default, 64 MP).
    init(_ bytes: [UInt8], maxPixels: UInt64 = 0) {
        var image: OpaquePointer?
        status = bytes.withUnsafeBytes { lv_image_decode_grey_within($0.baseAddress, $0.count, maxPixels, &image) }
        defer { lv_image_destroy(image) }
        guard status == 0, let image else { return }
        width = Int(lv_image_width(image))
        height = Int(lv_image_height(image))
        pixels = Array(UnsafeBufferPointer(start: lv_image_pixels(image), count: width * height))
    }
}

/// CLumaVision's decoders for WebP, TIFF and GIF (libwebp, libtiff, giflib), and the error codes of every decoder:
/// images encoded by the formats' own libraries (`ImageEncoders`), expected pixels from how they were made.
@Suite("Image formats")
struct ImageFormatTests {
    /// `count` colours from a seeded generator, with a few pure and grey ones first.
    static func colours(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        let fixed: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 77, 77, 77]
        return fixed + (fixed.count..<(3 * count)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Whether every decoded pixel is the BT.601 grey of its RGB source, to rounding (the decoder's fixed-point
    /// weights are within 0.013 of a level of the exact ones).
    static func matchesBT601(_ decoded: [UInt8], rgb: [UInt8]) -> Bool {
        decoded.indices.allSatisfy { abs(Double(decoded[$0]) - grey(rgb, at: $0)) < 0.52 }
    }

    /// The BT.601 grey of pixel `index` of tight RGB rows.
    static func grey(_ rgb: [UInt8], at index: Int) -> Double {
        ImageEncoders.bt601(rgb[3 * index], rgb[3 * index + 1], rgb[3 * index + 2])
    }

    @Test("lossless WebP: every pixel is its colour's BT.601 grey; grey pixels exactly")
    func webpLossless() throws {
        let (width, height) = (37, 23)
        let rgb = Self.colours(width * height, seed: 1)
        let decoded = Decoded(try ImageEncoders.webp(rgb: rgb, width: width, height: height))
        #expect(decoded.status == 0)
        #expect(decoded.width == width && decoded.height == height)
        #expect(Array(decoded.pixels.prefix(6)) == [76, 150, 29, 255, 0, 77])  // red, green, blue, white, black, grey
        #expect(Self.matchesBT601(decoded.pixels, rgb: rgb))
    }

    @Test("lossy WebP: a smooth colour gradient decodes within a few grey levels of its BT.601 grey")
    func webpLossy() throws {
        let (width, height) = (64, 48)
        var rgb: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { rgb += [UInt8(x * 4), UInt8(y * 5), UInt8(255 - x * 2 - y)] }
        }
        let decoded = Decoded(try ImageEncoders.webp(rgb: rgb, width: width, height: height, quality: 90))
        #expect(decoded.status == 0)
        #expect(decoded.width == width && decoded.height == height)
        let errors = decoded.pixels.indices.map { abs(Double(decoded.pixels[$0]) - Self.grey(rgb, at: $0)) }
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(mean < 2, "mean error \(mean)")
        #expect((errors.max() ?? 0) <= 10, "largest error \(errors.max() ?? 0)")
    }

    @Test("WebP with alpha: alpha is ignored, not composited")
    func webpAlpha() throws {
        let (width, height) = (16, 9)
        let rgb = Self.colours(width * height, seed: 2)
        var rgba: [UInt8] = []
        // Alpha above 0 everywhere: libwebp may change the colour of fully transparent pixels.
        for index in 0..<(width * height) { rgba += rgb[(3 * index)..<(3 * index + 3)] + [UInt8(1 + index % 255)] }
        let decoded = Decoded(try ImageEncoders.webp(rgba: rgba, width: width, height: height))
        #expect(decoded.status == 0)
        #expect(Self.matchesBT601(decoded.pixels, rgb: rgb))
    }

    @Test("TIFF: 8-bit grey exactly with every compression and strip height, RGB to BT.601 grey, 16-bit scaled")
    func tiff() throws {
        let (width, height) = (29, 17)
        let grey = (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 * 37) }
        for compression in ImageEncoders.TIFFCompression.allCases {
            for rowsPerStrip in [1, 5, height] {
                let decoded = Decoded(
                    try ImageEncoders.tiff(
                        samples: grey, width: width, height: height, channels: 1, compression: compression,
                        rowsPerStrip: rowsPerStrip))
                #expect(decoded.status == 0, "\(compression), \(rowsPerStrip) rows a strip")
                #expect(decoded.width == width && decoded.height == height)
                #expect(decoded.pixels == grey, "\(compression), \(rowsPerStrip) rows a strip")
            }
        }
        let rgb = Self.colours(width * height, seed: 3)
        let colour = Decoded(
            try ImageEncoders.tiff(samples: rgb, width: width, height: height, channels: 3, compression: .lzw))
        #expect(colour.status == 0)
        #expect(Array(colour.pixels.prefix(6)) == [76, 150, 29, 255, 0, 77])
        #expect(Self.matchesBT601(colour.pixels, rgb: rgb))

        let wide = (0..<(width * height)).map { UInt16(truncatingIfNeeded: $0 * 151) }
        let deep = Decoded(try ImageEncoders.tiff(grey16: wide, width: width, height: height, compression: .deflate))
        #expect(deep.status == 0)
        #expect(deep.pixels.indices.allSatisfy { abs(Double(deep.pixels[$0]) - Double(wide[$0]) / 257) <= 1 })
    }

    @Test("GIF: the first frame's palette to BT.601 grey, plain and interlaced")
    func gif() throws {
        let (width, height) = (21, 13)  // 13 rows: every interlace pass has rows, the last one short
        let palette = Self.colours(6, seed: 4)
        let indices = (0..<(width * height)).map { UInt8(($0 / width + $0 % width) % 6) }
        let expected = indices.map { UInt8(Self.grey(palette, at: Int($0)).rounded()) }
        for interlaced in [false, true] {
            let decoded = Decoded(
                try ImageEncoders.gif(
                    indices: indices, width: width, height: height, palette: palette, interlaced: interlaced))
            #expect(decoded.status == 0, "interlaced: \(interlaced)")
            #expect(decoded.width == width && decoded.height == height)
            #expect(decoded.pixels == expected, "interlaced: \(interlaced)")
        }
    }

    @Test("truncated files are refused as corrupt (-EBADMSG), unknown content as -EMEDIUMTYPE, RLE BMP as -ENOTSUP")
    func refusals() throws {
        let (width, height) = (40, 30)
        let rgb = Self.colours(width * height, seed: 5)
        let grey = (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0) }
        let files: [(String, [UInt8])] = [
            ("lossless WebP", try ImageEncoders.webp(rgb: rgb, width: width, height: height)),
            ("lossy WebP", try ImageEncoders.webp(rgb: rgb, width: width, height: height, quality: 80)),
            ("TIFF", try ImageEncoders.tiff(samples: grey, width: width, height: height, channels: 1)),
            (
                "GIF",
                try ImageEncoders.gif(
                    indices: grey.map { $0 % 6 }, width: width, height: height, palette: Array(rgb.prefix(18)))
            ),
            ("PNG", Self.png(grey, width: width, height: height)),
        ]
        for (name, bytes) in files {
            #expect(Decoded(bytes).status == 0, "\(name) whole")
            #expect(Decoded(Array(bytes.prefix(bytes.count / 2))).status == -EBADMSG, "\(name) cut in half")
        }
        #expect(Decoded(Array("just some text".utf8)).status == -EMEDIUMTYPE)
        let rle = BMPFixtures.bmp(width: 2, height: 2, bitsPerPixel: 8, compression: 1, rows: [0, 0, 0, 1])
        #expect(Decoded(rle).status == -ENOTSUP)
    }

    @Test(
        "a header declaring more pixels than the budget is refused with -EFBIG at once, in every format that can declare it",
        arguments: [
            (40000, 0), (8193, 0),  // the default budget, 64 MP (8192 x 8192)
            (1000, 999_999),  // a budget of the caller's
        ] as [(Int, UInt64)])
    func oversized(side: Int, maxPixels: UInt64) throws {
        let (width, height) = (16, 8)
        let grey = [UInt8](repeating: 128, count: width * height)
        var jpeg = JPEGFixtures.greyJPEG(grey, width: width, height: height)
        let sof = try #require((0..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: Self.be16(side) + Self.be16(side))
        var headers: [(String, [UInt8])] = [
            ("GIF", Self.oversizedGIF(side)),
            ("TIFF", Self.oversizedTIFF(side)),
            ("BMP", BMPFixtures.bmp(width: side, height: side, bitsPerPixel: 8, rows: [])),
            ("PGM", Array("P5\n\(side) \(side)\n255\n".utf8)),
            ("PNG", Self.resizedPNG(Self.png(grey, width: width, height: height), width: side, height: side)),
            ("JPEG", jpeg),
        ]
        // A lossless WebP (VP8L) declares its sides in 14 bits, so up to 16384.
        let webp = try Self.resizedWebP(
            ImageEncoders.webp(rgb: [UInt8](repeating: 90, count: width * height * 3), width: width, height: height),
            side: side)
        headers += side <= 16384 ? [("WebP", webp)] : []
        for (name, bytes) in headers {
            let start = ContinuousClock.now
            let status = Decoded(bytes, maxPixels: maxPixels).status
            let elapsed = ContinuousClock.now - start
            #expect(status == -EFBIG, "\(name)")
            // Allocating and decoding 1.6 gigapixels would take seconds; refusing from the header takes microseconds.
            #expect(elapsed < .milliseconds(250), "\(name) took \(elapsed)")
        }
    }

    @Test("reading files: each failure has its own code")
    func readCodes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lv-codes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func read(_ path: String) -> Int32 {
            var image: OpaquePointer?
            let status = lv_image_read_grey(path, &image)
            lv_image_destroy(image)
            return status
        }
        let empty = folder.appendingPathComponent("empty.png").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(read(empty) == -EMEDIUMTYPE)
        #expect(read(folder.appendingPathComponent("missing.png").path) == -ENOENT)
        #expect(read(empty + "/below-a-file.png") == -ENOENT)
        #expect(read(folder.path) == -EISDIR)
        #expect(read("/dev/null") == -EINVAL)
        let tiff = folder.appendingPathComponent("cut.tif").path
        let grey = [UInt8](repeating: 9, count: 64)
        let bytes = try ImageEncoders.tiff(samples: grey, width: 8, height: 8, channels: 1)
        #expect(FileManager.default.createFile(atPath: tiff, contents: Data(bytes.prefix(20))))
        #expect(read(tiff) == -EBADMSG)
    }

    @Test(
        "a file without read permission is -EACCES",
        .disabled(if: getuid() == 0, "root reads any file, mode 000 too; the CLI test drops root's capabilities"))
    func permission() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lv-perm-\(UUID().uuidString).png")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data(Self.png([1], width: 1, height: 1))))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(chmod(file.path, 0) == 0)
        var image: OpaquePointer?
        #expect(lv_image_read_grey(file.path, &image) == -EACCES)
        #expect(image == nil)
    }

    // MARK: - Encoded fixtures

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16) }

    /// A grey PNG through libpng (the shim's encoder).
    static func png(_ grey: [UInt8], width: Int, height: Int) -> [UInt8] {
        var length = 0
        _ = lv_image_encode_png(grey, Int32(width), Int32(height), width, nil, 0, &length)
        var png = [UInt8](repeating: 0, count: length)
        let status = lv_image_encode_png(grey, Int32(width), Int32(height), width, &png, png.count, &length)
        return status == 0 ? Array(png.prefix(length)) : []
    }

    /// `png` with IHDR's width and height replaced and its CRC recomputed, so libpng accepts the header.
    /// A lossless WebP with its VP8L header's sides (14 bits each, less one, from bit 8 of byte 21) set to `side`.
    static func resizedWebP(_ webp: [UInt8], side: Int) throws -> [UInt8] {
        try #require(webp.count > 25 && Array(webp[12..<16]) == Array("VP8L".utf8) && webp[20] == 0x2F)
        var bytes = webp
        let old = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[21 + $1]) << (8 * $1) }
        let sides = UInt32(side - 1) | UInt32(side - 1) << 14
        let word = old & 0xF000_0000 | sides
        for index in 0..<4 { bytes[21 + index] = UInt8(truncatingIfNeeded: word >> (8 * index)) }
        return bytes
    }

    static func resizedPNG(_ png: [UInt8], width: Int, height: Int) -> [UInt8] {
        var patched = png
        let size = be16(width >> 16) + be16(width & 0xFFFF) + be16(height >> 16) + be16(height & 0xFFFF)
        patched.replaceSubrange(16..<24, with: size)
        let crc = crc32(Array(patched[12..<29]))  // the chunk type and its 13 data bytes
        patched.replaceSubrange(29..<33, with: (0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) })
        return patched
    }

    /// The CRC-32 PNG chunks carry (ISO 3309, reflected, polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A GIF89a whose logical screen and first frame are `side` x `side`, with its first bytes of image data.
    static func oversizedGIF(_ side: Int) -> [UInt8] {
        let screen = le16(side) + le16(side) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]  // a 2-colour global table
        let frame = [0x2C] + le16(0) + le16(0) + le16(side) + le16(side) + [0]
        return Array("GIF89a".utf8) + screen + frame + [2, 2, 0x4C, 0x01, 0, 0x3B]
    }

    /// A little-endian TIFF whose one directory describes a `side` x `side` 8-bit grey image in one strip, without
    /// the strip.
    static func oversizedTIFF(_ side: Int) -> [UInt8] {
        // (tag, type, value): type 3 SHORT, 4 LONG; every value fits the entry's 4-byte field.
        let entries: [(Int, Int, Int)] = [
            (256, 4, side), (257, 4, side), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 200), (277, 3, 1),
            (278, 4, side), (279, 4, side * side),
        ]
        var file: [UInt8] = Array("II".utf8) + le16(42) + le32(8) + le16(entries.count)
        for (tag, type, value) in entries {
            file += le16(tag) + le16(type) + le32(1) + (type == 3 ? le16(value) + [0, 0] : le32(value))
        }
        return file + le32(0)
    }
}
