import CLumaVision
import Foundation
import Logging
import LumaScanCapture
import LumaScanCore
import LumaScanTestSupport
import Synchronization
import Testing

@Suite("ImageFileSource")
struct ImageFileSourceTests {
    /// A fresh folder under the temporary directory, removed by the caller.
    func makeFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func writePNG(_ image: LumaImage, to url: URL) {
        let status = image.withView {
            lv_image_write_png(url.path, $0.baseAddress, Int32($0.width), Int32($0.height), $0.stride)
        }
        #expect(status == 0, "writing \(url.path)")
    }

    @Test("the Swift pixel budget is the C decoders' (LV_IMAGE_DEFAULT_MAX_PIXELS, LV_IMAGE_MAX_PIXELS_LIMIT)")
    func pixelBudgetMatchesDecoders() {
        #expect(PixelBudget.defaultMaxPixels == Int(LV_IMAGE_DEFAULT_MAX_PIXELS))
        #expect(PixelBudget.limit == Int(LV_IMAGE_MAX_PIXELS_LIMIT))
    }

    @Test("delivers every image of a folder tree once, sorted, as GREY, skipping unreadable files")
    func folder() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let small = LumaImage(width: 40, height: 30, fill: 7)
        let large = LumaImage(width: 120, height: 90, fill: 200)
        large[5, 6] = 99
        writePNG(small, to: folder.appendingPathComponent("b.png"))
        writePNG(large, to: folder.appendingPathComponent("sub/c.PNG"))
        writePNG(small, to: folder.appendingPathComponent("a.bmp"))
        try Data("not an image".utf8).write(to: folder.appendingPathComponent("broken.jpg"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent("readme.txt"))
        try Data().write(to: folder.appendingPathComponent(".hidden.png"))

        let source = ImageFileSource(path: folder.path, logger: Logger(label: "test"))
        #expect(source.isFinite)
        try source.start()
        #expect(
            source.imagePaths.map { URL(fileURLWithPath: $0).lastPathComponent } == [
                "a.bmp", "b.png", "broken.jpg", "c.PNG",
            ])
        var sizes: [Size] = []
        var files: [String] = []
        while true {
            let frame: DequeuedFrame?
            do { frame = try source.dequeue(timeout: .milliseconds(10)) } catch is FrameSourceEnd { break }
            guard let frame else { Issue.record("no frame"); break }
            #expect(frame.metadata.format.pixelFormat == .grey)
            #expect(frame.metadata.index == UInt64(sizes.count))
            let bytes = source.bytes(of: frame.bufferIndex)
            #expect(bytes.count == frame.metadata.bytesUsed)
            #expect(bytes.count == frame.metadata.format.width * frame.metadata.format.height)
            if frame.metadata.format.width == 120 { #expect(bytes[6 * 120 + 5] == 99) }
            sizes.append(Size(width: frame.metadata.format.width, height: frame.metadata.format.height))
            files.append(URL(fileURLWithPath: source.path(forFrameIndex: frame.metadata.index) ?? "").lastPathComponent)
            try source.requeue(frame.bufferIndex)
        }
        #expect(sizes == [Size(width: 40, height: 30), Size(width: 40, height: 30), Size(width: 120, height: 90)])
        #expect(files == ["a.bmp", "b.png", "c.PNG"])
        #expect(source.skippedCount == 1)
        #expect(source.deliveredCount == 3)
        let broken = folder.appendingPathComponent("broken.jpg").path
        #expect(source.unreadableFiles.map(\.path) == [broken])
        #expect(source.unreadableFiles.first?.error.code == .unsupportedFormat)
        #expect(throws: FrameSourceEnd.self) { try source.dequeue(timeout: .zero) }
        source.stop()
        source.stop()
    }

    /// The one frame `ImageFileSource` reads from a file holding `bytes`: its size and tight grey rows.
    func readOne(_ bytes: [UInt8], named name: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        let source = ImageFileSource(path: file.path, logger: Logger(label: "test"))
        try source.start()
        defer { source.stop() }
        let frame = try #require(try source.dequeue(timeout: .zero), "\(name) was not read")
        let format = frame.metadata.format
        return (format.width, format.height, Array(source.bytes(of: frame.bufferIndex)))
    }

