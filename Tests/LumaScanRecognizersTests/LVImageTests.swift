import CLumaVision
import Foundation
import LumaScanCore
import LumaScanTestSupport
import Testing

/// The `lv_image_*` C API of CLumaVision.
@Suite("lv_image")
struct LVImageTests {
    @Test("PNG: encode to memory, decode back; size query with -ENOSPC")
    func pngRoundTrip() throws {
        var pixels = [UInt8](repeating: 0, count: 30 * 20)
        for index in pixels.indices { pixels[index] = UInt8(truncatingIfNeeded: index * 7) }
        var length = 0
        #expect(lv_image_encode_png(pixels, 30, 20, 30, nil, 0, &length) == -ENOSPC)
        #expect(length > 8)
        var png = [UInt8](repeating: 0, count: length)
        #expect(lv_image_encode_png(pixels, 30, 20, 30, &png, png.count, &length) == 0)
        #expect(Array(png.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        var image: OpaquePointer?
        #expect(lv_image_decode_grey(png, png.count, &image) == 0)
        defer { lv_image_destroy(image) }
        #expect(lv_image_width(image) == 30)
        #expect(lv_image_height(image) == 20)
        let decoded = UnsafeBufferPointer(start: lv_image_pixels(image), count: 600)
        #expect(Array(decoded) == pixels)
    }

