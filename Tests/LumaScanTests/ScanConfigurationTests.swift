import Foundation
import Logging
import Testing

@testable import LumaScan

/// A document with a single barcode plugin and everything else left out.
let minimalBarcodeDocument = #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {}}}}"#

/// Decodes `json`, expecting an invalid-configuration error, and returns its message.
func configurationError(_ json: String) -> String? {
    do {
        _ = try ScanConfiguration.decode(json: json)
        return nil
    } catch {
        #expect(error.code == .invalidConfiguration, "\(error)")
        return error.message
    }
}

/// A barcode document with `pluginConfig` members and `viewPluginConfig` members spliced in.
func barcodeDocument(plugin: String = "", view: String = "", root: String = "") -> String {
    let pluginMembers = plugin.isEmpty ? "" : plugin + ","
    let viewMembers = view.isEmpty ? "" : "," + view
    let rootMembers = root.isEmpty ? "" : "," + root
    return """
        {"viewPluginConfig": {"pluginConfig": {\(pluginMembers) "barcodeConfig": {}}\(viewMembers)}\(rootMembers)}
        """
}

/// A two-member composite: `first` and `second` are the members' `viewPluginConfig` objects.
func compositeDocument(_ first: String, _ second: String, mode: String = "parallel", extra: String = "") -> String {
    """
    {"viewPluginCompositeConfig": {"id": "pair", "processingMode": "\(mode)"\(extra), "viewPlugins": [
        {"viewPluginConfig": \(first)}, {"viewPluginConfig": \(second)}]}}
    """
}

let barcodeMember = #"{"pluginConfig": {"id": "codes", "barcodeConfig": {}}}"#
let meterMember = #"{"pluginConfig": {"id": "meter", "meterConfig": {}}}"#

@Suite("ScanConfiguration: decoding, defaults and round trips")
struct ScanConfigurationTests {
    @Test("a document that only names its plugin takes every default")
    func minimalDocument() throws {
        let configuration = try ScanConfiguration.decode(json: minimalBarcodeDocument)
        #expect(configuration == ScanConfiguration())
        #expect(configuration.cameraConfig.device == "auto")
        #expect(configuration.cameraConfig.isAutomaticDevice)
        #expect(configuration.cameraConfig.captureResolution == .hd720)
        #expect(configuration.cameraConfig.pixelFormat == nil)
        #expect(configuration.cameraConfig.fps == nil)
        #expect(configuration.cameraConfig.bufferCount == 4)
        #expect(configuration.cameraConfig.controls == CameraControlsConfig())
        #expect(configuration.flashConfig.mode == .none)
        #expect(configuration.viewPluginCompositeConfig == nil)
        let view = try #require(configuration.viewPluginConfig)
        #expect(view.cutoutConfig == nil)
        #expect(view.scanFeedbackConfig.beepOnResult == false)
        #expect(view.scanFeedbackConfig.distanceBounds == DistanceBounds(tooFarBelow: 0.1, tooCloseAbove: 0.8))
        let plugin = view.pluginConfig
        #expect(plugin.id == "barcode")
        #expect(plugin.cancelOnResult == false)
        #expect(plugin.startScanDelay == 0)
        #expect(plugin.scanTimeout == 10)
        #expect(plugin.scanTimeoutDuration == .seconds(10))
        #expect(plugin.barcodeConfig == BarcodeConfiguration())
        #expect(plugin.meterConfig == nil && plugin.secureQRConfig == nil)
    }

