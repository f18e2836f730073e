import LumaScanCapture
import LumaScanCore

/// One step of applying camera or flash settings to a camera, planned from the camera's list of controls alone (see
/// ``CameraControlsConfig/plan(for:)`` and ``FlashConfig/plan(for:)``), so that the mapping from settings to
/// controls can be checked without a camera.
public enum ControlStep: Hashable, Sendable {
    /// Set `control` to `value`; `setting` is the JSON path of the setting, such as
    /// `cameraConfig.controls.brightness`.
    case set(setting: String, control: CameraControl, value: Int64)
    /// The camera has no control for the setting; `message` starts with the setting's path and says
    /// "… is not supported by this camera".
    case unsupported(setting: String, message: String)
    /// The camera has the control but cannot take the value (outside its range, not a menu entry, read-only);
    /// `message` starts with the setting's path and says why.
    case rejected(setting: String, message: String)

    /// The JSON path of the setting the step is for.
    public var setting: String {
        switch self {
        case .set(let setting, _, _), .unsupported(let setting, _), .rejected(let setting, _): setting
        }
    }
}

/// What became of one camera or flash setting applied to a camera. Applying settings never throws: a camera without
/// a control, or that refuses a value, is reported here and the other settings are still applied.
public enum SettingOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The camera's control `control` was set; `value` is the value read back from the camera afterwards.
    case applied(setting: String, control: String, value: Int64)
    /// The camera has no control for the setting: "`setting`: … is not supported by this camera".
    case unsupported(setting: String, message: String)
    /// The camera has the control but the value could not be set (out of range, refused by the driver, the camera
    /// could not be queried); the message starts with the setting's path and says why.
    case failed(setting: String, message: String)

    /// The JSON path of the setting, such as `cameraConfig.controls.exposureAuto` or `flashConfig.mode`.
    public var setting: String {
        switch self {
        case .applied(let setting, _, _), .unsupported(let setting, _), .failed(let setting, _): setting
        }
    }

    /// For example `cameraConfig.controls.gain: set 'Gain' to 12`, or the message of an unsupported or failed
    /// setting.
    public var description: String {
        switch self {
        case .applied(let setting, let control, let value): "\(setting): set '\(control)' to \(value)"
        case .unsupported(_, let message), .failed(_, let message): message
        }
    }
}

/// A named setting of ``CameraControlsConfig`` and the V4L2 controls it maps to.
struct ControlSetting: Sendable {
    /// The JSON key under `cameraConfig.controls`.
    var key: String
    /// What the setting is, for messages ("automatic exposure").
    var label: String
    /// The standard V4L2 control ids (`V4L2_CID_…`), tried first.
    var ids: [UInt32]
    /// The names drivers give the control (UVC and vivid, old and new kernels), tried when no id matches.
    var names: [String]

    static let exposureAuto = ControlSetting(
        key: "exposureAuto", label: "automatic exposure", ids: [0x009a_0901],
        names: ["Auto Exposure", "Exposure, Auto"])
    static let exposureAbsolute = ControlSetting(
        key: "exposureAbsolute", label: "a manual exposure time", ids: [0x009a_0902],
        names: ["Exposure Time, Absolute", "Exposure, Absolute"])
    static let focusAuto = ControlSetting(
        key: "focusAuto", label: "autofocus", ids: [0x009a_090c],
        names: ["Focus, Automatic Continuous", "Focus, Auto"])
    static let focusAbsolute = ControlSetting(
        key: "focusAbsolute", label: "a manual focus position", ids: [0x009a_090a], names: ["Focus, Absolute"])
    static let gain = ControlSetting(key: "gain", label: "gain", ids: [0x0098_0913], names: ["Gain"])
    static let brightness = ControlSetting(
        key: "brightness", label: "brightness", ids: [0x0098_0900], names: ["Brightness"])
    static let contrast = ControlSetting(key: "contrast", label: "contrast", ids: [0x0098_0901], names: ["Contrast"])
    static let powerLineFrequency = ControlSetting(
        key: "powerLineFrequency", label: "power line frequency compensation", ids: [0x0098_0918],
        names: ["Power Line Frequency"])

