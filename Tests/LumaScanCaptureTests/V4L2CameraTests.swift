import CV4L2
import LumaScanCore
import LumaScanTestSupport
import Synchronization
import Testing

@testable import LumaScanCapture

#if canImport(Glibc)
import Glibc
#endif

@Suite("V4L2Camera")
struct V4L2CameraTests {
    func makeCamera(_ fake: FakeV4L2, _ settings: CameraSettings = .init()) -> V4L2Camera {
        V4L2Camera(device: "/dev/video0", settings: settings, logger: quietLogger, syscalls: fake)
    }

    /// Whether the fake holds no descriptor and no mapping: everything the camera acquired was released.
    func released(_ fake: FakeV4L2) -> Bool {
        fake.with { $0.openDescriptors.isEmpty && !$0.buffers.contains(where: \.mapped) }
    }

    static let startCalls: [String] =
        ["open", "VIDIOC_QUERYCAP"] + Array(repeating: "VIDIOC_ENUM_FMT", count: 3) + ["VIDIOC_G_FMT"]
        + Array(repeating: "VIDIOC_ENUM_FRAMESIZES", count: 4)
        + ["VIDIOC_S_FMT", "VIDIOC_G_PARM", "VIDIOC_REQBUFS"]
        + Array(repeating: ["VIDIOC_QUERYBUF", "mmap"], count: 4).flatMap { $0 }
        + Array(repeating: "VIDIOC_QBUF", count: 4) + ["VIDIOC_STREAMON"]

    @Test("start, dequeue, requeue and stop make the V4L2 calls in order and deliver the script's frames")
    func fullSequence() throws {
        let fake = FakeV4L2()
        let pattern = (0..<64).map { UInt8($0 * 3) }
        fake.with { state in
            state.frames = [
                .init(sequence: 0, timestampNanoseconds: 12_345_678_000, bytes: pattern),
                .init(sequence: 1, timestampNanoseconds: 12_379_011_000, bytes: pattern),
                .init(
                    sequence: 2, timestampNanoseconds: 12_412_344_000,
                    flags: V4L2Constant.bufferTimestampMonotonic | V4L2Constant.bufferError, bytes: pattern),
                .init(sequence: 5, timestampNanoseconds: 12_512_344_000, bytes: Array(pattern.prefix(40))),
            ]
        }
        let camera = makeCamera(fake)
        try camera.start()
        #expect(fake.calls == Self.startCalls)
        #expect(fake.with { $0.lastRequest["VIDIOC_S_FMT"] } == "YUYV 8x4")
        #expect(camera.format == FrameFormat(pixelFormat: .yuyv, width: 8, height: 4, bytesPerLine: 16, sizeImage: 64))
        #expect(camera.bufferCount == 4)
        #expect(camera.card == "Fake Camera")
        #expect(camera.driver == "fake")
        #expect(camera.grantedFrameRate == 30)
        #expect(!camera.isFinite)

        var frames: [DequeuedFrame] = []
        for _ in 0..<4 {
            let before = MonotonicInstant.now()
            let frame = try #require(try camera.dequeue(timeout: .milliseconds(10)))
            #expect(frame.metadata.dequeueTime >= before)
            #expect(frame.metadata.format == camera.format)
            let bytes = camera.bytes(of: frame.bufferIndex)
            #expect(bytes.count == 4096)
            #expect(Array(bytes.prefix(frame.metadata.bytesUsed)) == Array(pattern.prefix(frame.metadata.bytesUsed)))
            frames.append(frame)
        }
        #expect(frames.map(\.metadata.index) == [0, 1, 2, 3])
        #expect(frames.map(\.metadata.driverSequence) == [0, 1, 2, 5])
        #expect(frames.map(\.bufferIndex) == [0, 1, 2, 3])
        #expect(
            frames.map(\.metadata.captureTime.nanoseconds) == [
                12_345_678_000, 12_379_011_000, 12_412_344_000, 12_512_344_000,
            ])
        #expect(frames.map(\.metadata.driverFlaggedError) == [false, false, true, false])
        #expect(frames.map(\.metadata.bytesUsed) == [64, 64, 64, 40])
        #expect(camera.driverDroppedFrames == 2)

