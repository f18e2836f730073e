import Foundation
import LumaScanCore
import LumaScanRecognizers
import Testing

@Suite("SecureQRConfiguration")
struct SecureQRConfigurationTests {
    func decode(_ json: String) throws -> SecureQRConfiguration {
        do {
            return try JSONDecoder().decode(SecureQRConfiguration.self, from: Data(json.utf8))
        } catch {
            throw LumaScanError.configuration(error)
        }
    }

    func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as LumaScanError {
            return error.code == .invalidConfiguration ? error.message : "wrong code \(error.code)"
        } catch {
            return "not a LumaScanError: \(error)"
        }
    }

    @Test("missing keys take their defaults")
    func defaults() throws {
        let configuration = try decode(#"{"issuerPrefixes": ["https://scan.example.com/"]}"#)
        var expected = SecureQRConfiguration()
        expected.issuerPrefixes = ["https://scan.example.com/"]
        #expect(configuration == expected)
        try configuration.validate()
        #expect(expected.stableFrameCount == 3 && expected.insufficientQualityTimeout == 4)
        #expect(expected.design.version == 4 && expected.design.cellsPerModule == 4 && !expected.design.hybrid)
        #expect(expected.design.errorCorrection == .quartile && expected.minimumPixelsPerCell == 2)
    }

    @Test("encoding and decoding round-trips every value")
    func roundTrip() throws {
        let configuration = SecureQRConfiguration(
            id: "sqr", issuerPrefixes: ["https://a.example/", "https://b.example/x/"],
            design: SecureQRDesign(
                version: 5, errorCorrection: .high, cellsPerModule: 5, hybrid: true, centreModules: 9,
                fingerprintZone: SecureQRFingerprintZone(x: -40, y: 2, width: 30, height: 20), quietZone: 3),
            mode: .limited, stableFrameCount: 5, insufficientQualityTimeout: 6, absenceTolerance: 1,
            minimumPixelsPerCell: 2.5, noAuthTextureRatio: 0.5, noAuthModuleEnergy: 0.04, sharpnessThreshold: 0.05,
            fingerprintMargin: 10, cropModulePixels: 16, qrDownscale: 1, limitedSymbologies: [.qrCode, .ean13])
        let data = try JSONEncoder().encode(configuration)
        #expect(try JSONDecoder().decode(SecureQRConfiguration.self, from: data) == configuration)
        try configuration.validate()
    }

    @Test("unknown keys are refused with their path and the closest known key")
    func unknownKeys() {
        #expect(
            message { _ = try decode(#"{"sharpnesThreshold": 0.1}"#) }
                == "sharpnesThreshold: unknown key 'sharpnesThreshold'; did you mean 'sharpnessThreshold'?")
        #expect(
            message { _ = try decode(#"{"design": {"cellsPerModul": 4}}"#) }
                == "design.cellsPerModul: unknown key 'cellsPerModul'; did you mean 'cellsPerModule'?")
        #expect(
            message { _ = try decode(#"{"design": {"fingerprintZone": {"w": 4}}}"#) }?
                .hasPrefix("design.fingerprintZone.w: unknown key 'w'") == true)
        #expect(message { _ = try decode(#"{"mode": "fast"}"#) }?.hasPrefix("mode: ") == true)
        #expect(
            message { _ = try decode(#"{"design": {"errorCorrection": "L"}}"#) }?.hasPrefix(
                "design.errorCorrection: ") == true)
    }

    @Test("integer fields refuse fractions and numbers too large, naming the JSON path")
    func integers() {
        #expect(
            message { _ = try decode(#"{"stableFrameCount": 0.5}"#) }
                == "stableFrameCount: 0.5 is not a whole number; this field takes an integer")
        #expect(message { _ = try decode(#"{"qrDownscale": 1e308}"#) }?.hasPrefix("qrDownscale: ") == true)
        #expect(message { _ = try decode(#"{"cropModulePixels": "12"}"#) } == "cropModulePixels: expected an integer")
        #expect((try? decode(#"{"fingerprintMargin": 6.0}"#))?.fingerprintMargin == 6)
    }

    @Test("validation names the JSON path of the bad value")
    func validation() {
        let root = "viewPluginConfig.pluginConfig.secureQRConfig"
        func check(_ expected: String, _ change: (inout SecureQRConfiguration) -> Void) {
            var configuration = SecureQRConfiguration(issuerPrefixes: ["https://scan.example.com/"])
            change(&configuration)
            let problem = message { try configuration.validate() }
            #expect(problem == "\(root).\(expected)", "\(problem ?? "valid")")
        }
        check("issuerPrefixes: list at least one issuer URL prefix, such as \"https://scan.example.com/\"") {
            $0.issuerPrefixes = []
        }
        check("issuerPrefixes[1]: \"scan\" is not a URL prefix (scheme://host...)") {
            $0.issuerPrefixes.append("scan")
        }
        check("stableFrameCount: 0 is outside 1...100") { $0.stableFrameCount = 0 }
        check("insufficientQualityTimeout: -1.0 s is outside 0...600 s") { $0.insufficientQualityTimeout = -1 }
        check("minimumPixelsPerCell: 0.1 is outside 0.5...16") { $0.minimumPixelsPerCell = 0.1 }
        check("sharpnessThreshold: nan is outside 0...10") { $0.sharpnessThreshold = .nan }
        check("cropModulePixels: 2 is outside 4...32") { $0.cropModulePixels = 2 }
        check("qrDownscale: 5 is outside 1...4") { $0.qrDownscale = 5 }
        check("limitedSymbologies[1]: qr is listed twice") { $0.limitedSymbologies = [.qrCode, .qrCode] }
        check("design.version: 1 is outside 2...40 (version 1 has no alignment pattern)") { $0.design.version = 1 }
        check("design.cellsPerModule: 1 is outside 2...16") { $0.design.cellsPerModule = 1 }
        check(
            "design.version: 7 is above 6 for a standard code (from version 7 an alignment pattern sits under the "
                + "centre CDP); use a hybrid design"
        ) { $0.design.version = 7 }
        check("design.centreModules: 8 is not an odd number of at least 3") { $0.design.centreModules = 8 }
        check("design.centreModules: 19 modules would cover the finder patterns of a version 4 code (at most 17)") {
            $0.design.centreModules = 19
        }
        check("design.fingerprintZone: the zone overlaps the code") {
            $0.design.hybrid = true
            $0.design.fingerprintZone.x = 20
        }
    }

    @Test("issuer payloads: scheme and host without regard to case, the rest exactly")
    func issuerPayloads() {
        let configuration = SecureQRConfiguration(issuerPrefixes: ["https://Scan.Example.com/q/"])
        #expect(configuration.isIssuerPayload("https://scan.example.com/q/ABC"))
        #expect(configuration.isIssuerPayload("HTTPS://SCAN.EXAMPLE.COM/q/ABC"))
        #expect(!configuration.isIssuerPayload("https://scan.example.com/Q/ABC"))
        #expect(!configuration.isIssuerPayload("https://scan.example.com.evil.org/q/ABC"))
        #expect(!configuration.isIssuerPayload("https://scan.example.com/"))
        #expect(!configuration.isIssuerPayload("4006381333931"))
    }
}
