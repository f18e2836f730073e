import CV4L2
import LumaScanCore
import Testing

@testable import LumaScanCapture

#if canImport(Glibc)
import Glibc
#endif

@Suite("V4L2Device")
struct V4L2DeviceTests {
    func open(_ fake: FakeV4L2) throws -> V4L2Device { try V4L2Device.open("/dev/video0", syscalls: fake) }

    @Test("open asks for a non-blocking read-write descriptor; a node libv4l2 refuses is not a capture device")
    func opening() throws {
        let fake = FakeV4L2()
        let device = try open(fake)
        #expect(device.fd >= 0)
        #expect(device.close() == nil)
        #expect(device.close()?.code == .other, "EBADF the second time")
        fake.with { $0.failures["open"] = [ENOTTY] }
        let error = try #require(#expect(throws: CaptureError.self) { try open(fake) })
        #expect(error.code == .notACaptureDevice)
        #expect(error.message == "/dev/video0: not a V4L2 device (open failed: ENOTTY)")
    }

    @Test("capabilities come from device_caps only when V4L2_CAP_DEVICE_CAPS is set")
    func capabilities() throws {
        let fake = FakeV4L2()
        let device = try open(fake)
        defer { device.close() }
        fake.with {
            $0.capabilities = V4L2Constant.capVideoCapture | V4L2Constant.capStreaming | V4L2Constant.capReadWrite
            $0.deviceCaps = 0
        }
        let legacy = try device.queryCapabilities()
        #expect(legacy.deviceCaps == legacy.capabilities)
        #expect(legacy.canCaptureByStreaming)
        #expect(legacy.capabilityNames == ["videoCapture", "readWrite", "streaming"])
        fake.with {
            $0.capabilities |= V4L2Constant.capDeviceCaps
            $0.deviceCaps = V4L2Constant.capStreaming
        }
        let modern = try device.queryCapabilities()
        #expect(!modern.canCaptureByStreaming)
        #expect(modern.unusableReason == "it has no video capture capability (V4L2_CAP_VIDEO_CAPTURE)")
    }

    @Test("enumerations stop at EINVAL, and sizes are nil when the driver does not enumerate them")
    func enumerations() throws {
        let fake = FakeV4L2()
        let device = try open(fake)
        defer { device.close() }
        #expect(try device.enumerateFormats().map(\.pixelFormat) == [.mjpeg, .yuyv])
        #expect(try device.enumerateFormats().first?.isCompressed == true)
        #expect(
            try device.enumerateFrameSizes(.yuyv)
                == .discrete([Size(width: 8, height: 4), Size(width: 16, height: 8), Size(width: 32, height: 16)]))
        #expect(try device.enumerateFrameSizes(.grey) == nil)
        fake.with { $0.failures["VIDIOC_ENUM_FRAMESIZES"] = [ENOTTY] }
        #expect(try device.enumerateFrameSizes(.yuyv) == nil)
        #expect(
            try device.enumerateFrameIntervals(.yuyv, size: Size(width: 8, height: 4))
                == .discrete([.init(numerator: 1, denominator: 30), .init(numerator: 1, denominator: 15)]))
        fake.with { $0.failures["VIDIOC_ENUM_FMT"] = [EIO] }
        let error = try #require(#expect(throws: CaptureError.self) { try device.enumerateFormats() })
        #expect(error.call == "VIDIOC_ENUM_FMT")
        #expect(error.code == .streamBroken)
    }

    @Test("TRY_FMT reports without setting; S_FMT sets; G_FMT reads back")
    func formats() throws {
        let fake = FakeV4L2()
        fake.with { $0.linePadding = 4 }
        let device = try open(fake)
        defer { device.close() }
        let tried = try device.tryFormat(.yuyv, size: Size(width: 16, height: 8))
        #expect(tried.format == FrameFormat(pixelFormat: .yuyv, width: 16, height: 8, bytesPerLine: 36, sizeImage: 288))
        #expect(try device.getFormat().format.width == 8)
        let set = try device.setFormat(.yuyv, size: Size(width: 16, height: 8))
        #expect(set == tried)
        #expect(try device.getFormat() == set)
        #expect(set.field == V4L2Constant.fieldNone)
    }

    @Test("frame rates become V4L2 frame intervals")
    func intervals() {
        #expect(Fraction(interval: 30) == Fraction(numerator: 1, denominator: 30))
        #expect(Fraction(interval: 29.97) == Fraction(numerator: 1000, denominator: 29970))
        #expect(Fraction(interval: 0.5) == Fraction(numerator: 1000, denominator: 500))
        #expect(Fraction(numerator: 1001, denominator: 30000).framesPerSecond == 30000.0 / 1001.0)
        #expect(Fraction(numerator: 0, denominator: 30).framesPerSecond == nil)
    }

    @Test("inputs are enumerated, read and selected")
    func inputs() throws {
        let fake = FakeV4L2()
        let device = try open(fake)
        defer { device.close() }
        #expect(try device.enumerateInputs().map(\.name) == ["Camera 0", "HDMI"])
        #expect(try device.currentInput() == 0)
        try device.selectInput(1)
        #expect(try device.currentInput() == 1)
        let error = try #require(#expect(throws: CaptureError.self) { try device.selectInput(5) })
        #expect(error.code == .invalidArgument)
        #expect(error.call == "VIDIOC_S_INPUT")
    }

    @Test("DQBUF converts the timeval timestamp to nanoseconds and says EAGAIN as nil")
    func dequeue() throws {
        let fake = FakeV4L2()
        fake.with { $0.frames = [.init(sequence: 9, timestampNanoseconds: 86_400_000_001_000)] }
        let device = try open(fake)
        defer { device.close() }
        #expect(try device.requestBuffers(2) == 2)
        try device.queueBuffer(0)
        try device.streamOn()
        let buffer = try #require(try device.dequeueBuffer())
        #expect(buffer.timestampNanoseconds == 86_400_000_001_000)
        #expect(buffer.sequence == 9)
        #expect(buffer.hasMonotonicTimestamp)
        #expect(!buffer.hasError)
        #expect(try device.dequeueBuffer() == nil)
        try device.streamOff()
    }

    @Test("controls fall back to VIDIOC_QUERYCTRL on drivers without VIDIOC_QUERY_EXT_CTRL")
    func legacyControls() throws {
        let fake = FakeV4L2()
        fake.with { $0.controls = FakeV4L2.webcamControls }
        let device = try open(fake)
        defer { device.close() }
        let modern = try device.queryControls()
        fake.with { $0.failures["VIDIOC_QUERY_EXT_CTRL"] = [ENOTTY] }
        let legacy = try device.queryControls()
        #expect(legacy.map(\.name) == modern.map(\.name))
        #expect(legacy.first { $0.type == .menu }?.menuItems == modern.first { $0.type == .menu }?.menuItems)
        #expect(fake.calls.contains("VIDIOC_QUERYCTRL"))
        fake.with { $0.failures["VIDIOC_QUERY_EXT_CTRL"] = [ENOTTY] }
        #expect(try device.queryControl(id: UInt32(V4L2_CID_CONTRAST)).name == "Contrast")
        #expect(V4L2Device.hex(0x0098_0900) == "0x00980900")
    }
}
