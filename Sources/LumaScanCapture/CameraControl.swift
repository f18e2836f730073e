/// A V4L2 control of a camera, such as brightness, contrast or exposure: its range, default and current value.
///
/// ``V4L2Camera/controls()`` lists a camera's controls; ``DeviceInfo/controls`` carries them for `lumascan devices`.
public struct CameraControl: Hashable, Sendable, Codable {
    /// The kind of value a control takes.
    public enum ControlType: String, Hashable, Sendable, Codable, CustomStringConvertible {
        /// A 32-bit integer in `minimum...maximum`, in steps of `step`.
        case integer
        /// 0 or 1.
        case boolean
        /// An index into ``CameraControl/menuItems``.
        case menu
        /// An index into ``CameraControl/menuItems``, whose names are integers (`V4L2_CTRL_TYPE_INTEGER_MENU`).
        case integerMenu
        /// An action with no value: setting it (to any value) presses it.
        case button
        /// A 64-bit integer.
        case integer64
        /// A string (listed, but not read or set by LumaScan).
        case string
        /// A bit mask.
        case bitmask

        /// The raw value, such as `integer`.
        public var description: String { rawValue }
    }

    /// One entry of a menu control.
    public struct MenuItem: Hashable, Sendable, Codable {
        /// The value that selects the entry.
        public var index: Int64
        /// The entry's name (for integer menus, the integer as text).
        public var name: String

        /// Creates a menu entry.
        public init(index: Int64, name: String) {
            self.index = index
            self.name = name
        }
    }

    /// The control's id (`V4L2_CID_BRIGHTNESS` and so on).
    public var id: UInt32
    /// The driver's name for the control, such as `Brightness`.
    public var name: String
    /// The kind of value the control takes.
    public var type: ControlType
    /// The smallest value.
    public var minimum: Int64
    /// The largest value.
    public var maximum: Int64
    /// The step between valid values (0 or 1 for most non-integer controls).
    public var step: UInt64
    /// The driver's default value.
    public var defaultValue: Int64
    /// The current value, when it could be read; `nil` for buttons, strings, write-only controls and controls that
    /// failed to read.
    public var value: Int64?
    /// The entries of a menu or integer-menu control; empty for other types.
    public var menuItems: [MenuItem]
    /// Whether the control can be read but not set.
    public var isReadOnly: Bool
    /// Whether the control is inactive now (another control, such as an automatic mode, overrides it).
    public var isInactive: Bool
    /// Whether the control can be set but not read.
    public var isWriteOnly: Bool

    /// Creates a control description.
    public init(
        id: UInt32, name: String, type: ControlType, minimum: Int64, maximum: Int64, step: UInt64,
        defaultValue: Int64, value: Int64? = nil, menuItems: [MenuItem] = [], isReadOnly: Bool = false,
        isInactive: Bool = false, isWriteOnly: Bool = false
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.value = value
        self.menuItems = menuItems
        self.isReadOnly = isReadOnly
        self.isInactive = isInactive
        self.isWriteOnly = isWriteOnly
    }

    /// Whether `name` names this control: case-insensitively, with spaces, underscores and punctuation equivalent,
    /// so the names `v4l2-ctl --list-ctrls` prints match too (`exposure_time_absolute` and `Exposure time absolute`
    /// match `Exposure Time, Absolute`).
    public func matches(name: String) -> Bool {
        CameraControl.normalized(name) == CameraControl.normalized(self.name)
    }

    /// The form names are compared in: lowercased letters and digits, each run of anything else one space, trimmed.
    static func normalized(_ name: String) -> String {
        var result = ""
        result.reserveCapacity(name.utf8.count)
        var pendingSeparator = false
        for character in name.lowercased() {
            guard character.isLetter || character.isNumber else {
                pendingSeparator = !result.isEmpty
                continue
            }
            if pendingSeparator { result.append(" ") }
            pendingSeparator = false
            result.append(character)
        }
        return result
    }
}

/// A control as `lumascan devices --json` lists it: the same description as ``CameraControl``.
public typealias ControlInfo = CameraControl

/// A camera whose V4L2 controls can be listed, read and set: the capability the engine looks for in its source to
/// apply a configuration's camera settings. ``V4L2Camera`` has it; recordings, image files and synthetic sources do
/// not, and their settings are simply not applied.
public protocol ControllableCamera: AnyObject, Sendable {
    /// The camera's controls with their current values.
    func controls() throws -> [CameraControl]
    /// Sets control `id`; returns the value the driver kept.
    func setControl(id: UInt32, value: Int64) throws -> Int64
    /// Reads control `id`.
    func getControl(id: UInt32) throws -> Int64
}

extension V4L2Camera: ControllableCamera {}
