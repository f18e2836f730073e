import LumaScanCore
import LumaScanTestSupport
import Testing

/// The test-support encoders, checked against the standards' published examples.
@Suite("LinearCode encoders")
struct LinearCodeTests {
    @Test("EAN/UPC check digits")
    func checkDigits() {
        #expect(EAN.ean13("400638133393").text == "4006381333931")
        #expect(EAN.ean13("978030640615").text == "9780306406157")
        #expect(EAN.ean8("9638507").text == "96385074")
        #expect(EAN.upcA("03600029145").text == "036000291452")
    }

    @Test("every Code 128 pattern (values 0...105) has 11 modules, 3 bars and 3 spaces; all differ")
    func code128Patterns() {
        var seen = Set<[Bool]>()
        for value in 0...105 {
            let modules = Code128.encode(String(UnicodeScalar(UInt8(32 + min(value, 94))))).modules
            #expect(modules.count == 4 * 11 + 2)
            seen.insert(Array(modules[11..<22]))
        }
        #expect(seen.count == 95)
    }

    @Test("module counts and guard patterns")
    func modules() {
        let ean13 = EAN.ean13("400638133393")
        #expect(ean13.modules.count == 95)
        #expect(Array(ean13.modules.prefix(3)) == [true, false, true])
        #expect(Array(ean13.modules[45..<50]) == [false, true, false, true, false])
        #expect(EAN.ean8("9638507").modules.count == 67)
        #expect(EAN.upcA("03600029145").modules == EAN.ean13("003600029145").modules)
    }

    @Test("Code 128: 11 modules per symbol, 13 for the stop; modulo-103 checksum")
    func code128() {
        let code = Code128.encode("PJJ123C")
        // Start B, 7 data symbols, checksum, stop.
        #expect(code.modules.count == 9 * 11 + 13)
        // Start B (104) + Σ position × value, with P=48 J=42 J=42 1=17 2=18 3=19 C=35: 879, mod 103 = 55.
        let values = Code128.valuesB("PJJ123C")
        #expect(values == [104, 48, 42, 42, 17, 18, 19, 35, 55, 106])
        #expect(Code128.valuesC("1234") == [105, 12, 34, (105 + 12 + 2 * 34) % 103, 106])
    }

    @Test("rendering: quiet zones and module widths")
    func render() {
        let code = EAN.ean8("9638507")
        let image = code.render(moduleWidth: 2, height: 30, quietZone: 7, verticalMargin: 5)
        #expect(image.width == (67 + 14) * 2)
        #expect(image.height == 40)
        #expect(image[13, 20] == 255)  // quiet zone
        #expect(image[14, 20] == 0)  // first guard bar
        #expect(image[14, 2] == 255)  // vertical margin
    }
}
