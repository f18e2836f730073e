import LumaScanCore
import LumaScanTestSupport
import Testing

/// The equivalences the corpus accepts between a code and what readers report, from the standards' definitions and
/// the readers' documented conventions (expected values worked out by hand, not taken from a reader's output).
@Suite("BarcodeTruth")
struct BarcodeTruthTests {
    @Test("UPC-A, UPC-E and ISBN are the same code as their GTIN-13, and nothing else is")
    func gtin() {
        let upcA = TruthCode(symbology: .upcA, text: "036000291452")
        #expect(BarcodeTruth.matches(PeerRead(symbology: "upca", text: "036000291452"), upcA))
        #expect(BarcodeTruth.matches(PeerRead(symbology: "EAN-13", text: "0036000291452"), upcA))
        #expect(!BarcodeTruth.matches(PeerRead(symbology: "EAN-13", text: "1036000291452"), upcA))
        #expect(!BarcodeTruth.matches(PeerRead(symbology: "ean8", text: "03600029"), upcA))
        // UPC-E 0 12345 6 with check 5 expands to UPC-A 0 12345 0000 6 (number system, manufacturer, product).
        #expect(BarcodeTruth.upcEExpansion("01234565") == "012345000065")
        let upcE = TruthCode(symbology: .upcE, text: "01234565")
        #expect(BarcodeTruth.matches(PeerRead(symbology: "UPC-E", text: "01234565"), upcE))
        #expect(BarcodeTruth.matches(PeerRead(symbology: "EAN-13", text: "0012345000065"), upcE))
        // ISBN-13 978-0-201-37962-4 is ISBN-10 0-201-37962-7: weights 10...2 over the body give 136, 11 - 136 % 11 = 7.
        let book = TruthCode(symbology: .ean13, text: "9780201379624")
        #expect(BarcodeTruth.matches(PeerRead(symbology: "isbn13", text: "9780201379624"), book))
        #expect(BarcodeTruth.matches(PeerRead(symbology: "isbn10", text: "0201379627"), book))
        #expect(!BarcodeTruth.matches(PeerRead(symbology: "isbn10", text: "0201379637"), book))
        #expect(!BarcodeTruth.matches(PeerRead(symbology: "isbn10", text: "0201379628"), book))
    }

    @Test("an add-on is read alone, after the main code, or not at all")
    func addOn() {
        let book = TruthCode(symbology: .ean13, text: "9780201379624", addOn: "52250")
        #expect(BarcodeTruth.matches(PeerRead(symbology: "EAN-13", text: "9780201379624"), book))
        #expect(BarcodeTruth.matches(PeerRead(symbology: "EAN-13", text: "9780201379624 52250"), book))
        #expect(BarcodeTruth.matches(PeerRead(symbology: "COMPOSITE", text: "978020137962452250"), book))
        #expect(BarcodeTruth.matches(PeerRead(symbology: "EAN-5", text: "52250"), book))
        #expect(!BarcodeTruth.matches(PeerRead(symbology: "EAN-5", text: "52251"), book))
        #expect(!BarcodeTruth.matches(PeerRead(symbology: "EAN-13", text: "9780201379624 52251"), book))
    }

