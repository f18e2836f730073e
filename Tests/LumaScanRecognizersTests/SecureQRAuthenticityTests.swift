import CLumaBenchKit
import Foundation
import Logging
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// On-device copy detection: the keyed seed, the score of originals, copies and wrong keys, the configuration's
/// errors and the threshold fit.
@Suite("SecureQRAuthenticity")
struct SecureQRAuthenticityTests {
    static let logger = Logger(label: "test.secure-qr.authenticity")
    /// The print raster: 16 pixels per module, 4 per CDP cell.
    static let printModulePixels = 16

    /// A folder for key files, removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sqr-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `bytes` to a key file in `folder`.
    static func keyFile(_ bytes: [UInt8], in folder: URL, name: String = "issuer.key") throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// 32 key bytes from a seed.
    static func keyBytes(_ seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    static func configuration(keyFile: String?) -> SecureQRConfiguration {
        var configuration = SecureQRCorpus.configuration(hybrid: false)
        configuration.authenticity = SecureQRAuthenticityConfiguration(keyFile: keyFile)
        return configuration
    }

    /// Gaussian blur by `sigma` pixels (the vision shim's), in place.
    static func blur(_ pixels: inout [UInt8], width: Int, height: Int, sigma: Double) {
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            lv_image_gaussian_blur(buffer.baseAddress, Int32(width), Int32(height), width, sigma)
        }
        precondition(status == 0, "blur failed: \(status)")
    }

    /// Printing a binary image: the ink spreads (a blur of `spread` pixels) and settles where the spread ink passes
    /// `level` (below 128: dot gain, dark areas grow).
    static func press(_ image: LumaImage, spread: Double, level: UInt8) -> LumaImage {
        var pixels = image.pixels
        blur(&pixels, width: image.width, height: image.height, sigma: spread)
        return LumaImage(width: image.width, height: image.height, pixels: pixels.map { $0 > level ? 255 : 0 })
    }

    /// A first-generation copy of a print: scanned (the scanner's MTF, a Gaussian of half a cell), re-thresholded
    /// at mid-grey, and printed again.
    static func copy(of print: LumaImage) -> LumaImage {
        var scan = print.pixels
        blur(&scan, width: print.width, height: print.height, sigma: 0.5 * Double(printModulePixels) / 4)
        let rethresholded = LumaImage(width: print.width, height: print.height, pixels: scan.map { $0 > 128 ? 255 : 0 })
        return press(rethresholded, spread: 0.8, level: 140)
    }

    /// The print of `payload`'s code made with `key` (the issuer's original), photographed at 3 px per cell.
    static func capture(_ print: LumaImage, noiseSeed: UInt64 = 1, modulePixels: Double = 12) -> SecureQRCameraFrame {
        let shot = SecureQRShot(
            modulePixels: modulePixels, rotation: 20, yaw: 10, pitch: -5, blurSigma: 0.5, noiseSigma: 2,
            noiseSeed: noiseSeed)
        return SecureQRCamera.shoot(print, codeModulePixels: printModulePixels, shot: shot)
    }

    static func original(_ payload: String, key: SecureQRIssuerKey) throws -> LumaImage {
        let code = try SecureQRGenerator().generate(
            payload: payload, seed: key.seed(for: payload), modulePixels: printModulePixels)
        return press(code.image, spread: 0.8, level: 140)
    }

    /// The score of the issuer's code in `frame` by a recognizer with `keyFile`.
    static func score(_ frame: SecureQRCameraFrame, keyFile: String) throws -> SecureQRAuthenticity? {
        let recognizer = try SecureQRRecognizer(configuration: configuration(keyFile: keyFile), logger: logger)
        return frame.image.withView { view in
            recognizer.authenticity(of: view, analysis: recognizer.analyze(view))
        }
    }

    // MARK: The seed

    @Test("the seed is the first 8 bytes of HMAC-SHA256 (RFC 4231 test cases 1 and 2)")
    func hmacSeed() throws {
        // RFC 4231 4.2: key 0x0b x 20, "Hi There" -> b0344c61d8db38535ca8afceaf0bf12b...
        let first = try SecureQRIssuerKey(bytes: [UInt8](repeating: 0x0b, count: 20))
        #expect(first.seed(for: "Hi There") == 0xb034_4c61_d8db_3853)
        // RFC 4231 4.3: key "Jefe", "what do ya want for nothing?" -> 5bdcc146bf60754e6a042426089575c7...
        let second = try SecureQRIssuerKey(bytes: Array("Jefe".utf8))
        #expect(second.seed(for: "what do ya want for nothing?") == 0x5bdc_c146_bf60_754e)
        #expect(throws: LumaScanError.self) { try SecureQRIssuerKey(bytes: []) }
    }

