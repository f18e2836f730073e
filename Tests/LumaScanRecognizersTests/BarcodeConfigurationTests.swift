import Foundation
import LumaScanCore
import LumaScanRecognizers
import Testing

/// The default configuration with `change` applied.
func changed(_ change: (inout BarcodeConfiguration) -> Void) -> BarcodeConfiguration {
    var configuration = BarcodeConfiguration()
    change(&configuration)
    return configuration
}

@Suite("BarcodeConfiguration")
struct BarcodeConfigurationTests {
    @Test("defaults")
    func defaults() throws {
        let configuration = BarcodeConfiguration()
        #expect(configuration.id == "barcode")
        #expect(configuration.symbologies == Symbology.allCases)
        #expect(configuration.duplicateInterval == 1.0)
        #expect(configuration.consistency(for: .ean13) == 2)
        #expect(configuration.consistency(for: .code39) == 2)
        #expect(configuration.consistency(for: .qrCode) == 1)
        #expect(configuration.consistency(for: .code128) == 1)
        #expect(configuration.regionOfInterest == nil)
        #expect(configuration.scanDensity == nil)
        #expect(configuration.stillImage == false)
        try configuration.validate()
    }

    @Test("automatic scan density grows with the frame height")
    func automaticDensity() {
        #expect(BarcodeConfiguration.automaticScanDensity(forHeight: 240) == .init(x: 2, y: 2))
        #expect(BarcodeConfiguration.automaticScanDensity(forHeight: 480) == .init(x: 3, y: 3))
        #expect(BarcodeConfiguration.automaticScanDensity(forHeight: 720) == .init(x: 4, y: 4))
        #expect(BarcodeConfiguration.automaticScanDensity(forHeight: 1080) == .init(x: 6, y: 6))
        #expect(BarcodeConfiguration.automaticScanDensity(forHeight: 4320) == .init(x: 8, y: 8))
    }

    @Test(
        "validation errors name the JSON path",
        arguments: [
            ({ $0.minLength[.ean13] = 14 }, "barcodeConfig.minLength.ean13: 14 excludes ean13's fixed length of 13"),
            ({ $0.maxLength[.upcA] = 11 }, "barcodeConfig.maxLength.upca: 11 excludes upca's fixed length of 12"),
            ({ $0.minLength[.code128] = 0 }, "barcodeConfig.minLength.code128: 0 is outside 1...7089"),
            (
                {
                    $0.minLength[.code39] = 8; $0.maxLength[.code39] = 4
                },
                "barcodeConfig.maxLength.code39: 4 is below minLength 8"
            ),
            ({ $0.symbologies = [] }, "barcodeConfig.symbologies: enable at least one symbology"),
            ({ $0.symbologies = [.qrCode, .ean8, .qrCode] }, "barcodeConfig.symbologies[2]: qr is listed twice"),
            ({ $0.id = "" }, "barcodeConfig.id: must not be empty"),
            ({ $0.duplicateInterval = -1 }, "barcodeConfig.duplicateInterval: -1.0 s is outside 0...3600 s"),
            ({ $0.duplicateInterval = .nan }, "barcodeConfig.duplicateInterval: nan s is outside 0...3600 s"),
            ({ $0.consistencyCount[.interleaved2of5] = 0 }, "barcodeConfig.consistencyCount.i25: 0 is outside 1...30"),
            (
                { $0.duplicateInterval = 0 },
                "barcodeConfig.consistencyCount.ean13: 2 reads cannot be counted with a duplicateInterval of 0 s; use 1"
            ),
            (
                { $0.scanDensity = .init(x: 0, y: 0) },
                "barcodeConfig.scanDensity: x and y are both 0, which scans nothing"
            ),
            ({ $0.scanDensity = .init(x: 40, y: 1) }, "barcodeConfig.scanDensity.x: 40 is outside 0...32"),
            ({ $0.qrDownscale = 5 }, "barcodeConfig.qrDownscale: 5 is outside 1...4"),
            (
                { $0.regionOfInterest = .percent(x: 10, y: 0, width: 140, height: 50) },
                "barcodeConfig.regionOfInterest.percent.width: 140.0% is outside 0...100%"
            ),
            (
                { $0.regionOfInterest = .percent(x: 60, y: 0, width: 50, height: 50) },
                "barcodeConfig.regionOfInterest.percent.width: x + width is 110.0%, above 100%"
            ),
            (
                { $0.regionOfInterest = .pixels(Rect(x: 0, y: 0, width: 0, height: 10)) },
                "barcodeConfig.regionOfInterest.pixels: size 0x10 is empty"
            ),
            (
                { $0.regionOfInterest = .pixels(Rect(x: -1, y: 0, width: 5, height: 10)) },
                "barcodeConfig.regionOfInterest.pixels: origin -1, 0 is negative"
            ),
        ].map { (change: (inout BarcodeConfiguration) -> Void, message: String) in (changed(change), message) })
    func validation(configuration: BarcodeConfiguration, message: String) {
        #expect(throws: LumaScanError(.invalidConfiguration, message)) { try configuration.validate() }
    }