    @Test(
        "the default document of each plugin kind round-trips through asJSONString",
        arguments: ScanConfiguration.PluginKind.allCases)
    func defaultDocumentsRoundTrip(kind: ScanConfiguration.PluginKind) throws {
        let configuration = ScanConfiguration.defaultConfiguration(for: kind)
        let text = configuration.asJSONString()
        // Decode without validating: the secure QR default lists no issuer yet.
        let decoded = try JSONDecoder().decode(ScanConfiguration.self, from: Data(text.utf8))
        #expect(decoded == configuration)
        #expect(decoded.asJSONString() == text)
        #expect(decoded.viewPluginConfig?.pluginConfig.recognizer.kind == kind)
        #expect(decoded.viewPluginConfig?.pluginConfig.id == kind.rawValue)
        // Every default is written out, unset optional values as null.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let camera = try #require(object["cameraConfig"] as? [String: Any])
        #expect(Set(camera.keys) == ["device", "captureResolution", "pixelFormat", "fps", "bufferCount", "controls"])
        #expect(camera["pixelFormat"] is NSNull)
        let controls = try #require(camera["controls"] as? [String: Any])
        #expect(Set(controls.keys) == Set(CameraControlsConfig.keys))
        let view = try #require(object["viewPluginConfig"] as? [String: Any])
        #expect(Set(view.keys) == ["pluginConfig", "cutoutConfig", "scanFeedbackConfig"])
        if kind == .meter {
            #expect(view["cutoutConfig"] is [String: Any])
        } else {
            #expect(view["cutoutConfig"] is NSNull)
        }
        if kind != .secureQR {
            #expect(try ScanConfiguration.decode(json: text) == configuration)
        }
    }

    @Test("asJSONString sorts keys, and pretty: false writes one line")
    func encodingShape() throws {
        let compact = ScanConfiguration().asJSONString(pretty: false)
        #expect(!compact.contains("\n"))
        #expect(compact.hasPrefix(#"{"cameraConfig":{"bufferCount":4,"captureResolution":"720p","controls":{"#))
        #expect(try ScanConfiguration.decode(json: compact) == ScanConfiguration())
        #expect(ScanConfiguration().asJSONString().contains("\n  "))
    }

