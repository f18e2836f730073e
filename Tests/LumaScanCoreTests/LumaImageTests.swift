import LumaScanCore
import Testing

@Suite("LumaImage")
struct LumaImageTests {
    @Test("images are equal, and hash alike, when their sizes and pixels are")
    func equality() {
        let pixels: [UInt8] = [0, 10, 20, 30, 40, 50]
        let image = LumaImage(width: 3, height: 2, pixels: pixels)
        let same = LumaImage(width: 3, height: 2, pixels: pixels)
        #expect(image == same && image.hashValue == same.hashValue)
        #expect(image != LumaImage(width: 2, height: 3, pixels: pixels), "same pixels, another size")
        var other = pixels
        other[5] = 51
        #expect(image != LumaImage(width: 3, height: 2, pixels: other), "one pixel differs")
        #expect(Set([image, same, LumaImage(width: 3, height: 2, pixels: other)]).count == 2)
    }

    @Test("a copy of a view holds the pixels the view shows, row by row")
    func copyingAView() {
        let frame = LumaImage(width: 4, height: 3, pixels: Array(0..<12))
        let copy = frame.withView { LumaImage(copying: $0.cropped(to: Rect(x: 1, y: 1, width: 2, height: 2))!) }
        #expect(copy.width == 2 && copy.height == 2 && copy.pixels == [5, 6, 9, 10])
    }
}
