import CLumaTestCodecs
import Foundation

/// Encoders for the image formats LumaScan only reads (WebP, TIFF, GIF), through the formats' own libraries
/// (`Tests/CLumaTestCodecs`), so decoding tests read files that no LumaScan code wrote.
///
/// Each returns the encoded file's bytes; pixels are tight rows (no padding).
public enum ImageEncoders {
    /// An encoder failed; the description names the format and the C status.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// RGB pixels (3 bytes a pixel, R G B) as WebP: lossless when `quality` is `nil`, else lossy at `quality`
    /// (0...100).
    public static func webp(rgb: [UInt8], width: Int, height: Int, quality: Float? = nil) throws -> [UInt8] {
        precondition(rgb.count == width * height * 3, "tight RGB rows")
        return try encoded("webp") { path in
            lt_write_webp_rgb(path, rgb, Int32(width), Int32(height), Int32(width * 3), quality ?? -1)
        }
    }

    /// RGBA pixels (4 bytes a pixel, R G B A) as lossless WebP with alpha.
    public static func webp(rgba: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        precondition(rgba.count == width * height * 4, "tight RGBA rows")
        return try encoded("webp") { path in
            lt_write_webp_rgba(path, rgba, Int32(width), Int32(height), Int32(width * 4))
        }
    }

    /// libtiff's compression schemes the tests use.
    public enum TIFFCompression: Int32, CaseIterable, Sendable {
        /// No compression.
        case none = 1
        /// LZW.
        case lzw = 5
        /// Deflate (zlib).
        case deflate = 8
    }

    /// 8-bit samples (`channels` 1: grey, 3: RGB, interleaved) as a one-page TIFF.
    public static func tiff(
        samples: [UInt8], width: Int, height: Int, channels: Int, compression: TIFFCompression = .none,
        rowsPerStrip: Int = 1
    ) throws -> [UInt8] {
        precondition(samples.count == width * height * channels, "tight rows")
        return try encoded("tiff") { path in
            lt_write_tiff(
                path, samples, Int32(width), Int32(height), width * channels, Int32(channels), 8,
                compression.rawValue, Int32(rowsPerStrip))
        }
    }

    /// 16-bit grey samples as a one-page TIFF.
    public static func tiff(
        grey16 samples: [UInt16], width: Int, height: Int, compression: TIFFCompression = .none
    ) throws -> [UInt8] {
        precondition(samples.count == width * height, "tight rows")
        return try encoded("tiff") { path in
            lt_write_tiff(path, samples, Int32(width), Int32(height), width * 2, 1, 16, compression.rawValue, 4)
        }
    }

    /// Palette indices (1 byte a pixel) with `palette` (R G B triples, 2...256 colours) as a one-frame GIF.
    public static func gif(
        indices: [UInt8], width: Int, height: Int, palette: [UInt8], interlaced: Bool = false
    ) throws -> [UInt8] {
        precondition(indices.count == width * height && palette.count % 3 == 0, "tight rows, RGB triples")
        return try encoded("gif") { path in
            lt_write_gif(
                path, indices, Int32(width), Int32(height), Int32(width), palette, Int32(palette.count / 3),
                interlaced ? 1 : 0)
        }
    }

    /// The BT.601 grey level of a colour, unrounded (0.299 R + 0.587 G + 0.114 B): what LumaScan's decoders
    /// approximate in fixed point.
    public static func bt601(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> Double {
        0.299 * Double(red) + 0.587 * Double(green) + 0.114 * Double(blue)
    }

    /// Runs `write` on a fresh temporary path and returns the file it wrote.
    private static func encoded(_ format: String, _ write: (String) -> Int32) throws -> [UInt8] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lumascan-encoded-\(UUID().uuidString).\(format)")
        defer { try? FileManager.default.removeItem(at: url) }
        let status = write(url.path)
        guard status == 0 else { throw Failure(description: "\(format) encoder failed with \(status)") }
        return Array(try Data(contentsOf: url))
    }
}
