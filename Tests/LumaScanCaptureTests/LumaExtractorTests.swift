import LumaScanCore
import Testing

@testable import LumaScanCapture

@Suite("LumaExtractor")
struct LumaExtractorTests {
    /// The luma value the tests put at (x, y).
    static func luma(_ x: Int, _ y: Int) -> UInt8 { UInt8((y * 37 + x * 11 + 5) % 256) }

    /// Checks every pixel of `view` against ``luma(_:_:)``.
    func expectPixels(_ view: LumaView, width: Int, height: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(view.width == width && view.height == height, sourceLocation: sourceLocation)
        var mismatches = 0
        for y in 0..<height {
            for x in 0..<width where view[x, y] != Self.luma(x, y) { mismatches += 1 }
        }
        #expect(mismatches == 0, sourceLocation: sourceLocation)
    }

    /// Calls `body` with the luma `extractor` reads from `bytes`.
    func withLuma<R>(
        _ extractor: LumaExtractor, _ bytes: [UInt8], bytesUsed: Int? = nil,
        _ body: (LumaView, UnsafeRawPointer) throws -> R
    ) throws -> R {
        try bytes.withUnsafeBytes { raw in
            let view = try extractor.luma(of: raw, bytesUsed: bytesUsed ?? raw.count)
            return try body(view, raw.baseAddress!)
        }
    }

    @Test("GREY is read in place, with the format's stride")
    func grey() throws {
        let (width, height, stride) = (5, 3, 8)
        var bytes = [UInt8](repeating: 0xEE, count: stride * height)
        for y in 0..<height { for x in 0..<width { bytes[y * stride + x] = Self.luma(x, y) } }
        let extractor = LumaExtractor(
            format: FrameFormat(pixelFormat: .grey, width: width, height: height, bytesPerLine: stride))
        try withLuma(extractor, bytes) { view, base in
            #expect(UnsafeRawPointer(view.baseAddress) == base, "no copy")
            #expect(view.stride == stride)
            expectPixels(view, width: width, height: height)
        }
        // The last row needs only `width` bytes, not a full stride.
        try withLuma(extractor, bytes, bytesUsed: stride * (height - 1) + width) { view, _ in
            expectPixels(view, width: width, height: height)
        }
    }

    @Test("NV12 is read in place: the luma plane comes first")
    func nv12() throws {
        let (width, height, stride) = (6, 4, 8)
        var bytes = [UInt8](repeating: 0x80, count: stride * height * 3 / 2)
        for y in 0..<height { for x in 0..<width { bytes[y * stride + x] = Self.luma(x, y) } }
        let extractor = LumaExtractor(
            format: FrameFormat(pixelFormat: .nv12, width: width, height: height, bytesPerLine: stride))
        try withLuma(extractor, bytes) { view, base in
            #expect(UnsafeRawPointer(view.baseAddress) == base)
            #expect(view.stride == stride)
            expectPixels(view, width: width, height: height)
        }
    }

    @Test("YU12 is read in place: the luma plane comes first")
    func yu12() throws {
        let (width, height) = (6, 4)
        var bytes = [UInt8](repeating: 0x40, count: width * height)
        for y in 0..<height { for x in 0..<width { bytes[y * width + x] = Self.luma(x, y) } }
        bytes += [UInt8](repeating: 0x10, count: 6) + [UInt8](repeating: 0xF0, count: 6)  // U then V, 3x2 each
        let extractor = LumaExtractor(format: FrameFormat(pixelFormat: .yu12, width: width, height: height))
        try withLuma(extractor, bytes) { view, base in
            #expect(UnsafeRawPointer(view.baseAddress) == base)
            #expect(view.stride == width)
            expectPixels(view, width: width, height: height)
        }
    }

