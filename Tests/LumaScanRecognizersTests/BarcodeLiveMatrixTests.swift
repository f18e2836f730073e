import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// The live path's 2D codes that zbar does not read: ZXing-C++ reads them only where a frame looks like one.
@Suite("Barcode live path: 2D codes")
struct BarcodeLiveMatrixTests {
    private func camera() throws -> BarcodeRecognizer {
        try BarcodeRecognizer(configuration: BarcodeConfiguration(consistencyCount: singleFrame), logger: testLogger)
    }

    /// A 1280x720 camera frame of `print` on `background`, `modulePixels` per module, tilted a little.
    private func frame(
        _ print: LumaImage, modulePixels: Double, background: PhotoBackground = .paper, seed: UInt64 = 3
    ) -> (LumaImage, [Point]) {
        let code = PrintedCode(
            print: print, printModulePixels: 4, centre: Point(x: 0.4, y: 0.55), modulePixels: modulePixels,
            rotation: 7, yaw: 4)
        let developed = BarcodePhoto(
            width: 1280, height: 720, background: background, seed: seed, codes: [code], noise: 3, jpegQuality: 85
        ).develop()
        return (developed.image, developed.corners.first ?? [])
    }

    @Test(
        "Data Matrix, PDF417, Aztec and Micro QR in a camera frame are read by ZXing-C++, where they are",
        arguments: [
            (ZintSymbology.dataMatrix, Symbology.dataMatrix, "LUMA-DM-0042"),
            (.pdf417, .pdf417, "LumaScan PDF417 live"),
            (.aztec, .aztec, "AZTEC 1234567"),
            (.microQR, .microQR, "MQR42"),
        ])
    func matrixCodes(zint: ZintSymbology, symbology: Symbology, text: String) throws {
        let print = try Zint.render(zint, Array(text.utf8), style: ZintStyle(modulePixels: 4))
        // 5 px per module: what ZXingReader itself reads in such a frame (at 3-4 px it reads neither the Data Matrix
        // nor the Aztec code).
        let (image, corners) = frame(print, modulePixels: 5)
        let read = results(process(try camera(), image))
        #expect(read.map(\.text) == [text], "\(symbology)")
        #expect(read.first?.symbology == symbology)
        #expect(read.first?.detail?.barcode?.decoders == [.zxing])
        if let polygon = read.first?.polygon { expectPolygon(polygon, within: corners, margin: 12, "\(symbology)") }
    }

    @Test("frames of text, texture and product art give no 2D code")
    func nothingWhereNothingIs() throws {
        let reader = try camera()
        for (index, background) in PhotoBackground.allCases.enumerated() {
            let image = BarcodePhoto(
                width: 1280, height: 720, background: background, seed: UInt64(index + 11), codes: [], noise: 4
            ).develop().image
            let reports = process(reader, image, index: UInt64(index), seconds: Double(index) * 2)
            #expect(isUnreadable(reports), "\(background): \(reports.compactMap(\.text))")
        }
    }
}
