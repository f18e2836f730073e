import LumaScanCapture
import LumaScanCore

/// `cameraConfig`: which camera to open and what to ask it for.
///
/// Every value is a preference the driver may adjust (``V4L2Camera`` logs what it granted); ``cameraSettings`` turns
/// the configuration into the ``CameraSettings`` a ``V4L2Camera`` takes, and ``controls`` are applied to the opened
/// camera with ``CameraControlsConfig/apply(to:)``.
public struct CameraConfig: Hashable, Sendable, Codable {
    /// The value of ``device`` that asks for the first camera found.
    public static let automaticDevice = "auto"

    /// The camera's device node, such as `/dev/video0`, or `"auto"` for the first V4L2 capture node found (the
    /// caller resolves it, with ``DeviceDiscovery``, since it depends on the machine).
    ///
    /// Default: `"auto"`.
    public let device: String
    /// The frame size to ask for (JSON: `"480p"`, `"720p"`, `"1080p"` or `"WxH"`); a preference: the nearest size
    /// the camera supports wins.
    ///
    /// Default: `"720p"` (1280×720): USB cameras deliver it at 30 fps (as MJPEG where USB 2 cannot carry raw
    /// YUYV), and barcodes and meters read well at it.
    public let captureResolution: CaptureResolution
    /// The pixel format to capture in, as a fourcc (`"YUYV"`, `"MJPG"`, `"GREY"`, `"NV12"`, `"YU12"`, `"UYVY"`,
    /// `"JPEG"`); `nil` (JSON `null`) picks the first format LumaScan reads that the camera offers.
    ///
    /// Default: `nil`.
    public let pixelFormat: PixelFormat?
    /// The frame rate to ask for, in frames per second, above 0 and at most 1000; `nil` leaves the driver's rate.
    ///
    /// Default: `nil`.
    public let fps: Double?
    /// How many capture buffers to ask the driver for (1...32); 3 or more let capture continue while a frame is
    /// being recognised.
    ///
    /// Default: `4`.
    public let bufferCount: Int
    /// The camera controls (exposure, focus, gain, …) to set once the camera is open.
    ///
    /// Default: `CameraControlsConfig()`, which leaves every control as the camera has it.
    public let controls: CameraControlsConfig

    /// Creates a camera configuration; every parameter has the default its property documents.
    public init(
        device: String = CameraConfig.automaticDevice, captureResolution: CaptureResolution = .hd720,
        pixelFormat: PixelFormat? = nil, fps: Double? = nil, bufferCount: Int = 4,
        controls: CameraControlsConfig = .init()
    ) {
        self.device = device
        self.captureResolution = captureResolution
        self.pixelFormat = pixelFormat
        self.fps = fps
        self.bufferCount = bufferCount
        self.controls = controls
    }

    /// Whether ``device`` asks for the first camera found (`"auto"`).
    public var isAutomaticDevice: Bool { device == Self.automaticDevice }

    /// The settings a ``V4L2Camera`` opened on ``device`` (or on the camera `"auto"` resolves to) starts with.
    public var cameraSettings: CameraSettings {
        CameraSettings(pixelFormat: pixelFormat, size: captureResolution.size, fps: fps, bufferCount: bufferCount)
    }

    // MARK: Validation

    func validate(_ check: ConfigurationCheck) throws(LumaScanError) {
        guard isAutomaticDevice || device.hasPrefix("/") else {
            throw check.fail(
                "device",
                "\(ConfigurationPath.quoted(device)) is neither \"auto\" nor an absolute device path such as /dev/video0"
            )
        }
        let size = captureResolution.size
        try check.nested("captureResolution").check("width", size.width, in: CaptureResolution.sideRange, unit: "px")
        try check.nested("captureResolution").check("height", size.height, in: CaptureResolution.sideRange, unit: "px")
        if let pixelFormat, !pixelFormat.isSupported {
            let known = PixelFormat.supported.map(\.description).joined(separator: ", ")
            throw check.fail("pixelFormat", "\"\(pixelFormat)\" is not a format LumaScan reads (\(known))")
        }
        if let fps {
            guard fps.isFinite else { throw check.fail("fps", "\(fps) is not a finite number") }
            guard fps > 0 else { throw check.fail("fps", "\(ConfigurationCheck.text(fps)) is not above 0") }
            try check.check("fps", fps, in: 0...1000, unit: "fps")
        }
        try check.check("bufferCount", bufferCount, in: 1...CameraSettings.maximumBufferCount)
        try controls.validate(check.nested("controls"))
    }