    @Test("PGM, PPM and PBM, binary and ASCII: samples scaled to 0...255, colour to BT.601 grey")
    func netpbm() throws {
        let binary = try readOne(Array("P5\n3 2\n255\n".utf8) + [0, 50, 100, 150, 200, 250], named: "a.pgm")
        #expect(binary.width == 3 && binary.height == 2)
        #expect(binary.pixels == [0, 50, 100, 150, 200, 250])
        let ascii = try readOne(Array("P2\n# maxval 15\n3 1\n15\n0 15\n5\n".utf8), named: "b.pgm")
        #expect(ascii.pixels == [0, 255, 85])
        let wide = try readOne(Array("P5 2 1 65535\n".utf8) + [0xFF, 0xFF, 0x80, 0x00], named: "c.pgm")
        #expect(wide.pixels == [255, 128])
        // Pure red and pure blue: 0.299 * 255 and 0.114 * 255, rounded.
        let colour = try readOne(Array("P6\n2 1\n255\n".utf8) + [255, 0, 0, 0, 0, 255], named: "d.ppm")
        #expect(colour.pixels == [76, 29])
        let bits = try readOne(Array("P4\n10 1\n".utf8) + [0b1010_0000, 0b1100_0000], named: "e.pbm")
        #expect(bits.pixels == [0, 255, 0, 255, 255, 255, 255, 255, 0, 0])
        let asciiBits = try readOne(Array("P1\n4 1\n0110".utf8), named: "f.pbm")
        #expect(asciiBits.pixels == [255, 0, 0, 255])
    }

    @Test("BMP: 8-bit palette bottom-up with row padding, 24-bit top-down")
    func bitmaps() throws {
        // 3x2, rows bottom-up, each padded from 3 to 4 bytes; palette index i is grey 40 * i.
        let palette: [[UInt8]] = (0..<4).map { index in
            let grey = UInt8(index * 40)
            return [grey, grey, grey, 0]
        }
        let indexed = try readOne(
            BMPFixtures.bmp(width: 3, height: 2, bitsPerPixel: 8, palette: palette, rows: [3, 2, 1, 0, 0, 1, 2, 0]),
            named: "a.bmp")
        #expect(indexed.width == 3 && indexed.height == 2)
        #expect(indexed.pixels == [0, 40, 80, 120, 80, 40])
        // 2x2 top-down (negative height), BGR: white, black / pure green, grey 100; rows padded from 6 to 8 bytes.
        let rows: [UInt8] = [255, 255, 255, 0, 0, 0, 0, 0] + [0, 255, 0, 100, 100, 100, 0, 0]
        let direct = try readOne(BMPFixtures.bmp(width: 2, height: -2, bitsPerPixel: 24, rows: rows), named: "b.bmp")
        #expect(direct.width == 2 && direct.height == 2)
        #expect(direct.pixels == [255, 0, 150, 100])  // 0.587 * 255 = 149.7
    }

    @Test("JPEG: decoded to grey and turned as its EXIF orientation says")
    func jpegOrientation() throws {
        // Two flat 8x8 blocks side by side, dark then light: flat blocks survive JPEG almost exactly.
        var pixels = [UInt8](repeating: 0, count: 16 * 8)
        for y in 0..<8 { for x in 0..<16 { pixels[y * 16 + x] = x < 8 ? 30 : 220 } }
        let jpeg = JPEGFixtures.greyJPEG(pixels, width: 16, height: 8)
        try #require(!jpeg.isEmpty)
        let plain = try readOne(jpeg, named: "plain.jpg")
        #expect(plain.width == 16 && plain.height == 8)
        #expect(abs(Int(plain.pixels[4 * 16 + 3]) - 30) <= 2 && abs(Int(plain.pixels[4 * 16 + 12]) - 220) <= 2)

        // EXIF orientation 6: the stored image is shown turned 90° clockwise, so its left block ends on top.
        for byteOrder in ["II", "MM"] {
            let little = byteOrder == "II"
            func u16(_ value: Int) -> [UInt8] {
                little ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            func u32(_ value: Int) -> [UInt8] {
                little ? u16(value & 0xFFFF) + u16(value >> 16) : u16(value >> 16) + u16(value & 0xFFFF)
            }
            // The TIFF header, then IFD0 with one entry: Orientation (0x0112), SHORT, count 1, value 6.
            var tiff: [UInt8] = Array(byteOrder.utf8)
            let fields: [[UInt8]] = [u16(42), u32(8), u16(1), u16(0x0112), u16(3), u32(1), u16(6), [0, 0], u32(0)]
            for field in fields { tiff += field }
            let exif = Array("Exif".utf8) + [0, 0] + tiff
            let app1: [UInt8] = [0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)] + exif
            let turned = try readOne(Array(jpeg.prefix(2)) + app1 + jpeg.dropFirst(2), named: "turned-\(byteOrder).jpg")
            #expect(turned.width == 8 && turned.height == 16, "\(byteOrder)")
            #expect(abs(Int(turned.pixels[3 * 8 + 4]) - 30) <= 2, "\(byteOrder): top block")
            #expect(abs(Int(turned.pixels[12 * 8 + 4]) - 220) <= 2, "\(byteOrder): bottom block")
        }
    }

