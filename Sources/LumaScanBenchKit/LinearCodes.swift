import LumaScanCore

/// A linear (1D) barcode as a row of modules: `true` is a dark bar module, `false` a light space module.
///
/// Encoders build it from the standards' tables; ``render(moduleWidth:height:quietZone:dark:light:)`` draws it.
public struct LinearCode: Hashable, Sendable {
    /// The modules from left to right, without quiet zones.
    public var modules: [Bool]
    /// The payload a reader must report (for EAN/UPC, the digits including the check digit).
    public var text: String
    /// The quiet zone the standard asks for on each side, in modules.
    public var minimumQuietZone: Int

    /// Creates a code from its modules.
    public init(modules: [Bool], text: String, minimumQuietZone: Int) {
        self.modules = modules
        self.text = text
        self.minimumQuietZone = minimumQuietZone
    }

    /// Draws the code: `moduleWidth` pixels per module, bars `height` pixels tall, `quietZone` light modules on each
    /// side (the standard's minimum by default) and the same height of quiet zone, in pixels, above and below.
    public func render(
        moduleWidth: Int = 3, height: Int = 120, quietZone: Int? = nil, verticalMargin: Int = 10, dark: UInt8 = 0,
        light: UInt8 = 255
    ) -> LumaImage {
        precondition(moduleWidth > 0 && height > 0, "module width and height must be positive")
        let quiet = quietZone ?? minimumQuietZone
        let width = (modules.count + 2 * quiet) * moduleWidth
        let image = LumaImage(width: width, height: height + 2 * verticalMargin, fill: light)
        image.withMutablePixels { pixels in
            for (index, isBar) in modules.enumerated() where isBar {
                let left = (quiet + index) * moduleWidth
                for row in verticalMargin..<(verticalMargin + height) {
                    for x in left..<(left + moduleWidth) { pixels[row * width + x] = dark }
                }
            }
        }
        return image
    }
}

/// Encoders for the EAN/UPC family, from GS1's tables (GS1 General Specifications §5.2).
public enum EAN {
    /// Left-hand odd-parity (set A) digit patterns, 7 modules each.
    static let setA = [
        "0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011",
        "0110111", "0001011",
    ]
    /// Left-hand even-parity (set B) patterns: set C reversed.
    static let setB = setC.map { String($0.reversed()) }
    /// Right-hand (set C) patterns: set A with modules inverted.
    static let setC = setA.map { String($0.map { $0 == "0" ? "1" : "0" }) }
    /// For EAN-13, which of the six left digits use set B, by the (implicit) first digit.
    static let parity = [
        "AAAAAA", "AABABB", "AABBAB", "AABBBA", "ABAABB", "ABBAAB", "ABBBAA", "ABABAB", "ABABBA",
        "ABBABA",
    ]

    /// The check digit of `digits` (payload without check digit): weights 3 and 1 alternating from the rightmost
    /// digit, which weighs 3.
    public static func checkDigit(_ digits: [Int]) -> Int {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() { sum += digit * (offset % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }

    static func digits(_ text: String, count: Int) -> [Int] {
        let values = text.compactMap { $0.wholeNumberValue }
        precondition(values.count == text.count && values.count == count, "expected \(count) digits: \(text)")
        return values
    }

    static func modules(_ pattern: String) -> [Bool] { pattern.map { $0 == "1" } }

    /// EAN-13 from 12 digits (the check digit is computed and appended).
    public static func ean13(_ twelveDigits: String) -> LinearCode {
        var digits = digits(twelveDigits, count: 12)
        digits.append(checkDigit(digits))
        var bits = modules("101")
        let parityPattern = Array(parity[digits[0]])
        for index in 1...6 {
            bits += modules(parityPattern[index - 1] == "A" ? setA[digits[index]] : setB[digits[index]])
        }
        bits += modules("01010")
        for index in 7...12 { bits += modules(setC[digits[index]]) }
        bits += modules("101")
        return LinearCode(modules: bits, text: digits.map(String.init).joined(), minimumQuietZone: 11)
    }

    /// EAN-8 from 7 digits (the check digit is computed and appended).
    public static func ean8(_ sevenDigits: String) -> LinearCode {
        var digits = digits(sevenDigits, count: 7)
        digits.append(checkDigit(digits))
        var bits = modules("101")
        for index in 0..<4 { bits += modules(setA[digits[index]]) }
        bits += modules("01010")
        for index in 4..<8 { bits += modules(setC[digits[index]]) }
        bits += modules("101")
        return LinearCode(modules: bits, text: digits.map(String.init).joined(), minimumQuietZone: 7)
    }

    /// UPC-A from 11 digits (the check digit is computed and appended); `text` is the 12 digits.
    ///
    /// UPC-A is EAN-13 with an implicit leading 0: the same bars, all six left digits in set A.
    public static func upcA(_ elevenDigits: String) -> LinearCode {
        var digits = digits(elevenDigits, count: 11)
        digits.append(checkDigit(digits))
        var code = ean13("0" + digits.prefix(11).map(String.init).joined())
        code.text = digits.map(String.init).joined()
        code.minimumQuietZone = 9
        return code
    }
}

/// A Code 128 encoder (ISO/IEC 15417), code sets B and C.
public enum Code128 {
    /// Bar and space widths of symbol values 0...106 (106 is the stop pattern, with its final 2-module bar).
    static let patterns = [
        "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
        "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
        "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
        "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
        "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
        "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
        "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
        "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
        "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
        "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
        "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
    ]
    static let startB = 104
    static let startC = 105
    static let stop = 106

    /// The symbol values for `text` in code set B (ASCII 32...126), with start, checksum and stop.
    public static func valuesB(_ text: String) -> [Int] {
        let data = text.unicodeScalars.map { scalar -> Int in
            precondition(scalar.value >= 32 && scalar.value <= 126, "code set B holds ASCII 32...126")
            return Int(scalar.value) - 32
        }
        return withChecksum(start: startB, data: data)
    }

    /// The symbol values for an even number of digits in code set C (two digits per symbol).
    public static func valuesC(_ digits: String) -> [Int] {
        let values = digits.compactMap { $0.wholeNumberValue }
        precondition(values.count == digits.count && values.count % 2 == 0, "code set C needs pairs of digits")
        let data = stride(from: 0, to: values.count, by: 2).map { values[$0] * 10 + values[$0 + 1] }
        return withChecksum(start: startC, data: data)
    }

    /// Start value, data, checksum (start + Σ position × value, mod 103), stop.
    static func withChecksum(start: Int, data: [Int]) -> [Int] {
        var sum = start
        for (offset, value) in data.enumerated() { sum += (offset + 1) * value }
        return [start] + data + [sum % 103, stop]
    }

    /// Encodes `text`: in code set C when it is an even number (at least 4) of digits, else in code set B.
    public static func encode(_ text: String) -> LinearCode {
        let allDigits = !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber }
        let values = allDigits && text.count % 2 == 0 && text.count >= 4 ? valuesC(text) : valuesB(text)
        var bits: [Bool] = []
        for value in values {
            for (index, width) in patterns[value].enumerated() {
                let isBar = index % 2 == 0
                bits += Array(repeating: isBar, count: width.wholeNumberValue ?? 0)
            }
        }
        return LinearCode(modules: bits, text: text, minimumQuietZone: 10)
    }
}