    @Test("JSON: missing keys take defaults, consistency entries merge over the defaults")
    func decodeDefaults() throws {
        let json = #"""
            {"symbologies": ["qr", "ean13"], "minLength": {"ean13": 13}, "consistencyCount": {"ean13": 3},
             "regionOfInterest": {"percent": {"x": 10, "y": 20, "width": 80, "height": 60}},
             "scanDensity": {"x": 3, "y": 4}, "qrDownscale": 2, "qrFinderPrefilter": false}
            """#
        let configuration = try JSONDecoder().decode(BarcodeConfiguration.self, from: Data(json.utf8))
        #expect(configuration.id == "barcode")
        #expect(configuration.symbologies == [.qrCode, .ean13])
        #expect(configuration.minLength == [.ean13: 13])
        #expect(configuration.consistency(for: .ean13) == 3)
        #expect(configuration.consistency(for: .ean8) == 2)
        #expect(configuration.consistency(for: .qrCode) == 1)
        #expect(configuration.regionOfInterest == .percent(x: 10, y: 20, width: 80, height: 60))
        #expect(configuration.scanDensity == .init(x: 3, y: 4))
        #expect(configuration.qrDownscale == 2)
        #expect(!configuration.qrFinderPrefilter)
        #expect(configuration.duplicateInterval == 1.0)
        try configuration.validate()
        let empty = try JSONDecoder().decode(BarcodeConfiguration.self, from: Data("{}".utf8))
        #expect(empty == BarcodeConfiguration())
    }

    @Test("JSON round trip")
    func roundTrip() throws {
        let configuration = BarcodeConfiguration(
            id: "shelf", symbologies: [.ean8, .code128], minLength: [.code128: 4], maxLength: [.code128: 20],
            duplicateInterval: 2.5, consistencyCount: [.ean8: 3, .code128: 1],
            regionOfInterest: .pixels(Rect(x: 1, y: 2, width: 300, height: 200)), scanDensity: .init(x: 2, y: 5),
            qrDownscale: 1, qrFinderPrefilter: false, stillImage: true)
        let data = try JSONEncoder().encode(configuration)
        let decoded = try JSONDecoder().decode(BarcodeConfiguration.self, from: data)
        #expect(decoded.symbologies == configuration.symbologies)
        #expect(decoded.minLength == configuration.minLength)
        #expect(decoded.maxLength == configuration.maxLength)
        #expect(decoded.consistency(for: .ean8) == 3)
        #expect(decoded.regionOfInterest == configuration.regionOfInterest)
        #expect(decoded.scanDensity == configuration.scanDensity)
        #expect(decoded.qrDownscale == 1)
        #expect(!decoded.qrFinderPrefilter)
        #expect(BarcodeConfiguration().qrFinderPrefilter)
        #expect(decoded.stillImage)
        #expect(decoded.duplicateInterval == 2.5)
        #expect(decoded.id == "shelf")
    }

    @Test(
        "JSON errors name the path",
        arguments: [
            (#"{"symbology": ["qr"]}"#, "barcodeConfig.symbology: unknown key"),
            (#"{"symbologies": ["qr", "telepen"]}"#, "barcodeConfig.symbologies[1]: unknown symbology \"telepen\""),
            (#"{"minLength": {"ean14": 3}}"#, "barcodeConfig.minLength.ean14: unknown symbology \"ean14\""),
            (#"{"regionOfInterest": {"inches": {}}}"#, "barcodeConfig.regionOfInterest.inches: unknown key"),
            (
                #"{"regionOfInterest": {"pixels": {"x": 0, "y": 0, "w": 3, "width": 1, "height": 1}}}"#,
                "barcodeConfig.regionOfInterest.pixels.w: unknown key"
            ),
            (#"{"scanDensity": {"x": 1, "y": 1, "z": 1}}"#, "barcodeConfig.scanDensity.z: unknown key"),
        ])
    func decodeErrors(json: String, message: String) {
        #expect {
            try JSONDecoder().decode(BarcodeConfiguration.self, from: Data(json.utf8))
        } throws: { error in
            guard let error = error as? LumaScanError else { return false }
            return error.code == .invalidConfiguration && error.message.hasPrefix(message)
        }
    }
}