    @Test("a single file; buffers run out until requeued")
    func singleFile() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("one.png")
        writePNG(LumaImage(width: 8, height: 8, fill: 1), to: file)
        let source = ImageFileSource(path: file.path, bufferCount: 1, logger: Logger(label: "test"))
        try source.start()
        let frame = try #require(try source.dequeue(timeout: .zero))
        #expect(source.path(forFrameIndex: 0) == file.path)
        #expect(source.path(forFrameIndex: 1) == nil)
        #expect(throws: FrameSourceEnd.self) { try source.dequeue(timeout: .zero) }
        try source.requeue(frame.bufferIndex)
        #expect(throws: LumaScanError.self) { try source.requeue(frame.bufferIndex) }
    }

    /// Every frame of `source` until its end: the file names of the frames delivered.
    func drain(_ source: ImageFileSource) throws -> [String] {
        var names: [String] = []
        while true {
            let frame: DequeuedFrame?
            do { frame = try source.dequeue(timeout: .zero) } catch is FrameSourceEnd { break }
            guard let frame else { Issue.record("no free buffer"); break }
            names.append(URL(fileURLWithPath: source.path(forFrameIndex: frame.metadata.index) ?? "").lastPathComponent)
            try source.requeue(frame.bufferIndex)
        }
        return names
    }

    @Test("unreadable files are skipped, each reported to the callback with the reason, and the others read")
    func unreadableFiles() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rgb = [UInt8](repeating: 200, count: 20 * 10 * 3)
        let webp = try ImageEncoders.webp(rgb: rgb, width: 20, height: 10)
        try Data(webp).write(to: folder.appendingPathComponent("a-good.webp"))
        let gif = try ImageEncoders.gif(
            indices: [UInt8](repeating: 1, count: 400), width: 20, height: 20, palette: [0, 0, 0, 255, 255, 255])
        try Data(gif.prefix(gif.count - 12)).write(to: folder.appendingPathComponent("b-cut.gif"))
        try Data("II*\0 but nothing else".utf8).write(to: folder.appendingPathComponent("c-text.tif"))
        try Data("MM definitely not".utf8).write(to: folder.appendingPathComponent("d-text.tiff"))
        try Data(BMPFixtures.bmp(width: 40000, height: 40000, bitsPerPixel: 8, rows: []))
            .write(to: folder.appendingPathComponent("e-huge.bmp"))

        let reported = Lock<[ImageFileSource.UnreadableFile]>([])
        let source = ImageFileSource(path: folder.path, logger: Logger(label: "test")) { file in
            reported.withLock { $0.append(file) }
        }
        try source.start()
        #expect(try drain(source) == ["a-good.webp"])
        let files = reported.withLock { $0 }
        #expect(files == source.unreadableFiles)
        let names = files.map { URL(fileURLWithPath: $0.path).lastPathComponent }
        #expect(names == ["b-cut.gif", "c-text.tif", "d-text.tiff", "e-huge.bmp"])
        #expect(files.map(\.error.code) == [.corruptImage, .corruptImage, .unsupportedFormat, .tooLarge])
        for file in files {
            #expect(file.error.message.hasPrefix("\(file.path): cannot read the image: "), "\(file.error.message)")
        }
        #expect(source.deliveredCount == 1 && source.skippedCount == 4)
    }

    @Test("a file name that is not valid UTF-8 is read from a folder and when named directly")
    func nonUTF8Name() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // "caf\xE9.png": Latin-1, as an old camera or a Windows share writes it; not valid UTF-8.
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".png".utf8)
        let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + name
        let cPath = path.map { CChar(bitPattern: $0) } + [0]
        #expect(lv_image_write_png(cPath, [UInt8](repeating: 42, count: 12), 4, 3, 4) == 0)

        let listed = ImageFileSource(path: folder.path, logger: Logger(label: "test"))
        try listed.start()
        #expect(try drain(listed) == ["caf\u{FFFD}.png"])
        #expect(listed.skippedCount == 0)

        let named = ImageFileSource(pathBytes: path, logger: Logger(label: "test"))
        try named.start()
        let frame = try #require(try named.dequeue(timeout: .zero))
        #expect(frame.metadata.format.width == 4 && frame.metadata.format.height == 3)
        #expect(Array(named.bytes(of: frame.bufferIndex)) == [UInt8](repeating: 42, count: 12))
        #expect(named.path(forFrameIndex: 0) == folder.path + "/caf\u{FFFD}.png")
    }

    @Test("a missing path or a folder without images fails to start")
    func failures() throws {
        #expect(throws: LumaScanError.self) {
            try ImageFileSource(path: "/nonexistent/lumascan", logger: Logger(label: "test")).start()
        }
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: LumaScanError.self) {
            try ImageFileSource(path: folder.path, logger: Logger(label: "test")).start()
        }
    }
}
