import Foundation
import Logging
import LumaScanCore
import LumaScanRecognizers
import Testing

@Suite("Meter configuration")
struct MeterConfigurationTests {
    private func decode(_ json: String) throws -> MeterConfiguration {
        try JSONDecoder().decode(MeterConfiguration.self, from: Data(json.utf8))
    }

    private func message(_ json: String) -> String? {
        do {
            _ = try decode(json)
            return nil
        } catch let error as LumaScanError {
            #expect(error.code == .invalidConfiguration)
            return error.message
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test("Decodes Anyline's meterConfig spellings")
    func anylineJSON() throws {
        let config = try decode(
            #"{"scanMode": "digital_meter", "minConfidence": 70, "maxNumDecimalDigits": 1, "validationRegex": "^\\d+(\\.\\d)?$"}"#
        )
        #expect(config.scanMode == .digitalMeter)
        #expect(config.minConfidence == 70)
        #expect(config.maxNumDecimalDigits == 1)
        #expect(config.validationRegex == #"^\d+(\.\d)?$"#)
        #expect(config.consecutiveFrames == 3)
        for mode in MeterConfiguration.ScanMode.allCases {
            #expect(try decode(#"{"scanMode": "\#(mode.rawValue)"}"#).scanMode == mode)
        }
        #expect(try decode("{}") == MeterConfiguration())
    }

    @Test("Round-trips through JSON")
    func roundTrip() throws {
        let config = MeterConfiguration(
            scanMode: .counterMeter, minConfidence: 80, maxNumDecimalDigits: 2, validationRegex: "[0-9]{6}",
            consecutiveFrames: 5)
        let data = try JSONEncoder().encode(config)
        #expect(String(decoding: data, as: UTF8.self).contains(#""counter_meter""#))
        #expect(try JSONDecoder().decode(MeterConfiguration.self, from: data) == config)
    }

    @Test("Errors name the JSON path")
    func errors() {
        let path = "viewPluginConfig.pluginConfig.meterConfig"
        #expect(message(#"{"minConfidence": 140}"#) == "\(path).minConfidence: 140 is above 100")
        #expect(message(#"{"minConfidence": -1}"#) == "\(path).minConfidence: -1 is below 0")
        #expect(message(#"{"minConfidence": "high"}"#) == "\(path).minConfidence: expected a number")
        #expect(message(#"{"consecutiveFrames": 0}"#) == "\(path).consecutiveFrames: 0 is below 1")
        #expect(
            message(#"{"scanMode": "analog_meter"}"#)
                == "\(path).scanMode: \"analog_meter\" is not one of digital_meter, counter_meter, auto_meter, dial_meter"
        )
        #expect(
            message(#"{"validationRegex": "[0-9"}"#)?.hasPrefix("\(path).validationRegex: \"[0-9\" is not a valid")
                == true)
        #expect(message(#"{"scanmode": "digital_meter"}"#)?.hasPrefix("\(path).scanmode: unknown key") == true)
    }

    @Test("dial_meter is accepted by the configuration and refused by the recognizer")
    func dialMeter() throws {
        let config = try decode(#"{"scanMode": "dial_meter"}"#)
        #expect(config.scanMode == .dialMeter)
        do {
            _ = try MeterRecognizer(configuration: config, cutout: .init(), logger: Logger(label: "test"))
            Issue.record("built a dial meter recognizer")
        } catch let error as LumaScanError {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("dial_meter is not supported yet"))
        }
    }

    @Test("An invalid cutout is refused when the recognizer is built")
    func invalidCutout() {
        #expect(
            throws: LumaScanError(
                .invalidConfiguration, "viewPluginConfig.cutoutConfig.maxWidthPercent: 140% is above 100%")
        ) {
            _ = try MeterRecognizer(
                configuration: .init(), cutout: .init(maxWidthPercent: 140), logger: Logger(label: "test"))
        }
    }
}