        // Every buffer is out: nothing to dequeue until one goes back.
        fake.with { $0.frames = [.init(sequence: 6)] }
        #expect(try camera.dequeue(timeout: .zero) == nil)
        try camera.requeue(2)
        let next = try #require(try camera.dequeue(timeout: .milliseconds(10)))
        #expect(next.bufferIndex == 2)
        #expect(next.metadata.index == 4)
        #expect(camera.driverDroppedFrames == 2)

        let beforeStop = fake.calls.count
        camera.stop()
        #expect(
            Array(fake.calls.dropFirst(beforeStop))
                == ["VIDIOC_STREAMOFF"] + Array(repeating: "munmap", count: 4) + ["VIDIOC_REQBUFS", "close"])
        #expect(released(fake))
        #expect(fake.with { $0.buffers.isEmpty })
        #expect(camera.bytes(of: 0).count == 0)
        camera.stop()
        #expect(fake.calls.count == beforeStop + 7, "a second stop does nothing")
    }

    @Test("sequence gaps count as driver drops, across the 32-bit wrap")
    func sequenceWrap() throws {
        func drops(_ sequences: [UInt32]) throws -> UInt64 {
            let fake = FakeV4L2()
            fake.with { $0.frames = sequences.map { .init(sequence: $0) } }
            let camera = makeCamera(fake)
            try camera.start()
            for _ in sequences {
                let frame = try #require(try camera.dequeue(timeout: .zero))
                try camera.requeue(frame.bufferIndex)
            }
            camera.stop()
            return camera.driverDroppedFrames
        }
        #expect(try drops([UInt32.max - 1, UInt32.max, 0, 1]) == 0)
        #expect(try drops([UInt32.max - 1, 1]) == 2)
        #expect(try drops([UInt32.max, 3]) == 3)
        #expect(try drops([10, 11, 15, 16, 20]) == 6)
        // A counter that restarts (jumps backwards) is not a gap.
        #expect(try drops([1000, 1001, 0, 1]) == 0)
    }

    @Test("a restarted stream starts counting sequence gaps afresh, and frame indices keep counting")
    func restartResetsSequence() throws {
        let fake = FakeV4L2()
        let camera = makeCamera(fake)
        fake.with { $0.frames = [.init(sequence: 500)] }
        try camera.start()
        let first = try #require(try camera.dequeue(timeout: .zero))
        camera.stop()
        fake.with { $0.frames = [.init(sequence: 0)] }
        try camera.start()
        let second = try #require(try camera.dequeue(timeout: .zero))
        #expect(camera.driverDroppedFrames == 0)
        #expect(first.metadata.index == 0)
        #expect(second.metadata.index == 1)
        camera.stop()
    }

    @Test("an uncompressed frame with bytesused 0 and no error flag fills the image size")
    func zeroBytesUsed() throws {
        let fake = FakeV4L2()
        fake.with {
            $0.frames = [
                .init(sequence: 0, bytes: []),
                .init(
                    sequence: 1, flags: V4L2Constant.bufferTimestampMonotonic | V4L2Constant.bufferError, bytes: []),
            ]
        }
        let camera = makeCamera(fake)
        try camera.start()
        #expect(try camera.dequeue(timeout: .zero)?.metadata.bytesUsed == 64)
        #expect(try camera.dequeue(timeout: .zero)?.metadata.bytesUsed == 0)
        camera.stop()
    }

    @Test("timestamps not on the monotonic clock are replaced by the dequeue time")
    func nonMonotonicTimestamps() throws {
        let fake = FakeV4L2()
        fake.with {
            $0.frames = [.init(sequence: 0, timestampNanoseconds: 5, flags: UInt32(V4L2_BUF_FLAG_TIMESTAMP_COPY))]
        }
        let camera = makeCamera(fake)
        try camera.start()
        let frame = try #require(try camera.dequeue(timeout: .zero))
        #expect(frame.metadata.captureTime == frame.metadata.dequeueTime)
        camera.stop()
    }

    @Test("EBUSY on VIDIOC_REQBUFS fails start with busy, releases the device, and a later start succeeds")
    func busyOnRequestBuffers() throws {
        let fake = FakeV4L2()
        fake.with { $0.failures["VIDIOC_REQBUFS"] = [EBUSY] }
        let camera = makeCamera(fake)
        let error = try #require(#expect(throws: CaptureError.self) { try camera.start() })
        #expect(error.code == .busy)
        #expect(error.call == "VIDIOC_REQBUFS")
        #expect(error.errno == EBUSY)
        #expect(
            error.message
                == "/dev/video0: VIDIOC_REQBUFS failed: Device or resource busy (EBUSY): "
                + "another process is using the camera")
        #expect(released(fake))
        #expect(throws: CaptureError.self) { try camera.dequeue(timeout: .zero) }

        try camera.start()
        #expect(camera.bufferCount == 4)
        camera.stop()
        #expect(released(fake))
    }

    @Test("a failure while mapping buffers unmaps those already mapped and closes the device")
    func mappingFailure() throws {
        let fake = FakeV4L2()
        let failing = FailingAfter(fake: fake, call: "VIDIOC_QUERYBUF", after: 2, errno: EIO)
        let camera = V4L2Camera(device: "/dev/video0", settings: .init(), logger: quietLogger, syscalls: failing)
        let error = try #require(#expect(throws: CaptureError.self) { try camera.start() })
        #expect(error.code == .streamBroken)
        #expect(error.call == "VIDIOC_QUERYBUF")
        #expect(fake.calls.filter { $0 == "munmap" }.count == 2)
        #expect(released(fake))

        let noMemory = FakeV4L2()
        noMemory.with { $0.failures["mmap"] = [ENOMEM] }
        let mmapError = try #require(#expect(throws: CaptureError.self) { try makeCamera(noMemory).start() })
        #expect(mmapError.call == "mmap")
        #expect(mmapError.message.contains("(ENOMEM)"))
        #expect(released(noMemory))

        let streamOn = FakeV4L2()
        streamOn.with { $0.failures["VIDIOC_STREAMON"] = [ENOSPC] }
        let bandwidth = try #require(#expect(throws: CaptureError.self) { try makeCamera(streamOn).start() })
        #expect(bandwidth.message.contains("USB bandwidth"))
        #expect(streamOn.calls.filter { $0 == "munmap" }.count == 4)
        #expect(released(streamOn))
    }

    @Test("ENODEV on VIDIOC_DQBUF is deviceGone; stop releases everything and start reopens")
    func deviceGoneOnDequeue() throws {
        let fake = FakeV4L2()
        fake.with { $0.frames = [.init(sequence: 0), .init(sequence: 1)] }
        let camera = makeCamera(fake)
        try camera.start()
        fake.with { $0.failures["VIDIOC_DQBUF"] = [ENODEV] }
        let error = try #require(#expect(throws: CaptureError.self) { try camera.dequeue(timeout: .milliseconds(5)) })
        #expect(error.code == .deviceGone)
        #expect(error.recovery == .reopenDevice)
        #expect(error.message.hasPrefix("/dev/video0: VIDIOC_DQBUF failed: No such device (ENODEV)"))
        // After an unplug the kernel fails the teardown calls too; stop must still let go of everything.
        fake.with {
            $0.failures["VIDIOC_STREAMOFF"] = [ENODEV]
            $0.failures["VIDIOC_REQBUFS"] = [ENODEV]
        }
        camera.stop()
        #expect(released(fake))
        try camera.start()
        // The failed dequeue took no frame: the first is still there.
        let frame = try #require(try camera.dequeue(timeout: .zero))
        #expect(frame.metadata.driverSequence == 0)
        camera.stop()
    }

    @Test("POLLERR asks VIDIOC_DQBUF why: ENODEV is deviceGone, nothing to dequeue is streamBroken")
    func pollError() throws {
        let fake = FakeV4L2()
        let camera = makeCamera(fake)
        try camera.start()
        fake.with {
            $0.pollResults = [Int32(POLLERR | POLLHUP)]
            $0.failures["VIDIOC_DQBUF"] = [ENODEV]
        }
        let gone = try #require(#expect(throws: CaptureError.self) { try camera.dequeue(timeout: .milliseconds(1)) })
        #expect(gone.code == .deviceGone)

        fake.with { $0.pollResults = [Int32(POLLERR)] }
        let broken = try #require(#expect(throws: CaptureError.self) { try camera.dequeue(timeout: .milliseconds(1)) })
        #expect(broken.code == .streamBroken)
        #expect(broken.call == "poll")
        #expect(broken.recovery == .restartStream)
        #expect(broken.message.contains("POLLERR"))

        fake.with {
            $0.pollResults = [Int32(POLLERR)]
            $0.failures["VIDIOC_DQBUF"] = [EINVAL]
        }
        let invalid = try #require(#expect(throws: CaptureError.self) { try camera.dequeue(timeout: .milliseconds(1)) })
        #expect(invalid.code == .streamBroken)
        #expect(invalid.errno == EINVAL)
        #expect(invalid.message.hasSuffix("(after POLLERR)"))

        fake.with { $0.failures["poll"] = [EIO] }
        let failed = try #require(#expect(throws: CaptureError.self) { try camera.dequeue(timeout: .milliseconds(1)) })
        #expect(failed.code == .streamBroken)
        #expect(failed.call == "poll")

        // EAGAIN after POLLIN (a spurious wake-up) is no frame, not an error.
        fake.with { $0.pollResults = [Int32(POLLIN)] }
        #expect(try camera.dequeue(timeout: .milliseconds(1)) == nil)
        camera.stop()
    }

    @Test("a node without video capture gets notACaptureDevice, checking device_caps when the driver sets it")
    func notACaptureDevice() throws {
        let metadata = FakeV4L2()
        metadata.with {
            // The physical device captures video, but this node carries metadata only.
            $0.capabilities =
                V4L2Constant.capVideoCapture | V4L2Constant.capMetaCapture | V4L2Constant.capStreaming
                | V4L2Constant.capDeviceCaps
            $0.deviceCaps = V4L2Constant.capMetaCapture | V4L2Constant.capStreaming
        }
        let error = try #require(#expect(throws: CaptureError.self) { try makeCamera(metadata).start() })
        #expect(error.code == .notACaptureDevice)
        #expect(
            error.message
                == "/dev/video0 (Fake Camera, driver fake) is not a capture device: "
                + "it is a metadata node (cameras often have one next to their video node)")
        #expect(released(metadata))

        let noStreaming = FakeV4L2()
        noStreaming.with {
            $0.capabilities = V4L2Constant.capVideoCapture | V4L2Constant.capReadWrite
            $0.deviceCaps = 0  // ignored: no V4L2_CAP_DEVICE_CAPS
        }
        let readOnly = try #require(#expect(throws: CaptureError.self) { try makeCamera(noStreaming).start() })
        #expect(readOnly.code == .notACaptureDevice)
        #expect(readOnly.message.contains("streaming I/O"))

        let multiplanar = FakeV4L2()
        multiplanar.with { $0.deviceCaps = V4L2Constant.capVideoCaptureMultiplanar | V4L2Constant.capStreaming }
        let planar = try #require(#expect(throws: CaptureError.self) { try makeCamera(multiplanar).start() })
        #expect(planar.message.contains("multi-planar"))

        let notV4L2 = FakeV4L2()
        notV4L2.with { $0.failures["VIDIOC_QUERYCAP"] = [ENOTTY] }
        let other = try #require(#expect(throws: CaptureError.self) { try makeCamera(notV4L2).start() })
        #expect(other.code == .notACaptureDevice)
        #expect(other.message.contains("not a V4L2 device"))
    }

    @Test("a pixel format the device does not offer is unsupportedFormat, naming what it offers")
    func formatNotOffered() throws {
        let fake = FakeV4L2()
        let error = try #require(
            #expect(throws: CaptureError.self) { try makeCamera(fake, CameraSettings(pixelFormat: .grey)).start() })
        #expect(error.code == .unsupportedFormat)
        #expect(error.message == "/dev/video0: the camera does not offer GREY; it offers MJPG, YUYV")
        #expect(released(fake))

        let unreadable = try #require(
            #expect(throws: CaptureError.self) {
                try makeCamera(FakeV4L2(), CameraSettings(pixelFormat: PixelFormat("RGB3"))).start()
            })
        #expect(unreadable.code == .unsupportedFormat)
        #expect(unreadable.message.contains("cannot read luma from RGB3"))
    }

    @Test("a driver that sets another format than asked is unsupportedFormat")
    func driverSwitchesFormat() throws {
        let fake = FakeV4L2()
        fake.with { $0.forcedFormat = .mjpeg }
        let error = try #require(#expect(throws: CaptureError.self) { try makeCamera(fake).start() })
        #expect(error.code == .unsupportedFormat)
        #expect(error.message == "/dev/video0: asked for YUYV, but the driver set MJPG")
        #expect(released(fake))
    }

    @Test("without a pixel format, the first supported native format wins; emulated formats are ignored")
    func formatPreference() throws {
        let size = Size(width: 8, height: 4)
        func chosen(_ formats: [FakeV4L2.Format]) throws -> PixelFormat {
            let fake = FakeV4L2(formats: formats, current: formats[0].pixelFormat, size: size)
            let camera = makeCamera(fake)
            try camera.start()
            defer { camera.stop() }
            return camera.format.pixelFormat
        }
        let sizes = FrameSizes.discrete([size])
        let mjpeg = FakeV4L2.Format(
            pixelFormat: .mjpeg, description: "MJPEG", flags: V4L2Constant.formatCompressed, sizes: sizes)
        let yuyv = FakeV4L2.Format(pixelFormat: .yuyv, description: "YUYV", sizes: sizes)
        let nv12 = FakeV4L2.Format(pixelFormat: .nv12, description: "NV12", sizes: sizes)
        let emulatedGrey = FakeV4L2.Format(
            pixelFormat: .grey, description: "GREY", flags: V4L2Constant.formatEmulated, sizes: sizes)
        #expect(try chosen([mjpeg, yuyv]) == .yuyv)
        #expect(try chosen([mjpeg, yuyv, nv12]) == .nv12)
        #expect(try chosen([mjpeg, yuyv, emulatedGrey]) == .yuyv)
        #expect(try chosen([mjpeg]) == .mjpeg)
    }

    @Test("the nearest supported size is asked for")
    func nearestSize() throws {
        let fake = FakeV4L2()
        let camera = makeCamera(fake, CameraSettings(pixelFormat: .yuyv, size: Size(width: 30, height: 14)))
        try camera.start()
        #expect(fake.with { $0.lastRequest["VIDIOC_S_FMT"] } == "YUYV 32x16")
        #expect(camera.format.width == 32 && camera.format.height == 16)
        #expect(camera.format.bytesPerLine == 64)
        camera.stop()
    }

    @Test("fps sets the frame interval with VIDIOC_S_PARM and reports what the driver granted")
    func frameRate() throws {
        let fake = FakeV4L2()
        let camera = makeCamera(fake, CameraSettings(pixelFormat: .yuyv, fps: 20))
        try camera.start()
        #expect(fake.calls.contains("VIDIOC_S_PARM"))
        #expect(fake.with { $0.lastRequest["VIDIOC_S_PARM"] } == "1/20")
        #expect(camera.grantedFrameRate == 15)
        camera.stop()

        let fractional = FakeV4L2()
        let ntsc = makeCamera(fractional, CameraSettings(fps: 29.97))
        try ntsc.start()
        #expect(fractional.with { $0.lastRequest["VIDIOC_S_PARM"] } == "1000/29970")
        ntsc.stop()

        let fixed = FakeV4L2()
        fixed.with { $0.supportsFrameRate = false }
        let camera2 = makeCamera(fixed, CameraSettings(fps: 60))
        try camera2.start()
        #expect(!fixed.calls.contains("VIDIOC_S_PARM"))
        #expect(camera2.grantedFrameRate == 30)
        camera2.stop()
    }

    @Test("the driver's buffer count is used when it differs from the request")
    func grantedBufferCount() throws {
        let fake = FakeV4L2()
        fake.with { $0.maximumBuffers = 2 }
        let camera = makeCamera(fake, CameraSettings(bufferCount: 6))
        try camera.start()
        #expect(camera.bufferCount == 2)
        #expect(fake.calls.filter { $0 == "VIDIOC_QBUF" }.count == 2)
        #expect(throws: CaptureError.self) { try camera.requeue(2) }
        camera.stop()

        let none = FakeV4L2()
        none.with { $0.maximumBuffers = 0 }
        let error = try #require(#expect(throws: CaptureError.self) { try makeCamera(none).start() })
        #expect(error.message.contains("granted no buffers"))
        #expect(released(none))
    }

    @Test("invalid settings are rejected before the device is opened")
    func invalidSettings() throws {
        for settings in [
            CameraSettings(bufferCount: 0), CameraSettings(bufferCount: 33),
            CameraSettings(size: Size(width: 0, height: 5)),
            CameraSettings(fps: 0), CameraSettings(fps: .nan), CameraSettings(input: -1),
        ] {
            let fake = FakeV4L2()
            let error = try #require(#expect(throws: CaptureError.self) { try makeCamera(fake, settings).start() })
            #expect(error.code == .invalidArgument)
            #expect(error.message.hasPrefix("/dev/video0: invalid camera settings: "))
            #expect(fake.calls.isEmpty)
        }
    }

    @Test("the input is selected before the format when the settings name one")
    func inputSelection() throws {
        let fake = FakeV4L2()
        let camera = makeCamera(fake, CameraSettings(input: 1))
        try camera.start()
        #expect(fake.with { $0.input } == 1)
        let calls = fake.calls
        let selected = try #require(calls.firstIndex(of: "VIDIOC_S_INPUT"))
        let formatSet = try #require(calls.firstIndex(of: "VIDIOC_S_FMT"))
        #expect(selected < formatSet)
        camera.stop()
    }

    @Test("open failures name the device: ENOENT is notFound, EACCES is permissionDenied")
    func openFailures() throws {
        let camera = V4L2Camera(device: "/dev/video9", settings: .init(), logger: quietLogger, syscalls: FakeV4L2())
        let missing = try #require(#expect(throws: CaptureError.self) { try camera.start() })
        #expect(missing.code == .notFound)
        #expect(missing.message.hasPrefix("/dev/video9: open failed: No such file or directory (ENOENT)"))

        let fake = FakeV4L2()
        fake.with { $0.failures["open"] = [EACCES] }
        let denied = try #require(#expect(throws: CaptureError.self) { try makeCamera(fake).start() })
        #expect(denied.code == .permissionDenied)
        #expect(denied.message.contains("'video' group"))
    }

    @Test("dequeue and requeue before start are invalidState; start twice is harmless")
    func lifecycle() throws {
        let fake = FakeV4L2()
        let camera = makeCamera(fake)
        let error = try #require(#expect(throws: CaptureError.self) { try camera.dequeue(timeout: .zero) })
        #expect(error.code == .invalidState)
        #expect(throws: CaptureError.self) { try camera.requeue(0) }
        camera.stop()
        try camera.start()
        let opened = fake.calls.count
        try camera.start()
        #expect(fake.calls.count == opened)
        #expect(try camera.dequeue(timeout: .milliseconds(1)) == nil)
        camera.stop()
        #expect(released(fake))
    }

    @Test("deinit stops the camera")
    func deinitStops() throws {
        let fake = FakeV4L2()
        do {
            let camera = makeCamera(fake)
            try camera.start()
        }
        #expect(released(fake))
        #expect(fake.calls.last == "close")
    }

    @Test("timeouts round up to whole milliseconds")
    func milliseconds() {
        #expect(V4L2Camera.milliseconds(.zero) == 0)
        #expect(V4L2Camera.milliseconds(.seconds(-1)) == 0)
        #expect(V4L2Camera.milliseconds(.microseconds(1)) == 1)
        #expect(V4L2Camera.milliseconds(.milliseconds(250)) == 250)
        #expect(V4L2Camera.milliseconds(.seconds(2) + .microseconds(500)) == 2001)
        #expect(V4L2Camera.milliseconds(.seconds(1_000_000_000)) == Int32.max)
    }

    // MARK: - Controls

    @Test("controls lists every control with menus and current values, opening the node when stopped")
    func listControls() throws {
        let fake = FakeV4L2()
        fake.with { $0.controls = FakeV4L2.webcamControls }
        let camera = makeCamera(fake)
        let controls = try camera.controls()
        #expect(controls.map(\.name) == FakeV4L2.webcamControls.sorted { $0.id < $1.id }.map(\.name))
        let brightness = try #require(controls.first { $0.name == "Brightness" })
        #expect(brightness.type == .integer)
        #expect(brightness.minimum == 0 && brightness.maximum == 255 && brightness.defaultValue == 128)
        #expect(brightness.value == 100)
        let powerLine = try #require(controls.first { $0.type == .menu })
        #expect(powerLine.menuItems == [.init(index: 0, name: "Disabled"), .init(index: 2, name: "60 Hz")])
        #expect(powerLine.value == 2)
        let exposure = try #require(controls.first { $0.type == .integer64 })
        #expect(exposure.value == 156)
        #expect(fake.calls.contains("VIDIOC_G_EXT_CTRLS"))
        let button = try #require(controls.first { $0.type == .button })
        #expect(button.value == nil)
        #expect(button.isWriteOnly)
        #expect(controls.first { $0.name == "White Balance Temperature" }?.isInactive == true)
        #expect(released(fake))
        #expect(fake.calls.filter { $0 == "open" }.count == 1)
    }

    @Test("controls are found by name case-insensitively, with spaces and underscores equivalent")
    func controlByName() throws {
        let fake = FakeV4L2()
        fake.with { $0.controls = FakeV4L2.webcamControls }
        let camera = makeCamera(fake)
        #expect(
            try camera.control(named: "white_balance_temperature")?.id == UInt32(V4L2_CID_WHITE_BALANCE_TEMPERATURE))
        #expect(try camera.control(named: "BRIGHTNESS")?.value == 100)
        #expect(try camera.control(named: "focus") == nil)
    }

    @Test("setControl validates the value, sets it and returns what the driver kept")
    func setControls() throws {
        let fake = FakeV4L2()
        fake.with { $0.controls = FakeV4L2.webcamControls }
        let camera = makeCamera(fake)
        try camera.start()
        let brightness = UInt32(V4L2_CID_BRIGHTNESS)
        #expect(try camera.setControl(id: brightness, value: 200) == 200)
        #expect(try camera.getControl(id: brightness) == 200)
        // The driver rounds to its step of 5.
        #expect(try camera.setControl(named: "contrast", value: 42) == 40)
        #expect(try camera.setControl(named: "Power_Line_Frequency", value: 0) == 0)
        #expect(try camera.setControl(named: "exposure time, absolute", value: 4000) == 4000)
        #expect(try camera.getControl(id: UInt32(V4L2_CID_EXPOSURE_ABSOLUTE)) == 4000)
        #expect(fake.calls.contains("VIDIOC_S_EXT_CTRLS"))
        #expect(fake.with { $0.openDescriptors.count } == 1, "a streaming camera uses its own descriptor")

        let range = try #require(
            #expect(throws: CaptureError.self) { try camera.setControl(id: brightness, value: 256) })
        #expect(range.code == .invalidArgument)
        #expect(range.message == "/dev/video0: cannot set control 'Brightness' (0x00980900) to 256: outside 0...255")
        let menu = try #require(
            #expect(throws: CaptureError.self) { try camera.setControl(named: "power line frequency", value: 1) })
        #expect(menu.message.contains("entries: 0 (Disabled), 2 (60 Hz)"))
        let boolean = try #require(
            #expect(throws: CaptureError.self) { try camera.setControl(named: "white balance automatic", value: 2) })
        #expect(boolean.code == .invalidArgument)
        let readOnly = try #require(
            #expect(throws: CaptureError.self) { try camera.setControl(named: "gain automatic", value: 0) })
        #expect(readOnly.message.hasSuffix("it is read-only"))
        let unknown = try #require(
            #expect(throws: CaptureError.self) { try camera.setControl(named: "zoom", value: 1) })
        #expect(unknown.code == .notFound)
        #expect(
            unknown.message.hasPrefix("/dev/video0: no control named 'zoom'; the camera has 'Brightness', 'Contrast'"))
        let noID = try #require(#expect(throws: CaptureError.self) { try camera.getControl(id: 0x0098_09ff) })
        #expect(noID.code == .notFound)
        let writeOnly = try #require(
            #expect(throws: CaptureError.self) { try camera.getControl(id: UInt32(V4L2_CID_PAN_RESET)) })
        #expect(writeOnly.code == .invalidArgument)
        #expect(try camera.setControl(id: UInt32(V4L2_CID_PAN_RESET), value: 0) == 1)

        fake.with { $0.failures["VIDIOC_S_CTRL"] = [EBUSY] }
        let busy = try #require(#expect(throws: CaptureError.self) { try camera.setControl(id: brightness, value: 1) })
        #expect(busy.code == .busy)
        #expect(busy.message.contains("while streaming"))
        camera.stop()
        #expect(released(fake))
    }
}

