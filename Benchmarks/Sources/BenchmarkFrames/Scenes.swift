import Foundation
import LumaScan
import Synchronization

/// The background a benchmark frame is drawn on. zbar's cost depends strongly on it (every edge is work for its
/// scanner), so the suites measure all three.
public enum SceneBackground: String, CaseIterable, Sendable {
    /// A uniform light grey: the cheapest frame for any reader.
    case flat
    /// A camera-like scene: a brightness gradient with soft grey blobs and a few dark marks, no sensor noise.
    case textured
    /// `textured` with Gaussian sensor noise of σ = ``Scenes/noiseSigma``, as a webcam in indoor light gives.
    case noisy
}

/// The code drawn into a benchmark frame.
public enum SceneCode: String, CaseIterable, Sendable {
    /// No code.
    case none
    /// An EAN-13 (``Scenes/ean13Text``).
    case ean13
    /// A QR code (``Scenes/qrText``).
    case qr
}

/// A benchmark frame's recipe. Frames are deterministic: the same recipe gives the same pixels.
public struct SceneSpec: Hashable, Sendable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The background.
    public var background: SceneBackground
    /// The code, if any.
    public var code: SceneCode

    /// Creates a recipe.
    public init(width: Int, height: Int, background: SceneBackground, code: SceneCode) {
        self.width = width
        self.height = height
        self.background = background
        self.code = code
    }

    /// `1920x1080 noisy qr`.
    public var description: String { "\(width)x\(height) \(background.rawValue) \(code.rawValue)" }
}

/// Generated benchmark frames: one code (or none) on a flat, textured or noisy background.
///
/// Sizes follow a camera holding a code at a fixed distance: EAN-13 modules are `max(2, height / 240)` px wide (2 at
/// 480 rows, 3 at 720, 4 at 1080) and QR modules `max(3, height / 180)` px (3, 4, 6). The code is centred at 45 % of
/// the width and 55 % of the height, the frame is blurred (σ 0.7, a camera's optics) and then, for ``noisy``, noise
/// is added. Frames are cached: each recipe is drawn once per process.
public enum Scenes {
    /// The frame sizes the suites measure.
    public static let sizes: [(width: Int, height: Int)] = [(640, 480), (1280, 720), (1920, 1080)]
    /// The EAN-13 drawn (12 digits; the reader reports ``ean13Text``).
    public static let ean13Payload = "400638133393"
    /// What a reader reports for the EAN-13.
    public static let ean13Text = "4006381333931"
    /// What the QR code holds.
    public static let qrText = "https://lumascan.example/bench?id=42"
    /// The noise of ``SceneBackground/noisy`` frames, in grey levels.
    public static let noiseSigma = 4.0

    private static let cache = Mutex<[SceneSpec: LumaImage]>([:])

    /// The frame for `spec` (drawn on first use, then cached).
    public static func image(_ spec: SceneSpec) -> LumaImage {
        if let cached = cache.withLock({ $0[spec] }) { return cached }
        let image = draw(spec)
        cache.withLock { $0[spec] = image }
        return image
    }

    /// What a reader must report for `spec`'s code, or `nil` for a frame without one.
    public static func expected(_ spec: SceneSpec) -> (symbology: Symbology, text: String)? {
        switch spec.code {
        case .none: nil
        case .ean13: (.ean13, ean13Text)
        case .qr: (.qrCode, qrText)
        }
    }

    private static func draw(_ spec: SceneSpec) -> LumaImage {
        let (width, height) = (spec.width, spec.height)
        var canvas = Canvas(width: width, height: height, fill: 200)
        let seed = UInt64(width * 7919 + height)
        if spec.background != .flat { canvas.texture(seed: seed) }
        let centre = (x: Double(width) * 0.45, y: Double(height) * 0.55)
        switch spec.code {
        case .none:
            break
        case .ean13:
            let module = max(2, height / 240)
            let (modules, _) = Codes.ean13(ean13Payload)
            let quiet = 11
            let codeWidth = (modules.count + 2 * quiet) * module
            let barHeight = 50 * module
            let left = Int(centre.x) - codeWidth / 2
            let top = Int(centre.y) - barHeight / 2
            canvas.fill(x: left, y: top - 2 * module, width: codeWidth, height: barHeight + 4 * module, value: 250)
            for (index, bar) in modules.enumerated() where bar {
                canvas.fill(x: left + (quiet + index) * module, y: top, width: module, height: barHeight, value: 20)
            }
        case .qr:
            let module = max(3, height / 180)
            guard let (size, modules) = Codes.qr(qrText) else { preconditionFailure("the QR text fits version 3-M") }
            let quiet = 4
            let side = (size + 2 * quiet) * module
            let left = Int(centre.x) - side / 2
            let top = Int(centre.y) - side / 2
            canvas.fill(x: left, y: top, width: side, height: side, value: 250)
            for y in 0..<size {
                for x in 0..<size where modules[y * size + x] {
                    canvas.fill(
                        x: left + (quiet + x) * module, y: top + (quiet + y) * module, width: module, height: module,
                        value: 20)
                }
            }
        }
        canvas.blur(sigma: 0.7)
        if spec.background == .noisy { canvas.addNoise(sigma: noiseSigma, seed: seed ^ 0x5EED) }
        return LumaImage(width: width, height: height, pixels: canvas.pixels)
    }
}

