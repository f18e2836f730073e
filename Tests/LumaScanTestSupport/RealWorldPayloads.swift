import LumaScanCore

/// What one code of a corpus photo carries: zint's input and the truth a reader must report.
struct Payload {
    var symbology: ZintSymbology
    var data: [UInt8]
    var unicode = true
    var truth: TruthCode
    /// The standard's quiet zone in modules.
    var quietModules: Int
    var option1 = 0
    var option2 = 0
}

/// Payload makers for ``BarcodeRealWorldCorpus``: data of the kinds printed on real products, labels and tickets,
/// drawn at random for each photo.
enum Payloads {
    /// Every maker, once.
    static let all: [@Sendable (inout SplitMix64) -> Payload] = [
        ean13, ean13AddOn, ean8, upcA, upcE, code128, code39, code93, itf, codabar, dataBar, dataBarExpanded, qr,
        qrShort,
        qrKanji, qrBinary, microQR, dataMatrix, pdf417, aztec, maxiCode,
    ]

    static let digits = "0123456789"
    static let upper = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

    static func text(_ string: String, _ symbology: ZintSymbology, _ truth: Symbology, quiet: Int) -> Payload {
        Payload(
            symbology: symbology, data: Array(string.utf8), truth: TruthCode(symbology: truth, text: string),
            quietModules: quiet)
    }

    /// `body` followed by its GS1 check digit.
    static func withCheck(_ body: String) -> String {
        body + String(EAN.checkDigit(body.compactMap(\.wholeNumberValue)))
    }

    /// A GTIN-carrying code of `body` plus its check digit (zint adds the check digit itself).
    static func gtin(_ body: String, _ symbology: ZintSymbology, _ truth: Symbology, quiet: Int) -> Payload {
        Payload(
            symbology: symbology, data: Array(body.utf8), truth: TruthCode(symbology: truth, text: withCheck(body)),
            quietModules: quiet)
    }

    static func ean13(_ random: inout SplitMix64) -> Payload {
        gtin(String(random.in(1...9)) + random.string(digits, count: 11), .ean, .ean13, quiet: 11)
    }

    /// A book (ISBN with an EAN-5 price add-on) or a magazine (an EAN-2 issue add-on).
    static func ean13AddOn(_ random: inout SplitMix64) -> Payload {
        let book = random.next() % 2 == 0
        let body = book ? "978" + random.string(digits, count: 9) : "977" + random.string(digits, count: 9)
        let addOn = book ? "5" + random.string(digits, count: 4) : random.string(digits, count: 2)
        return Payload(
            symbology: .ean, data: Array("\(body)+\(addOn)".utf8),
            truth: TruthCode(symbology: .ean13, text: withCheck(body), addOn: addOn), quietModules: 11)
    }

    static func ean8(_ random: inout SplitMix64) -> Payload {
        gtin(String(random.in(1...9)) + random.string(digits, count: 6), .ean, .ean8, quiet: 7)
    }

    static func upcA(_ random: inout SplitMix64) -> Payload {
        gtin(random.string(digits, count: 11), .upcA, .upcA, quiet: 9)
    }

    /// UPC-E with number system 0 and a last data digit of 5–9 (a product code in the 5 manufacturer digits; the
    /// fifth must not be 0, which the shorter forms encode).
    static func upcE(_ random: inout SplitMix64) -> Payload {
        let data =
            "0" + String(random.in(1...9)) + random.string(digits, count: 3) + String(random.in(1...9))
            + String(random.in(5...9))
        let d = data.compactMap(\.wholeNumberValue)
        // The check digit is UPC-A's, of the expansion d0 d1...d5 0000 d6.
        let expanded = Array(d[0...5]) + [0, 0, 0, 0, d[6]]
        let text = data + String(EAN.checkDigit(expanded))
        return Payload(
            symbology: .upcE, data: Array(data.utf8), truth: TruthCode(symbology: .upcE, text: text), quietModules: 9)
    }

    static func code128(_ random: inout SplitMix64) -> Payload {
        let kind = random.in(0...2)
        let value: String
        switch kind {
        case 0: value = "LOT-" + random.string(upper, count: random.in(4...8))
        case 1: value = random.string(digits, count: 2 * random.in(4...8))
        default: value = "Pkg/" + random.string("abcdefghijklmnopqrstuvwxyz0123456789", count: random.in(5...10))
        }
        return text(value, .code128, .code128, quiet: 10)
    }

    static func code39(_ random: inout SplitMix64) -> Payload {
        text(
            random.string(upper, count: random.in(3...5)) + "-" + random.string(digits, count: 4), .code39, .code39,
            quiet: 10)
    }

    static func code93(_ random: inout SplitMix64) -> Payload {
        text("C93." + random.string(upper, count: random.in(4...8)), .code93, .code93, quiet: 10)
    }

    /// An ITF-14 carton code: 14 digits, the last a GS1 check digit.
    static func itf(_ random: inout SplitMix64) -> Payload {
        let value = withCheck(String(random.in(1...8)) + random.string(digits, count: 12))
        return text(value, .itf, .interleaved2of5, quiet: 10)
    }

