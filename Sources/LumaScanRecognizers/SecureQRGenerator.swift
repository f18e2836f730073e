import CLumaVision
import LumaScanCore

#if canImport(Glibc)
import Glibc
#endif

/// Makes secure QR codes to print and to test with: a QR code (libqrencode) of the design's version and error
/// correction, with a copy-detection pattern (CDP) generated from a seed in its centre or, for hybrid designs, in the
/// fingerprint zone beside it.
///
/// The CDP of a seed is reproducible anywhere: cell k (row-major over the CDP's cells) is dark when the top bit of
/// the k-th output of SplitMix64 seeded with the seed is set. An authentication server that knows a code's seed can
/// therefore regenerate its pattern (``SecureQRGenerator/cells(seed:across:down:)``) and compare it with a scan.
public struct SecureQRGenerator: Hashable, Sendable {
    /// The codes' geometry.
    public let design: SecureQRDesign

    /// Creates a generator; throws ``LumaScanError`` (`.invalidConfiguration`) when the design does not validate.
    public init(design: SecureQRDesign = .init()) throws(LumaScanError) {
        try design.validate(path: "design")
        self.design = design
    }

    /// Generates a code for `payload` (text without NUL characters) with the CDP of `seed`, rendered at
    /// `modulePixels` pixels per module (1...200) with the design's quiet zone.
    ///
    /// - Parameter secureGraphic: `false` leaves the CDP out (a plain QR code on the same layout, as a code without
    ///   authentication would print).
    /// - Throws: ``LumaScanError`` — `.invalidConfiguration` when the payload is empty, contains NUL or does not fit
    ///   a QR code (for standard designs, a version-6 one), or `modulePixels` is out of range.
    public func generate(
        payload: String, seed: UInt64, modulePixels: Int = 8, secureGraphic: Bool = true
    ) throws(LumaScanError) -> SecureQRCode {
        guard (1...200).contains(modulePixels) else {
            throw LumaScanError(.invalidConfiguration, "modulePixels: \(modulePixels) is outside 1...200")
        }
        let bytes = Array(payload.utf8)
        guard !bytes.isEmpty, !bytes.contains(0) else {
            throw LumaScanError(.invalidConfiguration, "payload: must be non-empty text without NUL characters")
        }
        let capacity = Int(LV_SQR_MAX_MODULES) * Int(LV_SQR_MAX_MODULES)
        var modules = [UInt8](repeating: 0, count: capacity)
        var version: Int32 = 0
        let count = modules.withUnsafeMutableBufferPointer { buffer in
            lv_sqr_encode(
                bytes, bytes.count, Int32(design.version), design.errorCorrection.cValue, buffer.baseAddress, capacity,
                &version)
        }
        guard count > 0 else {
            let reason = count == -ENOSPC ? "does not fit a QR code" : "could not be encoded (\(count))"
            throw LumaScanError(.invalidConfiguration, "payload: \(bytes.count) bytes \(reason)")
        }
        let n = Int(count)
        guard design.hybrid || Int(version) <= SecureQRDesign.maximumStandardVersion else {
            throw LumaScanError(
                .invalidConfiguration,
                "payload: \(bytes.count) bytes need QR version \(version); standard secure codes stop at version "
                    + "\(SecureQRDesign.maximumStandardVersion) (use a shorter payload or a hybrid design)")
        }
        modules.removeSubrange((n * n)...)
        var cDesign = design.cDesign
        var layout = lv_sqr_layout()
        var (width, height, originX, originY): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        var status = lv_sqr_layout_for(Int32(n), &cDesign, &layout)
        if status == 0 {
            status = lv_sqr_image_size(
                Int32(n), &cDesign, Int32(modulePixels), Int32(design.quietZone), &width, &height, &originX, &originY)
        }
        guard status == 0 else {
            throw LumaScanError(
                .invalidConfiguration, "design: does not fit a version \(version) code of \(n) modules (\(status))")
        }
        let image = LumaImage(width: Int(width), height: Int(height))
        status = image.withMutablePixels { pixels in
            lv_sqr_render(
                modules, Int32(n), &cDesign, seed, Int32(modulePixels), Int32(design.quietZone),
                secureGraphic ? 0 : Int32(LV_SQR_RENDER_NO_CDP), pixels.baseAddress, width, height, Int(width))
        }
        guard status == 0 else { throw LumaScanError(.invalidConfiguration, "rendering failed (\(status))") }
        return SecureQRCode(
            payload: payload, seed: seed, version: Int(version), modules: n, darkModules: modules.map { $0 != 0 },
            modulePixels: modulePixels, origin: Point(x: Double(originX), y: Double(originY)),
            secureGraphic: SecureQRModuleRect(layout.region), cells: (Int(layout.cells_x), Int(layout.cells_y)),
            hasSecureGraphic: secureGraphic, image: image)
    }