/// A grey image being drawn: deterministic primitives, no dependencies.
struct Canvas {
    let width: Int
    let height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, fill: UInt8) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: fill, count: width * height)
    }

    /// A gradient from 150 to 215, twelve soft grey blobs and a row of dark marks like a line of print, blurred
    /// (σ 3) as out-of-focus surroundings are.
    mutating func texture(seed: UInt64) {
        for y in 0..<height {
            for x in 0..<width {
                let t = (Double(x) / Double(max(1, width - 1)) + Double(y) / Double(max(1, height - 1))) / 2
                pixels[y * width + x] = UInt8(150 + 65 * t)
            }
        }
        var random = SplitMix64(seed: seed)
        for _ in 0..<12 {
            let cx = random.nextDouble() * Double(width)
            let cy = random.nextDouble() * Double(height)
            let radius = 5 + random.nextDouble() * Double(min(width, height)) / 6
            let sides = 3 + Int(random.next() % 9)
            let value = UInt8(truncatingIfNeeded: random.next() % 256)
            var polygon: [(Double, Double)] = []
            for side in 0..<sides {
                let angle = Double(side) / Double(sides) * 2 * Double.pi
                let r = radius * (0.6 + 0.4 * random.nextDouble())
                polygon.append((cx + r * cos(angle), cy + r * sin(angle)))
            }
            fill(polygon: polygon, value: value)
        }
        blur(sigma: 3)
        let markHeight = max(6, height / 40)
        var x = width / 20
        let y = height - height / 10
        while x < width * 3 / 4 {
            let markWidth = markHeight / 2 + Int(random.next() % UInt64(markHeight))
            fill(x: x, y: y, width: markWidth, height: markHeight, value: 40)
            x += markWidth + markHeight / 3 + (random.next() % 5 == 0 ? markHeight : 0)
        }
    }

    /// Fills a rectangle (clipped) with `value`.
    mutating func fill(x: Int, y: Int, width rectWidth: Int, height rectHeight: Int, value: UInt8) {
        for row in max(0, y)..<min(height, y + rectHeight) {
            for column in max(0, x)..<min(width, x + rectWidth) { pixels[row * width + column] = value }
        }
    }

    /// Fills a polygon (even-odd rule, sampled at pixel centres) with `value`.
    mutating func fill(polygon: [(Double, Double)], value: UInt8) {
        let top = max(0, Int(polygon.map(\.1).min() ?? 0))
        let bottom = min(height - 1, Int(polygon.map(\.1).max() ?? 0))
        guard top <= bottom else { return }
        for row in top...bottom {
            let y = Double(row) + 0.5
            var crossings: [Double] = []
            for index in polygon.indices {
                let (x0, y0) = polygon[index]
                let (x1, y1) = polygon[(index + 1) % polygon.count]
                if (y0 <= y && y < y1) || (y1 <= y && y < y0) { crossings.append(x0 + (y - y0) / (y1 - y0) * (x1 - x0)) }
            }
            crossings.sort()
            for pair in stride(from: 0, to: crossings.count - 1, by: 2) {
                let from = max(0, Int((crossings[pair] - 0.5).rounded(.up)))
                let to = min(width - 1, Int((crossings[pair + 1] - 0.5).rounded(.down)))
                if from <= to { for column in from...to { pixels[row * width + column] = value } }
            }
        }
    }

    /// A separable Gaussian blur of standard deviation `sigma` pixels, edges clamped.
    mutating func blur(sigma: Double) {
        let radius = Int((3 * sigma).rounded(.up))
        var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        let (w, h) = (width, height)
        var rows = [Double](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0.0
                    for k in -radius...radius { sum += kernel[k + radius] * Double(source[y * w + min(w - 1, max(0, x + k))]) }
                    rows[y * w + x] = sum
                }
            }
        }
        pixels.withUnsafeMutableBufferPointer { destination in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0.0
                    for k in -radius...radius { sum += kernel[k + radius] * rows[min(h - 1, max(0, y + k)) * w + x] }
                    destination[y * w + x] = UInt8(min(255, max(0, sum.rounded())))
                }
            }
        }
    }

    /// Adds Gaussian noise of standard deviation `sigma` (Box–Muller over SplitMix64), saturating.
    mutating func addNoise(sigma: Double, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for index in pixels.indices {
            let u1 = max(random.nextDouble(), 1e-12)
            let u2 = random.nextDouble()
            let z = sqrt(-2 * log(u1)) * cos(2 * Double.pi * u2)
            pixels[index] = UInt8(min(255, max(0, (Double(pixels[index]) + sigma * z).rounded())))
        }
    }
}

/// SplitMix64: a small seeded generator, so frames are the same on every run and machine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniformly distributed number in `0..<1`.
    public mutating func nextDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
