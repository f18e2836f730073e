import Foundation
import Testing

/// `lumascan devices --json` as the JSON it prints (the keys the tests read).
struct DeviceJSON: Decodable {
    struct Format: Decodable {
        struct Size: Decodable {
            var width: Int
            var height: Int
            var frameRates: [Double]
        }
        var fourcc: String
        var description: String
        var compressed: Bool
        var supported: Bool
        var sizes: [Size]
    }
    struct Control: Decodable {
        var id: UInt32
        var name: String
        var type: String
        var minimum: Int64
        var maximum: Int64
        var value: Int64?
        var isReadOnly: Bool
        var isWriteOnly: Bool
    }
    var path: String
    var card: String
    var driver: String
    var busInfo: String
    var capabilities: [String]
    var formats: [Format]
    var controls: [Control]
}

@Suite("V4L2 against vivid in a VM: the VM run and device discovery", .vivid)
struct VividDeviceTests {
    @Test("the VM boots once and runs every scenario within the harness's time limit")
    func vmRun() async throws {
        let run = try await VividMachine.run()
        #expect(run.problem == nil, "\(run.problem ?? "")")
        // The duration is a measurement, printed for the record, not a pass mark: it follows the host's speed.
        print("[vivid] every scenario ran in one boot in \(run.seconds) s (limit \(VividMachine.timeoutSeconds) s)")
        #expect(run.seconds < Double(VividMachine.timeoutSeconds), "the VM run took \(run.seconds) s")
    }

    @Test("devices --json lists vivid's capture node with its formats and sizes, and not its output node")
    func devices() async throws {
        try await checkScenario("devices") { check in
            check.expect(
                check.scenario.status("devices") == 0,
                "devices --json exited \(String(describing: check.scenario.status("devices")))")
            let text = try check.unwrap(check.scenario.text("devices.out"), "no output")
            let devices = try JSONDecoder().decode([DeviceJSON].self, from: Data(text.utf8))
            let listing = check.scenario.text("v4l2-list-devices.txt") ?? ""
            check.expect(
                listing.contains("/dev/video0") && listing.contains("/dev/video1"),
                "v4l2-ctl --list-devices should show vivid's two nodes: \(listing)")

            let vivid = devices.filter { $0.driver == "vivid" }
            try check.require(
                vivid.map(\.path) == ["/dev/video0"],
                "expected vivid's capture node /dev/video0 alone (video1 is an output node), got \(devices.map { "\($0.path) (\($0.driver))" })"
            )
            let device = vivid[0]
            check.expect(device.card == "vivid", "card '\(device.card)'")
            check.expect(device.busInfo.hasPrefix("platform:vivid"), "bus '\(device.busInfo)'")
            check.expect(
                device.capabilities.contains("videoCapture") && device.capabilities.contains("streaming"),
                "capabilities \(device.capabilities)")
            check.expect(!device.capabilities.contains("videoOutput"), "a capture node: \(device.capabilities)")

            for fourcc in ["YUYV", "UYVY", "GREY", "NV12"] {
                guard let format = device.formats.first(where: { $0.fourcc == fourcc }) else {
                    check.expect(false, "\(fourcc) is missing from \(device.formats.map(\.fourcc))")
                    continue
                }
                check.expect(format.supported, "\(fourcc) should be readable by LumaScan")
                check.expect(!format.compressed, "\(fourcc) is not compressed")
                check.expect(
                    format.sizes.contains { $0.width == 640 && $0.height == 480 },
                    "\(fourcc) sizes should include 640x480: \(format.sizes.map { "\($0.width)x\($0.height)" })")
                // vivid's HDMI input scales: a stepwise range from 16x16 up.
                check.expect(
                    format.sizes.contains { $0.width == 16 && $0.height == 16 },
                    "\(fourcc) sizes should include the range's smallest, 16x16")
            }
            check.expect(device.formats.allSatisfy { !$0.sizes.isEmpty }, "every format lists sizes")
            check.expect(
                device.controls.contains { $0.name == "Brightness" && $0.value == 128 },
                "the controls should include Brightness = 128: \(device.controls.map(\.name))")
        }
    }
}
