import Foundation
import Synchronization
import Testing

@testable import LumaScan

/// Controls as a UVC webcam (a Logitech C920 on a recent kernel) lists them.
enum ControlFixtures {
    static func menu(_ id: UInt32, _ name: String, _ items: [(Int64, String)], value: Int64) -> CameraControl {
        CameraControl(
            id: id, name: name, type: .menu, minimum: items.map(\.0).min() ?? 0, maximum: items.map(\.0).max() ?? 0,
            step: 1, defaultValue: items.first?.0 ?? 0, value: value,
            menuItems: items.map { CameraControl.MenuItem(index: $0.0, name: $0.1) })
    }

    static func integer(_ id: UInt32, _ name: String, _ range: ClosedRange<Int64>, step: UInt64 = 1) -> CameraControl {
        CameraControl(
            id: id, name: name, type: .integer, minimum: range.lowerBound, maximum: range.upperBound, step: step,
            defaultValue: range.lowerBound, value: range.lowerBound)
    }

    static func boolean(_ id: UInt32, _ name: String) -> CameraControl {
        CameraControl(id: id, name: name, type: .boolean, minimum: 0, maximum: 1, step: 1, defaultValue: 1, value: 1)
    }

    static let uvc: [CameraControl] = [
        integer(0x0098_0900, "Brightness", 0...255),
        integer(0x0098_0901, "Contrast", 0...255),
        integer(0x0098_0913, "Gain", 0...255),
        menu(0x0098_0918, "Power Line Frequency", [(0, "Disabled"), (1, "50 Hz"), (2, "60 Hz")], value: 2),
        menu(0x009a_0901, "Auto Exposure", [(1, "Manual Mode"), (3, "Aperture Priority Mode")], value: 3),
        integer(0x009a_0902, "Exposure Time, Absolute", 3...2047),
        boolean(0x009a_090c, "Focus, Automatic Continuous"),
        integer(0x009a_090a, "Focus, Absolute", 0...250, step: 5),
        integer(0x009a_090d, "Zoom, Absolute", 100...500),
        menu(0x0a04_6d05, "LED1 Mode", [(0, "Off"), (1, "On"), (2, "Blink"), (3, "Auto")], value: 3),
    ]

    /// vivid's user controls: no exposure, focus or LED.
    static let vivid: [CameraControl] = [
        integer(0x0098_0900, "Brightness", 0...255),
        integer(0x0098_0901, "Contrast", 0...255),
        integer(0x0098_0902, "Saturation", 0...255),
        integer(0x0098_0903, "Hue", -128...128),
        boolean(0x0098_0912, "Gain, Automatic"),
        integer(0x0098_0913, "Gain", 0...255),
    ]
}

/// A camera that keeps control values in memory and rounds integers to their step, as drivers do.
final class ScriptedCamera: ControllableCamera, @unchecked Sendable {
    // SAFETY (Sendable): used from one test at a time.
    var list: [CameraControl]
    var values: [UInt32: Int64] = [:]
    var refused: Set<UInt32> = []
    var listFails = false
    var sets: [(UInt32, Int64)] = []

    init(_ list: [CameraControl]) {
        self.list = list
        for control in list { values[control.id] = control.value }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func controls() throws -> [CameraControl] {
        if listFails { throw Failure(description: "/dev/video9: no such device") }
        return list
    }

    func setControl(id: UInt32, value: Int64) throws -> Int64 {
        sets.append((id, value))
        if refused.contains(id) { throw Failure(description: "VIDIOC_S_CTRL: device busy") }
        let step = Int64(list.first { $0.id == id }?.step ?? 1)
        let kept = step > 1 ? value / step * step : value
        values[id] = kept
        return value
    }

    func getControl(id: UInt32) throws -> Int64 { values[id] ?? 0 }
}

@Suite("CameraControlsConfig and FlashConfig: planning and applying controls")
struct CameraConfigurationTests {
    /// The (setting, control name, value) triples of the `set` steps.
    static func sets(_ steps: [ControlStep]) -> [String] {
        steps.compactMap { step in
            if case .set(let setting, let control, let value) = step { return "\(setting)=\(control.name):\(value)" }
            return nil
        }
    }

