import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// Character sets, structured append and still-image isolation of the barcode recognizer.
@Suite("Barcode text and sequences")
struct BarcodeTextTests {
    /// A QR code placed on a plain page, 5 px per module.
    private func frame(_ code: QRCode, width: Int = 480, height: Int = 360) -> LumaImage {
        scene(code.render(moduleSize: 5), width: width, height: height).0
    }

    private func recognizer(still: Bool) throws -> BarcodeRecognizer {
        try BarcodeRecognizer(
            configuration: BarcodeConfiguration(consistencyCount: singleFrame, stillImage: still), logger: testLogger)
    }

    @Test("QR text: Shift_JIS half-width katakana, Kanji mode, UTF-8 and Latin-1 bytes, with the raw bytes kept")
    func characterSets() throws {
        // "ﾃﾞｻﾞｲﾝQR" in Shift_JIS: half-width katakana are single bytes 0xA1...0xDF, which zbar's own guess turns
        // into Chinese ("蹬靼翌QR").
        let katakana: [UInt8] = [0xC3, 0xDE, 0xBB, 0xDE, 0xB2, 0xDD, 0x51, 0x52]
        // "漢字" in Shift_JIS, encoded in Kanji mode.
        let kanji: [UInt8] = [0x8A, 0xBF, 0x8E, 0x9A]
        let cases: [(bytes: [UInt8], text: String, charset: String, options: [String])] = [
            (katakana, "ﾃﾞｻﾞｲﾝQR", "Shift_JIS", ["-8"]),
            (kanji, "漢字", "Shift_JIS", ["-k"]),
            (Array("Grüße aus Köln".utf8), "Grüße aus Köln", "UTF-8", ["-8"]),
            ([0x43, 0x61, 0x66, 0xE9, 0x20, 0xA9], "Café ©", "ISO-8859-1", ["-8"]),
        ]
        for still in [false, true] {
            let reader = try recognizer(still: still)
            for (index, item) in cases.enumerated() {
                let code = try QRCode(bytes: item.bytes, text: item.text, options: item.options)
                let read = results(process(reader, frame(code), index: UInt64(index), seconds: Double(index) * 2))
                #expect(read.count == 1, "\(item.text) still \(still)")
                #expect(read.first?.text == item.text, "still \(still)")
                #expect(read.first?.bytes == item.bytes, "\(item.text) still \(still)")
                #expect(read.first?.detail?.barcode?.characterSet == item.charset, "\(item.text) still \(still)")
            }
        }
    }

    @Test("structured append: the parts of one image are assembled into one message, once")
    func structuredAppendInOneImage() throws {
        let message = "LumaScan reads structured-append QR codes: every part, then the whole message."
        let parts = try QRCode.structuredAppend(message, version: 2)
        #expect(parts.count >= 3)
        let canvas = TestCanvas(width: 300 * parts.count, height: 360, fill: 215)
        for (index, part) in parts.enumerated() {
            _ = canvas.place(part.render(moduleSize: 5), centre: Point(x: 150 + 300 * Double(index), y: 180))
        }
        let reports = process(try recognizer(still: true), canvas.image)
        let whole = results(reports)
        #expect(whole.map(\.text) == [message])
        #expect(whole.first?.detail?.barcode?.structuredAppend?.count == parts.count)
        #expect(whole.first?.detail?.barcode?.structuredAppend?.index == nil)
        let partReports = reports.filter { $0.reportType == .inProgress && $0.state == .ok }
        #expect(
            Set(partReports.compactMap { $0.detail?.barcode?.structuredAppend?.index }) == Set(0..<parts.count))
        #expect(partReports.compactMap(\.text).joined().count == message.count)
    }

    @Test("structured append across camera frames: the message completes when the last part is seen")
    func structuredAppendAcrossFrames() throws {
        let message = "Parts of one message, shown to the camera one after the other, then assembled."
        let parts = try QRCode.structuredAppend(message, version: 2)
        let reader = try recognizer(still: false)
        var completed: [ScanReport] = []
        for (index, part) in parts.enumerated() {
            completed += results(process(reader, frame(part), index: UInt64(index), seconds: Double(index) * 0.1))
            if index < parts.count - 1 { #expect(completed.isEmpty, "completed after part \(index)") }
        }
        #expect(completed.map(\.text) == [message])
    }

    @Test("EAN-2 and EAN-5 add-ons are reported with their main code, in still images and camera frames")
    func addOns() throws {
        for (data, main, addOn) in [
            ("400638133393+51234", "4006381333931", "51234"), ("978030640615+12", "9780306406157", "12"),
        ] {
            let print = try Zint.render(.ean, Array(data.utf8), style: ZintStyle(modulePixels: 3))
            let image = scene(print, width: 640, height: 360).0
            for still in [true, false] {
                let read = results(process(try recognizer(still: still), image))
                #expect(read.map(\.text) == [main], "\(data) still \(still)")
                #expect(read.first?.detail?.barcode?.addOn == addOn, "\(data) still \(still)")
            }
        }
    }

    @Test("still images are independent: a folder read in two orders gives each image the same result")
    func stillImagesAreIndependent() throws {
        var images: [LumaImage] = []
        images.append(frame(try QRCode("first image")))
        // DataBar Expanded is read segment by segment, and zbar keeps segments between scans: two codes that share
        // their first segments were once stitched together across images.
        for data in ["[01]98898765432106[3103]001750[15]991231", "[01]98898765432106[3202]012345[17]201231"] {
            let print = try Zint.render(.dataBarExpanded, Array(data.utf8), style: ZintStyle(modulePixels: 3))
            images.append(scene(print, width: 720, height: 360).0)
        }
        let ean = EAN.ean13("400638133393")
        images.append(scene(ean.render(moduleWidth: 3, height: 90)).0)
        images.append(TestCanvas(width: 480, height: 360, fill: 200).image)
        images.append(scene(Code128.encode("LUMA-7").render(moduleWidth: 3, height: 80), degrees: 8).0)
        func readAll(_ order: [Int]) throws -> [Int: [String]] {
            let reader = try recognizer(still: true)
            var read: [Int: [String]] = [:]
            for (step, index) in order.enumerated() {
                read[index] = results(process(reader, images[index], index: UInt64(step))).compactMap(\.text).sorted()
            }
            return read
        }
        let forward = try readAll(Array(images.indices))
        let backward = try readAll(images.indices.reversed())
        #expect(forward == backward)
        #expect(forward[0] == ["first image"] && forward[3] == [ean.text] && forward[4] == [])
        #expect(forward[1] == ["01988987654321063103001750" + "15991231"], "\(forward[1] ?? [])")
        #expect(forward[2] == ["01988987654321063202012345" + "17201231"], "\(forward[2] ?? [])")
    }
}
