import Logging
import LumaScanCore

#if canImport(Glibc)
import Glibc
#endif

/// A camera found by ``DeviceDiscovery``: what the node is, and the formats, sizes, frame rates and controls it offers.
///
/// `Codable` for `lumascan devices --json`.
public struct DeviceInfo: Hashable, Sendable, Codable {
    /// The node's path, such as `/dev/video0`.
    public var path: String
    /// The device's name, such as `HD Pro Webcam C920`.
    public var card: String
    /// The driver's name, such as `uvcvideo`.
    public var driver: String
    /// Where the device is attached, such as `usb-0000:00:14.0-1`.
    public var busInfo: String
    /// The node's capabilities, such as `videoCapture` and `streaming`.
    public var capabilities: [String]
    /// The formats the device delivers natively (formats libv4l2 would emulate in software are left out).
    public var formats: [FormatInfo]
    /// The device's controls with their current values.
    public var controls: [ControlInfo]

    /// Creates a device description.
    public init(
        path: String, card: String, driver: String, busInfo: String, capabilities: [String], formats: [FormatInfo],
        controls: [ControlInfo]
    ) {
        self.path = path
        self.card = card
        self.driver = driver
        self.busInfo = busInfo
        self.capabilities = capabilities
        self.formats = formats
        self.controls = controls
    }
}

/// A pixel format a device offers, with its sizes.
public struct FormatInfo: Hashable, Sendable, Codable {
    /// The four-character code, such as `YUYV` or `MJPG`.
    public var fourcc: String
    /// The driver's description, such as `YUYV 4:2:2`.
    public var description: String
    /// Whether frames are compressed.
    public var compressed: Bool
    /// Whether LumaScan can read luma from the format.
    public var supported: Bool
    /// The frame sizes offered: every discrete size, or for a stepwise or continuous range its smallest and largest
    /// size and the standard sizes (640x480, 1280x720, 1920x1080) on its steps. Empty when the driver does not
    /// enumerate sizes.
    public var sizes: [SizeInfo]

    /// Creates a format description.
    public init(fourcc: String, description: String, compressed: Bool, supported: Bool, sizes: [SizeInfo]) {
        self.fourcc = fourcc
        self.description = description
        self.compressed = compressed
        self.supported = supported
        self.sizes = sizes
    }
}

/// A frame size a device offers, with its frame rates.
public struct SizeInfo: Hashable, Sendable, Codable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Frame rates in frames per second, highest first (rounded to 0.001): every discrete rate, or for a range its
    /// highest and lowest and the common rates (60, 30, 25, 15, 10, 5) between. Empty when the driver does not
    /// enumerate intervals.
    public var frameRates: [Double]

    /// Creates a size description.
    public init(width: Int, height: Int, frameRates: [Double]) {
        self.width = width
        self.height = height
        self.frameRates = frameRates
    }
}

/// Finds the V4L2 nodes that can capture video by streaming, and describes them.
public enum DeviceDiscovery {
    /// Every `/dev/video*` node that can capture by streaming, in numeric order (`video2` before `video10`), described.
    ///
    /// Nodes that cannot be opened or queried (no permission, in an odd state) are logged and left out, as are
    /// metadata, output and multi-planar nodes.
    public static func captureDevices(logger: Logger) -> [DeviceInfo] {
        captureDevices(paths: videoNodePaths(in: "/dev"), syscalls: SystemV4L2Syscalls(), logger: logger)
    }

    /// Describes the node at `path`.
    ///
    /// - Throws: ``CaptureError`` when it cannot be opened or queried, or ``CaptureError/Code/notACaptureDevice``
    ///   when it cannot capture by streaming.
    public static func describe(device path: String, logger: Logger) throws(CaptureError) -> DeviceInfo {
        try describe(device: path, syscalls: SystemV4L2Syscalls(), logger: logger)
    }

    static func captureDevices(paths: [String], syscalls: any V4L2Syscalls, logger: Logger) -> [DeviceInfo] {
        paths.compactMap { path in
            do throws(CaptureError) {
                return try describe(device: path, syscalls: syscalls, logger: logger)
            } catch  where error.code == .notACaptureDevice {
                logger.debug("skipping node", metadata: ["device": "\(path)", "reason": "\(error)"])
                return nil
            } catch {
                logger.notice("cannot describe node", metadata: ["device": "\(path)", "error": "\(error)"])
                return nil
            }
        }
    }

