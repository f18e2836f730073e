import CLumaVision
import Foundation
import Logging
import LumaScanCapture
import LumaScanCore
import LumaScanTestSupport
import Testing

/// A frame to write: its bytes and the metadata the writer stores.
struct RecordedFrame: Equatable {
    var bytes: [UInt8]
    var timestamp: UInt64
    var sequence: UInt32
    var flags: RecordingFrameFlags
}

/// Helpers shared by the recording tests.
enum RecordingFixtures {
    /// A path under the temporary directory, with the recording extension.
    static func temporaryPath(_ name: String = "recording") -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("lumascan-\(name)-\(UUID().uuidString).\(RecordingFormat.fileExtension)").path
    }

    /// `count` seeded random bytes.
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    /// Writes `frames` of `format` to `path` and finishes the recording; returns each frame's byte offset.
    @discardableResult
    static func write(
        _ frames: [RecordedFrame], format: FrameFormat, to path: String
    ) throws
        -> [Int]
    {
        let writer = try RecordingWriter(path: path, format: format, logger: quietLogger)
        var offsets: [Int] = []
        for frame in frames {
            offsets.append(writer.bytesWritten)
            try frame.bytes.withUnsafeBytes {
                try writer.append($0, timestamp: frame.timestamp, sequence: frame.sequence, flags: frame.flags)
            }
        }
        try writer.finish()
        return offsets
    }

    /// Every frame of the recording at `path`, replayed as fast as possible: bytes and metadata.
    static func replay(_ path: String) throws -> (frames: [(bytes: [UInt8], metadata: FrameMetadata)], end: Error) {
        let source = RecordingSource(path: path, bufferCount: 2, logger: quietLogger)
        try source.start()
        defer { source.stop() }
        var frames: [(bytes: [UInt8], metadata: FrameMetadata)] = []
        while true {
            do {
                guard let frame = try source.dequeue(timeout: .milliseconds(10)) else { continue }
                let bytes = source.bytes(of: frame.bufferIndex).prefix(frame.metadata.bytesUsed)
                frames.append((Array(bytes), frame.metadata))
                try source.requeue(frame.bufferIndex)
            } catch {
                return (frames, error)
            }
        }
    }

    /// Replaces the bytes at `offset` of the file at `path`.
    static func patch(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Cuts the file at `path` to its first `length` bytes.
    static func truncate(_ path: String, to length: Int) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(length).write(to: URL(fileURLWithPath: path))
    }
}

@Suite("Recording")
struct RecordingTests {
    @Test(
        "write then read: header and every frame's bytes, timestamp, sequence, size and flags, in each pixel format",
        arguments: [
            FrameFormat(pixelFormat: .grey, width: 33, height: 7, bytesPerLine: 40),
            FrameFormat(pixelFormat: .yuyv, width: 16, height: 6),
            FrameFormat(pixelFormat: .uyvy, width: 10, height: 4, bytesPerLine: 24),
            FrameFormat(pixelFormat: .nv12, width: 12, height: 8),
            FrameFormat(pixelFormat: .yu12, width: 9, height: 5),
            FrameFormat(pixelFormat: .mjpeg, width: 64, height: 48, bytesPerLine: 0, sizeImage: 100),
        ])
    func roundTrip(format: FrameFormat) throws {
        let path = RecordingFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sizeImage = format.pixelFormat == .grey ? format.bytesPerLine * format.height : format.sizeImage
        // Compressed frames vary in size (one above the size image); raw frames fill the image.
        let sizes = format.pixelFormat.isCompressed ? [80, 17, 130, 1] : [sizeImage, sizeImage, sizeImage, sizeImage]
        let frames = sizes.enumerated().map { index, size in
            RecordedFrame(
                bytes: RecordingFixtures.randomBytes(size, seed: UInt64(index + 1)),
                timestamp: [0, 33_000_000, 66_000_000, 133_000_000][index],
                sequence: [7, 8, 9, 11][index],  // the driver dropped sequence 10
                flags: index == 2 ? .driverFlaggedError : [])
        }
        try RecordingFixtures.write(frames, format: format, to: path)

        let header = try RecordingSource.readHeader(path: path)
        #expect(header.format == format)
        #expect(header.frameCount == 4)
        #expect(header.largestFrameBytes == sizes.max())
        #expect(header.headerSize == RecordingFormat.headerSize)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(
            attributes[.size] as? Int
                == RecordingFormat.headerSize + sizes.reduce(0) { $0 + $1 + RecordingFormat.frameHeaderSize })