    @Test("a full document decodes every value, and round-trips")
    func fullDocument() throws {
        let json = """
            {
              "cameraConfig": {
                "device": "/dev/video2", "captureResolution": "1600x1200", "pixelFormat": "MJPG", "fps": 29.97,
                "bufferCount": 6,
                "controls": {
                  "exposureAuto": false, "exposureAbsolute": 156, "focusAuto": false, "focusAbsolute": 40,
                  "gain": 12, "brightness": 140, "contrast": 30, "powerLineFrequency": "50Hz",
                  "other": {"Zoom, Absolute": 150, "sharpness": 3}
                }
              },
              "flashConfig": {"mode": "manual_on"},
              "viewPluginConfig": {
                "pluginConfig": {
                  "id": "till", "cancelOnResult": true, "startScanDelay": 250, "scanTimeout": 0,
                  "barcodeConfig": {"symbologies": ["ean13", "qr"], "duplicateInterval": 2.5}
                },
                "cutoutConfig": {"maxWidthPercent": "80%", "ratioFromSize": {"width": 3, "height": 1},
                                 "alignment": "top_half"},
                "scanFeedbackConfig": {"beepOnResult": true,
                                       "distanceBounds": {"tooFarBelow": 0.2, "tooCloseAbove": 0.9}}
              }
            }
            """
        let configuration = try ScanConfiguration.decode(json: json)
        let camera = configuration.cameraConfig
        #expect(camera.device == "/dev/video2")
        #expect(!camera.isAutomaticDevice)
        #expect(camera.captureResolution == .custom(Size(width: 1600, height: 1200)))
        #expect(camera.pixelFormat == .mjpeg)
        #expect(camera.fps == 29.97)
        #expect(camera.bufferCount == 6)
        #expect(
            camera.controls
                == CameraControlsConfig(
                    exposureAuto: false, exposureAbsolute: 156, focusAuto: false, focusAbsolute: 40, gain: 12,
                    brightness: 140, contrast: 30, powerLineFrequency: .hz50,
                    other: ["Zoom, Absolute": 150, "sharpness": 3]))
        let settings = camera.cameraSettings
        #expect(settings.size == Size(width: 1600, height: 1200))
        #expect(settings.pixelFormat == .mjpeg)
        #expect(settings.fps == 29.97)
        #expect(settings.bufferCount == 6)
        #expect(configuration.flashConfig.mode == .manualOn)
        let view = try #require(configuration.viewPluginConfig)
        #expect(view.pluginConfig.id == "till")
        #expect(view.pluginConfig.cancelOnResult)
        #expect(view.pluginConfig.startScanDelay == 250)
        #expect(view.pluginConfig.startScanDelayDuration == .milliseconds(250))
        #expect(view.pluginConfig.scanTimeoutDuration == nil)
        let barcode = try #require(view.pluginConfig.barcodeConfig)
        #expect(barcode.id == "till", "the plugin's id is copied into the barcode configuration")
        #expect(barcode.symbologies == [.ean13, .qrCode])
        #expect(barcode.duplicateInterval == 2.5)
        #expect(
            view.cutoutConfig
                == CutoutConfiguration(
                    ratioFromSize: .init(width: 3, height: 1), maxWidthPercent: 80, alignment: .topHalf))
        #expect(
            view.scanFeedbackConfig
                == ScanFeedbackConfig(beepOnResult: true, distanceBounds: .init(tooFarBelow: 0.2, tooCloseAbove: 0.9)))
        #expect(try ScanConfiguration.decode(json: configuration.asJSONString()) == configuration)
    }

    @Test("a composite document decodes its members in order, and round-trips")
    func compositeDocumentDecodes() throws {
        let configuration = try ScanConfiguration.decode(
            json: compositeDocument(barcodeMember, meterMember, mode: "sequential"))
        #expect(configuration.viewPluginConfig == nil)
        let composite = try #require(configuration.viewPluginCompositeConfig)
        #expect(composite.id == "pair")
        #expect(composite.processingMode == .sequential)
        #expect(composite.viewPlugins.map(\.pluginConfig.id) == ["codes", "meter"])
        #expect(composite.viewPlugins[1].cutoutConfig == CutoutConfiguration(), "a meter gets the default cutout")
        #expect(configuration.viewPlugins == composite.viewPlugins)
        let text = configuration.asJSONString()
        #expect(text.contains(#""viewPluginConfig" : {"#), "members are wrapped as Anyline writes them")
        #expect(try ScanConfiguration.decode(json: text) == configuration)
    }

    @Test("the plugin id defaults to the recognizer configuration's id, else to the kind")
    func pluginIDs() throws {
        let fromBarcode = try ScanConfiguration.decode(
            json: #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {"id": "front"}}}}"#)
        #expect(fromBarcode.viewPluginConfig?.pluginConfig.id == "front")
        let meter = try ScanConfiguration.decode(json: #"{"viewPluginConfig": {"pluginConfig": {"meterConfig": {}}}}"#)
        #expect(meter.viewPluginConfig?.pluginConfig.id == "meter")
        let secure = try ScanConfiguration.decode(
            json:
                #"{"viewPluginConfig": {"pluginConfig": {"secureQRConfig": {"issuerPrefixes": ["https://q.example.com/"]}}}}"#
        )
        #expect(secure.viewPluginConfig?.pluginConfig.id == "secure-qr")
        #expect(secure.viewPluginConfig?.pluginConfig.secureQRConfig?.issuerPrefixes == ["https://q.example.com/"])
        let same = try ScanConfiguration.decode(
            json: #"{"viewPluginConfig": {"pluginConfig": {"id": "x", "barcodeConfig": {"id": "x"}}}}"#)
        #expect(same.viewPluginConfig?.pluginConfig.barcodeConfig?.id == "x")
    }

    @Test("memberwise initialisers keep the ids consistent and give a meter its cutout")
    func memberwise() {
        let plugin = PluginConfig(id: "kiosk", recognizer: .barcode(BarcodeConfiguration(id: "other")))
        #expect(plugin.id == "kiosk")
        #expect(plugin.barcodeConfig?.id == "kiosk")
        #expect(PluginConfig(recognizer: .barcode(BarcodeConfiguration(id: "own"))).id == "own")
        #expect(PluginConfig(recognizer: .meter(MeterConfiguration())).id == "meter")
        let meter = ViewPluginConfig(pluginConfig: PluginConfig(recognizer: .meter(MeterConfiguration())))
        #expect(meter.cutoutConfig == CutoutConfiguration())
        #expect(ViewPluginConfig().cutoutConfig == nil)
    }

    @Test(
        "captureResolution spellings",
        arguments: [
            ("480p", 640, 480), ("720p", 1280, 720), ("1080p", 1920, 1080), ("1600x1200", 1600, 1200),
        ])
    func resolutions(text: String, width: Int, height: Int) throws {
        let resolution = try #require(CaptureResolution(text))
        #expect(resolution.size == Size(width: width, height: height))
        #expect(resolution.description == text)
    }

    @Test(
        "malformed captureResolution spellings are refused",
        arguments: ["", "720", "4k", "1280x", "x720", "12 80x720", "1280x720x1", "+1280x720"])
    func badResolutions(text: String) {
        #expect(CaptureResolution(text) == nil)
    }
}

/// An invalid document and the start of the message it must be refused with.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    var name: String
    var json: String
    var message: String
    var testDescription: String { name }
}

@Suite("ScanConfiguration: errors name the JSON path and the problem")
struct ScanConfigurationErrorTests {
    static let cases: [ErrorCase] = [
        ErrorCase(
            name: "unknown key, with the closest known key",
            json:
                #"{"cameraConfig": {"captureResolutoin": "720p"}, "viewPluginConfig": {"pluginConfig": {"barcodeConfig": {}}}}"#,
            message:
                "cameraConfig.captureResolutoin: unknown key 'captureResolutoin'; did you mean 'captureResolution'?"),
        ErrorCase(
            name: "unknown root key",
            json: #"{"viewPlugnConfig": {}}"#,
            message: "viewPlugnConfig: unknown key 'viewPlugnConfig'; did you mean 'viewPluginConfig'?"),
        ErrorCase(
            name: "unknown key far from every known key",
            json: barcodeDocument(view: #""scanFeedbackConfig": {"strokeColor": "0099FF"}"#),
            message: "viewPluginConfig.scanFeedbackConfig.strokeColor: unknown key 'strokeColor'; known keys: "),
        ErrorCase(
            name: "wrong type",
            json: barcodeDocument(root: #""cameraConfig": {"bufferCount": "four"}"#),
            message: "cameraConfig.bufferCount: expected an integer"),
        ErrorCase(
            name: "wrong type of a nested object",
            json: barcodeDocument(view: #""scanFeedbackConfig": []"#),
            message: "viewPluginConfig.scanFeedbackConfig: expected "),
        ErrorCase(
            name: "negative scan timeout",
            json: barcodeDocument(plugin: #""scanTimeout": -1"#),
            message: "viewPluginConfig.pluginConfig.scanTimeout: -1 s is below 0"),
        ErrorCase(
            name: "start delay too long",
            json: barcodeDocument(plugin: #""startScanDelay": 70000"#),
            message: "viewPluginConfig.pluginConfig.startScanDelay: 70000 ms is above 60000 ms"),
        ErrorCase(
            name: "empty plugin id",
            json: barcodeDocument(plugin: #""id": """#),
            message: "viewPluginConfig.pluginConfig.id: must not be empty"),
        ErrorCase(
            name: "no buffers",
            json: barcodeDocument(root: #""cameraConfig": {"bufferCount": 0}"#),
            message: "cameraConfig.bufferCount: 0 is below 1"),
        ErrorCase(
            name: "zero fps",
            json: barcodeDocument(root: #""cameraConfig": {"fps": 0}"#),
            message: "cameraConfig.fps: 0 is not above 0"),
        ErrorCase(
            name: "unknown resolution",
            json: barcodeDocument(root: #""cameraConfig": {"captureResolution": "900p"}"#),
            message: #"cameraConfig.captureResolution: "900p" is not 480p, 720p, 1080p or WxH"#),
        ErrorCase(
            name: "resolution too small",
            json: barcodeDocument(root: #""cameraConfig": {"captureResolution": "8x8"}"#),
            message: "cameraConfig.captureResolution.width: 8 px is below 16 px"),
        ErrorCase(
            name: "relative device",
            json: barcodeDocument(root: #""cameraConfig": {"device": "video0"}"#),
            message: #"cameraConfig.device: "video0" is neither "auto" nor an absolute device path"#),
        ErrorCase(
            name: "lower-case fourcc",
            json: barcodeDocument(root: #""cameraConfig": {"pixelFormat": "yuyv"}"#),
            message: #"cameraConfig.pixelFormat: "yuyv" is not a format LumaScan reads; did you mean "YUYV"?"#),
        ErrorCase(
            name: "unsupported fourcc",
            json: barcodeDocument(root: #""cameraConfig": {"pixelFormat": "RGB3"}"#),
            message: #"cameraConfig.pixelFormat: "RGB3" is not a format LumaScan reads"#),
        ErrorCase(
            name: "unknown flash mode",
            json: barcodeDocument(root: #""flashConfig": {"mode": "manual"}"#),
            message:
                #"flashConfig.mode: "manual" is not one of none, manual_on, manual_off, auto; did you mean "manual_on"?"#
        ),
        ErrorCase(
            name: "power line frequency in the wrong case",
            json: barcodeDocument(root: #""cameraConfig": {"controls": {"powerLineFrequency": "50hz"}}"#),
            message:
                #"cameraConfig.controls.powerLineFrequency: "50hz" is not one of disabled, 50Hz, 60Hz, auto; did you mean "50Hz"?"#
        ),
        ErrorCase(
            name: "manual exposure time with automatic exposure",
            json: barcodeDocument(root: #""cameraConfig": {"controls": {"exposureAbsolute": 100}}"#),
            message: "cameraConfig.controls.exposureAbsolute: needs exposureAuto false"),
        ErrorCase(
            name: "focus position with autofocus on",
            json: barcodeDocument(root: #""cameraConfig": {"controls": {"focusAuto": true, "focusAbsolute": 10}}"#),
            message: "cameraConfig.controls.focusAbsolute: needs focusAuto false"),
        ErrorCase(
            name: "other control that a named setting covers",
            json: barcodeDocument(root: #""cameraConfig": {"controls": {"other": {"exposure_time_absolute": 3}}}"#),
            message:
                "cameraConfig.controls.other.exposure_time_absolute: set it with cameraConfig.controls.exposureAbsolute instead"
        ),
        ErrorCase(
            name: "control value beyond 32 bits",
            json: barcodeDocument(root: #""cameraConfig": {"controls": {"gain": 5000000000}}"#),
            message: "cameraConfig.controls.gain: 5000000000 is outside the 32-bit range of V4L2 controls"),
        ErrorCase(
            name: "two plugin configurations",
            json: #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {}, "meterConfig": {}}}}"#,
            message: "viewPluginConfig.pluginConfig.meterConfig: cannot be combined with barcodeConfig"),
        ErrorCase(
            name: "no plugin configuration",
            json: #"{"viewPluginConfig": {"pluginConfig": {"id": "x"}}}"#,
            message: "viewPluginConfig.pluginConfig: needs one of barcodeConfig, secureQRConfig or meterConfig"),
        ErrorCase(
            name: "view plugin without pluginConfig",
            json: #"{"viewPluginConfig": {}}"#,
            message: "viewPluginConfig.pluginConfig: missing required key"),
        ErrorCase(
            name: "neither viewPluginConfig nor viewPluginCompositeConfig",
            json: #"{"cameraConfig": {}}"#,
            message: "(root): missing viewPluginConfig or viewPluginCompositeConfig; give exactly one of them"),
        ErrorCase(
            name: "both viewPluginConfig and viewPluginCompositeConfig",
            json: barcodeDocument(root: #""viewPluginCompositeConfig": {"viewPlugins": []}"#),
            message: "viewPluginCompositeConfig: cannot be combined with viewPluginConfig"),
        ErrorCase(
            name: "not JSON",
            json: "{cameraConfig: 1}",
            message: "(root): line 1, column 2 (byte 1): expected a key (a string) or '}', found 'c'"),
        ErrorCase(
            name: "a key given twice, the second one invalid",
            json: #"{"viewPluginConfig": {"pluginConfig": {"scanTimeout":10,"scanTimeout":-1, "barcodeConfig": {}}}}"#,
            message:
                "viewPluginConfig.pluginConfig.scanTimeout: duplicate key at line 1, column 57 (byte 56); first given at "
                + "line 1, column 40 (byte 39)"),
        ErrorCase(
            name: "a fraction in an integer field",
            json: barcodeDocument(plugin: #""scanTimeout": 0.5"#),
            message: "viewPluginConfig.pluginConfig.scanTimeout: 0.5 is not a whole number; this field takes an integer"
        ),
        ErrorCase(
            name: "1e308 in an integer field",
            json: barcodeDocument(root: #""cameraConfig": {"bufferCount": 1e308}"#),
            message: "cameraConfig.bufferCount: 1e+308 is too large for an integer"),
        ErrorCase(
            name: "1e308 in an integer map",
            json: #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {"minLength": {"ean13": 1e308}}}}}"#,
            message: "viewPluginConfig.pluginConfig.barcodeConfig.minLength.ean13: 1e+308 is too large for an integer"),
        ErrorCase(
            name: "a fraction in a region of interest",
            json: #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {"regionOfInterest": "#
                + #"{"pixels": {"x": 0.5, "y": 0, "width": 1, "height": 1}}}}}}"#,
            message: "viewPluginConfig.pluginConfig.barcodeConfig.regionOfInterest.pixels.x: 0.5 is not a whole number"),
        ErrorCase(
            name: "a NUL in the plugin id",
            json: barcodeDocument(plugin: #""id": "till\u0000rm""#),
            message: #"viewPluginConfig.pluginConfig.id: "till\0rm" holds the control character U+0000"#),
        ErrorCase(
            name: "a long bad value is echoed with at most 200 characters",
            json: #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {"symbologies": [""#
                + String(repeating: "x", count: 100_000) + #""]}}}}"#,
            message: #"viewPluginConfig.pluginConfig.barcodeConfig.symbologies[0]: unknown symbology ""#
                + String(repeating: "x", count: 200) + #"… (99800 more characters)" (known: "#),
        ErrorCase(
            name: "10,000-deep nesting",
            json: barcodeDocument(
                root: #""x": "# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)),
            message: "x[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"),
        ErrorCase(
            name: "plugin id that disagrees with the barcode configuration's",
            json: #"{"viewPluginConfig": {"pluginConfig": {"id": "a", "barcodeConfig": {"id": "b"}}}}"#,
            message: #"viewPluginConfig.pluginConfig.barcodeConfig.id: "b" differs from pluginConfig.id "a""#),
        ErrorCase(
            name: "barcode validation, rebased onto the document's path",
            json: #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {"consistencyCount": {"ean13": 0}}}}}"#,
            message: "viewPluginConfig.pluginConfig.barcodeConfig.consistencyCount.ean13: 0 is outside 1...30"),
        ErrorCase(
            name: "barcode decoding, rebased onto the document's path",
            json: #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {"symbologies": ["ean14"]}}}}"#,
            message: #"viewPluginConfig.pluginConfig.barcodeConfig.symbologies[0]: unknown symbology "ean14""#),
        ErrorCase(
            name: "barcode unknown key",
            json: #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {"symbology": []}}}}"#,
            message: "viewPluginConfig.pluginConfig.barcodeConfig.symbology: unknown key"),
        ErrorCase(
            name: "barcode wrong type",
            json: #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {"duplicateInterval": "1s"}}}}"#,
            message: "viewPluginConfig.pluginConfig.barcodeConfig.duplicateInterval: expected a number"),
        ErrorCase(
            name: "barcode region of interest with a cutout",
            json: barcodeDocument(view: #""cutoutConfig": {}"#).replacingOccurrences(
                of: #""barcodeConfig": {}"#,
                with:
                    #""barcodeConfig": {"regionOfInterest": {"percent": {"x": 0, "y": 0, "width": 50, "height": 50}}}"#),
            message:
                "viewPluginConfig.cutoutConfig: cannot be combined with pluginConfig.barcodeConfig.regionOfInterest"),
        ErrorCase(
            name: "cutout out of range",
            json: barcodeDocument(view: #""cutoutConfig": {"maxWidthPercent": "140%"}"#),
            message: "viewPluginConfig.cutoutConfig.maxWidthPercent: 140% is above 100%"),
        ErrorCase(
            name: "cutout with a secure QR plugin",
            json:
                #"{"viewPluginConfig": {"pluginConfig": {"secureQRConfig": {"issuerPrefixes": ["https://q.example.com/"]}}, "cutoutConfig": {}}}"#,
            message: "viewPluginConfig.cutoutConfig: is not supported with secureQRConfig"),
        ErrorCase(
            name: "secure QR without issuers",
            json: #"{"viewPluginConfig": {"pluginConfig": {"secureQRConfig": {}}}}"#,
            message: "viewPluginConfig.pluginConfig.secureQRConfig.issuerPrefixes: list at least one issuer URL prefix"),
        ErrorCase(
            name: "secure QR unknown key, with the closest known key",
            json: #"{"viewPluginConfig": {"pluginConfig": {"secureQRConfig": {"issuerPrefix": []}}}}"#,
            message:
                "viewPluginConfig.pluginConfig.secureQRConfig.issuerPrefix: unknown key 'issuerPrefix'; did you mean 'issuerPrefixes'?"
        ),
        ErrorCase(
            name: "dial meter",
            json: #"{"viewPluginConfig": {"pluginConfig": {"meterConfig": {"scanMode": "dial_meter"}}}}"#,
            message: "viewPluginConfig.pluginConfig.meterConfig.scanMode: dial_meter is not supported yet"),
        ErrorCase(
            name: "meter out of range",
            json: #"{"viewPluginConfig": {"pluginConfig": {"meterConfig": {"minConfidence": 140}}}}"#,
            message: "viewPluginConfig.pluginConfig.meterConfig.minConfidence: 140 is above 100"),
        ErrorCase(
            name: "distance bounds the wrong way round",
            json: barcodeDocument(view: #""scanFeedbackConfig": {"distanceBounds": {"tooCloseAbove": 0.05}}"#),
            message:
                "viewPluginConfig.scanFeedbackConfig.distanceBounds.tooCloseAbove: 0.05 is not above tooFarBelow 0.1"),
        ErrorCase(
            name: "distance bounds unknown key",
            json: barcodeDocument(view: #""scanFeedbackConfig": {"distanceBounds": {"tooFarBellow": 0.05}}"#),
            message:
                "viewPluginConfig.scanFeedbackConfig.distanceBounds.tooFarBellow: unknown key 'tooFarBellow'; did you mean 'tooFarBelow'?"
        ),
        ErrorCase(
            name: "composite member's barcode error, with the member's index",
            json: compositeDocument(
                barcodeMember, #"{"pluginConfig": {"id": "b2", "barcodeConfig": {"symbologies": ["qr", "nope"]}}}"#),
            message:
                #"viewPluginCompositeConfig.viewPlugins[1].viewPluginConfig.pluginConfig.barcodeConfig.symbologies[1]: unknown symbology "nope""#
        ),
        ErrorCase(
            name: "composite member's cutout error, with the member's index",
            json: compositeDocument(
                #"{"pluginConfig": {"meterConfig": {}}, "cutoutConfig": {"maxWidthPercent": 140}}"#, barcodeMember),
            message:
                "viewPluginCompositeConfig.viewPlugins[0].viewPluginConfig.cutoutConfig.maxWidthPercent: 140% is above 100%"
        ),
        ErrorCase(
            name: "composite member's meter error, with the member's index",
            json: compositeDocument(barcodeMember, #"{"pluginConfig": {"meterConfig": {"minConfidence": -3}}}"#),
            message:
                "viewPluginCompositeConfig.viewPlugins[1].viewPluginConfig.pluginConfig.meterConfig.minConfidence: -3 is below 0"
        ),
        ErrorCase(
            name: "composite member's secure QR validation, with the member's index",
            json: compositeDocument(
                #"{"pluginConfig": {"secureQRConfig": {"issuerPrefixes": ["https://q.example.com/"], "stableFrameCount": 0}}}"#,
                barcodeMember),
            message:
                "viewPluginCompositeConfig.viewPlugins[0].viewPluginConfig.pluginConfig.secureQRConfig.stableFrameCount: 0 is outside 1...100"
        ),
        ErrorCase(
            name: "composite member with an unknown key",
            json: #"{"viewPluginCompositeConfig": {"viewPlugins": [{"viewPluginConfg": {}}]}}"#,
            message:
                "viewPluginCompositeConfig.viewPlugins[0].viewPluginConfg: unknown key 'viewPluginConfg'; did you mean 'viewPluginConfig'?"
        ),
        ErrorCase(
            name: "composite without members",
            json: #"{"viewPluginCompositeConfig": {"viewPlugins": []}}"#,
            message: "viewPluginCompositeConfig.viewPlugins: list at least one view plugin"),
        ErrorCase(
            name: "composite without viewPlugins",
            json: #"{"viewPluginCompositeConfig": {"id": "x"}}"#,
            message: "viewPluginCompositeConfig.viewPlugins: missing required key"),
        ErrorCase(
            name: "composite processing mode misspelt",
            json: compositeDocument(barcodeMember, meterMember, mode: "paralel"),
            message:
                #"viewPluginCompositeConfig.processingMode: "paralel" is not one of parallel, sequential; did you mean "parallel"?"#
        ),
        ErrorCase(
            name: "composite members with the same id",
            json: compositeDocument(barcodeMember, barcodeMember),
            message:
                #"viewPluginCompositeConfig.viewPlugins[1].viewPluginConfig.pluginConfig.id: "codes" is also the id of viewPlugins[0]"#
        ),
        ErrorCase(
            name: "composite members with different timeouts",
            json: compositeDocument(barcodeMember, #"{"pluginConfig": {"scanTimeout": 30, "meterConfig": {}}}"#),
            message:
                "viewPluginCompositeConfig.viewPlugins[1].viewPluginConfig.pluginConfig.scanTimeout: 30 s differs from viewPlugins[0]'s 10 s"
        ),
        ErrorCase(
            name: "composite members that disagree on cancelOnResult",
            json: compositeDocument(barcodeMember, #"{"pluginConfig": {"cancelOnResult": true, "meterConfig": {}}}"#),
            message:
                "viewPluginCompositeConfig.viewPlugins[1].viewPluginConfig.pluginConfig.cancelOnResult: true differs"),
        ErrorCase(
            name: "composite members that disagree on the bell",
            json: compositeDocument(
                barcodeMember, #"{"pluginConfig": {"meterConfig": {}}, "scanFeedbackConfig": {"beepOnResult": true}}"#),
            message:
                "viewPluginCompositeConfig.viewPlugins[1].viewPluginConfig.scanFeedbackConfig.beepOnResult: true differs"
        ),
        ErrorCase(
            name: "sequential composite with a later start delay",
            json: compositeDocument(
                barcodeMember, #"{"pluginConfig": {"startScanDelay": 500, "meterConfig": {}}}"#, mode: "sequential"),
            message:
                "viewPluginCompositeConfig.viewPlugins[1].viewPluginConfig.pluginConfig.startScanDelay: 500 ms is not supported"
        ),
        ErrorCase(
            name: "parallel composite with different start delays",
            json: compositeDocument(barcodeMember, #"{"pluginConfig": {"startScanDelay": 500, "meterConfig": {}}}"#),
            message:
                "viewPluginCompositeConfig.viewPlugins[1].viewPluginConfig.pluginConfig.startScanDelay: 500 ms differs from viewPlugins[0]'s 0 ms"
        ),
    ]

    @Test("each invalid document is refused with its path and problem", arguments: cases)
    func refused(_ example: ErrorCase) {
        let message = configurationError(example.json)
        #expect(message?.hasPrefix(example.message) == true, "got: \(message ?? "no error")")
    }

    @Test("a long unknown key or value is echoed with at most 200 characters of it")
    func longEchoes() {
        let key = String(repeating: "k", count: 5000)
        for json in [
            barcodeDocument(plugin: "\"\(key)\": 1"), barcodeDocument(plugin: "\"id\": \"\(key)\\n\""),
            barcodeDocument(root: #""cameraConfig": {"captureResolution": "\#(key)"}"#),
        ] {
            let message = configurationError(json)
            #expect(message?.contains(String(repeating: "k", count: 200) + "…") == true, "\(message ?? "valid")")
            #expect((message?.count ?? 0) < 700, "\(message?.count ?? 0) characters")
        }
    }

    @Test("validate() checks configurations built in Swift too")
    func validateMemberwise() {
        let camera = CameraConfig(fps: .infinity)
        #expect(throws: LumaScanError(.invalidConfiguration, "cameraConfig.fps: inf is not a finite number")) {
            try ScanConfiguration(cameraConfig: camera).validate()
        }
        let composite = ScanConfiguration(viewPluginCompositeConfig: ViewPluginCompositeConfig(viewPlugins: []))
        #expect(
            throws: LumaScanError(
                .invalidConfiguration, "viewPluginCompositeConfig.viewPlugins: list at least one view plugin")
        ) {
            try composite.validate()
        }
        // Encoding an invalid value still works, and decoding the result refuses it.
        let text = ScanConfiguration(cameraConfig: camera).asJSONString()
        #expect(configurationError(text)?.hasPrefix("cameraConfig.fps: expected") == true)
    }
}
