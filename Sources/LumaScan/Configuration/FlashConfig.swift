import LumaScanCapture
import LumaScanCore

/// `flashConfig`: the camera's LED or torch, where it has one.
///
/// USB cameras with an LED expose it as a V4L2 control: UVC cameras as "LED1 Mode" (a menu: Off, On, Blink, Auto),
/// flash-class drivers as "LED Mode" (None, Flash, Torch); others as a control named after a torch or LED.
/// ``apply(to:)`` sets it, and reports a camera without one as
/// ``SettingOutcome/unsupported(setting:message:)`` ("… is not supported by this camera") rather than failing.
public struct FlashConfig: Hashable, Sendable, Codable {
    /// What to do with the camera's LED.
    public enum Mode: String, Hashable, Sendable, Codable, CaseIterable {
        /// Leave the LED as the camera has it, and do not look for one (JSON `"none"`); a LumaScan extension, so a
        /// camera without an LED reports nothing.
        case none
        /// Turn the LED on for as long as the camera is in use (JSON `"manual_on"`).
        case manualOn = "manual_on"
        /// Turn the LED off (JSON `"manual_off"`).
        case manualOff = "manual_off"
        /// Let the camera switch the LED as light requires (JSON `"auto"`): the LED control's "Auto" entry, so only
        /// cameras whose LED has one support it.
        case auto
    }

    /// What to do with the camera's LED.
    ///
    /// Default: ``Mode/none`` (`"none"`): the LED is left alone, so cameras without one report nothing.
    public let mode: Mode

    /// Creates a flash configuration; every parameter has the default its property documents.
    public init(mode: Mode = .none) {
        self.mode = mode
    }

    /// The JSON path of the setting, in steps and outcomes.
    static let setting = "flashConfig.mode"

    /// The steps that apply ``mode`` to a camera with `controls`: none for ``Mode/none``, else one, which is
    /// ``ControlStep/unsupported(setting:message:)`` when the camera has no LED or torch control (or none that can
    /// do ``Mode/auto``). Pure: it looks only at `controls`.
    ///
    /// The LED control is, in order: "LED1 Mode" (UVC), the flash class's "LED Mode", then the first menu or boolean
    /// control whose name holds "torch", then one whose name holds the word "LED".
    public func plan(for controls: [CameraControl]) -> [ControlStep] {
        let path = Self.setting
        guard mode != .none else { return [] }
        guard let control = Self.ledControl(in: controls) else {
            return [
                .unsupported(
                    setting: path,
                    message: "\(path): \(mode.rawValue): a flash (LED or torch) is not supported by this camera "
                        + "(it has no 'LED1 Mode', 'LED Mode' or torch control)")
            ]
        }
        switch control.type {
        case .menu, .integerMenu:
            let entry: Int64?
            switch mode {
            case .manualOn: entry = ControlStep.menuEntry(of: control, named: ["On", "Torch"], fallbackIndices: [])
            case .manualOff: entry = ControlStep.menuEntry(of: control, named: ["Off", "None"], fallbackIndices: [0])
            case .auto, .none: entry = ControlStep.menuEntry(of: control, named: ["Auto"], fallbackIndices: [])
            }
            guard let entry else {
                return [
                    .unsupported(
                        setting: path,
                        message: "\(path): \(mode.rawValue) is not supported by this camera's '\(control.name)' "
                            + "(\(ControlStep.entries(of: control)))")
                ]
            }
            return [.setting(path, control, to: entry)]
        default:
            guard mode != .auto else {
                return [
                    .unsupported(
                        setting: path,
                        message: "\(path): auto is not supported by this camera: '\(control.name)' only switches "
                            + "on and off")
                ]
            }
            return [.setting(path, control, to: mode == .manualOn ? 1 : 0)]
        }
    }

    /// Sets the camera's LED as ``mode`` says and reports what became of it (nothing for ``Mode/none``). Never
    /// throws: a camera without an LED control is ``SettingOutcome/unsupported(setting:message:)``.
    public func apply(to camera: some ControllableCamera) -> [SettingOutcome] {
        ControlStep.apply(on: camera, plan: plan(for:))
    }

    /// The camera's LED control, if it has one.
    static func ledControl(in controls: [CameraControl]) -> CameraControl? {
        let switchable = controls.filter {
            ($0.type == .menu || $0.type == .integerMenu || $0.type == .boolean) && !$0.isReadOnly
        }
        if let uvc = switchable.first(where: { $0.matches(name: "LED1 Mode") }) { return uvc }
        // V4L2_CID_FLASH_LED_MODE.
        if let flash = switchable.first(where: { $0.id == 0x009c_0901 || $0.matches(name: "LED Mode") }) {
            return flash
        }
        if let torch = switchable.first(where: { $0.name.lowercased().contains("torch") }) { return torch }
        // A word "LED", or "LED" and a number ("LED2").
        func isLEDWord(_ word: Substring) -> Bool { word.hasPrefix("led") && word.dropFirst(3).allSatisfy(\.isNumber) }
        return switchable.first { control in
            control.name.lowercased().split { !$0.isLetter && !$0.isNumber }.contains(where: isLEDWord)
        }
    }

    // MARK: Codable

    /// Decodes `flashConfig`: an absent or null `mode` is ``Mode/none``; unknown keys and modes are errors naming
    /// their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: ["mode"])
        let container = try decoder.container(keyedBy: ConfigKey.self)
        mode = try container.choice("mode", Mode.allCases, spelling: \.rawValue, default: .none)
    }

    /// Encodes `{"mode": …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        try container.encode(mode.rawValue, forKey: ConfigKey(stringValue: "mode"))
    }
}