        let (replayed, end) = try RecordingFixtures.replay(path)
        #expect(end is FrameSourceEnd, "\(end)")
        try #require(replayed.count == frames.count)
        let first = replayed[0].metadata.captureTime
        for (index, (bytes, metadata)) in replayed.enumerated() {
            #expect(bytes == frames[index].bytes, "frame \(index)")
            #expect(metadata.index == UInt64(index))
            #expect(metadata.bytesUsed == frames[index].bytes.count)
            #expect(metadata.driverSequence == frames[index].sequence)
            #expect(metadata.driverFlaggedError == (index == 2))
            #expect(metadata.format == format)
            #expect(metadata.captureTime.nanoseconds - first.nanoseconds == frames[index].timestamp)
        }
    }

    @Test("frames appended with their metadata: times relative to the first frame, never going back; one format")
    func appendMetadata() throws {
        let path = RecordingFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let format = FrameFormat(pixelFormat: .grey, width: 4, height: 2)
        let writer = try RecordingWriter(path: path, format: format, logger: quietLogger)
        let pixels = [UInt8](0..<8) + [99, 99]  // the buffer is longer than the frame
        for (index, seconds) in [5.0, 5.25, 5.2, 6.0].enumerated() {
            var metadata = FrameMetadata.test(index: UInt64(index), seconds: seconds, width: 4, height: 2)
            metadata.bytesUsed = 8
            metadata.driverFlaggedError = index == 3
            try pixels.withUnsafeBytes { try writer.append($0, metadata: metadata) }
        }
        let other = FrameMetadata.test(index: 4, seconds: 7, width: 5, height: 2)
        #expect(throws: CaptureError.self) { try pixels.withUnsafeBytes { try writer.append($0, metadata: other) } }
        try writer.finish()
        try writer.finish()
        #expect(throws: CaptureError.self) {
            try pixels.withUnsafeBytes { try writer.append($0, timestamp: 0, sequence: 0) }
        }

        let (frames, end) = try RecordingFixtures.replay(path)
        #expect(end is FrameSourceEnd)
        let first = try #require(frames.first).metadata.captureTime.nanoseconds
        #expect(
            frames.map { $0.metadata.captureTime.nanoseconds - first } == [0, 250_000_000, 250_000_000, 1_000_000_000])
        #expect(frames.allSatisfy { $0.bytes == Array(0..<8) })
        #expect(frames.map(\.metadata.driverSequence) == [0, 1, 2, 3])
        #expect(frames.map(\.metadata.driverFlaggedError) == [false, false, false, true])
    }

    @Test("the file of a recording never finished (the process was killed) replays to its end")
    func unfinished() throws {
        let path = RecordingFixtures.temporaryPath()
        let format = FrameFormat(pixelFormat: .grey, width: 3, height: 3)
        let frames = (0..<3).map {
            RecordedFrame(
                bytes: [UInt8](repeating: UInt8($0), count: 9), timestamp: UInt64($0), sequence: UInt32($0), flags: [])
        }
        let writer = try RecordingWriter(path: path, format: format, logger: quietLogger)
        for frame in frames {
            try frame.bytes.withUnsafeBytes {
                try writer.append($0, timestamp: frame.timestamp, sequence: frame.sequence)
            }
        }
        // A killed process leaves the temporary file as it stands now; nothing is at the recording's path yet.
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try RecordingSource.readHeader(path: writer.temporaryPath).frameCount == nil)
        let (replayed, end) = try RecordingFixtures.replay(writer.temporaryPath)
        #expect(end is FrameSourceEnd)
        #expect(replayed.map(\.bytes) == frames.map(\.bytes))
        writer.abandon()
        #expect(!FileManager.default.fileExists(atPath: writer.temporaryPath))
    }

    @Test("a recording of frames over the pixel budget is refused from its header, before buffers are allocated")
    func pixelBudget() throws {
        let path = RecordingFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try RecordingFixtures.write([], format: FrameFormat(pixelFormat: .grey, width: 9000, height: 9000), to: path)
        let source = RecordingSource(path: path, bufferCount: 1, logger: quietLogger)
        #expect(source.maxPixels == 1 << 26)
        do {
            try source.start()
            Issue.record("started a recording of 81 MP frames with a 64 MP budget")
        } catch {
            #expect(error.code == .tooLarge)
            #expect(
                error.message.contains("9000x9000 frames have 81000000 pixels, more than the pixel budget of 67108864"))
        }
        let larger = RecordingSource(path: path, bufferCount: 1, maxPixels: 81_000_000, logger: quietLogger)
        try larger.start()
        larger.stop()
    }

    @Test("a recording appears at its path only when finished, and a writer released unfinished leaves nothing")
    func temporaryName() throws {
        let path = RecordingFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let format = FrameFormat(pixelFormat: .grey, width: 2, height: 2)
        try Data("an older recording".utf8).write(to: URL(fileURLWithPath: path))
        var temporary = ""
        do {
            let writer = try RecordingWriter(path: path, format: format, logger: quietLogger)
            temporary = writer.temporaryPath
            try [UInt8](repeating: 7, count: 4).withUnsafeBytes { try writer.append($0, timestamp: 0, sequence: 0) }
            #expect(temporary.hasPrefix(FileManager.default.temporaryDirectory.path))
            #expect(FileManager.default.fileExists(atPath: temporary))
        }
        // Released without finish(): the temporary file is gone and the older file is untouched.
        #expect(!FileManager.default.fileExists(atPath: temporary))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("an older recording".utf8))

        try RecordingFixtures.write(
            [RecordedFrame(bytes: [1, 2, 3, 4], timestamp: 0, sequence: 0, flags: [])], format: format, to: path)
        #expect(try RecordingSource.readHeader(path: path).frameCount == 1)
        #expect(!FileManager.default.fileExists(atPath: temporary))
    }

    /// Three 100-byte GREY frames; returns the path and the frames' byte offsets.
    func threeFrames() throws -> (path: String, offsets: [Int]) {
        let path = RecordingFixtures.temporaryPath()
        let frames = (0..<3).map {
            RecordedFrame(
                bytes: RecordingFixtures.randomBytes(100, seed: UInt64($0)), timestamp: UInt64($0) * 1000,
                sequence: UInt32($0), flags: [])
        }
        let offsets = try RecordingFixtures.write(
            frames, format: FrameFormat(pixelFormat: .grey, width: 10, height: 10), to: path)
        return (path, offsets)
    }

    /// The replay's frames count and its final error, which must be a `CaptureError`.
    func replayError(_ path: String) throws -> (frames: Int, error: CaptureError) {
        let (frames, end) = try RecordingFixtures.replay(path)
        let error = try #require(end as? CaptureError, "\(end)")
        return (frames.count, error)
    }

    @Test("a truncated last frame is reported with the file and its byte offset, after the frames before it")
    func truncatedFrame() throws {
        let (path, offsets) = try threeFrames()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(offsets == [40, 164, 288])

        // Cut inside the last frame's payload.
        try RecordingFixtures.truncate(path, to: 288 + 24 + 50)
        let payload = try replayError(path)
        #expect(payload.frames == 2)
        #expect(payload.error.code == .corruptRecording)
        #expect(payload.error.message.hasPrefix(path + ": truncated recording"), "\(payload.error)")
        #expect(payload.error.message.contains("byte offset 288"), "\(payload.error)")
        #expect(payload.error.message.contains("frame 2 holds 100 bytes, but the file ends after 50"))

        // Cut inside its header.
        try RecordingFixtures.truncate(path, to: 288 + 10)
        let header = try replayError(path)
        #expect(header.frames == 2)
        #expect(header.error.message.contains("byte offset 288"), "\(header.error)")
        #expect(header.error.message.contains("10 of 24 bytes"), "\(header.error)")

        // Cut at a frame boundary: the header still counts three frames.
        try RecordingFixtures.truncate(path, to: 288)
        let boundary = try replayError(path)
        #expect(boundary.frames == 2)
        #expect(boundary.error.message.contains("counts 3 frames, but the file ends after 2"), "\(boundary.error)")
        #expect(boundary.error.message.contains("byte offset 288"))
    }

    @Test("damaged frames: a missing marker, unknown flags, timestamps going back, bytes after the last frame")
    func corruptFrames() throws {
        let (path, _) = try threeFrames()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        func restore() throws { try original.write(to: URL(fileURLWithPath: path)) }

        try RecordingFixtures.patch(path, at: 164, with: Array("XXXX".utf8))
        let marker = try replayError(path)
        #expect(marker.frames == 1)
        #expect(marker.error.code == .corruptRecording)
        #expect(marker.error.message.contains("frame marker"), "\(marker.error)")
        #expect(marker.error.message.contains("byte offset 164"))

        try restore()
        try RecordingFixtures.patch(path, at: 288 + 4, with: [0, 0, 0, 0x80])
        let flags = try replayError(path)
        #expect(flags.frames == 2)
        #expect(flags.error.message.contains("unknown flags 0x80000000"), "\(flags.error)")
        #expect(flags.error.message.contains("byte offset 292"))

        try restore()
        try RecordingFixtures.patch(path, at: 288 + 8, with: [0, 0, 0, 0, 0, 0, 0, 0])
        let time = try replayError(path)
        #expect(time.frames == 2)
        #expect(time.error.message.contains("before the previous frame's"), "\(time.error)")
        #expect(time.error.message.contains("byte offset 296"))

        try restore()
        var longer = original
        longer.append(contentsOf: [1, 2, 3])
        try longer.write(to: URL(fileURLWithPath: path))
        let trailing = try replayError(path)
        #expect(trailing.frames == 3)
        #expect(
            trailing.error.message.contains("3 unexpected bytes after the last of the 3 frames"), "\(trailing.error)")
        #expect(trailing.error.message.contains("byte offset 412"))
    }

    @Test("a file that is not a recording, or of another version, is refused at start naming the file and offset")
    func badHeaders() throws {
        let (path, _) = try threeFrames()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        func startError() throws -> CaptureError {
            let source = RecordingSource(path: path, logger: quietLogger)
            defer { source.stop() }
            do throws(CaptureError) {
                try source.start()
            } catch {
                return error
            }
            Issue.record("\(path) started")
            return CaptureError(.other, device: path, message: "started")
        }

        try Data("P5\n10 10\n255\n".utf8).write(to: URL(fileURLWithPath: path))
        let magic = try startError()
        #expect(magic.code == .unsupportedFormat)
        #expect(magic.message.hasPrefix(path + ": not a recording"), "\(magic)")
        #expect(magic.message.contains("magic"))
        #expect(magic.message.contains("byte offset 0"))

        var versioned = original
        versioned[8] = 2
        try versioned.write(to: URL(fileURLWithPath: path))
        let version = try startError()
        #expect(version.code == .unsupportedFormat)
        #expect(version.message.contains("version 2; this LumaScan reads version 1"), "\(version)")
        #expect(version.message.contains("byte offset 8"))

        var fourcc = original
        fourcc.replaceSubrange(12..<16, with: Array("RGB3".utf8))
        try fourcc.write(to: URL(fileURLWithPath: path))
        let format = try startError()
        #expect(format.code == .unsupportedFormat)
        #expect(format.message.contains("'RGB3'"), "\(format)")
        #expect(format.message.contains("byte offset 12"))

        try original.prefix(20).write(to: URL(fileURLWithPath: path))
        let short = try startError()
        #expect(short.code == .corruptRecording)
        #expect(short.message.contains("20 of 40 bytes"), "\(short)")

        try Data().write(to: URL(fileURLWithPath: path))
        #expect(try startError().code == .unsupportedFormat)

        let missing = "/nonexistent/lumascan.\(RecordingFormat.fileExtension)"
        do throws(CaptureError) {
            _ = try RecordingSource.readHeader(path: missing)
            Issue.record("no error")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.message.hasPrefix(missing + ": cannot open the recording"), "\(error)")
        }
    }

    @Test("isRecording: by extension, or by magic whatever the name; folders and other files are not")
    func detection() throws {
        let (path, _) = try threeFrames()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(RecordingFormat.isRecording(at: path))
        let renamed = path + ".bin"
        try FileManager.default.copyItem(atPath: path, toPath: renamed)
        defer { try? FileManager.default.removeItem(atPath: renamed) }
        #expect(RecordingFormat.isRecording(at: renamed))
        let image = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-\(UUID().uuidString).png")
        try Data("\u{89}PNG\r\n\u{1A}\n....".utf8).write(to: image)
        defer { try? FileManager.default.removeItem(at: image) }
        #expect(!RecordingFormat.isRecording(at: image.path))
        #expect(!RecordingFormat.isRecording(at: FileManager.default.temporaryDirectory.path))
        #expect(!RecordingFormat.isRecording(at: "/nonexistent/x.\(RecordingFormat.fileExtension).missing"))
        // By its name, so that opening it says the file is missing.
        #expect(RecordingFormat.isRecording(at: "/nonexistent/x.\(RecordingFormat.fileExtension)"))
    }

    @Test("MJPEG frames replay through the same decoding as a camera's; a corrupt one is refused as corruptFrame")
    func mjpegDecoding() throws {
        let path = RecordingFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var pixels = [UInt8](repeating: 0, count: 32 * 16)
        for y in 0..<16 { for x in 0..<32 { pixels[y * 32 + x] = x < 16 ? 40 : 210 } }
        let jpeg = JPEGFixtures.greyJPEG(pixels, width: 32, height: 16)
        try #require(!jpeg.isEmpty)
        let corrupt = Array(jpeg.prefix(jpeg.count / 3))  // cut off mid-scan, as a USB transfer error leaves it
        let format = FrameFormat(pixelFormat: .mjpeg, width: 32, height: 16)
        try RecordingFixtures.write(
            [jpeg, corrupt, jpeg].enumerated().map {
                RecordedFrame(bytes: $1, timestamp: UInt64($0), sequence: UInt32($0), flags: [])
            }, format: format, to: path)

        let (frames, end) = try RecordingFixtures.replay(path)
        #expect(end is FrameSourceEnd)
        try #require(frames.count == 3)
        let extractor = LumaExtractor(format: frames[0].metadata.format, sourceName: path)
        var outcomes: [String] = []
        for frame in frames {
            do {
                let luma = try frame.bytes.withUnsafeBytes {
                    try extractor.luma(of: $0, bytesUsed: frame.metadata.bytesUsed)
                }
                outcomes.append(abs(Int(luma[4, 8]) - 40) <= 3 && abs(Int(luma[28, 8]) - 210) <= 3 ? "ok" : "wrong")
            } catch {
                outcomes.append((error as? CaptureError)?.code == .corruptFrame ? "corrupt" : "\(error)")
            }
        }
        #expect(outcomes == ["ok", "corrupt", "ok"])
    }

    @Test("paced replay keeps the recorded order and spacing; looping continues times and sequence numbers")
    func pacedReplay() throws {
        let path = RecordingFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let interval: UInt64 = 20_000_000
        let frames = (0..<5).map {
            RecordedFrame(bytes: [UInt8($0)], timestamp: UInt64($0) * interval, sequence: 100 + UInt32($0), flags: [])
        }
        try RecordingFixtures.write(frames, format: FrameFormat(pixelFormat: .grey, width: 1, height: 1), to: path)

        func take(_ count: Int, from source: RecordingSource) throws -> [(UInt8, FrameMetadata)] {
            var taken: [(UInt8, FrameMetadata)] = []
            while taken.count < count {
                guard let frame = try source.dequeue(timeout: .milliseconds(5)) else { continue }
                taken.append((source.bytes(of: frame.bufferIndex)[0], frame.metadata))
                try source.requeue(frame.bufferIndex)
            }
            return taken
        }

        let paced = RecordingSource(path: path, pacing: .recorded(loop: false), logger: quietLogger)
        #expect(paced.isFinite)
        try paced.start()
        let started = MonotonicInstant.now()
        let once = try take(5, from: paced)
        let elapsed = MonotonicInstant.now().since(started)
        #expect(throws: FrameSourceEnd.self) { try paced.dequeue(timeout: .milliseconds(5)) }
        paced.stop()
        #expect(once.map(\.0) == [0, 1, 2, 3, 4])
        // Frame 4 is due 80 ms after frame 0 was delivered: the replay cannot have been faster (no upper bound).
        #expect(elapsed >= .milliseconds(80), "\(elapsed)")
        let dequeued = once.map(\.1.dequeueTime)
        #expect(zip(dequeued, dequeued.dropFirst()).allSatisfy { $0 < $1 })
        let first = once[0].1.captureTime.nanoseconds
        #expect(once.map { $0.1.captureTime.nanoseconds - first } == frames.map(\.timestamp))

        let looping = RecordingSource(path: path, pacing: .recorded(loop: true), logger: quietLogger)
        #expect(!looping.isFinite)
        try looping.start()
        let looped = try take(12, from: looping)
        looping.stop()
        #expect(looped.map(\.0) == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1])
        #expect(looped.map(\.1.driverSequence) == (100..<112).map { UInt32($0) })
        #expect(looped.map(\.1.index) == (0..<12).map { UInt64($0) })
        let loopStart = looped[0].1.captureTime.nanoseconds
        // Each pass starts one recorded interval after the previous pass's last frame.
        #expect(looped.map { $0.1.captureTime.nanoseconds - loopStart } == (0..<12).map { UInt64($0) * interval })
    }

    @Test("record(from:) stores a YUYV stream's frames exactly as the source delivered them")
    func recordSynthetic() throws {
        let path = RecordingFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let images = [LumaImage(width: 8, height: 4, fill: 10), LumaImage(width: 8, height: 4, fill: 200)]
        images[1][3, 2] = 77
        let source = SyntheticSource(images: images, pixelFormat: .yuyv, frameCount: 10)
        let summary = try RecordingWriter.record(
            from: source, to: path, options: RecordingOptions(frameLimit: 6), logger: quietLogger)
        #expect(summary.frames == 6)
        #expect(summary.sourceFrames == 6)
        #expect(summary.format == FrameFormat(pixelFormat: .yuyv, width: 8, height: 4))
        #expect(summary.bytes == 40 + 6 * (24 + 64))

        let (frames, end) = try RecordingFixtures.replay(path)
        #expect(end is FrameSourceEnd)
        try #require(frames.count == 6)
        for (index, frame) in frames.enumerated() {
            let image = images[index % 2]
            let expected: [UInt8] = (0..<32).flatMap { pixel -> [UInt8] in [image[pixel % 8, pixel / 8], 128] }
            #expect(frame.bytes == expected, "frame \(index)")
            #expect(frame.metadata.driverSequence == UInt32(index))
        }
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.metadata.captureTime <= $1.metadata.captureTime })
    }

    @Test("record(from:) over image files: GREY frames, each repeated, timestamped at the rate asked for")
    func recordImages() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-rec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, fill) in [("a.png", UInt8(30)), ("b.png", UInt8(90))] {
            let image = LumaImage(width: 6, height: 5, fill: fill)
            let status = image.withView {
                lv_image_write_png(folder.appendingPathComponent(name).path, $0.baseAddress, 6, 5, $0.stride)
            }
            try #require(status == 0)
        }
        let path = RecordingFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let summary = try RecordingWriter.record(
            from: ImageFileSource(path: folder.path, logger: quietLogger), to: path,
            options: RecordingOptions(fps: 4, repeatCount: 3), logger: quietLogger)
        #expect(summary.frames == 6)
        #expect(summary.sourceFrames == 2)
        #expect(summary.spanNanoseconds == 1_250_000_000)
        let (frames, _) = try RecordingFixtures.replay(path)
        #expect(frames.map { $0.bytes.first } == [30, 30, 30, 90, 90, 90])
        #expect(frames.allSatisfy { $0.bytes.count == 30 && $0.metadata.format.pixelFormat == .grey })
        let first = try #require(frames.first).metadata.captureTime.nanoseconds
        #expect(frames.map { $0.metadata.captureTime.nanoseconds - first } == (0..<6).map { UInt64($0) * 250_000_000 })
        #expect(frames.map(\.metadata.driverSequence) == [0, 1, 2, 3, 4, 5])

        // An image of another size cannot join the recording; the error names the image.
        let odd = LumaImage(width: 7, height: 5, fill: 1)
        let oddPath = folder.appendingPathComponent("c.png").path
        _ = odd.withView { lv_image_write_png(oddPath, $0.baseAddress, 7, 5, $0.stride) }
        let source = ImageFileSource(path: folder.path, logger: quietLogger)
        do {
            _ = try RecordingWriter.record(
                from: source, to: path, options: RecordingOptions(fps: 4), logger: quietLogger,
                describeFrame: { source.path(forFrameIndex: $0.index) })
            Issue.record("an image of another size was recorded")
        } catch let error as CaptureError {
            #expect(error.code == .unsupportedFormat)
            #expect(error.message.contains(oddPath), "\(error)")
        }
        // The frames before it were kept.
        #expect(try RecordingSource.readHeader(path: path).frameCount == 2)
    }
}