    /// Every named setting, in the order they are applied.
    static let all: [ControlSetting] = [
        .exposureAuto, .exposureAbsolute, .focusAuto, .focusAbsolute, .gain, .brightness, .contrast,
        .powerLineFrequency,
    ]

    /// The camera's control for this setting: by id, else by name.
    func find(in controls: [CameraControl]) -> CameraControl? {
        controls.first { ids.contains($0.id) }
            ?? controls.first { control in names.contains { control.matches(name: $0) } }
    }
}

extension ControlStep {
    /// The step that sets `control` to `value`, or the reason it cannot: read-only, not a menu entry, outside the
    /// range, or a string control.
    static func setting(_ setting: String, _ control: CameraControl, to value: Int64) -> ControlStep {
        func reject(_ reason: String) -> ControlStep {
            .rejected(setting: setting, message: "\(setting): cannot set '\(control.name)' to \(value): \(reason)")
        }
        if control.isReadOnly { return reject("it is read-only on this camera") }
        switch control.type {
        case .menu, .integerMenu:
            guard control.menuItems.contains(where: { $0.index == value }) else {
                return reject("not one of its entries (\(entries(of: control)))")
            }
        case .boolean:
            guard value == 0 || value == 1 else { return reject("it is a boolean control, which takes 0 or 1") }
        case .integer, .integer64, .bitmask:
            guard value >= control.minimum, value <= control.maximum else {
                return reject("outside this camera's range \(control.minimum)...\(control.maximum)")
            }
        case .button:
            break
        case .string:
            return reject("string controls are not supported")
        }
        return .set(setting: setting, control: control, value: value)
    }

    /// A menu's entries as `0 (Off), 1 (On)`.
    static func entries(of control: CameraControl) -> String {
        control.menuItems.map { "\($0.index) (\($0.name))" }.joined(separator: ", ")
    }

    /// The index of the first entry of menu `control` whose name is one of `names` (ignoring case and punctuation),
    /// else the first of `fallbackIndices` the menu has.
    static func menuEntry(of control: CameraControl, named names: [String], fallbackIndices: [Int64]) -> Int64? {
        for name in names {
            let probe = CameraControl(
                id: 0, name: name, type: .integer, minimum: 0, maximum: 0, step: 1, defaultValue: 0)
            if let item = control.menuItems.first(where: { probe.matches(name: $0.name) }) { return item.index }
        }
        return fallbackIndices.first { index in control.menuItems.contains { $0.index == index } }
    }

    /// Performs `steps` on `camera` in order: each `set` step sets its control and reads the value back (the driver
    /// may round it, or keep another); errors become ``SettingOutcome/failed(setting:message:)``.
    static func perform(_ steps: [ControlStep], on camera: some ControllableCamera) -> [SettingOutcome] {
        steps.map { step in
            switch step {
            case .unsupported(let setting, let message):
                return .unsupported(setting: setting, message: message)
            case .rejected(let setting, let message):
                return .failed(setting: setting, message: message)
            case .set(let setting, let control, let value):
                do {
                    let kept = try camera.setControl(id: control.id, value: value)
                    let readable = control.type != .button && !control.isWriteOnly
                    let readBack = readable ? ((try? camera.getControl(id: control.id)) ?? kept) : kept
                    return .applied(setting: setting, control: control.name, value: readBack)
                } catch {
                    return .failed(
                        setting: setting, message: "\(setting): setting '\(control.name)' to \(value) failed: \(error)")
                }
            }
        }
    }

    /// Performs the plan `plan` makes from `camera`'s controls; when the controls cannot be listed, every setting
    /// the plan has for a camera without controls fails with the reason.
    static func apply(
        on camera: some ControllableCamera, plan: ([CameraControl]) -> [ControlStep]
    ) -> [SettingOutcome] {
        let controls: [CameraControl]
        do {
            controls = try camera.controls()
        } catch {
            return plan([]).map { step in
                .failed(setting: step.setting, message: "\(step.setting): cannot read the camera's controls: \(error)")
            }
        }
        return perform(plan(controls), on: camera)
    }
}

