import Foundation
import LumaScanCore
import Testing

/// The one path printer of the configuration types: a recognizer's or the cutout's configuration names its JSON path
/// right whether it is decoded on its own or inside a document, with nothing rewriting messages afterwards.
@Suite("ConfigurationPath")
struct ConfigurationPathTests {
    static func keys(_ names: Any...) -> [any CodingKey] {
        names.map { name -> any CodingKey in
            if let index = name as? Int { return ConfigurationKeys.AnyKey(intValue: index) }
            return ConfigurationKeys.AnyKey(name as! String)
        }
    }

    @Test("on its own, a path is under the standalone root; inside a document it is the document's path")
    func standaloneAndDocument() {
        let root = "viewPluginConfig.pluginConfig.meterConfig"
        #expect(ConfigurationPath.string([], under: "meterConfig", standaloneRoot: root) == root)
        #expect(
            ConfigurationPath.string(Self.keys("validationRegex"), under: "meterConfig", standaloneRoot: root)
                == root + ".validationRegex")
        let nested = Self.keys(
            "viewPluginCompositeConfig", "viewPlugins", 1, "viewPlugin", "pluginConfig", "meterConfig", "scanMode")
        #expect(
            ConfigurationPath.string(nested, under: "meterConfig", standaloneRoot: root)
                == "viewPluginCompositeConfig.viewPlugins[1].viewPlugin.pluginConfig.meterConfig.scanMode")
        #expect(
            ConfigurationPath.string(
                Self.keys("symbologies", 2), under: "barcodeConfig", standaloneRoot: "barcodeConfig")
                == "barcodeConfig.symbologies[2]")
    }

    @Test("a cutout in a composite names its own path in decoding and in validation errors")
    func cutoutInAComposite() throws {
        struct Document: Decodable {
            var viewPlugins: [Member]
            struct Member: Decodable { var cutoutConfig: CutoutConfiguration }
        }
        let json = #"{"viewPlugins": [{"cutoutConfig": {}}, {"cutoutConfig": {"offset": {"x": 1, "z": 2}}}]}"#
        do {
            _ = try JSONDecoder().decode(Document.self, from: Data(json.utf8))
            Issue.record("an unknown key must be refused")
        } catch let error as LumaScanError {
            #expect(error.message.hasPrefix("viewPlugins[1].cutoutConfig.offset.z: unknown key 'z'"))
        }
        let wide = #"{"viewPlugins": [{"cutoutConfig": {"width": 99999999}}]}"#
        do {
            _ = try JSONDecoder().decode(Document.self, from: Data(wide.utf8))
            Issue.record("a width out of range must be refused")
        } catch let error as LumaScanError {
            #expect(error.message.hasPrefix("viewPlugins[0].cutoutConfig.width: "))
        }
    }
}
