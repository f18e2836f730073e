import LumaScan
import Testing

@Suite("DeviceInfo secure-QR capability")
struct DeviceSecureQRTests {
    func device(sizes: [SizeInfo], focus: Bool) -> DeviceInfo {
        let focusControl = CameraControl(
            id: 0x009a_090c, name: "Focus, Automatic Continuous", type: .boolean, minimum: 0, maximum: 1, step: 1,
            defaultValue: 1)
        return DeviceInfo(
            path: "/dev/video0", card: "Test Camera", driver: "uvcvideo", busInfo: "usb-1", capabilities: [],
            formats: [
                FormatInfo(fourcc: "YUYV", description: "YUYV 4:2:2", compressed: false, supported: true, sizes: sizes)
            ],
            controls: focus ? [focusControl] : [])
    }

    @Test("a 720p camera at 30 fps with a focus control supports secure QR, capturing at its smallest good mode")
    func supported() {
        let verdict = device(
            sizes: [
                SizeInfo(width: 640, height: 480, frameRates: [30]),
                SizeInfo(width: 1280, height: 720, frameRates: [30]),
                SizeInfo(width: 1920, height: 1080, frameRates: [15]),
            ],
            focus: true
        ).secureQRSupport()
        #expect(verdict.isSupported)
        #expect(verdict.reasons.isEmpty)
        #expect(verdict.bestMode?.width == 1280 && verdict.bestMode?.height == 720)
    }

    @Test("a VGA camera without focus is refused, with a reason for each unmet requirement")
    func unsupported() {
        let verdict = device(sizes: [SizeInfo(width: 640, height: 480, frameRates: [30])], focus: false)
            .secureQRSupport()
        #expect(!verdict.isSupported)
        #expect(verdict.reasons.count == 2, "\(verdict.reasons)")
    }
}