    @Test("every named setting maps to the UVC control, automatic modes before the values they govern")
    func uvcPlan() {
        let controls = CameraControlsConfig(
            exposureAuto: false, exposureAbsolute: 156, focusAuto: false, focusAbsolute: 40, gain: 10, brightness: 128,
            contrast: 32, powerLineFrequency: .hz50, other: ["zoom_absolute": 150])
        let steps = controls.plan(for: ControlFixtures.uvc)
        #expect(
            Self.sets(steps) == [
                "cameraConfig.controls.exposureAuto=Auto Exposure:1",
                "cameraConfig.controls.exposureAbsolute=Exposure Time, Absolute:156",
                "cameraConfig.controls.focusAuto=Focus, Automatic Continuous:0",
                "cameraConfig.controls.focusAbsolute=Focus, Absolute:40",
                "cameraConfig.controls.gain=Gain:10",
                "cameraConfig.controls.brightness=Brightness:128",
                "cameraConfig.controls.contrast=Contrast:32",
                "cameraConfig.controls.powerLineFrequency=Power Line Frequency:1",
                "cameraConfig.controls.other.zoom_absolute=Zoom, Absolute:150",
            ])
        #expect(steps.count == 9)
    }

    @Test("automatic exposure picks aperture priority on UVC, full auto where that is all there is")
    func automaticExposure() {
        let on = CameraControlsConfig(exposureAuto: true, focusAuto: true)
        #expect(
            Self.sets(on.plan(for: ControlFixtures.uvc)) == [
                "cameraConfig.controls.exposureAuto=Auto Exposure:3",
                "cameraConfig.controls.focusAuto=Focus, Automatic Continuous:1",
            ])
        let fullAuto = [
            ControlFixtures.menu(0x009a_0901, "Auto Exposure", [(0, "Auto Mode"), (1, "Manual Mode")], value: 0)
        ]
        #expect(Self.sets(on.plan(for: fullAuto)).first == "cameraConfig.controls.exposureAuto=Auto Exposure:0")
        let manualOnly = [ControlFixtures.menu(0x009a_0901, "Auto Exposure", [(1, "Manual Mode")], value: 1)]
        guard case .rejected(let setting, let message) = on.plan(for: manualOnly).first else {
            Issue.record("expected a rejection")
            return
        }
        #expect(setting == "cameraConfig.controls.exposureAuto")
        #expect(message.contains("has no automatic entry"))
    }

    @Test("controls are found by their names when drivers use non-standard ids or older names")
    func namesFromOlderKernels() {
        let older = [
            ControlFixtures.menu(
                0x0a00_0001, "Exposure, Auto", [(1, "Manual Mode"), (3, "Aperture Priority Mode")], value: 3),
            ControlFixtures.integer(0x0a00_0002, "Exposure (Absolute)", 1...5000),
            ControlFixtures.boolean(0x0a00_0003, "Focus, Auto"),
        ]
        let controls = CameraControlsConfig(exposureAuto: false, exposureAbsolute: 300, focusAuto: true)
        #expect(
            Self.sets(controls.plan(for: older)) == [
                "cameraConfig.controls.exposureAuto=Exposure, Auto:1",
                "cameraConfig.controls.exposureAbsolute=Exposure (Absolute):300",
                "cameraConfig.controls.focusAuto=Focus, Auto:1",
            ])
    }

    @Test("a camera without a control reports the setting as not supported, and plans the rest")
    func unsupportedOnVivid() {
        let controls = CameraControlsConfig(
            exposureAuto: true, focusAuto: true, gain: 20, brightness: 100, powerLineFrequency: .auto,
            other: ["Zoom, Absolute": 120, "hue": -10])
        let steps = controls.plan(for: ControlFixtures.vivid)
        #expect(
            steps.map(\.setting) == [
                "cameraConfig.controls.exposureAuto", "cameraConfig.controls.focusAuto", "cameraConfig.controls.gain",
                "cameraConfig.controls.brightness", "cameraConfig.controls.powerLineFrequency",
                "cameraConfig.controls.other.Zoom, Absolute", "cameraConfig.controls.other.hue",
            ])
        #expect(
            Self.sets(steps) == [
                "cameraConfig.controls.gain=Gain:20", "cameraConfig.controls.brightness=Brightness:100",
                "cameraConfig.controls.other.hue=Hue:-10",
            ])
        var unsupported: [String] = []
        for case .unsupported(_, let message) in steps { unsupported.append(message) }
        #expect(unsupported.count == 4)
        #expect(unsupported.allSatisfy { $0.contains("is not supported by this camera") })
        #expect(
            unsupported.first
                == "cameraConfig.controls.exposureAuto: automatic exposure is not supported by this camera (it has no 'Auto Exposure' control)"
        )
        #expect(
            unsupported.last
                == "cameraConfig.controls.other.Zoom, Absolute: control 'Zoom, Absolute' is not supported by this camera"
        )
    }

    @Test("values the camera cannot take are rejected with its range or entries")
    func rejectedValues() {
        let controls = CameraControlsConfig(brightness: 300, powerLineFrequency: .auto, other: ["LED1 Mode": 7])
        let steps = controls.plan(for: ControlFixtures.uvc)
        var messages: [String] = []
        for case .rejected(_, let message) in steps { messages.append(message) }
        #expect(
            messages == [
                "cameraConfig.controls.brightness: cannot set 'Brightness' to 300: outside this camera's range 0...255",
                #"cameraConfig.controls.powerLineFrequency: "auto" is not supported by this camera's 'Power Line Frequency' (0 (Disabled), 1 (50 Hz), 2 (60 Hz))"#,
                "cameraConfig.controls.other.LED1 Mode: cannot set 'LED1 Mode' to 7: not one of its entries (0 (Off), 1 (On), 2 (Blink), 3 (Auto))",
            ])
    }

    @Test("no settings, no steps")
    func nothingToDo() {
        #expect(CameraControlsConfig().plan(for: ControlFixtures.uvc).isEmpty)
        #expect(FlashConfig().plan(for: ControlFixtures.uvc).isEmpty)
        #expect(FlashConfig().plan(for: []).isEmpty, "mode none does not even look for an LED")
    }

    @Test(
        "flash modes drive UVC's LED1 Mode menu",
        arguments: [
            (FlashConfig.Mode.manualOn, Int64(1)), (.manualOff, 0), (.auto, 3),
        ])
    func uvcFlash(mode: FlashConfig.Mode, entry: Int64) {
        #expect(
            Self.sets(FlashConfig(mode: mode).plan(for: ControlFixtures.uvc)) == ["flashConfig.mode=LED1 Mode:\(entry)"]
        )
    }

    @Test("a flash-class LED Mode menu turns the torch on; it has no automatic mode")
    func flashClassLED() {
        let controls = [
            ControlFixtures.menu(0x009c_0901, "LED Mode", [(0, "Off"), (1, "Flash"), (2, "Torch")], value: 0)
        ]
        #expect(Self.sets(FlashConfig(mode: .manualOn).plan(for: controls)) == ["flashConfig.mode=LED Mode:2"])
        #expect(Self.sets(FlashConfig(mode: .manualOff).plan(for: controls)) == ["flashConfig.mode=LED Mode:0"])
        guard case .unsupported(_, let message) = FlashConfig(mode: .auto).plan(for: controls).first else {
            Issue.record("auto should be unsupported")
            return
        }
        #expect(message.contains("auto is not supported by this camera's 'LED Mode'"))
    }

    @Test("a boolean torch control switches on and off, not automatically")
    func booleanTorch() {
        let controls = ControlFixtures.vivid + [ControlFixtures.boolean(0x0a00_0010, "Torch Enable")]
        #expect(Self.sets(FlashConfig(mode: .manualOn).plan(for: controls)) == ["flashConfig.mode=Torch Enable:1"])
        #expect(Self.sets(FlashConfig(mode: .manualOff).plan(for: controls)) == ["flashConfig.mode=Torch Enable:0"])
        #expect(FlashConfig(mode: .auto).plan(for: controls).first?.setting == "flashConfig.mode")
        let led2 = [ControlFixtures.boolean(0x0a00_0011, "LED2 Power")]
        #expect(Self.sets(FlashConfig(mode: .manualOn).plan(for: led2)) == ["flashConfig.mode=LED2 Power:1"])
        let notAnLED = [ControlFixtures.boolean(0x0a00_0012, "Selected Mode")]
        #expect(FlashConfig(mode: .manualOn).plan(for: notAnLED).first.map(Self.isUnsupported) == true)
    }

    static func isUnsupported(_ step: ControlStep) -> Bool {
        if case .unsupported = step { return true }
        return false
    }

    @Test("a camera without an LED gets a clear 'not supported by this camera', not a failure")
    func noLED() {
        let steps = FlashConfig(mode: .manualOn).plan(for: ControlFixtures.vivid)
        #expect(
            steps == [
                .unsupported(
                    setting: "flashConfig.mode",
                    message: "flashConfig.mode: manual_on: a flash (LED or torch) is not supported by this camera "
                        + "(it has no 'LED1 Mode', 'LED Mode' or torch control)")
            ])
    }

    @Test("apply sets each control and reports the value read back; a refused value fails that setting only")
    func applyOnScriptedCamera() {
        let camera = ScriptedCamera(ControlFixtures.uvc)
        camera.refused = [0x0098_0901]  // Contrast
        let outcomes = CameraControlsConfig(
            exposureAuto: false, exposureAbsolute: 200, focusAuto: false, focusAbsolute: 42, contrast: 10,
            powerLineFrequency: .hz60, other: ["Tilt, Absolute": 3]
        ).apply(to: camera)
        #expect(outcomes.count == 7)
        #expect(
            outcomes[0] == .applied(setting: "cameraConfig.controls.exposureAuto", control: "Auto Exposure", value: 1))
        #expect(
            outcomes[1]
                == .applied(
                    setting: "cameraConfig.controls.exposureAbsolute", control: "Exposure Time, Absolute", value: 200))
        #expect(
            outcomes[3]
                == .applied(setting: "cameraConfig.controls.focusAbsolute", control: "Focus, Absolute", value: 40),
            "read back after the driver rounded to its step")
        #expect(
            outcomes[4]
                == .failed(
                    setting: "cameraConfig.controls.contrast",
                    message:
                        "cameraConfig.controls.contrast: setting 'Contrast' to 10 failed: VIDIOC_S_CTRL: device busy"))
        #expect(
            outcomes[5]
                == .applied(
                    setting: "cameraConfig.controls.powerLineFrequency", control: "Power Line Frequency", value: 2))
        #expect(
            outcomes[6]
                == .unsupported(
                    setting: "cameraConfig.controls.other.Tilt, Absolute",
                    message:
                        "cameraConfig.controls.other.Tilt, Absolute: control 'Tilt, Absolute' is not supported by this camera"
                ))
        #expect(camera.sets.map(\.0) == [0x009a_0901, 0x009a_0902, 0x009a_090c, 0x009a_090a, 0x0098_0901, 0x0098_0918])
        #expect(outcomes[3].description == "cameraConfig.controls.focusAbsolute: set 'Focus, Absolute' to 40")

        let flash = FlashConfig(mode: .manualOn).apply(to: camera)
        #expect(flash == [.applied(setting: "flashConfig.mode", control: "LED1 Mode", value: 1)])
    }

    @Test("when the camera cannot list its controls, every configured setting fails with the reason")
    func applyWhenTheCameraIsGone() {
        let camera = ScriptedCamera(ControlFixtures.uvc)
        camera.listFails = true
        let outcomes = CameraControlsConfig(gain: 3, brightness: 4).apply(to: camera)
        #expect(
            outcomes == [
                .failed(
                    setting: "cameraConfig.controls.gain",
                    message:
                        "cameraConfig.controls.gain: cannot read the camera's controls: /dev/video9: no such device"),
                .failed(
                    setting: "cameraConfig.controls.brightness",
                    message:
                        "cameraConfig.controls.brightness: cannot read the camera's controls: /dev/video9: no such device"
                ),
            ])
        #expect(FlashConfig(mode: .manualOff).apply(to: camera).map(\.setting) == ["flashConfig.mode"])
        #expect(camera.sets.isEmpty)
    }
}