    /// Codabar as libraries and blood banks print it: start A, stop B; the truth is without them.
    static func codabar(_ random: inout SplitMix64) -> Payload {
        let body = random.string(digits, count: random.in(6...10))
        return Payload(
            symbology: .codabar, data: Array("A\(body)B".utf8), truth: TruthCode(symbology: .codabar, text: body),
            quietModules: 10)
    }

    /// A GTIN-14 on GS1 DataBar Omnidirectional (fresh produce).
    static func dataBar(_ random: inout SplitMix64) -> Payload {
        gtin("0" + random.string(digits, count: 12), .dataBar, .dataBar, quiet: 1)
    }

    /// GS1 DataBar Expanded as on variable-weight fresh food: GTIN, net weight (3103, kg) and best-before date (15).
    static func dataBarExpanded(_ random: inout SplitMix64) -> Payload {
        let gtin = withCheck("0" + random.string(digits, count: 12))
        let weight = random.string(digits, count: 6)
        let date = "26" + String(format2(random.in(1...12))) + format2(random.in(1...28))
        return Payload(
            symbology: .dataBarExpanded, data: Array("[01]\(gtin)[3103]\(weight)[15]\(date)".utf8),
            truth: TruthCode(symbology: .dataBarExpanded, text: "(01)\(gtin)(3103)\(weight)(15)\(date)"),
            quietModules: 1)
    }

    static func format2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    static func qr(_ random: inout SplitMix64) -> Payload {
        let token = random.string("abcdefghijklmnopqrstuvwxyz0123456789", count: random.in(6...24))
        let value = random.pick([
            "https://example.com/p/\(token)", "WIFI:S:Luma-\(token.prefix(4));T:WPA;P:\(token);;",
            "Order \(token.uppercased()) ready for pickup at counter 4. Thank you for shopping with us!",
            "BEGIN:VCARD\nFN:Luma Scan\nTEL:+41\(random.string(digits, count: 9))\nEND:VCARD",
        ])
        var payload = text(value, .qr, .qrCode, quiet: 4)
        payload.option1 = random.in(2...3)  // error correction M or Q, as printed codes mostly use
        return payload
    }

    /// Short payloads, for codes photographed from very close (few modules, each huge).
    static func qrShort(_ random: inout SplitMix64) -> Payload {
        text("LS-" + random.string(upper, count: random.in(4...12)), .qr, .qrCode, quiet: 4)
    }

    /// Japanese text, which zint encodes in Kanji mode (Shift JIS, no ECI), as Japanese labels carry.
    static func qrKanji(_ random: inout SplitMix64) -> Payload {
        let words = ["商品番号", "賞味期限", "東京都千代田区", "日本語", "漢字", "お問い合わせ", "製造所", "原材料名", "内容量"]
        let value = (0..<random.in(2...4)).map { _ in random.pick(words) }.joined() + random.string(digits, count: 4)
        return text(value, .qr, .qrCode, quiet: 4)
    }

    /// Bytes in byte mode without ECI: ISO 8859-1 text with accents and symbols, as older European systems
    /// print; the truth is their ISO 8859-1 reading.
    static func qrBinary(_ random: inout SplitMix64) -> Payload {
        let value =
            random.pick(["Müller Straße ", "Société Générale ", "Ærø Kø ", "Zürich Hbf ", "Señor Niño "])
            + random.pick(["±5 °C ", "½ kg ", "© ", "§12 ", "¥ £ "]) + random.string(digits, count: 6)
        let bytes = value.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        return Payload(
            symbology: .qr, data: bytes, unicode: false, truth: TruthCode(symbology: .qrCode, text: value),
            quietModules: 4)
    }

    static func microQR(_ random: inout SplitMix64) -> Payload {
        text("LS" + random.string(upper, count: random.in(3...8)), .microQR, .microQR, quiet: 2)
    }

    /// A Data Matrix as on electronics parts and pharmaceutical packs.
    static func dataMatrix(_ random: inout SplitMix64) -> Payload {
        let value = random.pick(["SN:", "P/N ", "LOT "]) + random.string(upper, count: random.in(8...24))
        return text(value, .dataMatrix, .dataMatrix, quiet: 2)
    }

    /// PDF417 as on ID cards and shipping labels.
    static func pdf417(_ random: inout SplitMix64) -> Payload {
        let value =
            "ANSI 636000\(random.string(digits, count: 6))DL DAQ\(random.string(upper, count: 9)) DCS "
            + random.pick(["MUSTERMANN", "DOE", "ROSSI"]) + " DBB19" + random.string(digits, count: 6)
        return text(value, .pdf417, .pdf417, quiet: 2)
    }

    /// Aztec as on boarding passes and train tickets.
    static func aztec(_ random: inout SplitMix64) -> Payload {
        let value =
            "M1LUMA/SCAN E\(random.string(upper, count: 6)) ZRHLHR LX \(random.string(digits, count: 4)) "
            + "\(random.in(100...365))Y\(random.string(digits, count: 3))"
        return text(value, .aztec, .aztec, quiet: 2)
    }

    /// MaxiCode mode 4 (standard symbol, text), as on parcels.
    static func maxiCode(_ random: inout SplitMix64) -> Payload {
        text("PARCEL " + random.string(upper, count: random.in(6...20)), .maxiCode, .maxiCode, quiet: 1)
    }
}
