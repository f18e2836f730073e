import Foundation
import LumaScanRecognizers
import Testing

/// `lumascan secure-qr generate --key-file`, `lumascan secure-qr calibrate`, and the `authenticity` object of a scan's
/// completion in the JSON lines.
@Suite("lumascan secure-qr: authenticity")
struct SecureQRAuthenticityCommandTests {
    static let payload = "https://scan.example.com/q/KEYED1"

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Generates `payload`'s code with `key` into `path` at 16 px per module (4 px per cell); returns the printed seed.
    static func generate(_ payload: String, key: String, to path: String) throws -> UInt64 {
        let generated = try runLumaScan([
            "secure-qr", "generate", "--payload", payload, "--key-file", key, "--module-px", "16", "--out", path,
            "--json",
        ])
        #expect(generated.status == 0, "stderr: \(generated.stderr)")
        let description = try #require(
            try JSONSerialization.jsonObject(with: Data(generated.stdout.utf8)) as? [String: Any])
        return try #require((description["seed"] as? NSNumber)?.uint64Value)
    }

    @Test("generate --key-file derives the seed from the key; a missing key file and --seed with it are refused")
    func generateWithKey() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("issuer.key")
        try Data("Jefe".utf8).write(to: key)
        let seed = try Self.generate(Self.payload, key: key.path, to: folder.appendingPathComponent("a.png").path)
        #expect(seed == (try SecureQRIssuerKey(bytes: Array("Jefe".utf8)).seed(for: Self.payload)))
        let missing = try runLumaScan([
            "secure-qr", "generate", "--payload", Self.payload, "--key-file", folder.appendingPathComponent("no").path,
            "--out", folder.appendingPathComponent("b.png").path,
        ])
        #expect(missing.status == 2 && missing.stderr.contains("--key-file: cannot read"), "\(missing.stderr)")
        let both = try runLumaScan([
            "secure-qr", "generate", "--payload", Self.payload, "--key-file", key.path, "--seed", "3", "--out",
            folder.appendingPathComponent("c.png").path,
        ])
        #expect(both.status == 2)
    }

    @Test("calibrate scores each capture, fits the threshold, and a scan reports the authenticity of its completion")
    func calibrateAndScan() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("issuer.key")
        try Data((0..<32).map { UInt8($0 * 7 + 1) }).write(to: key)
        let forger = folder.appendingPathComponent("forger.key")
        try Data((0..<32).map { UInt8($0 * 5 + 2) }).write(to: forger)
        let genuine = folder.appendingPathComponent("genuine")
        let copies = folder.appendingPathComponent("copies")
        for sub in [genuine, copies] {
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        }
        // Originals made with the issuer's key; "copies" carrying a pattern made up with another key.
        for index in 0..<2 {
            let payload = Self.payload + "\(index)"
            _ = try Self.generate(payload, key: key.path, to: genuine.appendingPathComponent("\(index).png").path)
            _ = try Self.generate(payload, key: forger.path, to: copies.appendingPathComponent("\(index).png").path)
        }
        let calibrated = try runLumaScan([
            "secure-qr", "calibrate", "--genuine", genuine.path, "--copies", copies.path, "--key-file", key.path,
            "--json",
        ])
        #expect(calibrated.status == 0, "stderr: \(calibrated.stderr)")
        let lines = try jsonLines(calibrated.stdout)
        let scored = lines.filter { $0["score"] != nil }
        #expect(scored.count == 4)
        for line in scored {
            let score = try #require(line["score"] as? Double)
            #expect(line["label"] as? String == "genuine" ? score > 0.9 : score < 0.3, "\(line)")
        }
        let fit = try #require(lines.last?["fit"] as? [String: Any])
        #expect(fit["auc"] as? Double == 1 && fit["eer"] as? Double == 0)
        let threshold = try #require(fit["threshold"] as? Double)
        #expect(threshold > 0.3 && threshold < 0.9)

        // The scan of an original with the key configured: its completion carries the verdict.
        let printed = try runLumaScan(["config", "default", "--plugin", "secure-qr"])
        let configuration = printed.stdout
            .replacingOccurrences(
                of: #""issuerPrefixes" : ["#, with: #""issuerPrefixes" : ["https://scan.example.com/q/""#
            )
            .replacingOccurrences(of: #""stableFrameCount" : 3"#, with: #""stableFrameCount" : 1"#)
            .replacingOccurrences(of: #""authenticity" : {"#, with: #""authenticity" : {"keyFile": "\#(key.path)","#)
        let config = folder.appendingPathComponent("config.json")
        try Data(configuration.utf8).write(to: config)
        let scanned = try runLumaScan([
            "scan", "--input", genuine.appendingPathComponent("0.png").path, "--config", config.path, "--results-only",
        ])
        #expect(scanned.status == 0, "stderr: \(scanned.stderr)")
        let report = try #require(try jsonLines(scanned.stdout).first { $0["event"] as? String == "report" })
        let secureQR = try #require(report["secureQR"] as? [String: Any])
        let authenticity = try #require(secureQR["authenticity"] as? [String: Any], "\(secureQR.keys)")
        #expect(authenticity["decision"] as? String == "genuine")
        #expect((authenticity["score"] as? Double ?? 0) > 0.9)
        for key in ["threshold", "ncc", "bitErrorRate", "pixelsPerCell", "blurCells"] {
            #expect(authenticity[key] is Double, "\(key)")
        }
    }
}
