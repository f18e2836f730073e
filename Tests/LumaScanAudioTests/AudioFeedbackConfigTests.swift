import Foundation
import LumaScan
import Testing

/// The configuration's `audioFeedback` object, decoded with the rest of the document.
@Suite struct AudioFeedbackConfigTests {
    static let plugin = #""viewPluginConfig": {"pluginConfig": {"barcodeConfig": {}}}"#

    static func decode(_ audioFeedback: String) throws(LumaScanError) -> ScanConfiguration {
        try ScanConfiguration.decode(json: "{\(plugin), \"audioFeedback\": \(audioFeedback)}")
    }

    static func message(_ audioFeedback: String) -> String? {
        do {
            _ = try decode(audioFeedback)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func decodesFolderAndDevice() throws {
        let configuration = try Self.decode(#"{"folder": "/usr/share/sounds/till", "device": "plughw:1,0"}"#)
        #expect(
            configuration.audioFeedback == AudioFeedbackConfig(folder: "/usr/share/sounds/till", device: "plughw:1,0"))
    }

    @Test func deviceDefaultsToDefault() throws {
        #expect(try Self.decode(#"{"folder": "/s"}"#).audioFeedback?.device == "default")
        #expect(try Self.decode("null").audioFeedback == nil)
        #expect(try ScanConfiguration.decode(json: "{\(Self.plugin)}").audioFeedback == nil)
    }

    @Test func roundTripsThroughJSON() throws {
        let configuration = try Self.decode(#"{"folder": "/s"}"#)
        #expect(try ScanConfiguration.decode(json: configuration.asJSONString()) == configuration)
        // Without audioFeedback the document is the one it was before the key existed.
        #expect(!ScanConfiguration().asJSONString().contains("audioFeedback"))
    }

    @Test(arguments: [
        (#"{"folder": 3}"#, "audioFeedback.folder: expected a string"),
        (#"{"device": "default"}"#, "audioFeedback.folder: missing required key"),
        (#"{"folder": "/s", "devise": "x"}"#, "audioFeedback.devise: unknown key 'devise'; did you mean 'device'?"),
        (#"{"folder": ""}"#, "audioFeedback.folder: must not be empty"),
        (#"{"folder": "/s", "device": ""}"#, "audioFeedback.device: must not be empty"),
        (#"{"folder": "/s", "device": 1}"#, "audioFeedback.device: expected a string"),
        (#""/s""#, "audioFeedback: expected"),
    ])
    func badFieldNamesItsJSONPath(document: String, expected: String) {
        let message = Self.message(document)
        #expect(message?.hasPrefix(expected) == true, "\(message ?? "decoded")")
    }

    @Test func misspeltTopLevelKeySuggestsAudioFeedback() {
        do {
            _ = try ScanConfiguration.decode(json: "{\(Self.plugin), \"audioFeedbak\": {\"folder\": \"/s\"}}")
            Issue.record("decoded")
        } catch {
            #expect(error.message.hasPrefix("audioFeedbak: unknown key 'audioFeedbak'; did you mean 'audioFeedback'?"))
        }
    }
}
