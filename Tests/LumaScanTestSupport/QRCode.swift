import CLumaVision
import Foundation
import LumaScanCore

/// A QR code as a square grid of modules, made by the `qrencode` command-line tool (Debian package `qrencode`).
public struct QRCode: Hashable, Sendable {
    /// Error-correction levels, as `qrencode -l` names them.
    public enum ErrorCorrection: String, Sendable {
        /// About 7% of codewords recoverable.
        case low = "L"
        /// About 15%.
        case medium = "M"
        /// About 25%.
        case quartile = "Q"
        /// About 30%.
        case high = "H"
    }

    /// Why a QR code could not be made.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// Modules per side.
    public let size: Int
    /// Dark modules, row by row (`size * size`).
    public let modules: [Bool]
    /// The payload encoded.
    public let text: String

    /// Where `qrencode` is installed, or `nil`.
    public static var qrencodePath: String? {
        ["/usr/bin/qrencode", "/usr/local/bin/qrencode", "/bin/qrencode"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Encodes `text` (as UTF-8) by running `qrencode -t PNG -s 1 -m 0` and reading the PNG it writes to stdout, one
    /// pixel per module.
    ///
    /// Throws ``Failure`` when `qrencode` is missing (`apt-get install qrencode`) or fails.
    public init(_ text: String, errorCorrection: ErrorCorrection = .medium) throws {
        try self.init(bytes: Array(text.utf8), text: text, errorCorrection: errorCorrection)
    }

    /// Encodes raw `bytes` with `qrencode`, adding `options` (for example `["-8"]` for one 8-bit segment, or `["-k"]`
    /// for Kanji mode on Shift_JIS input); `text` is what a reader should report.
    public init(bytes: [UInt8], text: String, errorCorrection: ErrorCorrection = .medium, options: [String] = []) throws
    {
        let png = try Self.run(
            ["-t", "PNG", "-s", "1", "-m", "0", "-l", errorCorrection.rawValue, "-o", "-"] + options, input: bytes)
        try self.init(png: png, text: text)
    }

    /// A structured-append series: `text` split by `qrencode -S` over symbols of `version`, in sequence order.
    public static func structuredAppend(_ text: String, version: Int) throws -> [QRCode] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = folder.appendingPathComponent("part.png").path
        _ = try run(["-t", "PNG", "-s", "1", "-m", "0", "-S", "-v", "\(version)", "-o", base], input: Array(text.utf8))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        return try names.map { name in
            let png = try Data(contentsOf: folder.appendingPathComponent(name))
            return try QRCode(png: png, text: text)
        }
    }

    /// Runs qrencode with `arguments`, `input` on its standard input; returns its standard output.
    private static func run(_ arguments: [String], input bytes: [UInt8]) throws -> Data {
        guard let tool = Self.qrencodePath else {
            throw Failure(description: "qrencode is not installed: apt-get install -y qrencode")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(bytes))
        try input.fileHandleForWriting.close()
        let png = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "qrencode \(arguments) failed with status \(process.terminationStatus)")
        }
        return png
    }

    /// Reads a PNG that qrencode wrote with one pixel per module and no margin.
    private init(png: Data, text: String) throws {
        guard !png.isEmpty else { throw Failure(description: "qrencode wrote nothing for \(text.debugDescription)") }
        var decoded: OpaquePointer?
        let status = png.withUnsafeBytes { lv_image_decode_grey($0.baseAddress, $0.count, &decoded) }
        guard status == 0, let decoded else { throw Failure(description: "cannot decode qrencode's PNG: \(status)") }
        defer { lv_image_destroy(decoded) }
        let width = Int(lv_image_width(decoded))
        let height = Int(lv_image_height(decoded))
        guard width == height, width >= 21, let pixels = lv_image_pixels(decoded) else {
            throw Failure(description: "qrencode's PNG is \(width)x\(height), not a QR code")
        }
        size = width
        modules = (0..<(width * height)).map { pixels[$0] < 128 }
        self.text = text
    }

    /// Draws the code with `moduleSize` pixels per module and a quiet zone of `quietZone` modules (4 by the
    /// standard).
    public func render(moduleSize: Int = 4, quietZone: Int = 4, dark: UInt8 = 0, light: UInt8 = 255) -> LumaImage {
        precondition(moduleSize > 0, "module size must be positive")
        let side = (size + 2 * quietZone) * moduleSize
        let image = LumaImage(width: side, height: side, fill: light)
        image.withMutablePixels { pixels in
            for row in 0..<size {
                for column in 0..<size where modules[row * size + column] {
                    let top = (quietZone + row) * moduleSize
                    let left = (quietZone + column) * moduleSize
                    for y in top..<(top + moduleSize) {
                        for x in left..<(left + moduleSize) { pixels[y * side + x] = dark }
                    }
                }
            }
        }
        return image
    }
}
