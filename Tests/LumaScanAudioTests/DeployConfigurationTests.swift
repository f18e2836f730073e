import Foundation
import Logging
import LumaScan
import Testing

/// deploy/config.json, the configuration the Debian package installs as /etc/lumascan/config.json.
@Suite struct DeployConfigurationTests {
    static let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/config.json").path

    @Test func deployedConfigurationDecodesAndBuildsItsPlugin() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.path))
        let configuration = try ScanConfiguration.decode(data: data)
        _ = try configuration.makePlugin(logger: Logger(label: "test.deploy"))
        #expect(configuration == Self.expected)
    }

    /// `lumascan config default`'s barcode document, with sounds from the folder the package documents.
    static var expected: ScanConfiguration {
        let defaults = ScanConfiguration.defaultConfiguration(for: .barcode)
        return ScanConfiguration(
            cameraConfig: defaults.cameraConfig, flashConfig: defaults.flashConfig,
            viewPluginConfig: defaults.viewPluginConfig ?? ViewPluginConfig(),
            audioFeedback: AudioFeedbackConfig(folder: "/etc/lumascan/sounds", device: "default"))
    }

    /// The file is the complete document, every default written out, as `lumascan config default` writes it: when a
    /// new key gets a default, this fails until the file is written again (`lumascan config default`, with the
    /// audioFeedback object added as its first key).
    @Test func deployedConfigurationIsTheCompleteDefaultDocument() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        #expect(text == Self.expected.asJSONString() + "\n")
    }
}