    // MARK: Codable

    private static let keys = ["device", "captureResolution", "pixelFormat", "fps", "bufferCount", "controls"]

    /// Decodes `cameraConfig`: absent or null keys take their defaults; unknown keys, wrong types, unknown
    /// resolutions and malformed fourccs are errors naming their JSON path. Ranges are checked by
    /// ``ScanConfiguration/validate()``.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: Self.keys)
        let container = try decoder.container(keyedBy: ConfigKey.self)
        let defaults = CameraConfig()
        device = try container.value("device", default: defaults.device)
        if let text: String = try container.optional("captureResolution") {
            guard let resolution = CaptureResolution(text) else {
                throw ConfigurationPath.error(
                    container.path("captureResolution"),
                    "\(ConfigurationPath.quoted(text)) is not 480p, 720p, 1080p or WxH (such as 1280x720)")
            }
            captureResolution = resolution
        } else {
            captureResolution = defaults.captureResolution
        }
        if let text: String = try container.optional("pixelFormat") {
            guard let format = PixelFormat(text) else {
                throw ConfigurationPath.error(
                    container.path("pixelFormat"), "\(ConfigurationPath.quoted(text)) is not a four-character code")
            }
            if !format.isSupported,
                let match = PixelFormat.supported.first(where: { $0.description == text.uppercased() })
            {
                throw ConfigurationPath.error(
                    container.path("pixelFormat"),
                    "\(ConfigurationPath.quoted(text)) is not a format LumaScan reads; did you mean \"\(match)\"?")
            }
            pixelFormat = format
        } else {
            pixelFormat = nil
        }
        fps = try container.optional("fps")
        bufferCount = try container.value("bufferCount", default: defaults.bufferCount)
        controls = try container.value("controls", default: defaults.controls)
    }

    /// Encodes every key, with `null` for the optional values that are unset, so a default document shows them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        try container.encode(device, forKey: ConfigKey(stringValue: "device"))
        try container.encode(captureResolution.description, forKey: ConfigKey(stringValue: "captureResolution"))
        try container.encode(pixelFormat?.description, forKey: ConfigKey(stringValue: "pixelFormat"))
        try container.encode(fps, forKey: ConfigKey(stringValue: "fps"))
        try container.encode(bufferCount, forKey: ConfigKey(stringValue: "bufferCount"))
        try container.encode(controls, forKey: ConfigKey(stringValue: "controls"))
    }
}

/// The frame size a camera is asked for: Anyline's `captureResolution`.
public enum CaptureResolution: Hashable, Sendable, CustomStringConvertible {
    /// 640×480 (`"480p"`).
    case sd480
    /// 1280×720 (`"720p"`).
    case hd720
    /// 1920×1080 (`"1080p"`).
    case fullHD1080
    /// Any size (`"WxH"`, such as `"1600x1200"`); each side 16...16384 pixels.
    case custom(Size)

    /// The sides a custom size may have, in pixels.
    public static let sideRange = 16...16384

    /// Parses `"480p"`, `"720p"`, `"1080p"` or `"WxH"`; `nil` for anything else.
    public init?(_ text: String) {
        switch text {
        case "480p": self = .sd480
        case "720p": self = .hd720
        case "1080p": self = .fullHD1080
        default:
            let parts = text.split(separator: "x", omittingEmptySubsequences: false)
            let isDigit: (Character) -> Bool = { ("0"..."9").contains($0) }
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(isDigit) }),
                let width = Int(parts[0]), let height = Int(parts[1])
            else { return nil }
            self = .custom(Size(width: width, height: height))
        }
    }

    /// The size in pixels.
    public var size: Size {
        switch self {
        case .sd480: Size(width: 640, height: 480)
        case .hd720: Size(width: 1280, height: 720)
        case .fullHD1080: Size(width: 1920, height: 1080)
        case .custom(let size): size
        }
    }

    /// The JSON spelling: `"720p"` or `"1600x1200"`.
    public var description: String {
        switch self {
        case .sd480: "480p"
        case .hd720: "720p"
        case .fullHD1080: "1080p"
        case .custom(let size): "\(size.width)x\(size.height)"
        }
    }
}

