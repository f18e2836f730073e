import LumaScanRecognizers
import Testing

@Suite("SecureQRCameraRequirements")
struct SecureQRCapabilityTests {
    typealias Mode = SecureQRCameraDescription.Mode
    static let autofocus = SecureQRCameraDescription.Control(id: 0x009a_090c, name: "Focus, Automatic Continuous")

    func camera(
        _ modes: [Mode], controls: [SecureQRCameraDescription.Control] = [autofocus], name: String = "Cam"
    )
        -> SecureQRCameraDescription
    {
        SecureQRCameraDescription(name: name, modes: modes, controls: controls)
    }

    @Test("a 1080p autofocus camera is supported, in its smallest sufficient mode")
    func supported() {
        let verdict = SecureQRCameraRequirements().check(
            camera([
                Mode(pixelFormat: "MJPG", width: 1920, height: 1080, frameRates: [30, 15]),
                Mode(pixelFormat: "YUYV", width: 1280, height: 720, frameRates: [10, 5]),
                Mode(pixelFormat: "MJPG", width: 1280, height: 720, frameRates: [60, 30]),
                Mode(pixelFormat: "YUYV", width: 640, height: 480, frameRates: [30]),
            ]))
        #expect(verdict.isSupported && verdict.reasons.isEmpty && verdict.recognizerMode == .secure)
        #expect(verdict.bestMode == Mode(pixelFormat: "MJPG", width: 1280, height: 720, frameRates: [60, 30]))
    }

    @Test("too small, too slow, unfocusable or unreadable cameras are refused, saying why")
    func refused() {
        let requirements = SecureQRCameraRequirements()
        let small = requirements.check(camera([Mode(pixelFormat: "YUYV", width: 640, height: 480, frameRates: [30])]))
        #expect(!small.isSupported && small.recognizerMode == .unsupported)
        #expect(small.reasons == ["no mode reaches 1280x720 (largest: YUYV 640x480@30)"])

        let slow = requirements.check(
            camera([Mode(pixelFormat: "YUYV", width: 1920, height: 1080, frameRates: [10, 5])]))
        #expect(slow.reasons == ["no mode reaches 1280x720 at 15 fps (best: YUYV 1920x1080@10)"])

        let unknown = requirements.check(camera([Mode(pixelFormat: "YUYV", width: 1280, height: 720, frameRates: [])]))
        #expect(unknown.reasons == ["the driver does not report frame rates for modes of 1280x720 at 15 fps"])

        let fixed = requirements.check(
            camera([Mode(pixelFormat: "MJPG", width: 1280, height: 720, frameRates: [30])], controls: []))
        #expect(fixed.reasons == ["it has no focus control and is not a listed fixed-focus camera"])
        #expect(fixed.bestMode != nil)

        let none = requirements.check(camera([], controls: []))
        #expect(none.reasons.count == 2 && none.reasons[0] == "it offers no format LumaScan can read")
    }

    @Test("listed fixed-focus cameras, portrait modes and named focus controls are accepted")
    func exceptions() {
        let mode = Mode(pixelFormat: "MJPG", width: 720, height: 1280, frameRates: [30])
        var requirements = SecureQRCameraRequirements()
        requirements.fixedFocusCameras = ["kiosk cam"]
        #expect(requirements.check(camera([mode], controls: [], name: "ACME Kiosk Cam HD")).isSupported)
        let named = SecureQRCameraDescription.Control(id: 0x0800_0001, name: "Lens Focus Position")
        #expect(SecureQRCameraRequirements().check(camera([mode], controls: [named])).isSupported)
        requirements = SecureQRCameraRequirements(minimumFrameRate: 60, requireFocusControl: false)
        #expect(!requirements.check(camera([mode], controls: [])).isSupported)
    }
}
