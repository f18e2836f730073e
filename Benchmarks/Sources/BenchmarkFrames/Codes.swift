/// The barcodes drawn into benchmark frames, encoded here so that the benchmarks need nothing outside this package
/// and LumaScan's public API: an EAN-13 encoder (GS1 General Specifications §5.2) and a minimal QR Code encoder
/// (ISO/IEC 18004: versions 1–3, error correction M, byte mode, mask 0).
///
/// The benchmarks check that LumaScan reads every code they draw before they measure anything, so a mistake here
/// would stop the suite rather than measure an unreadable frame.
public enum Codes {
    /// The modules of the EAN-13 code for the 12 digits `payload` (the check digit is computed), without quiet
    /// zones: `true` is a bar. Returns the modules and the 13-digit text a reader reports.
    public static func ean13(_ payload: String) -> (modules: [Bool], text: String) {
        let digits = payload.compactMap { $0.wholeNumberValue }
        precondition(digits.count == 12, "EAN-13 takes 12 digits and computes the 13th")
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() { sum += digit * (offset % 2 == 0 ? 3 : 1) }
        let all = digits + [(10 - sum % 10) % 10]
        let setA = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011",
                    "0110111", "0001011"]
        let setC = setA.map { String($0.map { $0 == "0" ? "1" : "0" }) }
        let setB = setC.map { String($0.reversed()) }
        let parity = ["AAAAAA", "AABABB", "AABBAB", "AABBBA", "ABAABB", "ABBAAB", "ABBBAA", "ABABAB", "ABABBA",
                      "ABBABA"]
        var pattern = "101"
        for (index, character) in parity[all[0]].enumerated() {
            pattern += character == "A" ? setA[all[index + 1]] : setB[all[index + 1]]
        }
        pattern += "01010"
        for index in 7...12 { pattern += setC[all[index]] }
        pattern += "101"
        return (pattern.map { $0 == "1" }, all.map(String.init).joined())
    }

    /// The module grid of a QR code for `text` (UTF-8, at most 42 bytes): row by row, `true` dark, without quiet
    /// zone. Returns `nil` when the text is too long for version 3-M.
    public static func qr(_ text: String) -> (size: Int, modules: [Bool])? {
        let bytes = Array(text.utf8)
        // (version, total codewords, error-correction codewords), one block each at level M.
        let versions = [(1, 26, 10), (2, 44, 16), (3, 70, 26)]
        guard let (version, total, ecCount) = versions.first(where: { $0.1 - $0.2 - 2 >= bytes.count }) else {
            return nil
        }
        let dataCount = total - ecCount

        // Data codewords: byte mode (0100), an 8-bit count, the bytes, a terminator, padding.
        var bits: [Bool] = []
        func append(_ value: Int, _ length: Int) {
            for shift in stride(from: length - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, 8)
        for byte in bytes { append(Int(byte), 8) }
        append(0, min(4, dataCount * 8 - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var codewords: [UInt8] = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<(start + 8)].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < dataCount {
            codewords.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        codewords += reedSolomonRemainder(codewords, degree: ecCount)

        let size = 17 + 4 * version
        var modules = [Bool](repeating: false, count: size * size)
        var function = [Bool](repeating: false, count: size * size)
        func set(_ x: Int, _ y: Int, _ dark: Bool) {
            modules[y * size + x] = dark
            function[y * size + x] = true
        }
        for i in 0..<size {  // timing patterns (the finders overwrite their ends)
            set(6, i, i % 2 == 0)
            set(i, 6, i % 2 == 0)
        }
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {  // finders with their separators
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(cx + dx) && (0..<size).contains(cy + dy) {
                    let distance = max(abs(dx), abs(dy))
                    set(cx + dx, cy + dy, distance != 2 && distance != 4)
                }
            }
        }
        if version > 1 {  // versions 2 and 3 have one alignment pattern, at (size - 7, size - 7)
            let centre = size - 7
            for dy in -2...2 {
                for dx in -2...2 { set(centre + dx, centre + dy, max(abs(dx), abs(dy)) != 1) }
            }
        }
        // Format information: level M (00) and mask 0, BCH(15, 5) protected and masked with 0x5412.
        let format = 0
        var remainder = format
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let formatBits = (format << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (formatBits >> index) & 1 == 1 }
        for i in 0..<6 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)  // the dark module

        // Codewords in the zig-zag order, two columns at a time from the right, skipping the vertical timing column.
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for column in 0..<2 {
                    let x = right - column
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    if !function[y * size + x] && index < codewords.count * 8 {
                        modules[y * size + x] = (codewords[index >> 3] >> (7 - (index & 7))) & 1 == 1
                        index += 1
                    }
                }
            }
            right -= 2
        }
        for y in 0..<size {  // mask 0: invert where (x + y) is even
            for x in 0..<size where !function[y * size + x] && (x + y) % 2 == 0 { modules[y * size + x].toggle() }
        }
        return (size, modules)
    }

    /// The `degree` Reed–Solomon error-correction codewords of `data` over GF(256) (polynomial 0x11D), generator
    /// roots α⁰ … α^(degree-1).
    static func reedSolomonRemainder(_ data: [UInt8], degree: Int) -> [UInt8] {
        func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
            var z = 0
            for shift in stride(from: 7, through: 0, by: -1) {
                z = (z << 1) ^ ((z >> 7) * 0x11D)
                z ^= Int((y >> UInt8(shift)) & 1) * Int(x)
            }
            return UInt8(z)
        }
        var divisor = [UInt8](repeating: 0, count: degree)
        divisor[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                divisor[j] = multiply(divisor[j], root)
                if j + 1 < degree { divisor[j] ^= divisor[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        var result = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in 0..<degree { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }
}