/// `cameraConfig.controls`: V4L2 camera controls to set once the camera is open.
///
/// Every setting is optional: `nil` (JSON `null`, or the key left out) leaves the camera's own value. Named settings
/// map to the standard V4L2 controls (found by control id, else by the names UVC and vivid drivers use); ``other``
/// sets any control by its V4L2 name, as `v4l2-ctl --list-ctrls` or `lumascan devices` print it. A camera that lacks
/// a control does not fail: ``apply(to:)`` reports the setting as ``SettingOutcome/unsupported(setting:message:)``.
public struct CameraControlsConfig: Hashable, Sendable, Codable {
    /// Automatic exposure: `true` selects the camera's automatic mode ("Auto Exposure" menu entry 3, aperture
    /// priority, which is what UVC cameras call automatic; else entry 0, fully automatic); `false` selects manual
    /// exposure (entry 1), which ``exposureAbsolute`` needs.
    ///
    /// Default: `nil` (unchanged).
    public let exposureAuto: Bool?
    /// The exposure time in the driver's units (100 µs for UVC cameras: 156 is 15.6 ms); needs ``exposureAuto``
    /// `false`. The camera's own range applies.
    ///
    /// Default: `nil` (unchanged).
    public let exposureAbsolute: Int?
    /// Continuous automatic focus ("Focus, Automatic Continuous"); `false` is needed for ``focusAbsolute``.
    ///
    /// Default: `nil` (unchanged).
    public let focusAuto: Bool?
    /// The focus position in the driver's units ("Focus, Absolute"); needs ``focusAuto`` `false`. Fixed-focus
    /// kiosks set it once for the distance codes are held at.
    ///
    /// Default: `nil` (unchanged).
    public let focusAbsolute: Int?
    /// Sensor gain ("Gain"), in the camera's range.
    ///
    /// Default: `nil` (unchanged).
    public let gain: Int?
    /// Brightness ("Brightness"), in the camera's range.
    ///
    /// Default: `nil` (unchanged).
    public let brightness: Int?
    /// Contrast ("Contrast"), in the camera's range.
    ///
    /// Default: `nil` (unchanged).
    public let contrast: Int?
    /// The mains frequency whose flicker the camera compensates ("Power Line Frequency"; JSON `"disabled"`,
    /// `"50Hz"`, `"60Hz"`, `"auto"`).
    ///
    /// Default: `nil` (unchanged).
    public let powerLineFrequency: PowerLineFrequency?
    /// Any other control, by its V4L2 name (compared as ``CameraControl/matches(name:)`` does, so `"zoom_absolute"`
    /// names "Zoom, Absolute"), with the value to set: an integer in the control's range, 0 or 1 for a boolean, a
    /// menu entry's index for a menu. A name that a named setting above covers is an error.
    ///
    /// Default: `[:]`.
    public let other: [String: Int]

    /// Creates a controls configuration; every parameter has the default its property documents.
    public init(
        exposureAuto: Bool? = nil, exposureAbsolute: Int? = nil, focusAuto: Bool? = nil, focusAbsolute: Int? = nil,
        gain: Int? = nil, brightness: Int? = nil, contrast: Int? = nil,
        powerLineFrequency: PowerLineFrequency? = nil, other: [String: Int] = [:]
    ) {
        self.exposureAuto = exposureAuto
        self.exposureAbsolute = exposureAbsolute
        self.focusAuto = focusAuto
        self.focusAbsolute = focusAbsolute
        self.gain = gain
        self.brightness = brightness
        self.contrast = contrast
        self.powerLineFrequency = powerLineFrequency
        self.other = other
    }

