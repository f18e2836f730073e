import CLumaBenchKit
import CLumaVision
import Foundation
import LumaScanCore

/// A grey test image to compose scenes on: codes placed at a position, scale, rotation or perspective; blur, noise,
/// shapes, text and textures. Every operation is deterministic (noise takes a seed).
public final class TestCanvas {
    /// The pixels.
    public let image: LumaImage

    /// Creates a canvas of `width` x `height` filled with `fill`.
    public init(width: Int, height: Int, fill: UInt8 = 200) {
        image = LumaImage(width: width, height: height, fill: fill)
    }

    /// Width in pixels.
    public var width: Int { image.width }
    /// Height in pixels.
    public var height: Int { image.height }

    private func withPixels(_ body: (UnsafeMutablePointer<UInt8>, Int32, Int32, Int) -> Int32) {
        let (w, h, stride) = (Int32(width), Int32(height), image.stride)
        let status = image.withMutablePixels { body($0.baseAddress!, w, h, stride) }
        precondition(status >= 0, "CLumaVision imaging failed: \(status)")
    }

    /// Pastes `code` so that its centre lands on `centre`, scaled by `scale` and rotated by `degrees`
    /// (counter-clockwise as displayed), with bilinear interpolation; pixels outside the code keep their value.
    ///
    /// Returns the code image's four corners (top left, top right, bottom right, bottom left) in canvas pixels.
    @discardableResult
    public func place(_ code: LumaImage, centre: Point, scale: Double = 1, degrees: Double = 0) -> [Point] {
        let halfWidth = Double(code.width) * scale / 2
        let halfHeight = Double(code.height) * scale / 2
        let radians = degrees * .pi / 180
        let (cosine, sine) = (cos(radians), sin(radians))
        let corners = [
            (-halfWidth, -halfHeight), (halfWidth, -halfHeight), (halfWidth, halfHeight),
            (-halfWidth, halfHeight),
        ].map { (dx, dy) in
            // Counter-clockwise on screen, where y grows downwards.
            Point(x: centre.x + dx * cosine + dy * sine, y: centre.y - dx * sine + dy * cosine)
        }
        return place(code, corners: corners)
    }

    /// Pastes `code` warped so that its corners (top left, top right, bottom right, bottom left) land on `corners`;
    /// pixels outside the code keep their value. Returns `corners`.
    @discardableResult
    public func place(_ code: LumaImage, corners: [Point]) -> [Point] {
        precondition(corners.count == 4, "four corners")
        let source: [Double] = [
            0, 0, Double(code.width), 0, Double(code.width), Double(code.height), 0,
            Double(code.height),
        ]
        let destination = corners.flatMap { [$0.x, $0.y] }
        code.withView { view in
            withPixels { pixels, w, h, stride in
                lv_image_warp_perspective(
                    view.baseAddress, Int32(view.width), Int32(view.height), view.stride, pixels, w, h, stride,
                    source, destination, -1, nil)
            }
        }
        return corners
    }

    /// Copies `code` pixel for pixel with its top-left corner at `x`, `y` (clipped); returns the rectangle covered.
    @discardableResult
    public func paste(_ code: LumaImage, x: Int, y: Int) -> Rect {
        let area = Rect(x: x, y: y, width: code.width, height: code.height).intersection(
            Rect(x: 0, y: 0, width: width, height: height))
        guard !area.isEmpty else { return area }
        let source = code.pixels
        image.withMutablePixels { pixels in
            for row in area.y..<area.maxY {
                for column in area.x..<area.maxX {
                    pixels[row * width + column] = source[(row - y) * code.width + (column - x)]
                }
            }
        }
        return area
    }

    /// Blurs the whole canvas with a Gaussian of `sigma` pixels.
    public func blur(sigma: Double) {
        withPixels { lv_image_gaussian_blur($0, $1, $2, $3, sigma) }
    }

    /// Adds Gaussian noise of standard deviation `sigma`, deterministic for a given `seed`.
    public func addNoise(sigma: Double, seed: UInt64) {
        withPixels { lv_image_add_noise($0, $1, $2, $3, sigma, seed) }
    }

    /// Fills a rectangle with `value`.
    public func fill(_ rect: Rect, value: UInt8) {
        withPixels {
            lv_image_fill_rect(
                $0, $1, $2, $3, Int32(rect.x), Int32(rect.y), Int32(rect.width),
                Int32(rect.height), value)
        }
    }

    /// Fills a polygon with `value`, anti-aliased.
    public func fill(polygon: [Point], value: UInt8) {
        let xy = polygon.flatMap { [$0.x, $0.y] }
        withPixels { lv_image_fill_polygon($0, $1, $2, $3, xy, Int32(polygon.count), value, 1) }
    }

    /// Draws ASCII `text` with its baseline starting at `x`, `y`.
    public func draw(text: String, x: Int, y: Int, scale: Double = 1, thickness: Int = 2, value: UInt8 = 20) {
        withPixels { lv_image_draw_text($0, $1, $2, $3, text, Int32(x), Int32(y), scale, Int32(thickness), value) }
    }

    /// Fills the canvas with a horizontal and vertical brightness gradient from `from` to `to`.
    public func gradient(from: UInt8, to: UInt8) {
        let (w, h) = (width, height)
        image.withMutablePixels { pixels in
            for y in 0..<h {
                for x in 0..<w {
                    let t = (Double(x) / Double(max(1, w - 1)) + Double(y) / Double(max(1, h - 1))) / 2
                    pixels[y * w + x] = UInt8(Double(from) + (Double(to) - Double(from)) * t)
                }
            }
        }
    }

    /// Scatters `count` random grey ellipses and polygons (a texture of blobs), deterministic for `seed`.
    public func blobs(count: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<count {
            let cx = random.nextDouble() * Double(width)
            let cy = random.nextDouble() * Double(height)
            let radius = 5 + random.nextDouble() * Double(min(width, height)) / 6
            let sides = 3 + Int(random.next() % 9)
            let value = UInt8(truncatingIfNeeded: random.next() % 256)
            let polygon = (0..<sides).map { side -> Point in
                let angle = Double(side) / Double(sides) * 2 * .pi
                let r = radius * (0.6 + 0.4 * random.nextDouble())
                return Point(x: cx + r * cos(angle), y: cy + r * sin(angle))
            }
            fill(polygon: polygon, value: value)
        }
    }

    /// Writes the canvas to a PNG file (to look at a failing case).
    public func writePNG(to path: String) -> Int32 {
        image.withView { lv_image_write_png(path, $0.baseAddress, Int32($0.width), Int32($0.height), $0.stride) }
    }
}

extension FrameMetadata {
    /// Metadata for a grey test frame number `index` captured at `seconds` on a synthetic monotonic clock.
    public static func test(index: UInt64 = 0, seconds: Double = 0, width: Int, height: Int) -> FrameMetadata {
        let time = MonotonicInstant(nanoseconds: UInt64(seconds * 1e9))
        return FrameMetadata(
            index: index, driverSequence: UInt32(truncatingIfNeeded: index), captureTime: time, dequeueTime: time,
            format: FrameFormat(pixelFormat: .grey, width: width, height: height), bytesUsed: width * height)
    }
}
