import Foundation
import LumaScanCore
import LumaScanTestSupport
import Testing

@testable import LumaScanCapture

@Suite("DeviceDiscovery")
struct DeviceDiscoveryTests {
    @Test("only names video<N> are video nodes")
    func nodeNames() {
        #expect(DeviceDiscovery.videoNodeNumber("video0") == 0)
        #expect(DeviceDiscovery.videoNodeNumber("video10") == 10)
        #expect(DeviceDiscovery.videoNodeNumber("video") == nil)
        #expect(DeviceDiscovery.videoNodeNumber("videofoo") == nil)
        #expect(DeviceDiscovery.videoNodeNumber("video1a") == nil)
        #expect(DeviceDiscovery.videoNodeNumber("vbi0") == nil)
        #expect(DeviceDiscovery.videoNodeNumber("video-1") == nil)
        #expect(DeviceDiscovery.videoNodeNumber("video\u{0663}") == nil, "ASCII digits only")
    }

    @Test("nodes are listed in numeric order")
    func numericOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-devices-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["video10", "video2", "video0", "video1", "media0", "videoX", "v4l-subdev0"] {
            #expect(FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: nil))
        }
        #expect(
            DeviceDiscovery.videoNodePaths(in: directory)
                == ["video0", "video1", "video2", "video10"].map { "\(directory)/\($0)" })
        #expect(DeviceDiscovery.videoNodePaths(in: directory + "/missing").isEmpty)
    }

    func nodes() -> FakeNodes {
        let camera = FakeV4L2(
            formats: [
                .init(
                    pixelFormat: .yuyv, description: "YUYV 4:2:2",
                    sizes: .discrete([Size(width: 640, height: 480), Size(width: 1280, height: 720)]),
                    intervals: [.init(numerator: 1, denominator: 30), .init(numerator: 1001, denominator: 15000)]),
                .init(
                    pixelFormat: .mjpeg, description: "Motion-JPEG", flags: V4L2Constant.formatCompressed,
                    sizes: .stepwise(
                        StepwiseSizes(
                            minimum: Size(width: 320, height: 240), maximum: Size(width: 1920, height: 1080),
                            stepWidth: 320, stepHeight: 120))),
                .init(
                    pixelFormat: .yu12, description: "Planar YUV 4:2:0", flags: V4L2Constant.formatEmulated,
                    sizes: .discrete([Size(width: 640, height: 480)])),
            ])
        camera.with { $0.controls = Array(FakeV4L2.webcamControls.prefix(4)) }
        let metadata = FakeV4L2()
        metadata.with { $0.deviceCaps = V4L2Constant.capMetaCapture | V4L2Constant.capStreaming }
        let locked = FakeV4L2()
        locked.with { $0.failures["open"] = [EACCES] }
        return FakeNodes(["/dev/video0": camera, "/dev/video1": metadata, "/dev/video3": locked])
    }

    @Test("capture nodes are described; metadata, missing and inaccessible nodes are left out")
    func describeNodes() throws {
        let nodes = nodes()
        let devices = DeviceDiscovery.captureDevices(
            paths: ["/dev/video0", "/dev/video1", "/dev/video2", "/dev/video3"], syscalls: nodes, logger: quietLogger)
        #expect(nodes.allClosed)
        #expect(devices.map(\.path) == ["/dev/video0"])
        let device = try #require(devices.first)
        #expect(device.card == "Fake Camera")
        #expect(device.driver == "fake")
        #expect(device.busInfo == "platform:fake-0")
        #expect(device.capabilities == ["videoCapture", "streaming"])
        #expect(device.formats.map(\.fourcc) == ["YUYV", "MJPG"], "the emulated YU12 is left out")
        let yuyv = device.formats[0]
        #expect(yuyv.description == "YUYV 4:2:2")
        #expect(!yuyv.compressed && yuyv.supported)
        #expect(
            yuyv.sizes == [
                SizeInfo(width: 640, height: 480, frameRates: [30, 14.985]),
                SizeInfo(width: 1280, height: 720, frameRates: [30, 14.985]),
            ])
        let mjpeg = device.formats[1]
        #expect(mjpeg.compressed)
        // The range's ends and the standard sizes on its 320x120 steps (1280x720; 640x480; 1920x1080).
        #expect(
            mjpeg.sizes.map { Size(width: $0.width, height: $0.height) } == [
                Size(width: 320, height: 240), Size(width: 640, height: 480), Size(width: 1280, height: 720),
                Size(width: 1920, height: 1080),
            ])
        #expect(
            device.controls.map(\.name) == [
                "Brightness", "Contrast", "White Balance Automatic", "Power Line Frequency",
            ])
        #expect(device.controls.map(\.value) == [100, 50, 1, 2])
        #expect(try DeviceDiscovery.describe(device: "/dev/video0", syscalls: nodes, logger: quietLogger) == device)
        let error = try #require(
            #expect(throws: CaptureError.self) {
                try DeviceDiscovery.describe(device: "/dev/video1", syscalls: nodes, logger: quietLogger)
            })
        #expect(error.code == .notACaptureDevice)
        #expect(nodes.allClosed)
    }

    @Test("frame rates: discrete rates highest first; a range's ends and the common rates between")
    func frameRates() {
        #expect(DeviceDiscovery.frameRates(nil) == [])
        #expect(
            DeviceDiscovery.frameRates(
                .discrete([
                    .init(numerator: 1, denominator: 15), .init(numerator: 1, denominator: 30),
                    .init(numerator: 1001, denominator: 30000), .init(numerator: 2, denominator: 60),
                ])) == [30, 29.97, 15])
        #expect(
            DeviceDiscovery.frameRates(
                .stepwise(
                    minimum: .init(numerator: 1, denominator: 60), maximum: .init(numerator: 1, denominator: 1),
                    step: .init(numerator: 1, denominator: 1000))) == [60, 30, 25, 15, 10, 5, 1])
        #expect(
            DeviceDiscovery.frameRates(
                .stepwise(
                    minimum: .init(numerator: 1, denominator: 20), maximum: .init(numerator: 1, denominator: 12),
                    step: .init(numerator: 1, denominator: 1000))) == [20, 15, 12])
    }

    @Test("devices encode to the JSON `lumascan devices --json` prints, and back")
    func json() throws {
        let devices = DeviceDiscovery.captureDevices(paths: ["/dev/video0"], syscalls: nodes(), logger: quietLogger)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(devices)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let device = try #require(object.first)
        #expect(Set(device.keys) == ["path", "card", "driver", "busInfo", "capabilities", "formats", "controls"])
        let format = try #require((device["formats"] as? [[String: Any]])?.first)
        #expect(Set(format.keys) == ["fourcc", "description", "compressed", "supported", "sizes"])
        let size = try #require((format["sizes"] as? [[String: Any]])?.first)
        #expect(Set(size.keys) == ["width", "height", "frameRates"])
        #expect(try JSONDecoder().decode([DeviceInfo].self, from: data) == devices)
    }

    @Test("scanning this machine's /dev never fails")
    func scanHost() {
        for device in DeviceDiscovery.captureDevices(logger: quietLogger) {
            #expect(device.path.hasPrefix("/dev/video"))
        }
    }
}
