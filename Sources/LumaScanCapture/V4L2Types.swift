import CV4L2
import LumaScanCore

/// Kernel constants, converted once to the `UInt32` the kernel's structures hold.
enum V4L2Constant {
    static let captureType: UInt32 = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    static let mmapMemory: UInt32 = V4L2_MEMORY_MMAP.rawValue
    static let capVideoCapture = UInt32(V4L2_CAP_VIDEO_CAPTURE)
    static let capVideoCaptureMultiplanar = UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE)
    static let capMetaCapture = UInt32(V4L2_CAP_META_CAPTURE)
    static let capStreaming = UInt32(V4L2_CAP_STREAMING)
    static let capReadWrite = UInt32(V4L2_CAP_READWRITE)
    static let capDeviceCaps = UInt32(V4L2_CAP_DEVICE_CAPS)
    static let capTimePerFrame = UInt32(V4L2_CAP_TIMEPERFRAME)
    static let formatCompressed = UInt32(V4L2_FMT_FLAG_COMPRESSED)
    static let formatEmulated = UInt32(V4L2_FMT_FLAG_EMULATED)
    static let bufferError = UInt32(V4L2_BUF_FLAG_ERROR)
    static let bufferTimestampMask = UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK)
    static let bufferTimestampMonotonic = UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
    static let nextControl = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
    static let controlDisabled = UInt32(V4L2_CTRL_FLAG_DISABLED)
    static let controlReadOnly = UInt32(V4L2_CTRL_FLAG_READ_ONLY)
    static let controlInactive = UInt32(V4L2_CTRL_FLAG_INACTIVE)
    static let controlWriteOnly = UInt32(V4L2_CTRL_FLAG_WRITE_ONLY)
    static let whichCurrentValue = UInt32(V4L2_CTRL_WHICH_CUR_VAL)
    static let fieldAny = V4L2_FIELD_ANY.rawValue
    static let fieldNone = V4L2_FIELD_NONE.rawValue
    /// Field orders whose buffers hold one field (half the frame's rows), which LumaScan cannot read as a frame.
    static let singleFieldOrders: Set<UInt32> = [
        V4L2_FIELD_TOP.rawValue, V4L2_FIELD_BOTTOM.rawValue, V4L2_FIELD_ALTERNATE.rawValue,
    ]
}

/// What `VIDIOC_QUERYCAP` says about a node.
struct DeviceCapabilities: Hashable, Sendable {
    /// The driver's name, such as `uvcvideo` or `vivid`.
    var driver: String
    /// The device's name, such as `HD Pro Webcam C920`.
    var card: String
    /// Where the device is attached, such as `usb-0000:00:14.0-1`.
    var busInfo: String
    /// The driver's version (`KERNEL_VERSION` encoding).
    var version: UInt32
    /// The capabilities of the physical device as a whole.
    var capabilities: UInt32
    /// The capabilities of this node (equal to `capabilities` when the driver does not report per-node caps).
    var deviceCaps: UInt32

    /// Whether the node captures single-planar video by streaming I/O, which is what LumaScan uses.
    var canCaptureByStreaming: Bool {
        deviceCaps & V4L2Constant.capVideoCapture != 0 && deviceCaps & V4L2Constant.capStreaming != 0
    }

    /// Why the node cannot be used, for the error message; `nil` when it can.
    var unusableReason: String? {
        if canCaptureByStreaming { return nil }
        if deviceCaps & V4L2Constant.capVideoCapture == 0 {
            if deviceCaps & V4L2Constant.capVideoCaptureMultiplanar != 0 {
                return "it captures only multi-planar video, which LumaScan does not read yet"
            }
            if deviceCaps & V4L2Constant.capMetaCapture != 0 {
                return "it is a metadata node (cameras often have one next to their video node)"
            }
            return "it has no video capture capability (V4L2_CAP_VIDEO_CAPTURE)"
        }
        return "it does not support streaming I/O (V4L2_CAP_STREAMING)"
    }

    /// The names of this node's capability bits, for `lumascan devices`.
    var capabilityNames: [String] {
        let names: [(Int32, String)] = [
            (V4L2_CAP_VIDEO_CAPTURE, "videoCapture"), (V4L2_CAP_VIDEO_CAPTURE_MPLANE, "videoCaptureMultiplanar"),
            (V4L2_CAP_VIDEO_OUTPUT, "videoOutput"), (V4L2_CAP_VIDEO_OUTPUT_MPLANE, "videoOutputMultiplanar"),
            (V4L2_CAP_VIDEO_M2M, "memoryToMemory"), (V4L2_CAP_VIDEO_M2M_MPLANE, "memoryToMemoryMultiplanar"),
            (V4L2_CAP_VIDEO_OVERLAY, "videoOverlay"), (V4L2_CAP_META_CAPTURE, "metaCapture"),
            (V4L2_CAP_TUNER, "tuner"), (V4L2_CAP_AUDIO, "audio"), (V4L2_CAP_READWRITE, "readWrite"),
            (V4L2_CAP_STREAMING, "streaming"), (V4L2_CAP_EXT_PIX_FORMAT, "extendedPixelFormat"),
            (V4L2_CAP_IO_MC, "mediaController"),
        ]
        return names.compactMap { bit, name in deviceCaps & UInt32(bitPattern: bit) != 0 ? name : nil }
    }
}

