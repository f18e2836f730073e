import Foundation
import Logging
import Testing

@testable import LumaScan

@Suite("ScanConfiguration.makePlugin: recognizers, ids and rules")
struct ScanConfigurationPluginTests {
    static let logger = Logger(label: "test.configuration")

    @Test("a barcode document builds a barcode recognizer with the plugin's id and rules")
    func barcodePlugin() throws {
        let configuration = try ScanConfiguration.decode(
            json: barcodeDocument(
                plugin: #""id": "till", "cancelOnResult": true, "startScanDelay": 250, "scanTimeout": 0"#,
                view: #""scanFeedbackConfig": {"beepOnResult": true, "distanceBounds": {"tooFarBelow": 0.2}}"#))
        let plugin = try configuration.makePlugin(logger: Self.logger)
        #expect(plugin.id == "till")
        let recognizer = try #require(plugin.recognizer as? BarcodeRecognizer)
        #expect(recognizer.id == "till")
        #expect(recognizer.configuration.regionOfInterest == nil)
        #expect(plugin.cancelOnResult)
        #expect(plugin.startScanDelay == .milliseconds(250))
        #expect(plugin.scanTimeout == nil)
        #expect(plugin.beepOnResult)
        #expect(plugin.distanceBounds == DistanceBounds(tooFarBelow: 0.2, tooCloseAbove: 0.8))
    }

    @Test("the default configuration builds a barcode plugin with a 10 s timeout")
    func defaults() throws {
        let plugin = try ScanConfiguration().makePlugin(logger: Self.logger)
        #expect(plugin.id == "barcode")
        #expect(plugin.recognizer is BarcodeRecognizer)
        #expect(!plugin.cancelOnResult)
        #expect(plugin.startScanDelay == .zero)
        #expect(plugin.scanTimeout == .seconds(10))
        #expect(!plugin.beepOnResult)
        #expect(plugin.distanceBounds == DistanceBounds())
    }

    @Test("a cutout becomes the barcode recognizer's region of interest, in percent of the capture size")
    func cutoutBecomesRegionOfInterest() throws {
        // At 1280x720 the default cutout (1:1, at most 100% of width and height) is the centred 720x720 square:
        // x = (1280 - 720) / 2 = 280 px = 21.875%, width 720 px = 56.25%, the full height.
        let configuration = try ScanConfiguration.decode(json: barcodeDocument(view: #""cutoutConfig": {}"#))
        let plugin = try configuration.makePlugin(logger: Self.logger)
        let recognizer = try #require(plugin.recognizer as? BarcodeRecognizer)
        #expect(recognizer.configuration.regionOfInterest == .percent(x: 21.875, y: 0, width: 56.25, height: 100))
        // At 1920x1080, a 3:1 cutout 50% wide with 10 px of crop padding: 960x320 at (480, 380), the crop
        // 980x340 at (470, 370).
        let cutout = CutoutConfiguration(
            ratioFromSize: .init(width: 3, height: 1), maxWidthPercent: 50, cropPadding: .init(x: 10, y: 10))
        let region = ScanConfiguration.regionOfInterest(of: cutout, frameSize: Size(width: 1920, height: 1080))
        guard case .percent(let x, let y, let width, let height) = region else {
            Issue.record("expected a percent region")
            return
        }
        #expect(abs(x - 470.0 / 1920 * 100) < 1e-9)
        #expect(abs(y - 370.0 / 1080 * 100) < 1e-9)
        #expect(abs(width - 980.0 / 1920 * 100) < 1e-9)
        #expect(abs(height - 340.0 / 1080 * 100) < 1e-9)
        #expect(region.rect(in: Size(width: 1920, height: 1080)) == Rect(x: 470, y: 370, width: 980, height: 340))
        #expect(region.rect(in: Size(width: 960, height: 540)) == Rect(x: 235, y: 185, width: 490, height: 170))
    }

    @Test("a meter document builds a meter recognizer with the plugin's id and the view's cutout")
    func meterPlugin() throws {
        let configuration = try ScanConfiguration.decode(
            json: """
                {"viewPluginConfig": {"pluginConfig": {"id": "water", "meterConfig": {"scanMode": "digital_meter"}},
                 "cutoutConfig": {"maxWidthPercent": "60%"}}}
                """)
        let plugin = try configuration.makePlugin(logger: Self.logger)
        let recognizer = try #require(plugin.recognizer as? MeterRecognizer)
        #expect(plugin.id == "water")
        #expect(recognizer.id == "water")
        #expect(recognizer.configuration.scanMode == .digitalMeter)
        #expect(recognizer.cutout == CutoutConfiguration(maxWidthPercent: 60))
    }

    @Test("a secure QR document builds a secure QR recognizer with the plugin's id")
    func secureQRPlugin() throws {
        let configuration = try ScanConfiguration.decode(
            json:
                #"{"viewPluginConfig": {"pluginConfig": {"id": "auth", "secureQRConfig": {"issuerPrefixes": ["https://scan.example.com/q/"]}}}}"#
        )
        let plugin = try configuration.makePlugin(logger: Self.logger)
        let recognizer = try #require(plugin.recognizer as? SecureQRRecognizer)
        #expect(recognizer.id == "auth")
        #expect(plugin.id == "auth")
    }

    @Test(
        "composites build a CompositeRecognizer of the members, in order, with the first member's rules",
        arguments: [
            CompositeRecognizer.Mode.parallel, .sequential,
        ])
    func compositePlugin(mode: CompositeRecognizer.Mode) throws {
        let first =
            #"{"pluginConfig": {"id": "codes", "cancelOnResult": true, "scanTimeout": 30, "barcodeConfig": {}}, "scanFeedbackConfig": {"beepOnResult": true}}"#
        let second =
            #"{"pluginConfig": {"id": "meter", "cancelOnResult": true, "scanTimeout": 30, "meterConfig": {}}, "scanFeedbackConfig": {"beepOnResult": true}}"#
        let configuration = try ScanConfiguration.decode(json: compositeDocument(first, second, mode: mode.rawValue))
        let plugin = try configuration.makePlugin(logger: Self.logger)
        #expect(plugin.id == "pair")
        let composite = try #require(plugin.recognizer as? CompositeRecognizer)
        #expect(composite.id == "pair")
        #expect(composite.mode == mode)
        #expect(composite.members.map(\.id) == ["codes", "meter"])
        #expect(composite.members[0] is BarcodeRecognizer)
        #expect(composite.members[1] is MeterRecognizer)
        #expect(plugin.cancelOnResult)
        #expect(plugin.scanTimeout == .seconds(30))
        #expect(plugin.beepOnResult)
    }

    @Test("makePlugin validates first, so a configuration built in Swift is checked too")
    func invalidConfigurationIsRefused() {
        let configuration = ScanConfiguration(
            viewPluginConfig: ViewPluginConfig(pluginConfig: PluginConfig(scanTimeout: -1)))
        #expect(
            throws: LumaScanError(.invalidConfiguration, "viewPluginConfig.pluginConfig.scanTimeout: -1 s is below 0")
        ) {
            try configuration.makePlugin(logger: Self.logger)
        }
        let secure = ScanConfiguration.defaultConfiguration(for: .secureQR)
        do {
            _ = try secure.makePlugin(logger: Self.logger)
            Issue.record("a secure QR plugin without issuers was built")
        } catch let error as LumaScanError {
            #expect(error.message.hasPrefix("viewPluginConfig.pluginConfig.secureQRConfig.issuerPrefixes: "))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
