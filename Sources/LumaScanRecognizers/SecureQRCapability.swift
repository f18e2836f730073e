import LumaScanCore

/// What a camera offers, as the secure-QR capability check needs it: its name, the modes (format, size, frame rates)
/// LumaScan can read, and its controls.
///
/// `lumascan devices` builds one from a device's `DeviceInfo` (only formats LumaScan can read); tests and
/// applications can build one directly.
public struct SecureQRCameraDescription: Hashable, Sendable, Codable {
    /// One format and size a camera delivers, with its frame rates.
    public struct Mode: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The pixel format's four-character code, such as `YUYV` or `MJPG`.
        public var pixelFormat: String
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Frame rates in frames per second; empty when the driver does not say.
        public var frameRates: [Double]

        /// Creates a mode.
        public init(pixelFormat: String, width: Int, height: Int, frameRates: [Double]) {
            self.pixelFormat = pixelFormat
            self.width = width
            self.height = height
            self.frameRates = frameRates
        }

        /// `"YUYV 1280x720@30"`.
        public var description: String {
            let rate = frameRates.max().map { "@\(Self.format($0))" } ?? ""
            return "\(pixelFormat) \(width)x\(height)\(rate)"
        }

        static func format(_ rate: Double) -> String {
            rate == rate.rounded() ? "\(Int(rate))" : "\((rate * 1000).rounded() / 1000)"
        }
    }

    /// One of the camera's controls.
    public struct Control: Hashable, Sendable, Codable {
        /// The V4L2 control id (`V4L2_CID_*`).
        public var id: UInt32
        /// The driver's name for it, such as `Focus, Automatic Continuous`.
        public var name: String

        /// Creates a control.
        public init(id: UInt32, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// The camera's name (V4L2 card name), matched against ``SecureQRCameraRequirements/fixedFocusCameras``.
    public var name: String
    /// The modes LumaScan can read.
    public var modes: [Mode]
    /// The camera's controls.
    public var controls: [Control]

    /// Creates a description.
    public init(name: String, modes: [Mode], controls: [Control]) {
        self.name = name
        self.modes = modes
        self.controls = controls
    }

    /// V4L2 focus controls: `V4L2_CID_FOCUS_ABSOLUTE`, `_RELATIVE`, `_AUTO` and `V4L2_CID_AUTO_FOCUS_START`.
    public static let focusControlIDs: Set<UInt32> = [0x009a_090a, 0x009a_090b, 0x009a_090c, 0x009a_091c]

    /// Whether the camera has a focus control (automatic or manual), by V4L2 id or, for drivers with private
    /// controls, by a name containing "focus".
    public var hasFocusControl: Bool {
        controls.contains { Self.focusControlIDs.contains($0.id) || $0.name.lowercased().contains("focus") }
    }
}

/// What a camera needs for secure-QR authentication (the ScanTrust SDK's `STPhoneManager.isPhoneSupported`): enough
/// resolution and frame rate to resolve the secure graphic of a code held at a comfortable distance, and a way to
/// focus on it.
public struct SecureQRCameraRequirements: Hashable, Sendable, Codable {
    /// The smallest long side, in pixels, of a usable mode (portrait or landscape).
    ///
    /// Default: `1280`.
    public var minimumLongSide: Int
    /// The smallest short side, in pixels, of a usable mode.
    ///
    /// Default: `720`.
    public var minimumShortSide: Int
    /// The lowest frame rate, in frames per second, of a usable mode.
    ///
    /// Default: `15`.
    public var minimumFrameRate: Double
    /// Whether the camera must have a focus control (autofocus or manual focus).
    ///
    /// Default: `true`.
    public var requireFocusControl: Bool
    /// Names (V4L2 card names, compared without regard to case; a name matches when it contains an entry) of
    /// fixed-focus cameras known to be sharp at scanning distance, exempt from ``requireFocusControl``.
    ///
    /// Default: `[]`.
    public var fixedFocusCameras: [String]

    /// Creates requirements; every parameter has the default its property documents.
    public init(
        minimumLongSide: Int = 1280, minimumShortSide: Int = 720, minimumFrameRate: Double = 15,
        requireFocusControl: Bool = true, fixedFocusCameras: [String] = []
    ) {
        self.minimumLongSide = minimumLongSide
        self.minimumShortSide = minimumShortSide
        self.minimumFrameRate = minimumFrameRate
        self.requireFocusControl = requireFocusControl
        self.fixedFocusCameras = fixedFocusCameras
    }

    /// Decides whether `camera` supports secure-QR authentication, and says why not.
    public func check(_ camera: SecureQRCameraDescription) -> SecureQRCameraSupport {
        var reasons: [String] = []
        func large(_ mode: SecureQRCameraDescription.Mode) -> Bool {
            max(mode.width, mode.height) >= minimumLongSide && min(mode.width, mode.height) >= minimumShortSide
        }
        func fast(_ mode: SecureQRCameraDescription.Mode) -> Bool { (mode.frameRates.max() ?? 0) >= minimumFrameRate }
        let usable = camera.modes.filter { large($0) && fast($0) }
        // The best mode: the smallest usable resolution (cheapest to process), then the highest frame rate.
        let best = usable.min { a, b in
            a.width * a.height != b.width * b.height
                ? a.width * a.height < b.width * b.height : (a.frameRates.max() ?? 0) > (b.frameRates.max() ?? 0)
        }
        if camera.modes.isEmpty {
            reasons.append("it offers no format LumaScan can read")
        } else if best == nil {
            let wanted =
                "\(minimumLongSide)x\(minimumShortSide) at \(SecureQRCameraDescription.Mode.format(minimumFrameRate)) fps"
            let largest = camera.modes.max { $0.width * $0.height < $1.width * $1.height }
            let largeModes = camera.modes.filter(large)
            if largeModes.isEmpty {
                reasons.append(
                    "no mode reaches \(minimumLongSide)x\(minimumShortSide) (largest: \(largest?.description ?? "none"))"
                )
            } else if largeModes.allSatisfy({ $0.frameRates.isEmpty }) {
                reasons.append("the driver does not report frame rates for modes of \(wanted)")
            } else {
                let fastest = largeModes.max { ($0.frameRates.max() ?? 0) < ($1.frameRates.max() ?? 0) }
                reasons.append("no mode reaches \(wanted) (best: \(fastest?.description ?? "none"))")
            }
        }
        let exempt = fixedFocusCameras.contains { !$0.isEmpty && camera.name.lowercased().contains($0.lowercased()) }
        if requireFocusControl && !camera.hasFocusControl && !exempt {
            reasons.append("it has no focus control and is not a listed fixed-focus camera")
        }
        return SecureQRCameraSupport(isSupported: reasons.isEmpty, reasons: reasons, bestMode: best)
    }
}

/// The verdict of ``SecureQRCameraRequirements/check(_:)``.
public struct SecureQRCameraSupport: Hashable, Sendable, Codable {
    /// Whether the camera supports secure-QR authentication; when not, use ``SecureQRMode/unsupported``.
    public var isSupported: Bool
    /// Why not, one reason per unmet requirement; empty when supported.
    public var reasons: [String]
    /// The mode to capture in: the smallest resolution meeting the requirements, at its highest frame rate.
    public var bestMode: SecureQRCameraDescription.Mode?

    /// Creates a verdict.
    public init(isSupported: Bool, reasons: [String], bestMode: SecureQRCameraDescription.Mode?) {
        self.isSupported = isSupported
        self.reasons = reasons
        self.bestMode = bestMode
    }

    /// The mode a recognizer on this camera should use: ``SecureQRMode/secure`` when supported, else
    /// ``SecureQRMode/unsupported``.
    public var recognizerMode: SecureQRMode { isSupported ? .secure : .unsupported }
}
