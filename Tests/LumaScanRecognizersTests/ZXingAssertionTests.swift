import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// Debian's ZXing-C++ 1.4 fails one of its own assertions on DataBar photos; LumaScan must survive it.
@Suite("ZXing-C++ assertions")
struct ZXingAssertionTests {
    @Test("a failed ZXing-C++ assertion ends that read as nothing instead of aborting the process")
    func survives() throws {
        // A GS1 DataBar print photographed as the corpus does: raw ZXing-C++ (default hints, DataBar on) fails
        // `lineCount() == 1` in Result::operator== here, which aborts ZXingReader.
        let print = try Zint.render(.dataBar, Array("0001234567890".utf8), style: ZintStyle(modulePixels: 3))
        let photo = BarcodePhoto(
            width: 1024, height: 768, codes: [PrintedCode(print: print, printModulePixels: 3, modulePixels: 3)]
        ).develop()
        let zxing = try ZXingBaseline()
        _ = photo.image.withView { zxing.scan($0) }
        #expect(zxing.assertionFailures == 1)
        // The process is still here, and the recognizer (which leaves DataBar to zbar) reads the code.
        let read = results(
            process(
                try BarcodeRecognizer(
                    configuration: BarcodeConfiguration(consistencyCount: singleFrame, stillImage: true),
                    logger: testLogger), photo.image))
        #expect(read.map(\.symbology) == [.dataBar])
        #expect(read.first?.text == "0100012345678905")
    }
}