    @Test("Codabar start/stop characters, DataBar's AI 01 and GS1 parentheses do not matter; the rest does")
    func conventions() {
        let codabar = TruthCode(symbology: .codabar, text: "40156")
        #expect(BarcodeTruth.matches(PeerRead(symbology: "Codabar", text: "A40156B"), codabar))
        #expect(BarcodeTruth.matches(PeerRead(symbology: "codabar", text: "40156"), codabar))
        #expect(!BarcodeTruth.matches(PeerRead(symbology: "codabar", text: "A40157B"), codabar))
        let dataBar = TruthCode(symbology: .dataBar, text: "09501101530010")
        #expect(BarcodeTruth.matches(PeerRead(symbology: "DataBar", text: "0109501101530010"), dataBar))
        #expect(BarcodeTruth.matches(PeerRead(symbology: "DataBar", text: "09501101530010"), dataBar))
        let expanded = TruthCode(symbology: .dataBarExpanded, text: "(01)98898765432106(3202)012345(15)991231")
        #expect(
            BarcodeTruth.matches(
                PeerRead(symbology: "DataBar-Exp", text: "0198898765432106320201234515991231"), expanded))
        #expect(BarcodeTruth.matches(PeerRead(symbology: "DataBarExpanded", text: expanded.text), expanded))
        let qr = TruthCode(symbology: .qrCode, text: "LUMA")
        #expect(!BarcodeTruth.matches(PeerRead(symbology: "micro-qr", text: "LUMA"), qr))
        #expect(!BarcodeTruth.matches(PeerRead(symbology: "SQ-Code", text: "LUMA"), qr))
    }

    @Test("a scoreboard counts images read, misreads and the peers' union per folder")
    func scoreboard() {
        var board = BarcodeScoreboard(readers: ["a", "b", "c"], union: ["b", "c"])
        let code = TruthCode(symbology: .code128, text: "X1")
        board.add(
            folder: "f", image: "f/1", truth: [code],
            reads: [
                "a": [PeerRead(symbology: "code128", text: "X1")], "b": [PeerRead(symbology: "Code128", text: "X2")],
            ])
        board.add(folder: "f", image: "f/2", truth: [code], reads: ["c": [PeerRead(symbology: "CODE-128", text: "X1")]])
        board.add(folder: "none", image: "none/1", truth: [], reads: ["a": [PeerRead(symbology: "qr", text: "?")]])
        #expect(board.rows.map(\.folder) == ["f", "none"])
        #expect(board.rows[0].read == [1, 0, 1])
        #expect(board.rows[0].misreads == [0, 1, 0])
        #expect(board.rows[0].unionRead == 1)
        #expect(board.rows[1].misreads == [1, 0, 0])
        #expect(board.rows[1].codeFree == 1)
        #expect(board.total.images == 3)
        #expect(board.rows[0].codes == 2)
        #expect(board.rows[0].codesRead == [1, 0, 1])
        board.add(
            folder: "multi", image: "multi/1", truth: [code, TruthCode(symbology: .qrCode, text: "Q")],
            reads: ["b": [PeerRead(symbology: "QRCode", text: "Q"), PeerRead(symbology: "code128", text: "X1")]])
        #expect(board.rows[2].codesRead == [0, 2, 0])
        #expect(board.table.hasSuffix("\nmulti: 2 codes, read: a 0, b 2, c 0"))
    }

    @Test("truth.tsv and the readers' outputs parse back to what was written")
    func files() throws {
        let tsv = "# comment\na/1.png\tupca\t036000291452\t\na/2.png\tqr\tline\\none\\ttab\t\nb/3.png\t-\t\t\n"
        let truth = try CorpusTSV.parseTruth(tsv)
        #expect(truth.map(\.path) == ["a/1.png", "a/2.png", "b/3.png"])
        #expect(truth[1].truth == [TruthCode(symbology: .qrCode, text: "line\none\ttab")])
        #expect(truth[2].truth.isEmpty)
        #expect(CorpusTSV.unescape(Substring(CorpusTSV.escape("a\\b\tc\nd"))) == "a\\b\tc\nd")
        #expect(throws: LumaScanError.self) { try CorpusTSV.parseTruth("x.png\tean14\t1\t\n") }

        let zbar = ReaderOutput.blocks("@@ a/2.png\nQR-Code:line\none\nEAN-13:0036000291452\n\n@@ b/3.png\n@@aborted\n")
        #expect(zbar.map(\.path) == ["a/2.png", "b/3.png"])
        #expect(zbar[1].aborted)
        #expect(
            ReaderOutput.zbarimg(zbar[0].lines) == [
                PeerRead(symbology: "QR-Code", text: "line\none"), PeerRead(symbology: "EAN-13", text: "0036000291452"),
            ])
        let zxing = ReaderOutput.zxingReader(
            ["a/2.png QRCode \"Soci<U+E9>t<U+E9><LF>x <GS>\"", "a/2.png UPC-A \"036000291452\""], path: "a/2.png")
        #expect(
            zxing == [
                PeerRead(symbology: "QRCode", text: "Soci\u{E9}t\u{E9}\nx \u{1D}"),
                PeerRead(symbology: "UPC-A", text: "036000291452"),
            ])
        let json = """
            {"event":"started"}
            {"event":"report","reportType":"COMPLETED_RESULT","symbology":"upca","text":"036000291452","input":"/c/a/1.png"}
            {"event":"report","reportType":"IN_PROGRESS","input":"/c/b/3.png"}
            """
        let lumascan = ReaderOutput.lumascan(json, root: "/c")
        #expect(lumascan.map(\.path) == ["a/1.png"])
        #expect(lumascan.map(\.read) == [PeerRead(symbology: "upca", text: "036000291452")])
    }
}