    /// The CDP cells of `seed` for a pattern `across` x `down` cells, row by row: `true` for a dark cell.
    public static func cells(seed: UInt64, across: Int, down: Int) -> [Bool] {
        guard across > 0, down > 0 else { return [] }
        var cells = [UInt8](repeating: 0, count: across * down)
        _ = lv_sqr_cdp_cells(seed, Int32(across), Int32(down), &cells)
        return cells.map { $0 != 0 }
    }
}

/// A generated secure QR code: its image and where everything is in it.
public struct SecureQRCode: Sendable {
    /// The payload encoded.
    public let payload: String
    /// The seed of the CDP.
    public let seed: UInt64
    /// The QR version (at least the design's).
    public let version: Int
    /// Modules per side (17 + 4 × version).
    public let modules: Int
    /// The QR modules, row by row (`modules` × `modules`): `true` for dark. In standard codes the CDP covers those
    /// in its square.
    public let darkModules: [Bool]
    /// Pixels per module of ``image``.
    public let modulePixels: Int
    /// Where module coordinate (0, 0) — the code's outer top-left corner — lies in ``image``, in pixels.
    public let origin: Point
    /// Where the secure graphic lies, in module coordinates.
    public let secureGraphic: SecureQRModuleRect
    /// CDP cells across and down.
    public let cells: (across: Int, down: Int)
    /// Whether the CDP was drawn (`false` for a plain code made with `secureGraphic: false`).
    public let hasSecureGraphic: Bool
    /// The rendered code: dark 0, light 255, with the design's quiet zone.
    public let image: LumaImage

    /// The image pixel (edge coordinates: (0, 0) is the top-left corner of the top-left pixel) at module coordinates
    /// `x`, `y`.
    public func pixel(atModule x: Double, _ y: Double) -> Point {
        Point(x: origin.x + x * Double(modulePixels), y: origin.y + y * Double(modulePixels))
    }

    /// The image encoded as PNG.
    public func pngData() throws(LumaScanError) -> [UInt8] {
        try image.withView { view throws(LumaScanError) in try PNG.encode(view) }
    }

    /// Writes the image to `path` as PNG.
    public func writePNG(to path: String) throws(LumaScanError) {
        let status = image.withView { view in
            lv_image_write_png(path, view.baseAddress, Int32(view.width), Int32(view.height), view.stride)
        }
        guard status == 0 else {
            throw LumaScanError(.imageIO, "\(path): cannot write PNG (\(status == -EIO ? "I/O error" : "\(status)"))")
        }
    }
}

/// PNG encoding of grey images through the vision shim.
enum PNG {
    /// The view's pixels as a PNG file's bytes; `fast` for a camera's image (Huffman coding only,
    /// `lv_image_encode_png_fast`), otherwise compressed as a generated image deserves.
    static func encode(_ view: LumaView, fast: Bool = false) throws(LumaScanError) -> [UInt8] {
        let encode = fast ? lv_image_encode_png_fast : lv_image_encode_png
        var capacity = view.width * view.height + view.height + 1024
        for _ in 0..<2 {
            var bytes = [UInt8](repeating: 0, count: capacity)
            var length = 0
            let status = bytes.withUnsafeMutableBufferPointer { buffer in
                encode(
                    view.baseAddress, Int32(view.width), Int32(view.height), view.stride, buffer.baseAddress, capacity,
                    &length)
            }
            if status == 0 {
                bytes.removeSubrange(length...)
                return bytes
            }
            guard status == -ENOSPC else { break }
            capacity = length
        }
        throw LumaScanError(.imageIO, "cannot encode a \(view.width)x\(view.height) image as PNG")
    }
}
