import Foundation
import Testing

@Suite("lumascan config: default documents and validation (Configuration)")
struct ConfigurationCommandTests {
    /// Writes `text` to a new temporary file and returns its path.
    static func temporaryFile(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lumascan-config-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test("config default prints a complete document that config validate accepts", arguments: ["barcode", "meter"])
    func defaultThenValidate(plugin: String) throws {
        let printed = try runLumaScan(["config", "default", "--plugin", plugin])
        #expect(printed.status == 0, "stderr: \(printed.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["cameraConfig", "flashConfig", "viewPluginConfig"])
        let view = try #require(object["viewPluginConfig"] as? [String: Any])
        let pluginConfig = try #require(view["pluginConfig"] as? [String: Any])
        #expect(pluginConfig["id"] as? String == plugin)
        #expect(pluginConfig["scanTimeout"] as? Int == 10)

        let file = try Self.temporaryFile(printed.stdout)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let checked = try runLumaScan(["config", "validate", file])
        #expect(checked.status == 0, "stderr: \(checked.stderr)")
        #expect(checked.stdout == "\(file): valid: \(plugin) '\(plugin)'\n")
    }

    @Test("config default without --plugin prints the barcode document")
    func defaultIsBarcode() throws {
        let plain = try runLumaScan(["config", "default"])
        let barcode = try runLumaScan(["config", "default", "--plugin", "barcode"])
        #expect(plain.status == 0)
        #expect(plain.stdout == barcode.stdout)
        #expect(plain.stdout.contains(#""barcodeConfig" : {"#))
    }

    @Test("the secure QR default names the issuer prefixes it needs, and does not validate without them")
    func secureQRDefault() throws {
        let printed = try runLumaScan(["config", "default", "--plugin", "secure-qr"])
        #expect(printed.status == 0)
        #expect(printed.stderr.contains("issuerPrefixes"))
        let file = try Self.temporaryFile(printed.stdout)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let checked = try runLumaScan(["config", "validate", file])
        #expect(checked.status == 1)
        #expect(checked.stderr.contains("\(file): viewPluginConfig.pluginConfig.secureQRConfig.issuerPrefixes: "))

        let fixed = printed.stdout.replacingOccurrences(
            of: #""issuerPrefixes" : ["#, with: #""issuerPrefixes" : ["https://scan.example.com/q/""#)
        let fixedFile = try Self.temporaryFile(fixed)
        defer { try? FileManager.default.removeItem(atPath: fixedFile) }
        let valid = try runLumaScan(["config", "validate", fixedFile])
        #expect(valid.status == 0, "stderr: \(valid.stderr)")
    }

    @Test("an invalid document exits 1 with the path-naming message")
    func invalidDocument() throws {
        let file = try Self.temporaryFile(
            #"{"viewPluginConfig": {"pluginConfig": {"scanTimeout": -1, "barcodeConfig": {}}}}"#)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try runLumaScan(["config", "validate", file])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "lumascan: \(file): viewPluginConfig.pluginConfig.scanTimeout: -1 s is below 0\n")

        let typo = try Self.temporaryFile(
            #"{"viewPluginConfig": {"pluginConfig": {"barcodeConfig": {}}}, "flashConfg": {}}"#)
        defer { try? FileManager.default.removeItem(atPath: typo) }
        let typoResult = try runLumaScan(["config", "validate", typo])
        #expect(typoResult.status == 1)
        #expect(typoResult.stderr.contains("flashConfg: unknown key 'flashConfg'; did you mean 'flashConfig'?"))
    }

    @Test("a composite document is summarised")
    func compositeSummary() throws {
        let file = try Self.temporaryFile(
            """
            {"viewPluginCompositeConfig": {"id": "pair", "processingMode": "sequential", "viewPlugins": [
              {"viewPluginConfig": {"pluginConfig": {"id": "codes", "barcodeConfig": {}}}},
              {"viewPluginConfig": {"pluginConfig": {"meterConfig": {}}}}]}}
            """)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try runLumaScan(["config", "validate", file])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "\(file): valid: sequential composite 'pair' of barcode 'codes', meter 'meter'\n")
    }

    @Test(
        "bad arguments exit 2",
        arguments: [
            ["config", "validate"],
            ["config", "validate", "/nonexistent/lumascan.json"],
            ["config", "validate", "/tmp"],
            ["config", "default", "--plugin", "qr"],
            ["config", "defaults"],
        ])
    func badArguments(arguments: [String]) throws {
        let result = try runLumaScan(arguments)
        #expect(result.status == 2, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }
}

/// Reading configuration documents: bounded, and errors that say what went wrong.
@Suite("lumascan config input")
struct ConfigInputTests {
    @Test("standard input is read up to 1 MiB: /dev/zero is refused at once, not read without end")
    func stdinCap() throws {
        let process = Process()
        process.executableURL = try lumascanBinary()
        process.arguments = ["config", "validate", "-"]
        process.standardInput = FileHandle(forReadingAtPath: "/dev/zero")
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(message.contains("standard input: larger than 1048576 bytes"), "\(message)")
    }

    @Test("a missing file, a folder and an empty file each say what they are")
    func reasons() throws {
        let missing = try runLumaScan(["config", "validate", "/nonexistent/lumascan.json"])
        #expect(missing.status == 2 && missing.stderr.contains("No such file or directory"), "\(missing.stderr)")
        let folder = try runLumaScan(["config", "validate", FileManager.default.temporaryDirectory.path])
        #expect(folder.status == 2 && folder.stderr.contains("Is a directory"), "\(folder.stderr)")
        let empty = try runLumaScan(["config", "validate", "/dev/null"])
        #expect(empty.status == 1 && !empty.stderr.contains("permission"), "\(empty.stderr)")
        #expect(empty.stderr.contains("/dev/null: (root): the document is empty; expected a JSON object"))
    }
}