    @Test("a key file's bytes are the key, exactly as stored")
    func keyFileBytes() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.keyFile(Array("Jefe".utf8), in: folder)
        #expect(
            try SecureQRIssuerKey(contentsOfFile: path).seed(for: "what do ya want for nothing?")
                == 0x5bdc_c146_bf60_754e)
        let withNewline = try Self.keyFile(Array("Jefe\n".utf8), in: folder, name: "newline.key")
        #expect(
            try SecureQRIssuerKey(contentsOfFile: withNewline).seed(for: "what do ya want for nothing?")
                != 0x5bdc_c146_bf60_754e)
    }

    // MARK: Scores

    @Test("an original scores genuine, its first-generation copy and a wrong key score as copies")
    func originalCopyWrongKey() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = try Self.keyFile(Self.keyBytes(1), in: folder)
        let wrongKeyFile = try Self.keyFile(Self.keyBytes(2), in: folder, name: "wrong.key")
        let key = try SecureQRIssuerKey(contentsOfFile: keyFile)
        let threshold = SecureQRAuthenticityConfiguration().threshold
        for (index, payload) in [SecureQRCorpus.issuer + "AUTH0001", SecureQRCorpus.issuer + "AUTH0002"].enumerated() {
            let print = try Self.original(payload, key: key)
            let original = try #require(try Self.score(Self.capture(print, noiseSeed: UInt64(index)), keyFile: keyFile))
            let copied = try #require(
                try Self.score(Self.capture(Self.copy(of: print), noiseSeed: UInt64(index)), keyFile: keyFile))
            let wrongKey = try #require(
                try Self.score(Self.capture(print, noiseSeed: UInt64(index)), keyFile: wrongKeyFile))
            #expect(original.decision == .genuine && original.score >= threshold, "original \(original)")
            #expect(copied.decision == .copy && copied.score < threshold, "copy \(copied)")
            #expect(copied.bitErrorRate > original.bitErrorRate && copied.ncc < original.ncc)
            // An unrelated pattern correlates only by chance and reads about half its cells wrong.
            #expect(wrongKey.decision == .copy && wrongKey.score < 0.3, "wrong key \(wrongKey)")
            #expect(wrongKey.bitErrorRate > 0.35)
            #expect(abs(original.pixelsPerCell - 3) < 0.4, "pixels per cell \(original.pixelsPerCell)")
        }
    }

    @Test("a completion carries the score; a recognizer without a key scores nothing")
    func completionCarriesScore() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = try Self.keyFile(Self.keyBytes(3), in: folder)
        let payload = SecureQRCorpus.issuer + "AUTHDONE"
        let print = try Self.original(payload, key: try SecureQRIssuerKey(contentsOfFile: keyFile))
        for withKey in [true, false] {
            let recognizer = try SecureQRRecognizer(
                configuration: Self.configuration(keyFile: withKey ? keyFile : nil), logger: Self.logger)
            #expect(recognizer.scoresAuthenticity == withKey)
            var completion: SecureQRResult?
            for index in 0..<6 where completion == nil {
                let frame = Self.capture(print, noiseSeed: UInt64(10 + index))
                let time = MonotonicInstant(nanoseconds: UInt64(index) * 33_000_000)
                let metadata = FrameMetadata(
                    index: UInt64(index), driverSequence: UInt32(index), captureTime: time, dequeueTime: time,
                    format: FrameFormat(pixelFormat: .grey, width: frame.image.width, height: frame.image.height),
                    bytesUsed: frame.image.width * frame.image.height)
                var reports: [ScanReport] = []
                frame.image.withView { recognizer.process($0, metadata: metadata, into: &reports) }
                if let report = reports.first(where: { $0.reportType == .completedResult }),
                    let result = report.detail?.secureQR
                {
                    completion = result
                }
            }
            let result = try #require(completion)
            #expect(result.state == .ok)
            if withKey {
                let authenticity = try #require(result.authenticity)
                #expect(authenticity.decision == .genuine, "\(authenticity)")
            } else {
                #expect(result.authenticity == nil)
            }
        }
    }

    // MARK: Configuration

    @Test("a missing, empty or oversized key file and a bad threshold are errors naming the JSON path")
    func configurationErrors() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = SecureQRConfiguration.jsonPath + ".authenticity"
        func message(_ authenticity: SecureQRAuthenticityConfiguration) -> String? {
            var configuration = Self.configuration(keyFile: nil)
            configuration.authenticity = authenticity
            do {
                try configuration.validate()
                return nil
            } catch {
                return error.message
            }
        }
        let missing = folder.appendingPathComponent("absent.key").path
        #expect(message(.init(keyFile: missing))?.hasPrefix("\(path).keyFile: cannot read \"\(missing)\"") == true)
        let empty = try Self.keyFile([], in: folder, name: "empty.key")
        #expect(message(.init(keyFile: empty)) == "\(path).keyFile: \"\(empty)\": the key is empty")
        let large = try Self.keyFile([UInt8](repeating: 7, count: 5000), in: folder, name: "large.key")
        #expect(message(.init(keyFile: large))?.hasPrefix("\(path).keyFile: \"\(large)\": the key has") == true)
        #expect(message(.init(keyFile: folder.path))?.hasPrefix("\(path).keyFile: cannot read") == true)
        #expect(message(.init(threshold: 2)) == "\(path).threshold: 2.0 is outside -1...1")
        let good = try Self.keyFile(Self.keyBytes(4), in: folder)
        #expect(message(.init(keyFile: good, threshold: 0.7)) == nil)
        // The recognizer refuses to start with a bad key file, with the same message.
        var configuration = Self.configuration(keyFile: missing)
        configuration.authenticity.keyFile = missing
        #expect(throws: LumaScanError.self) {
            try SecureQRRecognizer(configuration: configuration, logger: Self.logger)
        }
    }

    @Test("authenticity decodes from JSON, rejecting unknown keys")
    func decoding() throws {
        let decoded = try JSONDecoder().decode(
            SecureQRConfiguration.self,
            from: Data(
                #"{"issuerPrefixes": ["https://a.example/"], "authenticity": {"keyFile": "/k", "threshold": 0.8}}"#.utf8
            ))
        #expect(decoded.authenticity == SecureQRAuthenticityConfiguration(keyFile: "/k", threshold: 0.8))
        #expect(try JSONDecoder().decode(SecureQRConfiguration.self, from: Data("{}".utf8)).authenticity.keyFile == nil)
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(
                SecureQRConfiguration.self, from: Data(#"{"authenticity": {"keyfile": "/k"}}"#.utf8))
        }
    }

    // MARK: Threshold fit

    @Test("the threshold fit: AUC, equal error rate and a threshold that keeps the classification")
    func fitByHand() throws {
        // AUC: 0.9 and 0.8 beat all three copies, 0.7 beats 0.6 and 0.5: 8 of 9 pairs.
        let fit = try #require(SecureQRThresholdFit(genuine: [0.9, 0.8, 0.7], copies: [0.6, 0.75, 0.5]))
        #expect(abs(fit.areaUnderCurve - 8.0 / 9) < 1e-12)
        // Rejecting below 0.75 rejects one genuine (0.7) and accepts one copy (0.75): both rates 1/3.
        #expect(abs(fit.equalErrorRate - 1.0 / 3) < 1e-12)
        #expect(abs(fit.threshold - 0.725) < 1e-12)
        let separated = try #require(SecureQRThresholdFit(genuine: [0.9, 0.95], copies: [0.4, 0.6]))
        #expect(separated.areaUnderCurve == 1 && separated.equalErrorRate == 0)
        #expect(separated.threshold > 0.6 && separated.threshold < 0.9)
        #expect(SecureQRThresholdFit(genuine: [], copies: [0.5]) == nil)
    }

    @Test("calibrating on a small generated set of originals and copies separates them")
    func fitOnCaptures() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = try Self.keyFile(Self.keyBytes(5), in: folder)
        let key = try SecureQRIssuerKey(contentsOfFile: keyFile)
        let recognizer = try SecureQRRecognizer(
            configuration: Self.configuration(keyFile: keyFile), logger: Self.logger)
        var genuine: [Double] = []
        var copies: [Double] = []
        for index in 0..<3 {
            let print = try Self.original(SecureQRCorpus.issuer + "CAL\(index)", key: key)
            for (isCopy, image) in [(false, print), (true, Self.copy(of: print))] {
                let frame = Self.capture(image, noiseSeed: UInt64(20 + index), modulePixels: 12 + 2 * Double(index))
                let score = try #require(
                    frame.image.withView { recognizer.authenticity(of: $0, analysis: recognizer.analyze($0)) })
                if isCopy { copies.append(score.score) } else { genuine.append(score.score) }
            }
        }
        let fit = try #require(SecureQRThresholdFit(genuine: genuine, copies: copies))
        #expect(fit.areaUnderCurve == 1 && fit.equalErrorRate == 0, "genuine \(genuine), copies \(copies)")
        #expect(fit.threshold > (copies.max() ?? 1) && fit.threshold < (genuine.min() ?? 0))
    }
}