    /// The mains frequency a camera compensates flicker for, with the V4L2 menu index of each
    /// (`V4L2_CID_POWER_LINE_FREQUENCY`).
    public enum PowerLineFrequency: String, Hashable, Sendable, Codable, CaseIterable {
        /// No compensation (menu index 0).
        case disabled
        /// 50 Hz mains (menu index 1).
        case hz50 = "50Hz"
        /// 60 Hz mains (menu index 2).
        case hz60 = "60Hz"
        /// The camera detects the frequency (menu index 3).
        case auto

        /// The V4L2 menu index.
        public var menuIndex: Int64 {
            switch self {
            case .disabled: 0
            case .hz50: 1
            case .hz60: 2
            case .auto: 3
            }
        }
    }

    /// The JSON keys, in the order the settings are applied (automatic modes before the values they govern).
    static let keys = [
        "exposureAuto", "exposureAbsolute", "focusAuto", "focusAbsolute", "gain", "brightness", "contrast",
        "powerLineFrequency", "other",
    ]

    // MARK: Validation

    func validate(_ check: ConfigurationCheck) throws(LumaScanError) {
        let range = Int(Int32.min)...Int(Int32.max)
        for (key, value) in [
            ("exposureAbsolute", exposureAbsolute), ("focusAbsolute", focusAbsolute), ("gain", gain),
            ("brightness", brightness), ("contrast", contrast),
        ] {
            guard let value else { continue }
            guard range.contains(value) else {
                throw check.fail(key, "\(value) is outside the 32-bit range of V4L2 controls")
            }
        }
        if exposureAbsolute != nil, exposureAuto != false {
            throw check.fail(
                "exposureAbsolute",
                "needs exposureAuto false (cameras ignore a manual exposure time while automatic exposure is on)")
        }
        if focusAbsolute != nil, focusAuto != false {
            throw check.fail(
                "focusAbsolute", "needs focusAuto false (cameras ignore a focus position while autofocus is on)")
        }
        let otherCheck = check.nested("other")
        for name in other.keys.sorted() {
            let probe = CameraControl(
                id: 0, name: name, type: .integer, minimum: 0, maximum: 0, step: 1, defaultValue: 0)
            guard !probe.matches(name: "") else { throw otherCheck.fail(name, "is not a control name") }
            if let named = ControlSetting.all.first(where: { setting in
                setting.names.contains { probe.matches(name: $0) }
            }) {
                throw otherCheck.fail(name, "set it with cameraConfig.controls.\(named.key) instead")
            }
        }
    }

    // MARK: Codable

    /// Decodes `cameraConfig.controls`: absent or null keys leave the control unchanged; unknown keys, wrong types
    /// and unknown power-line frequencies are errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: Self.keys)
        let container = try decoder.container(keyedBy: ConfigKey.self)
        exposureAuto = try container.optional("exposureAuto")
        exposureAbsolute = try container.optional("exposureAbsolute")
        focusAuto = try container.optional("focusAuto")
        focusAbsolute = try container.optional("focusAbsolute")
        gain = try container.optional("gain")
        brightness = try container.optional("brightness")
        contrast = try container.optional("contrast")
        powerLineFrequency =
            try container.has("powerLineFrequency")
            ? try container.choice(
                "powerLineFrequency", PowerLineFrequency.allCases, spelling: \.rawValue, default: .disabled)
            : nil
        other = try container.value("other", default: [:])
    }

    /// Encodes every key, with `null` for the settings left unchanged, so a default document shows them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        func put<T: Encodable>(_ key: String, _ value: T?) throws {
            try container.encode(value, forKey: ConfigKey(stringValue: key))
        }
        try put("exposureAuto", exposureAuto)
        try put("exposureAbsolute", exposureAbsolute)
        try put("focusAuto", focusAuto)
        try put("focusAbsolute", focusAbsolute)
        try put("gain", gain)
        try put("brightness", brightness)
        try put("contrast", contrast)
        try put("powerLineFrequency", powerLineFrequency?.rawValue)
        try container.encode(other, forKey: ConfigKey(stringValue: "other"))
    }
}