extension CameraControlsConfig {
    /// The steps that apply these settings to a camera with `controls`, in order: automatic modes before the values
    /// they govern, then the named settings, then ``other`` by name. Pure: it looks only at `controls`.
    ///
    /// A setting whose control the camera lacks becomes ``ControlStep/unsupported(setting:message:)``; a value the
    /// control cannot take (outside its range, not a menu entry, read-only) ``ControlStep/rejected(setting:message:)``.
    /// Settings left `nil` have no step.
    public func plan(for controls: [CameraControl]) -> [ControlStep] {
        let base = "cameraConfig.controls"
        var steps: [ControlStep] = []

        func step(_ setting: ControlSetting, _ value: (CameraControl) -> ControlStep) {
            let path = "\(base).\(setting.key)"
            guard let control = setting.find(in: controls) else {
                steps.append(
                    .unsupported(
                        setting: path,
                        message: "\(path): \(setting.label) is not supported by this camera "
                            + "(it has no '\(setting.names[0])' control)"))
                return
            }
            steps.append(value(control))
        }
        func number(_ setting: ControlSetting, _ value: Int?) {
            guard let value else { return }
            step(setting) { .setting("\(base).\(setting.key)", $0, to: Int64(value)) }
        }
        func automatic(_ setting: ControlSetting, _ on: Bool?) {
            guard let on else { return }
            let path = "\(base).\(setting.key)"
            step(setting) { control in
                switch control.type {
                case .menu, .integerMenu:
                    // V4L2_CID_EXPOSURE_AUTO: 0 auto, 1 manual, 2 shutter priority, 3 aperture priority. UVC cameras
                    // offer 1 and 3, and call 3 automatic.
                    let wanted: [Int64] = on ? [3, 0] : [1]
                    guard let index = wanted.first(where: { index in control.menuItems.contains { $0.index == index } })
                    else {
                        return .rejected(
                            setting: path,
                            message: "\(path): '\(control.name)' has no \(on ? "automatic" : "manual") entry "
                                + "(\(ControlStep.entries(of: control)))")
                    }
                    return .setting(path, control, to: index)
                default:
                    return .setting(path, control, to: on ? 1 : 0)
                }
            }
        }

        automatic(.exposureAuto, exposureAuto)
        number(.exposureAbsolute, exposureAbsolute)
        automatic(.focusAuto, focusAuto)
        number(.focusAbsolute, focusAbsolute)
        number(.gain, gain)
        number(.brightness, brightness)
        number(.contrast, contrast)
        if let powerLineFrequency {
            let path = "\(base).powerLineFrequency"
            step(.powerLineFrequency) { control in
                guard control.type == .menu || control.type == .integerMenu else {
                    return .setting(path, control, to: powerLineFrequency.menuIndex)
                }
                guard control.menuItems.contains(where: { $0.index == powerLineFrequency.menuIndex }) else {
                    return .rejected(
                        setting: path,
                        message: "\(path): \"\(powerLineFrequency.rawValue)\" is not supported by this camera's "
                            + "'\(control.name)' (\(ControlStep.entries(of: control)))")
                }
                return .setting(path, control, to: powerLineFrequency.menuIndex)
            }
        }
        for (name, value) in other.sorted(by: { $0.key < $1.key }) {
            let path = "\(base).other.\(name)"
            guard let control = controls.first(where: { $0.matches(name: name) }) else {
                steps.append(
                    .unsupported(
                        setting: path, message: "\(path): control '\(name)' is not supported by this camera"))
                continue
            }
            steps.append(.setting(path, control, to: Int64(value)))
        }
        return steps
    }

    /// Sets every configured control on `camera` (open or not: a stopped camera opens its node briefly) and reports
    /// what became of each setting. Never throws: a control the camera lacks is
    /// ``SettingOutcome/unsupported(setting:message:)``, a refused value ``SettingOutcome/failed(setting:message:)``.
    public func apply(to camera: some ControllableCamera) -> [SettingOutcome] {
        ControlStep.apply(on: camera, plan: plan(for:))
    }
}
