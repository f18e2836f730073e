import ArgumentParser
import Foundation
import LumaScan

/// `lumascan devices`: the V4L2 nodes that can capture, with their formats, sizes, frame rates and controls.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "List the cameras (V4L2 capture nodes) with their formats and controls.")

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let logger = try logging.makeLogger(label: "lumascan.devices")
        let devices = DeviceDiscovery.captureDevices(logger: logger)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(devices.map(DeviceReport.init))
            print(String(decoding: data, as: UTF8.self))
            return
        }
        if devices.isEmpty {
            print("No V4L2 capture devices found (looked at /dev/video*).")
            return
        }
        for device in devices {
            print("\(device.path): \(device.card) (driver \(device.driver), bus \(device.busInfo))")
            for format in device.formats {
                let sizes = format.sizes.map { size in
                    let rates = size.frameRates.map { String(format: "%g", $0) }.joined(separator: "/")
                    return rates.isEmpty ? "\(size.width)x\(size.height)" : "\(size.width)x\(size.height)@\(rates)"
                }
                print("  \(format.fourcc) \(format.description): \(sizes.joined(separator: ", "))")
            }
            let verdict = device.secureQRSupport()
            if verdict.isSupported {
                let mode = verdict.bestMode.map { "\($0.pixelFormat) \($0.width)x\($0.height)" } ?? ""
                print("  secure QR: supported (\(mode))")
            } else {
                print("  secure QR: not supported: \(verdict.reasons.joined(separator: "; "))")
            }
            for control in device.controls {
                print(
                    "  control \(control.name) [\(control.type)] \(control.minimum)...\(control.maximum) = \(control.value.map(String.init) ?? "?")"
                )
            }
        }
    }
}

/// A device as `devices --json` prints it: every field of ``DeviceInfo`` plus `secureQR`, the capability verdict.
struct DeviceReport: Encodable {
    var device: DeviceInfo
    var secureQR: SecureQRCameraSupport

    init(_ device: DeviceInfo) {
        self.device = device
        secureQR = device.secureQRSupport()
    }

    private enum Keys: String, CodingKey { case secureQR }

    func encode(to encoder: any Encoder) throws {
        try device.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(secureQR, forKey: .secureQR)
    }
}