/// Forwards to a fake, failing `call` with `errno` once it has succeeded `after` times.
final class FailingAfter: V4L2Syscalls {
    let fake: FakeV4L2
    let call: String
    let remaining: Lock<Int>
    let errno: Int32

    init(fake: FakeV4L2, call: String, after: Int, errno: Int32) {
        self.fake = fake
        self.call = call
        remaining = Lock(after)
        self.errno = errno
    }

    func open(_ path: String, flags: Int32) -> Int32 { fake.open(path, flags: flags) }
    func close(_ fd: Int32) -> Int32 { fake.close(fd) }
    func mmap(_ fd: Int32, length: Int, offset: Int64) -> Result<UnsafeMutableRawPointer, Errno> {
        fake.mmap(fd, length: length, offset: offset)
    }
    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 { fake.munmap(address, length: length) }
    func poll(_ fd: Int32, timeoutMilliseconds: Int32) -> Int32 {
        fake.poll(fd, timeoutMilliseconds: timeoutMilliseconds)
    }
    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        if FakeV4L2.requestNames[request] == call {
            let fail = remaining.withLock { count -> Bool in
                if count == 0 { return true }
                count -= 1
                return false
            }
            if fail { return -errno }
        }
        return fake.ioctl(fd, request, argument)
    }
}
