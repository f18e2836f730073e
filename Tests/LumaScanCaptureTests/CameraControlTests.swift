import Foundation
import Testing

@testable import LumaScanCapture

@Suite("CameraControl")
struct CameraControlTests {
    func control(_ name: String) -> CameraControl {
        CameraControl(id: 1, name: name, type: .integer, minimum: 0, maximum: 1, step: 1, defaultValue: 0)
    }

    @Test("names match case-insensitively, with spaces, underscores and punctuation equivalent")
    func matching() {
        #expect(control("Brightness").matches(name: "brightness"))
        #expect(control("Brightness").matches(name: "  BRIGHTNESS "))
        #expect(control("White Balance Temperature").matches(name: "white_balance_temperature"))
        #expect(control("White Balance Temperature").matches(name: "White  Balance__Temperature"))
        #expect(control("Exposure Time, Absolute").matches(name: "exposure_time_absolute"))
        #expect(control("Power Line Frequency").matches(name: "power-line-frequency"))
        #expect(!control("Brightness").matches(name: "bright"))
        #expect(!control("White Balance Temperature").matches(name: "whitebalancetemperature"))
        #expect(!control("Gain").matches(name: "gain automatic"))
    }

    @Test("controls encode to JSON and back")
    func codable() throws {
        let original = CameraControl(
            id: 0x0098_0918, name: "Power Line Frequency", type: .menu, minimum: 0, maximum: 2, step: 1,
            defaultValue: 1, value: 2, menuItems: [.init(index: 0, name: "Disabled"), .init(index: 2, name: "60 Hz")],
            isInactive: true)
        let data = try JSONEncoder().encode(original)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"type\":\"menu\""))
        #expect(try JSONDecoder().decode(CameraControl.self, from: data) == original)
        #expect(CameraControl.ControlType.integerMenu.description == "integerMenu")
    }
}
