import ArgumentParser
import Foundation
import LumaScan

/// `lumascan secure-qr`: secure QR codes (a QR code with a copy-detection pattern; see docs/secure-qr.md).
struct SecureQRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secure-qr", abstract: "Make secure QR codes (QR codes with a copy-detection pattern).",
        subcommands: [Generate.self])

    /// `lumascan secure-qr generate`: renders a secure QR code to a PNG file.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate", abstract: "Render a secure QR code as a PNG image, to print or to test with.",
            discussion: """
                The copy-detection pattern is generated from the seed (SplitMix64; see docs/secure-qr.md), so an \
                authentication server that knows the seed can regenerate it. Without --seed a random seed is used; it \
                is printed either way.
                """)

        @Option(help: "The payload: a URL on the issuer's domain.")
        var payload: String

        @Flag(help: "Put the copy-detection pattern in a fingerprint zone to the right of the code (a hybrid code).")
        var hybrid = false

        @Option(help: "The seed of the copy-detection pattern (default: random).")
        var seed: UInt64?

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
        }

        func run() throws {
            let design = SecureQRDesign(
                version: version,
                errorCorrection: SecureQRErrorCorrection(rawValue: errorCorrection.uppercased()) ?? .quartile,
                cellsPerModule: cellsPerModule, hybrid: hybrid)
            let seed = self.seed ?? UInt64.random(in: 0...UInt64.max)
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
}