    /// A packed 4:2:2 frame: luma at `lumaOffset` (0 for YUYV, 1 for UYVY) of each pixel pair's bytes.
    func packed(width: Int, height: Int, stride: Int, lumaOffset: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xEE, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                bytes[y * stride + 2 * x + lumaOffset] = Self.luma(x, y)
                bytes[y * stride + 2 * x + 1 - lumaOffset] = x % 2 == 0 ? 0x11 : 0xCC  // U, V
            }
        }
        return bytes
    }

    @Test("YUYV and UYVY luma is extracted into the plane", arguments: [PixelFormat.yuyv, .uyvy])
    func packedFormats(_ pixelFormat: PixelFormat) throws {
        // 37 pixels: two vector iterations of 16 and a scalar tail of 5; rows padded to 80 bytes.
        let (width, height, stride) = (37, 5, 80)
        let bytes = packed(width: width, height: height, stride: stride, lumaOffset: pixelFormat == .uyvy ? 1 : 0)
        let extractor = LumaExtractor(
            format: FrameFormat(pixelFormat: pixelFormat, width: width, height: height, bytesPerLine: stride))
        let first = try withLuma(extractor, bytes) { view, base in
            #expect(UnsafeRawPointer(view.baseAddress) != base)
            #expect(view.stride == width)
            expectPixels(view, width: width, height: height)
            return view.baseAddress
        }
        // The plane is allocated once and reused.
        let second = try withLuma(extractor, bytes) { view, _ in view.baseAddress }
        #expect(first == second)
    }

    @Test("a buffer shorter than the format needs is corruptFrame")
    func shortBuffers() throws {
        let cases: [(FrameFormat, Int)] = [
            (FrameFormat(pixelFormat: .grey, width: 8, height: 4), 8 * 3 + 7),
            (FrameFormat(pixelFormat: .nv12, width: 8, height: 4), 31),
            (FrameFormat(pixelFormat: .yu12, width: 8, height: 4, bytesPerLine: 16), 16 * 3 + 7),
            (FrameFormat(pixelFormat: .yuyv, width: 8, height: 4), 16 * 3 + 15),
            (FrameFormat(pixelFormat: .uyvy, width: 8, height: 4, bytesPerLine: 20), 20 * 3 + 15),
        ]
        for (format, usable) in cases {
            let extractor = LumaExtractor(format: format, sourceName: "/dev/video0")
            let bytes = [UInt8](repeating: 1, count: 4096)
            let error = try #require(
                #expect(throws: CaptureError.self) { try withLuma(extractor, bytes, bytesUsed: usable) { _, _ in } })
            #expect(error.code == .corruptFrame)
            #expect(error.message.hasPrefix("/dev/video0: corrupt \(format) frame: \(usable) bytes, but"))
            // bytesUsed beyond the buffer counts only what is there.
            let short = [UInt8](repeating: 1, count: usable)
            #expect(throws: CaptureError.self) { try withLuma(extractor, short, bytesUsed: 4096) { _, _ in } }
            // One more byte is enough.
            try withLuma(extractor, bytes, bytesUsed: usable + 1) { view, _ in #expect(view.width == 8) }
        }
        let empty = LumaExtractor(format: FrameFormat(pixelFormat: .grey, width: 8, height: 4))
        let error = try #require(
            #expect(throws: CaptureError.self) { try withLuma(empty, [1, 2, 3], bytesUsed: 0) { _, _ in } })
        #expect(error.code == .corruptFrame)
    }

    @Test("an unreadable format makes every call throw unsupportedFormat")
    func unsupported() throws {
        for format in [
            FrameFormat(pixelFormat: PixelFormat("RGB3")!, width: 8, height: 4),
            FrameFormat(pixelFormat: .grey, width: 0, height: 4),
            FrameFormat(pixelFormat: .yuyv, width: 8, height: 4, bytesPerLine: 10),
        ] {
            let extractor = LumaExtractor(format: format)
            let error = try #require(
                #expect(throws: CaptureError.self) {
                    try withLuma(extractor, [UInt8](repeating: 0, count: 256)) { _, _ in }
                })
            #expect(error.code == .unsupportedFormat)
        }
    }

    // MARK: - JPEG

    /// The largest and the mean absolute difference between `view` and `expected` (tight rows).
    func difference(_ view: LumaView, _ expected: [UInt8]) -> (maximum: Int, mean: Double) {
        var maximum = 0
        var total = 0
        for y in 0..<view.height {
            for x in 0..<view.width {
                let delta = abs(Int(view[x, y]) - Int(expected[y * view.width + x]))
                maximum = max(maximum, delta)
                total += delta
            }
        }
        return (maximum, Double(total) / Double(view.width * view.height))
    }

    @Test("MJPEG and JPEG decode to grey within JPEG's error", arguments: [PixelFormat.mjpeg, .jpeg])
    func jpegGradient(_ pixelFormat: PixelFormat) throws {
        let (width, height) = (64, 48)
        let gradient = JPEGFixtures.gradient(width: width, height: height)
        let extractor = LumaExtractor(format: FrameFormat(pixelFormat: pixelFormat, width: width, height: height))
        for jpeg in [
            JPEGFixtures.greyJPEG(gradient, width: width, height: height),
            JPEGFixtures.ycbcr422JPEG(gradient, width: width, height: height),
        ] {
            #expect(jpeg.count > 100)
            try withLuma(extractor, jpeg) { view, _ in
                #expect(view.stride == width)
                let error = difference(view, gradient)
                // Quality 95 keeps a smooth gradient within a few levels (the hue's wrap at 256 is one sharp edge).
                #expect(error.mean < 1.5)
                #expect(error.maximum <= 24)
            }
            // Zero padding after the end-of-image marker, as some drivers count in bytesused, is ignored.
            try withLuma(extractor, jpeg + [UInt8](repeating: 0, count: 300)) { view, _ in
                #expect(difference(view, gradient).mean < 1.5)
            }
        }
    }

    @Test("MJPEG frames without Huffman tables, as UVC cameras send them, decode with the standard tables")
    func jpegWithoutHuffmanTables() throws {
        let (width, height) = (64, 48)
        let gradient = JPEGFixtures.gradient(width: width, height: height)
        let complete = JPEGFixtures.ycbcr422JPEG(gradient, width: width, height: height)
        let stripped = JPEGFixtures.removingHuffmanTables(complete)
        #expect(stripped.count < complete.count - 100, "the DHT segments are gone")
        let extractor = LumaExtractor(format: FrameFormat(pixelFormat: .mjpeg, width: width, height: height))
        try withLuma(extractor, stripped) { view, _ in #expect(difference(view, gradient).mean < 1.5) }
    }

    @Test("truncated, garbage and mis-sized JPEGs are corruptFrame")
    func corruptJPEG() throws {
        let (width, height) = (64, 48)
        let jpeg = JPEGFixtures.greyJPEG(
            JPEGFixtures.gradient(width: width, height: height), width: width, height: height)
        let extractor = LumaExtractor(
            format: FrameFormat(pixelFormat: .mjpeg, width: width, height: height), sourceName: "/dev/video0")
        func failure(_ bytes: [UInt8]) throws -> CaptureError {
            try #require(#expect(throws: CaptureError.self) { try withLuma(extractor, bytes) { _, _ in } })
        }
        let truncated = try failure(Array(jpeg.prefix(jpeg.count / 2)))
        #expect(truncated.code == .corruptFrame)
        #expect(truncated.message.hasPrefix("/dev/video0: corrupt MJPG 64x48 frame: truncated JPEG"))
        #expect(try failure(Array(jpeg.prefix(jpeg.count - 1))).code == .corruptFrame)
        #expect(try failure([UInt8](repeating: 0x5A, count: 2000)).message.contains("no JPEG start-of-image marker"))
        #expect(try failure([0xFF, 0xD8, 0xFF, 0xD9]).code == .corruptFrame)
        #expect(try failure([0xFF, 0xD8]).code == .corruptFrame)
        let smaller = JPEGFixtures.greyJPEG(JPEGFixtures.gradient(width: 32, height: 24), width: 32, height: 24)
        #expect(try failure(smaller).message.contains("size differs"))
    }

    @Test("a decoder warning rejects the frame unless warnings are accepted")
    func jpegWarnings() throws {
        let (width, height) = (64, 48)
        let gradient = JPEGFixtures.gradient(width: width, height: height)
        var jpeg = JPEGFixtures.greyJPEG(gradient, width: width, height: height)
        // Extraneous bytes before the EOI marker: libjpeg warns and decodes the whole image.
        jpeg.insert(contentsOf: [UInt8](repeating: 0x55, count: 64), at: jpeg.count - 2)
        let strict = LumaExtractor(format: FrameFormat(pixelFormat: .mjpeg, width: width, height: height))
        let error = try #require(#expect(throws: CaptureError.self) { try withLuma(strict, jpeg) { _, _ in } })
        #expect(error.code == .corruptFrame)
        #expect(error.message.contains("extraneous bytes"))
        let lenient = LumaExtractor(
            format: FrameFormat(pixelFormat: .mjpeg, width: width, height: height), acceptsJPEGWarnings: true)
        #expect(lenient.acceptsJPEGWarnings)
        try withLuma(lenient, jpeg) { view, _ in #expect(difference(view, gradient).mean < 1.5) }
    }

    @Test("mutated JPEGs never crash the decoder: each decodes or is corruptFrame")
    func fuzzJPEG() throws {
        let (width, height) = (48, 32)
        let original = JPEGFixtures.ycbcr422JPEG(
            JPEGFixtures.gradient(width: width, height: height), width: width, height: height)
        let extractor = LumaExtractor(format: FrameFormat(pixelFormat: .mjpeg, width: width, height: height))
        var generator = SplitMix64(seed: 0x4C75_6D61)
        var outcomes = (decoded: 0, corrupt: 0)
        for round in 0..<600 {
            var bytes = original
            switch round % 4 {
            case 0:  // flip a few bytes anywhere
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            case 1:  // cut the end and put an EOI back, so only the decoder can notice
                bytes = Array(bytes.prefix(Int.random(in: 2..<bytes.count, using: &generator))) + [0xFF, 0xD9]
            case 2:  // random bytes behind a valid start
                bytes =
                    [0xFF, 0xD8]
                    + (0..<Int.random(in: 0...512, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    } + [0xFF, 0xD9]
            default:  // corrupt the header's segments
                for _ in 0..<3 {
                    bytes[Int.random(in: 2..<min(bytes.count, 200), using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            }
            do {
                try withLuma(extractor, bytes) { view, _ in
                    #expect(view.width == width && view.height == height)
                }
                outcomes.decoded += 1
            } catch let error as CaptureError {
                #expect(error.code == .corruptFrame)
                outcomes.corrupt += 1
            }
        }
        #expect(outcomes.corrupt > 100)
        #expect(outcomes.decoded + outcomes.corrupt == 600)
    }
}