    static func describe(
        device path: String, syscalls: any V4L2Syscalls, logger: Logger
    ) throws(CaptureError)
        -> DeviceInfo
    {
        let device = try V4L2Device.open(path, syscalls: syscalls)
        defer { device.close() }
        let capabilities = try device.queryCapabilities()
        if let reason = capabilities.unusableReason {
            throw CaptureError(
                .notACaptureDevice, device: path, call: "VIDIOC_QUERYCAP",
                message: "\(path) (\(capabilities.card)) is not a capture device: \(reason)")
        }
        var formats: [FormatInfo] = []
        for description in try device.enumerateFormats() where !description.isEmulated {
            let pixelFormat = description.pixelFormat
            // A driver that fails to enumerate sizes or intervals still has a usable format: list what it gave.
            var sizes: [SizeInfo] = []
            let frameSizes: FrameSizes?
            do {
                frameSizes = try device.enumerateFrameSizes(pixelFormat)
            } catch {
                logger.notice("cannot list frame sizes", metadata: ["device": "\(path)", "error": "\(error)"])
                frameSizes = nil
            }
            for size in listedSizes(frameSizes) {
                var intervals: FrameIntervals?
                do {
                    intervals = try device.enumerateFrameIntervals(pixelFormat, size: size)
                } catch {
                    logger.notice("cannot list frame rates", metadata: ["device": "\(path)", "error": "\(error)"])
                }
                sizes.append(SizeInfo(width: size.width, height: size.height, frameRates: frameRates(intervals)))
            }
            formats.append(
                FormatInfo(
                    fourcc: pixelFormat.description, description: description.description,
                    compressed: description.isCompressed, supported: pixelFormat.isSupported, sizes: sizes))
        }
        let controls: [CameraControl]
        do {
            controls = try device.controlsWithValues(logger: logger)
        } catch {
            logger.notice("cannot list controls", metadata: ["device": "\(path)", "error": "\(error)"])
            controls = []
        }
        return DeviceInfo(
            path: path, card: capabilities.card, driver: capabilities.driver, busInfo: capabilities.busInfo,
            capabilities: capabilities.capabilityNames, formats: formats, controls: controls)
    }

    /// The sizes to list for what `VIDIOC_ENUM_FRAMESIZES` reported.
    static func listedSizes(_ sizes: FrameSizes?) -> [Size] {
        switch sizes {
        case nil: return []
        case .discrete(let list): return list
        case .stepwise(let range): return FormatSelection.listedSizes(range)
        }
    }

    /// Common frame rates listed inside a stepwise or continuous interval range.
    static let commonFrameRates: [Double] = [60, 30, 25, 15, 10, 5]

    /// The frame rates to list for what `VIDIOC_ENUM_FRAMEINTERVALS` reported, highest first, without duplicates.
    static func frameRates(_ intervals: FrameIntervals?) -> [Double] {
        func rounded(_ fps: Double) -> Double { (fps * 1000).rounded() / 1000 }
        var rates: [Double]
        switch intervals {
        case nil:
            return []
        case .discrete(let list):
            rates = list.compactMap(\.framesPerSecond).map(rounded)
        case .stepwise(let minimum, let maximum, _):
            // The shortest interval is the highest rate.
            guard let highest = minimum.framesPerSecond.map(rounded), let lowest = maximum.framesPerSecond.map(rounded)
            else { return [] }
            rates = [highest] + commonFrameRates.filter { $0 < highest && $0 > lowest } + [lowest]
        }
        var seen: Set<Double> = []
        return rates.sorted(by: >).filter { seen.insert($0).inserted }
    }

    /// The paths of the `video<N>` nodes in `directory`, in numeric order.
    static func videoNodePaths(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var numbered: [(Int, String)] = []
        while let entry = readdir(stream) {
            // SAFETY: readdir's entry stays valid until the next readdir or closedir on this stream; it is copied here.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let number = videoNodeNumber(name) { numbered.append((number, name)) }
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return numbered.sorted { $0.0 < $1.0 }.map { prefix + $0.1 }
    }

    /// `N` for a name `video<N>` (decimal digits only), otherwise `nil`.
    static func videoNodeNumber(_ name: String) -> Int? {
        guard name.hasPrefix("video") else { return nil }
        let digits = name.dropFirst("video".count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }
}
