import CLumaTestKit
import LumaScanCore

/// The symbologies libzint renders for the tests, with the data conventions zint expects.
public enum ZintSymbology: Sendable, CaseIterable {
    /// EAN-13 from 12 digits, EAN-8 from 7 (zint adds the check digit); `+NN` or `+NNNNN` adds an EAN-2/EAN-5 add-on.
    case ean
    /// UPC-A from 11 digits (zint adds the check digit).
    case upcA
    /// UPC-E from 7 digits: number system 0 or 1 and six data digits (zint adds the check digit).
    case upcE
    /// Code 39, no check character.
    case code39
    /// Code 93 (zint adds both check characters).
    case code93
    /// Code 128, code sets chosen by zint.
    case code128
    /// Interleaved 2 of 5, an even number of digits.
    case itf
    /// Codabar with its start and stop characters in the data (`A40156B`).
    case codabar
    /// GS1 DataBar Omnidirectional from 13 digits (zint adds the check digit).
    case dataBar
    /// GS1 DataBar Expanded from GS1 data with AIs in brackets.
    case dataBarExpanded
    /// QR Code.
    case qr
    /// Micro QR Code.
    case microQR
    /// Data Matrix ECC 200.
    case dataMatrix
    /// PDF417.
    case pdf417
    /// Aztec Code.
    case aztec
    /// MaxiCode (mode 4 unless ``ZintStyle/option1`` says otherwise).
    case maxiCode

    var number: Int32 {
        let value: Int
        switch self {
        case .ean: value = LT_CODE_EAN
        case .upcA: value = LT_CODE_UPCA
        case .upcE: value = LT_CODE_UPCE
        case .code39: value = LT_CODE_CODE39
        case .code93: value = LT_CODE_CODE93
        case .code128: value = LT_CODE_CODE128
        case .itf: value = LT_CODE_ITF
        case .codabar: value = LT_CODE_CODABAR
        case .dataBar: value = LT_CODE_DATABAR
        case .dataBarExpanded: value = LT_CODE_DATABAR_EXP
        case .qr: value = LT_CODE_QR
        case .microQR: value = LT_CODE_MICROQR
        case .dataMatrix: value = LT_CODE_DATAMATRIX
        case .pdf417: value = LT_CODE_PDF417
        case .aztec: value = LT_CODE_AZTEC
        case .maxiCode: value = LT_CODE_MAXICODE
        }
        return Int32(value)
    }
}

/// How libzint draws a code (see `lt_code_style` in lt_testkit.h).
public struct ZintStyle: Sendable {
    /// Pixels per module.
    public var modulePixels: Int
    /// Light modules of quiet zone on each side; `nil` for zint's default.
    public var quietModules: Int?
    /// Bar height of linear codes in modules; `nil` for zint's default.
    public var barHeight: Double?
    /// Whether linear codes carry their human-readable text.
    public var showText: Bool
    /// Whether the data is UTF-8 text (QR then encodes Japanese text in Kanji mode) rather than bytes.
    public var unicode: Bool
    /// zint's first symbol option (error correction level, MaxiCode mode, ...); 0 for the default.
    public var option1: Int
    /// zint's second symbol option (size, version, columns); 0 for the default.
    public var option2: Int
    /// zint's third symbol option (Data Matrix shape, ...); 0 for the default.
    public var option3: Int

    /// Creates a style; the defaults are 3 px modules, zint's quiet zones and bar heights, text under linear codes.
    public init(
        modulePixels: Int = 3, quietModules: Int? = nil, barHeight: Double? = nil, showText: Bool = true,
        unicode: Bool = true, option1: Int = 0, option2: Int = 0, option3: Int = 0
    ) {
        self.modulePixels = modulePixels
        self.quietModules = quietModules
        self.barHeight = barHeight
        self.showText = showText
        self.unicode = unicode
        self.option1 = option1
        self.option2 = option2
        self.option3 = option3
    }
}

/// Codes of every symbology, encoded and rendered by libzint (an encoder independent of LumaScan's own).
public enum Zint {
    /// Renders `data` as `symbology` in `style`: 0 is ink, 255 paper. Throws ``LumaScanError`` (`.invalidConfiguration`)
    /// when zint refuses the data.
    public static func render(
        _ symbology: ZintSymbology, _ data: [UInt8], style: ZintStyle = ZintStyle()
    ) throws(LumaScanError) -> LumaImage {
        var options = lt_code_style(
            module_px: Int32(style.modulePixels), quiet_modules: Int32(style.quietModules ?? -1),
            bar_height: Float(style.barHeight ?? 0), show_text: style.showText ? 1 : 0, unicode: style.unicode ? 1 : 0,
            gs1: 0, option_1: Int32(style.option1), option_2: Int32(style.option2), option_3: Int32(style.option3))
        var bitmap: OpaquePointer?
        let status = data.withUnsafeBufferPointer {
            lt_code_render(symbology.number, $0.baseAddress, $0.count, &options, &bitmap)
        }
        defer { lt_bitmap_destroy(bitmap) }
        guard status == 0, let bitmap, let pixels = lt_bitmap_pixels(bitmap) else {
            throw LumaScanError(.invalidConfiguration, "zint cannot render \(symbology) \(data.count) bytes: \(status)")
        }
        let (width, height) = (Int(lt_bitmap_width(bitmap)), Int(lt_bitmap_height(bitmap)))
        return LumaImage(
            width: width, height: height, pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height)))
    }
}