/// One entry of `VIDIOC_ENUM_FMT`.
struct FormatDescription: Hashable, Sendable {
    /// The format.
    var pixelFormat: PixelFormat
    /// The driver's description, such as `YUYV 4:2:2`.
    var description: String
    /// `V4L2_FMT_FLAG_*` bits.
    var flags: UInt32

    /// Whether frames are compressed (their size varies).
    var isCompressed: Bool { flags & V4L2Constant.formatCompressed != 0 }
    /// Whether libv4l2 converts to this format in software rather than the device delivering it.
    var isEmulated: Bool { flags & V4L2Constant.formatEmulated != 0 }
}

/// A range of frame sizes in steps, as `VIDIOC_ENUM_FRAMESIZES` reports for stepwise and continuous sizes.
struct StepwiseSizes: Hashable, Sendable {
    /// The smallest size.
    var minimum: Size
    /// The largest size.
    var maximum: Size
    /// The step between widths (1 or more).
    var stepWidth: Int
    /// The step between heights (1 or more).
    var stepHeight: Int

    /// Whether `size` lies in the range and on its steps.
    func contains(_ size: Size) -> Bool {
        size.width >= minimum.width && size.width <= maximum.width && size.height >= minimum.height
            && size.height <= maximum.height && (size.width - minimum.width) % stepWidth == 0
            && (size.height - minimum.height) % stepHeight == 0
    }
}

/// The frame sizes a device offers for one pixel format.
enum FrameSizes: Hashable, Sendable {
    /// A list of sizes.
    case discrete([Size])
    /// Any size in a range, in steps (continuous ranges have steps of 1).
    case stepwise(StepwiseSizes)
}

/// A fraction, as V4L2 gives frame intervals (`1/30` is 30 frames per second).
struct Fraction: Hashable, Sendable {
    /// The numerator.
    var numerator: UInt32
    /// The denominator.
    var denominator: UInt32

    /// Frames per second when the fraction is a frame interval in seconds; `nil` when either part is 0.
    var framesPerSecond: Double? {
        guard numerator > 0, denominator > 0 else { return nil }
        return Double(denominator) / Double(numerator)
    }

    /// The frame interval for `fps` frames per second: `1/fps` for whole rates, `1000/(fps * 1000)` otherwise
    /// (29.97 becomes 1000/29970).
    init(interval fps: Double) {
        if fps.rounded() == fps, fps >= 1, fps <= Double(UInt32.max) {
            self.init(numerator: 1, denominator: UInt32(fps))
        } else {
            let scaled = (fps * 1000).rounded()
            self.init(numerator: 1000, denominator: UInt32(max(1, min(scaled, Double(UInt32.max)))))
        }
    }

    /// Creates a fraction.
    init(numerator: UInt32, denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    init(_ fraction: v4l2_fract) { self.init(numerator: fraction.numerator, denominator: fraction.denominator) }
}

/// The frame intervals a device offers for one format and size.
enum FrameIntervals: Hashable, Sendable {
    /// A list of intervals.
    case discrete([Fraction])
    /// Any interval in a range, in steps.
    case stepwise(minimum: Fraction, maximum: Fraction, step: Fraction)
}

/// The format a driver reports (`VIDIOC_G_FMT`) or settles on (`VIDIOC_S_FMT`, `VIDIOC_TRY_FMT`).
struct NegotiatedFormat: Hashable, Sendable {
    /// The layout.
    var format: FrameFormat
    /// The field order (`V4L2_FIELD_*`).
    var field: UInt32
}

/// What `VIDIOC_G_PARM` / `VIDIOC_S_PARM` report for capture.
struct StreamParameters: Hashable, Sendable {
    /// Whether the driver lets the frame rate be chosen (`V4L2_CAP_TIMEPERFRAME`).
    var supportsFrameRate: Bool
    /// The frame interval in force.
    var timePerFrame: Fraction
}

/// Where a buffer lives in the device's memory (`VIDIOC_QUERYBUF`).
struct BufferPlacement: Hashable, Sendable {
    /// The buffer's index.
    var index: Int
    /// The offset to map it at.
    var offset: Int64
    /// Its length in bytes.
    var length: Int
}

/// A buffer the driver handed back (`VIDIOC_DQBUF`).
struct DriverBuffer: Hashable, Sendable {
    /// The buffer's index.
    var index: Int
    /// Bytes of the buffer the frame fills.
    var bytesUsed: Int
    /// `V4L2_BUF_FLAG_*` bits.
    var flags: UInt32
    /// The driver's frame counter.
    var sequence: UInt32
    /// The timestamp in nanoseconds, on the clock the flags name.
    var timestampNanoseconds: UInt64

    /// Whether the driver flagged the frame as damaged (`V4L2_BUF_FLAG_ERROR`).
    var hasError: Bool { flags & V4L2Constant.bufferError != 0 }
    /// Whether the timestamp is on the monotonic clock.
    var hasMonotonicTimestamp: Bool {
        flags & V4L2Constant.bufferTimestampMask == V4L2Constant.bufferTimestampMonotonic
    }
}

/// A video input of the device (`VIDIOC_ENUMINPUT`), such as a camera or a TV tuner.
struct VideoInput: Hashable, Sendable {
    /// The input's index.
    var index: Int
    /// Its name.
    var name: String
    /// `V4L2_INPUT_TYPE_*`.
    var type: UInt32
    /// `V4L2_IN_ST_*` status bits.
    var status: UInt32
}
