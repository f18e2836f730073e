import Foundation
import LumaScanCore
import LumaScanRecognizers
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
}
