import ArgumentParser
import Foundation
import Logging
import LumaScan

/// `lumascan secure-qr`: secure QR codes (a QR code with a copy-detection pattern; see docs/secure-qr.md).
struct SecureQRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secure-qr", abstract: "Make secure QR codes (QR codes with a copy-detection pattern).",
        subcommands: [Generate.self, Calibrate.self])

    /// `lumascan secure-qr generate`: renders a secure QR code to a PNG file.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate", abstract: "Render a secure QR code as a PNG image, to print or to test with.",
            discussion: """
                The copy-detection pattern is generated from the seed (SplitMix64; see docs/secure-qr.md), so an \
                authentication server that knows the seed can regenerate it. With --key-file the seed is the first 8 \
                bytes of HMAC-SHA256(key, payload), which a scanner configured with the same key file regenerates to \
                score the code's authenticity; without either a random seed is used. It is printed either way.
                """)

        @Option(help: "The payload: a URL on the issuer's domain.")
        var payload: String

        @Flag(help: "Put the copy-detection pattern in a fingerprint zone to the right of the code (a hybrid code).")
        var hybrid = false

        @Option(help: "The seed of the copy-detection pattern (default: random).")
        var seed: UInt64?

        @Option(
            name: .customLong("key-file"),
            help: "The issuer's key file: the seed becomes HMAC-SHA256(key, payload) (not with --seed).")
        var keyFile: String?

        @Option(name: .customLong("module-px"), help: "Pixels per QR module (1-200).")
        var modulePixels = 8

        @Option(help: "The PNG file to write.")
        var out: String

        @Option(
            name: .customLong("qr-version"), help: "The smallest QR version (2-40); longer payloads get a larger one.")
        var version = 4

        @Option(name: .customLong("error-correction"), help: "QR error correction: Q or H.")
        var errorCorrection = "Q"

        @Option(name: .customLong("cells-per-module"), help: "Copy-detection cells per module side (2-16).")
        var cellsPerModule = 4

        @Flag(
            name: .customLong("no-secure-graphic"),
            help: "Leave the copy-detection pattern out (a code without authentication, which scans as NO_AUTH).")
        var noSecureGraphic = false

        @Flag(help: "Print a JSON description of the code instead of text.")
        var json = false

        func validate() throws {
            guard SecureQRErrorCorrection(rawValue: errorCorrection.uppercased()) != nil else {
                throw ValidationError("--error-correction: '\(errorCorrection)' is not Q or H")
            }
            guard (1...200).contains(modulePixels) else {
                throw ValidationError("--module-px: \(modulePixels) is outside 1...200")
            }
            guard !out.isEmpty else { throw ValidationError("--out: give the PNG file to write") }
            guard seed == nil || keyFile == nil else {
                throw ValidationError("--seed and --key-file: give one (the key file derives the seed)")
            }
        }

        func run() throws {
            let design = SecureQRDesign(
                version: version,
                errorCorrection: SecureQRErrorCorrection(rawValue: errorCorrection.uppercased()) ?? .quartile,
                cellsPerModule: cellsPerModule, hybrid: hybrid)
            let seed: UInt64
            if let keyFile {
                do throws(LumaScanError) {
                    seed = try SecureQRIssuerKey(contentsOfFile: keyFile).seed(for: payload)
                } catch {
                    throw CommandFailure(status: ExitStatus.badArguments, message: "--key-file: \(error.message)")
                }
            } else {
                seed = self.seed ?? UInt64.random(in: 0...UInt64.max)
            }
            let code: SecureQRCode
            do throws(LumaScanError) {
                code = try SecureQRGenerator(design: design).generate(
                    payload: payload, seed: seed, modulePixels: modulePixels, secureGraphic: !noSecureGraphic)
            } catch {
                // The design and payload come from the arguments: a refusal is a usage error.
                throw CommandFailure(status: ExitStatus.badArguments, message: Self.argumentMessage(error.message))
            }
            do throws(LumaScanError) {
                try code.writePNG(to: out)
            } catch {
                throw CommandFailure(status: ExitStatus.failed, message: error.message)
            }
            let graphic = code.secureGraphic
            if json {
                let description = Description(
                    file: out, payload: code.payload, seed: seed, version: code.version, modules: code.modules,
                    modulePixels: code.modulePixels, width: code.image.width, height: code.image.height,
                    origin: [code.origin.x, code.origin.y], hybrid: hybrid, secureGraphic: !noSecureGraphic,
                    secureGraphicModules: [graphic.x, graphic.y, graphic.width, graphic.height],
                    cells: [code.cells.across, code.cells.down])
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(description), as: UTF8.self))
                return
            }
            let kind = hybrid ? "hybrid" : "standard"
            let place = hybrid ? "fingerprint zone" : "centre"
            print(
                "\(out): \(kind) secure QR code, version \(code.version) (\(code.modules) modules), "
                    + "\(code.image.width)x\(code.image.height) px at \(code.modulePixels) px per module")
            if noSecureGraphic {
                print("  no copy-detection pattern (--no-secure-graphic)")
            } else {
                print(
                    "  copy-detection pattern: seed \(seed), \(code.cells.across)x\(code.cells.down) cells in the "
                        + "\(place) at modules \(Self.format(graphic.x)),\(Self.format(graphic.y)) "
                        + "(\(Self.format(graphic.width))x\(Self.format(graphic.height)))")
            }
        }

        /// The JSON `--json` prints.
        struct Description: Encodable {
            var file: String
            var payload: String
            var seed: UInt64
            var version: Int
            var modules: Int
            var modulePixels: Int
            var width: Int
            var height: Int
            var origin: [Double]
            var hybrid: Bool
            var secureGraphic: Bool
            var secureGraphicModules: [Double]
            var cells: [Int]
        }

        static func format(_ value: Double) -> String {
            value == value.rounded() ? String(Int(value)) : String(value)
        }

        /// The generator's messages name design keys (`design.version: ...`); say which option they come from.
        static func argumentMessage(_ message: String) -> String {
            let options = [
                "design.version": "--qr-version", "design.cellsPerModule": "--cells-per-module",
                "design.errorCorrection": "--error-correction", "modulePixels": "--module-px", "payload": "--payload",
            ]
            for (key, option) in options where message.hasPrefix(key + ":") {
                return option + message.dropFirst(key.count)
            }
            return message
        }
    }

    /// `lumascan secure-qr calibrate`: scores captures of originals and copies and fits the authenticity threshold.
    struct Calibrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "calibrate",
            abstract: "Score captures of original and copied secure QR codes and fit the authenticity threshold.",
            discussion: """
                Photograph originals printed by your printer, and copies of them (scanned or photocopied, then \
                printed), with the camera the kiosk uses, and put the images in two folders. Each image is read, its \
                issuer's code located and its secure graphic compared with the pattern regenerated from the issuer's \
                key. Prints each image's score, the ROC AUC, the equal error rate and the threshold at it: put that in \
                secureQRConfig.authenticity.threshold. Images without a located, measured issuer's code are listed \
                and left out. The issuer prefixes, design and key come from --config's secureQRConfig, or from the \
                options; --key-file overrides the configuration's key file.
                """)

        @Option(help: "The folder of captures of genuine (original) prints.")
        var genuine: String

        @Option(help: "The folder of captures of copies.")
        var copies: String

        @Option(name: .customLong("key-file"), help: "The issuer's key file the codes were generated with.")
        var keyFile: String?

        @Option(help: "A JSON configuration with a secureQRConfig (issuer prefixes, design, authenticity.keyFile).")
        var config: String?

        @Option(
            name: .customLong("issuer-prefix"),
            help: "An issuer URL prefix, without --config (repeatable; default: any https:// payload).")
        var issuerPrefixes: [String] = []

        @Flag(help: "The codes are hybrid (fingerprint zone beside the code), without --config.")
        var hybrid = false

        @Option(
            name: .customLong("cells-per-module"),
            help: "Copy-detection cells per module side (2-16), without --config.")
        var cellsPerModule = 4

        @Flag(help: "Print one JSON object per image, then one with the fit, instead of text.")
        var json = false

        func validate() throws {
            guard keyFile != nil || config != nil else {
                throw ValidationError("give --key-file, or --config with secureQRConfig.authenticity.keyFile")
            }
            guard config == nil || (issuerPrefixes.isEmpty && !hybrid && cellsPerModule == 4) else {
                throw ValidationError("--issuer-prefix, --hybrid and --cells-per-module come from --config's design")
            }
        }

        /// The secure-QR configuration to score with: --config's, or one from the options; --key-file overrides the
        /// key file.
        func secureQRConfiguration() throws -> SecureQRConfiguration {
            var configuration: SecureQRConfiguration
            if let config {
                let decoded = try loadConfigurationDocument(
                    config, unreadable: ExitStatus.badArguments, invalid: ExitStatus.badArguments)
                guard let secureQR = decoded.viewPluginConfig?.pluginConfig.secureQRConfig else {
                    throw CommandFailure(
                        status: ExitStatus.badArguments,
                        message: "\(config): viewPluginConfig.pluginConfig has no secureQRConfig")
                }
                configuration = secureQR
            } else {
                configuration = SecureQRConfiguration(
                    id: "calibrate", issuerPrefixes: issuerPrefixes.isEmpty ? ["https://"] : issuerPrefixes,
                    design: SecureQRDesign(cellsPerModule: cellsPerModule, hybrid: hybrid))
            }
            configuration.mode = .secure
            if let keyFile { configuration.authenticity.keyFile = keyFile }
            guard configuration.authenticity.keyFile != nil else {
                throw CommandFailure(
                    status: ExitStatus.badArguments,
                    message: "\(config ?? "--config"): secureQRConfig.authenticity.keyFile is not set; give --key-file")
            }
            return configuration
        }

        func run() throws {
            let configuration = try secureQRConfiguration()
            let scorer: SecureQRRecognizer
            do {
                scorer = try SecureQRRecognizer(
                    configuration: configuration, logger: Logger(label: "lumascan.calibrate"))
            } catch let error as LumaScanError {
                throw CommandFailure(status: ExitStatus.badArguments, message: Self.argumentMessage(error.message))
            }
            var scores: [String: [Double]] = [:]
            for (label, folder) in [("genuine", genuine), ("copy", copies)] {
                let files = try Self.images(in: folder, option: label == "genuine" ? "--genuine" : "--copies")
                for file in files {
                    let line: String
                    do throws(LumaScanError) {
                        let result = try scorer.authenticity(ofImageAt: file)
                        if let authenticity = result.authenticity {
                            scores[label, default: []].append(authenticity.score)
                            line =
                                json
                                ? Self.jsonLine(file: file, label: label, authenticity: authenticity, state: nil)
                                : String(
                                    format: "%@ %@ score %.4f ncc %.4f ber %.4f px/cell %.2f blur %.2f", label, file,
                                    authenticity.score, authenticity.ncc, authenticity.bitErrorRate,
                                    authenticity.pixelsPerCell, authenticity.blurCells)
                        } else {
                            let state = result.analysis.state.rawValue
                            line =
                                json
                                ? Self.jsonLine(file: file, label: label, authenticity: nil, state: state)
                                : "\(label) \(file) not scored (state \(state): no located, measured issuer's code)"
                        }
                    } catch {
                        line =
                            json
                            ? Self.jsonLine(file: file, label: label, authenticity: nil, state: "unreadable image")
                            : "\(label) \(file) not scored (\(error.message))"
                    }
                    print(line)
                }
            }
            guard let fit = SecureQRThresholdFit(genuine: scores["genuine"] ?? [], copies: scores["copy"] ?? []) else {
                throw CommandFailure(
                    status: ExitStatus.failed,
                    message: "calibrate: need at least one scored genuine capture and one scored copy "
                        + "(scored: \(scores["genuine"]?.count ?? 0) genuine, \(scores["copy"]?.count ?? 0) copies)")
            }
            let genuineCount = scores["genuine"]?.count ?? 0
            let copyCount = scores["copy"]?.count ?? 0
            if json {
                print(
                    String(
                        format: "{\"fit\":{\"genuine\":%d,\"copies\":%d,\"auc\":%.6f,\"eer\":%.6f,"
                            + "\"threshold\":%.6f,\"falseRejectionRate\":%.6f,\"falseAcceptanceRate\":%.6f}}",
                        genuineCount, copyCount, fit.areaUnderCurve, fit.equalErrorRate, fit.threshold,
                        fit.falseRejectionRate, fit.falseAcceptanceRate))
                return
            }
            print(
                String(
                    format: "scored %d genuine, %d copies: ROC AUC %.4f, EER %.2f %% (false rejections %.2f %%, "
                        + "false acceptances %.2f %%)", genuineCount, copyCount, fit.areaUnderCurve,
                    100 * fit.equalErrorRate, 100 * fit.falseRejectionRate, 100 * fit.falseAcceptanceRate))
            print(
                String(
                    format: "threshold %.4f: put \"authenticity\": {\"threshold\": %.4f} in secureQRConfig",
                    fit.threshold, fit.threshold))
        }

        /// The image files in `folder` (png, jpg, jpeg, webp, tif, tiff, gif, pgm, bmp), sorted by name.
        static func images(in folder: String, option: String) throws -> [String] {
            let extensions: Set<String> = ["png", "jpg", "jpeg", "webp", "tif", "tiff", "gif", "pgm", "bmp"]
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: folder)
            } catch {
                throw CommandFailure(status: ExitStatus.deviceUnavailable, message: "\(option): cannot list \(folder)")
            }
            return names.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
                .map { (folder as NSString).appendingPathComponent($0) }
        }

        static func jsonLine(file: String, label: String, authenticity: SecureQRAuthenticity?, state: String?) -> String
        {
            var object: [String: Any] = ["file": file, "label": label]
            if let authenticity {
                object["score"] = authenticity.score
                object["ncc"] = authenticity.ncc
                object["bitErrorRate"] = authenticity.bitErrorRate
                object["pixelsPerCell"] = authenticity.pixelsPerCell
                object["blurCells"] = authenticity.blurCells
            }
            if let state { object["notScored"] = state }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }

        /// The recognizer's messages name configuration keys; say which option they come from.
        static func argumentMessage(_ message: String) -> String {
            let path = SecureQRConfiguration.jsonPath + "."
            let options = [
                "authenticity.keyFile": "--key-file", "issuerPrefixes": "--issuer-prefix",
                "design.cellsPerModule": "--cells-per-module",
            ]
            let relative = message.hasPrefix(path) ? String(message.dropFirst(path.count)) : message
            for (key, option) in options where relative.hasPrefix(key) {
                guard let colon = relative.firstIndex(of: ":") else { break }
                return option + relative[colon...]
            }
            return message
        }
    }
}
