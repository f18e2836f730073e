import Foundation
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

@Suite("RegionOfInterest")
struct RegionOfInterestTests {
    @Test("percent regions scale with the frame; pixel regions are clamped to it")
    func rects() {
        let half = RegionOfInterest.percent(x: 25, y: 50, width: 50, height: 50)
        #expect(half.rect(in: Size(width: 640, height: 480)) == Rect(x: 160, y: 240, width: 320, height: 240))
        #expect(half.rect(in: Size(width: 1920, height: 1080)) == Rect(x: 480, y: 540, width: 960, height: 540))
        let pixels = RegionOfInterest.pixels(Rect(x: 600, y: 400, width: 100, height: 100))
        #expect(pixels.rect(in: Size(width: 640, height: 480)) == Rect(x: 600, y: 400, width: 40, height: 80))
        #expect(pixels.rect(in: Size(width: 320, height: 240)).isEmpty)
    }

    @Test("JSON shape")
    func json() throws {
        let encoded = try JSONEncoder().encode(RegionOfInterest.pixels(Rect(x: 1, y: 2, width: 3, height: 4)))
        let object = try JSONSerialization.jsonObject(with: encoded) as? [String: [String: Int]]
        #expect(object == ["pixels": ["x": 1, "y": 2, "width": 3, "height": 4]])
        let decoded = try JSONDecoder().decode(
            RegionOfInterest.self, from: Data(#"{"percent": {"x": 0, "y": 10.5, "width": 100, "height": 50}}"#.utf8))
        #expect(decoded == .percent(x: 0, y: 10.5, width: 100, height: 50))
    }

    @Test("exactly one kind")
    func oneKind() {
        #expect(throws: LumaScanError.self) {
            try JSONDecoder().decode(
                RegionOfInterest.self,
                from: Data(
                    #"{"percent": {"x": 0, "y": 0, "width": 1, "height": 1}, "pixels": {"x": 0, "y": 0, "width": 1, "height": 1}}"#
                        .utf8))
        }
    }

    @Test("pixel regions near Int.max are refused with their JSON path, and rectangles there never trap")
    func hugeRegions() throws {
        let huge = Int.max - 5
        for (rect, field) in [
            (Rect(x: huge, y: 0, width: 10, height: 10), "x"), (Rect(x: 0, y: huge, width: 10, height: 10), "y"),
            (Rect(x: 0, y: 0, width: huge, height: 10), "width"), (Rect(x: 10, y: 0, width: 65537, height: 1), "width"),
        ] {
            #expect {
                try RegionOfInterest.pixels(rect).validate(path: "barcodeConfig.regionOfInterest")
            } throws: { error in
                "\(error)".contains("barcodeConfig.regionOfInterest.pixels.\(field): ")
            }
        }
        // Geometry on such a rectangle (as a configuration that skipped validation would give) saturates.
        let far = Rect(x: huge, y: huge, width: 100, height: 100)
        #expect(far.maxX == Int.max && far.maxY == Int.max)
        #expect(far.intersection(Rect(x: 0, y: 0, width: 1920, height: 1080)).isEmpty)
        #expect(RegionOfInterest.pixels(far).rect(in: Size(width: 1920, height: 1080)).isEmpty)
        let wide = Rect(x: Int.min, y: 0, width: Int.max, height: 10)
        #expect(wide.intersection(Rect(x: Int.min + 1, y: 0, width: Int.max, height: 10)).width > 0)
        // A barcode recognizer refuses the configuration before any frame.
        var configuration = BarcodeConfiguration()
        configuration.regionOfInterest = .pixels(Rect(x: huge, y: 0, width: 10, height: 10))
        #expect(throws: LumaScanError.self) { try BarcodeRecognizer(configuration: configuration, logger: testLogger) }
    }
}
