import CLumaVision
import Foundation
import Logging
import LumaScanCapture
import LumaScanCore
import LumaScanTestSupport
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
        #expect(throws: FrameSourceEnd.self) { try source.dequeue(timeout: .zero) }
        source.stop()
        source.stop()
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