    @Test("PNG, Huffman coding only: a noisy image with a padded stride round-trips; a flat one stays larger")
    func fastPNG() throws {
        let (width, height, stride) = (240, 90, 256)
        var random = SplitMix64(seed: 7)
        let noisy = (0..<(stride * height)).map { index in
            UInt8(truncatingIfNeeded: 100 + (index % stride) / 4 + Int(random.next() % 9))
        }
        func encoded(_ pixels: [UInt8], fast: Bool) -> [UInt8] {
            let encode = fast ? lv_image_encode_png_fast : lv_image_encode_png
            var length = 0
            _ = encode(pixels, Int32(width), Int32(height), stride, nil, 0, &length)
            var png = [UInt8](repeating: 0, count: length)
            #expect(encode(pixels, Int32(width), Int32(height), stride, &png, png.count, &length) == 0)
            return png
        }
        let png = encoded(noisy, fast: true)
        var image: OpaquePointer?
        try #require(lv_image_decode_grey(png, png.count, &image) == 0)
        defer { lv_image_destroy(image) }
        #expect(lv_image_width(image) == Int32(width) && lv_image_height(image) == Int32(height))
        let decoded = UnsafeBufferPointer(start: lv_image_pixels(image), count: width * height)
        #expect(
            (0..<height).allSatisfy { y in
                decoded[(y * width)..<((y + 1) * width)].elementsEqual(noisy[(y * stride)..<(y * stride + width)])
            })
        // A generated, flat image: repeats that Huffman coding alone does not find.
        let flat = [UInt8](repeating: 200, count: stride * height)
        #expect(encoded(flat, fast: true).count > 4 * encoded(flat, fast: false).count)
    }

    @Test("PNG: random (incompressible) pixels in rows with a padded stride round-trip exactly")
    func pngIncompressibleRoundTrip() throws {
        let (width, height, stride) = (257, 131, 300)
        var random = SplitMix64(seed: 42)
        let pixels = (0..<(stride * height)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var length = 0
        #expect(lv_image_encode_png(pixels, Int32(width), Int32(height), stride, nil, 0, &length) == -ENOSPC)
        var png = [UInt8](repeating: 0, count: length)
        #expect(lv_image_encode_png(pixels, Int32(width), Int32(height), stride, &png, png.count, &length) == 0)
        var image: OpaquePointer?
        #expect(lv_image_decode_grey(png, length, &image) == 0)
        defer { lv_image_destroy(image) }
        #expect(lv_image_width(image) == Int32(width) && lv_image_height(image) == Int32(height))
        let decoded = UnsafeBufferPointer(start: lv_image_pixels(image), count: width * height)
        for row in 0..<height {
            #expect(
                Array(decoded[(row * width)..<(row * width + width)])
                    == Array(pixels[(row * stride)..<(row * stride + width)]), "row \(row)")
        }
    }

    @Test("reading files: missing, not an image, a real PNG with a padded stride")
    func readFiles() throws {
        var image: OpaquePointer?
        #expect(lv_image_read_grey("/nonexistent/lumascan.png", &image) == -ENOENT)
        #expect(image == nil)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lv-image-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("text.png").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        #expect(lv_image_read_grey(text, &image) == -EMEDIUMTYPE)
        #expect(lv_image_read_grey(folder.path, &image) == -EISDIR)

        // 4x3 image in rows of 6 bytes: the padding must not reach the file.
        let padded: [UInt8] = [1, 2, 3, 4, 99, 99, 5, 6, 7, 8, 99, 99, 9, 10, 11, 12]
        let path = folder.appendingPathComponent("small.png").path
        #expect(lv_image_write_png(path, padded, 4, 3, 6) == 0)
        #expect(lv_image_read_grey(path, &image) == 0)
        defer { lv_image_destroy(image) }
        #expect(Array(UnsafeBufferPointer(start: lv_image_pixels(image), count: 12)) == Array(1...12))
    }

    @Test("resize: area averaging of 2x2 blocks, nearest keeps values")
    func resize() {
        let source: [UInt8] = [0, 100, 200, 200, 100, 0, 200, 200]  // 4x2
        var area = [UInt8](repeating: 0, count: 2)
        #expect(lv_image_resize(source, 4, 2, 4, &area, 2, 1, 2, Int32(LV_INTERP_AREA)) == 0)
        #expect(area == [50, 200])
        var nearest = [UInt8](repeating: 0, count: 16)
        #expect(lv_image_resize(source, 4, 2, 4, &nearest, 8, 2, 8, Int32(LV_INTERP_NEAREST)) == 0)
        #expect(nearest[0] == 0 && nearest[2] == 100 && nearest[4] == 200)
        #expect(lv_image_resize(source, 4, 2, 4, &nearest, 8, 2, 8, 9) == -EINVAL)
    }

    @Test("rotate by 90°: a marked pixel lands where the returned matrix says")
    func rotate() {
        var source = [UInt8](repeating: 0, count: 40 * 20)
        source[5 * 40 + 30] = 255  // (30, 5)
        var destination = [UInt8](repeating: 0, count: 20 * 40)
        var matrix = [Double](repeating: 0, count: 6)
        #expect(lv_image_rotate(source, 40, 20, 40, &destination, 20, 40, 20, 90, 0, &matrix) == 0)
        let x = matrix[0] * 30 + matrix[1] * 5 + matrix[2]
        let y = matrix[3] * 30 + matrix[4] * 5 + matrix[5]
        let brightest = destination.indices.max { destination[$0] < destination[$1] } ?? 0
        #expect(abs(Double(brightest % 20) - x) <= 1 && abs(Double(brightest / 20) - y) <= 1)
        // Counter-clockwise on screen: the right part of the source goes to the top.
        #expect(y < 20)
    }

    @Test("perspective warp maps the source quad onto the destination quad; a negative border keeps the background")
    func warp() {
        let source = [UInt8](repeating: 255, count: 10 * 10)
        var destination = [UInt8](repeating: 50, count: 40 * 40)
        let from: [Double] = [0, 0, 10, 0, 10, 10, 0, 10]
        let to: [Double] = [10, 10, 30, 10, 30, 30, 10, 30]
        var matrix = [Double](repeating: 0, count: 9)
        #expect(lv_image_warp_perspective(source, 10, 10, 10, &destination, 40, 40, 40, from, to, -1, &matrix) == 0)
        #expect(destination[20 * 40 + 20] == 255)
        #expect(destination[2 * 40 + 2] == 50)
        #expect(abs(matrix[0] - 2) < 1e-9 && abs(matrix[2] - 10) < 1e-9)
    }

    @Test("blur, noise (deterministic per seed), shapes and text")
    func drawing() {
        let canvas = TestCanvas(width: 64, height: 64, fill: 100)
        canvas.fill(Rect(x: 60, y: 60, width: 10, height: 10), value: 0)
        #expect(canvas.image[63, 63] == 0 && canvas.image[59, 59] == 100)
        canvas.fill(polygon: [Point(x: 0, y: 0), Point(x: 20, y: 0), Point(x: 0, y: 20)], value: 250)
        #expect(canvas.image[2, 2] == 250)
        canvas.draw(text: "Hi", x: 20, y: 40, value: 0)
        let inked = (20..<50).flatMap { x in (20..<41).map { y in canvas.image[x, y] } }.filter { $0 < 60 }
        #expect(inked.count > 20)
        let a = TestCanvas(width: 32, height: 32, fill: 128)
        let b = TestCanvas(width: 32, height: 32, fill: 128)
        a.addNoise(sigma: 10, seed: 42)
        b.addNoise(sigma: 10, seed: 42)
        #expect(a.image.pixels == b.image.pixels)
        #expect(Set(a.image.pixels).count > 10)
        a.blur(sigma: 3)
        let spread = (a.image.pixels.max() ?? 0) - (a.image.pixels.min() ?? 0)
        #expect(spread < 20)
        var one: UInt8 = 0
        #expect(lv_image_gaussian_blur(&one, 1, 1, 1, -1) == -EINVAL)
    }
}
