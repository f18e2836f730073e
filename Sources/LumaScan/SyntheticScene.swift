import Foundation
import LumaScanCore
import LumaScanRecognizers
import Synchronization

/// A generated camera frame, for benchmarks and `lumascan bench`: one code (or none) on a flat, textured or noisy
/// background. Frames are deterministic: the same scene gives the same pixels on every run and machine, so the
/// Benchmarks package and `lumascan bench --synthetic` measure the same frames.
///
/// Sizes follow a camera holding a code at a fixed distance: EAN-13 modules are `max(2, height / 240)` px wide (2 at
/// 480 rows, 3 at 720, 4 at 1080), QR modules `max(3, height / 180)` px (3, 4, 6) and secure-QR modules
/// `max(8, height / 120)` px (8, 8, 9: the copy-detection pattern needs 2 px per cell). Codes are centred at 45 % of
/// the width and 55 % of the height; a meter fills ``meterCutout``. The frame is blurred (σ 0.7, a camera's optics)
/// and then, for ``Background/noisy``, noise is added.
public struct SyntheticScene: Hashable, Sendable, CustomStringConvertible {
    /// The background a frame is drawn on. zbar's cost depends strongly on it (every edge is work for its scanner),
    /// so benchmarks measure all three.
    public enum Background: String, CaseIterable, Sendable {
        /// A uniform light grey: the cheapest frame for any reader.
        case flat
        /// A camera-like scene: a brightness gradient with soft grey blobs and a few dark marks, no sensor noise.
        case textured
        /// `textured` with Gaussian sensor noise of σ = ``SyntheticScene/noiseSigma``, as a webcam in indoor light
        /// gives.
        case noisy
    }

    /// The code drawn into a frame.
    public enum Code: String, CaseIterable, Sendable {
        /// No code.
        case none
        /// An EAN-13 (``SyntheticScene/ean13Text``).
        case ean13
        /// A QR code (``SyntheticScene/qrText``).
        case qr
        /// A standard secure QR code (``SyntheticScene/secureQRText``, issuer ``SyntheticScene/secureQRIssuer``,
        /// default ``SecureQRDesign``, copy-detection pattern of seed 42).
        case secureQR = "secure-qr"
        /// A seven-segment meter display reading ``SyntheticScene/meterText``, inside ``SyntheticScene/meterCutout``,
        /// drawn by ``MeterImageGenerator`` on its own background (the scene's background only decides the noise).
        case meter
    }

    /// The frame sizes benchmarks measure.
    public static let sizes: [(width: Int, height: Int)] = [(640, 480), (1280, 720), (1920, 1080)]
    /// The EAN-13 drawn (12 digits; a reader reports ``ean13Text``).
    public static let ean13Payload = "400638133393"
    /// What a reader reports for the EAN-13.
    public static let ean13Text = "4006381333931"
    /// What the QR code holds.
    public static let qrText = "https://lumascan.example/bench?id=42"
    /// The issuer prefix of the secure QR code.
    public static let secureQRIssuer = "https://scan.example.com/q/"
    /// What the secure QR code holds.
    public static let secureQRText = secureQRIssuer + "BENCH42"
    /// The meter's reading.
    public static let meterText = "04719.3"
    /// Where the meter is: the cutout a meter recognizer must be given for these frames (9:4, 80 % of the width,
    /// centred, with 24 px of crop padding).
    public static let meterCutout = CutoutConfiguration(
        ratioFromSize: .init(width: 9, height: 4), maxWidthPercent: 80, alignment: .center,
        cropPadding: .init(x: 24, y: 24))
    /// The noise of ``Background/noisy`` frames, in grey levels.
    public static let noiseSigma = 4.0

    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The background.
    public var background: Background
    /// The code, if any.
    public var code: Code

    /// Creates a scene.
    public init(width: Int, height: Int, background: Background, code: Code) {
        self.width = width
        self.height = height
        self.background = background
        self.code = code
    }

    /// `1920x1080 noisy qr`.
    public var description: String { "\(width)x\(height) \(background.rawValue) \(code.rawValue)" }

    /// `1920x1080-noisy-qr`: for benchmark names, which must not contain spaces (the Benchmark tool writes threshold
    /// files with spaces replaced but reads them back with the name as it is).
    public var name: String { "\(width)x\(height)-\(background.rawValue)-\(code.rawValue)" }

    /// What a reader must report for the scene's code, or `nil` for a frame without one. (For a meter, the
    /// symbology is `nil`.)
    public var expected: (symbology: Symbology?, text: String)? {
        switch code {
        case .none: nil
        case .ean13: (.ean13, Self.ean13Text)
        case .qr: (.qrCode, Self.qrText)
        case .secureQR: (.qrCode, Self.secureQRText)
        case .meter: (nil, Self.meterText)
        }
    }

    private static let cache = Mutex<[SyntheticScene: LumaImage]>([:])

    /// The frame (drawn on first use, then cached for the process).
    ///
    /// - Throws: ``LumaScanError`` when a meter cannot be drawn (`.imageIO`: the DejaVu fonts of Debian's
    ///   fonts-dejavu-core are missing), or the frame is smaller than 64 × 64 pixels (`.invalidConfiguration`).
    public func image() throws(LumaScanError) -> LumaImage {
        if let cached = Self.cache.withLock({ $0[self] }) { return cached }
        let image = try draw()
        Self.cache.withLock { $0[self] = image }
        return image
    }

    private func draw() throws(LumaScanError) -> LumaImage {
        guard width >= 64, height >= 64 else {
            throw LumaScanError(.invalidConfiguration, "synthetic scene: \(width)x\(height) is below 64x64")
        }
        var canvas = SceneCanvas(width: width, height: height, fill: 200)
        let seed = UInt64(width * 7919 + height)
        if background != .flat { canvas.texture(seed: seed) }
        let centre = (x: Double(width) * 0.45, y: Double(height) * 0.55)
        switch code {
        case .none:
            break
        case .ean13:
            let module = max(2, height / 240)
            let modules = Self.ean13Modules(Self.ean13Payload)
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
            // A plain QR code (libqrencode, through the secure-QR generator without its pattern).
            let code = try SecureQRGenerator().generate(payload: Self.qrText, seed: 0, secureGraphic: false)
            let module = max(3, height / 180)
            let quiet = 4
            let size = code.modules
            let side = (size + 2 * quiet) * module
            let left = Int(centre.x) - side / 2
            let top = Int(centre.y) - side / 2
            canvas.fill(x: left, y: top, width: side, height: side, value: 250)
            for y in 0..<size {
                for x in 0..<size where code.darkModules[y * size + x] {
                    canvas.fill(
                        x: left + (quiet + x) * module, y: top + (quiet + y) * module, width: module, height: module,
                        value: 20)
                }
            }
        case .secureQR:
            let code = try SecureQRGenerator().generate(
                payload: Self.secureQRText, seed: 42, modulePixels: max(8, height / 120))
            canvas.paste(
                code.image, left: Int(centre.x) - code.image.width / 2, top: Int(centre.y) - code.image.height / 2,
                dark: 20, light: 250)
        case .meter:
            return try drawMeter(on: canvas)
        }
        canvas.blur(sigma: 0.7)
        if background == .noisy { canvas.addNoise(sigma: Self.noiseSigma, seed: seed ^ 0x5EED) }
        return LumaImage(width: width, height: height, pixels: canvas.pixels)
    }

    /// A clean seven-segment meter (the generator's own blur and, for noisy scenes, noise) over the background.
    private func drawMeter(on canvas: SceneCanvas) throws(LumaScanError) -> LumaImage {
        let generator: MeterImageGenerator
        do {
            generator = try MeterImageGenerator()
        } catch let error as LumaScanError {
            throw error
        } catch {
            throw LumaScanError(.imageIO, "\(error)")
        }
        let frameSize = Size(width: width, height: height)
        let cutout = Self.meterCutout.geometry(frameSize: frameSize).cutout
        var meter = generator.sample(seed: 7, kind: .digital, frameSize: frameSize, cutout: cutout).clean()
            .withText(Self.meterText)
        meter.parameters.noise = background == .noisy ? Float(Self.noiseSigma) : 0
        let image = LumaImage(width: width, height: height, pixels: canvas.pixels)
        generator.render(meter, into: image)
        return image
    }

    /// The modules of the EAN-13 code for the 12 digits `payload` (the check digit is computed; GS1 General
    /// Specifications §5.2), without quiet zones: `true` is a bar.
    static func ean13Modules(_ payload: String) -> [Bool] {
        let digits = payload.compactMap { $0.wholeNumberValue }
        precondition(digits.count == 12, "EAN-13 takes 12 digits and computes the 13th")
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() { sum += digit * (offset % 2 == 0 ? 3 : 1) }
        let all = digits + [(10 - sum % 10) % 10]
        let setA = [
            "0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111",
            "0001011",
        ]
        let setC = setA.map { String($0.map { $0 == "0" ? "1" : "0" }) }
        let setB = setC.map { String($0.reversed()) }
        let parity = [
            "AAAAAA", "AABABB", "AABBAB", "AABBBA", "ABAABB", "ABBAAB", "ABBBAA", "ABABAB", "ABABBA", "ABBABA",
        ]
        var pattern = "101"
        for (index, character) in parity[all[0]].enumerated() {
            pattern += character == "A" ? setA[all[index + 1]] : setB[all[index + 1]]
        }
        pattern += "01010"
        for index in 7...12 { pattern += setC[all[index]] }
        pattern += "101"
        return pattern.map { $0 == "1" }
    }
}

/// A grey image being drawn: deterministic primitives, no dependencies.
struct SceneCanvas {
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
        // Clamped to the canvas: a code larger than a small frame is cut, never an empty or reversed range.
        let rows = max(0, y)..<max(max(0, y), min(height, y + rectHeight))
        let columns = max(0, x)..<max(max(0, x), min(width, x + rectWidth))
        for row in rows {
            for column in columns { pixels[row * width + column] = value }
        }
    }

    /// Copies `image` (clipped) with its top-left corner at `left`, `top`, mapping its 0–255 range to
    /// `dark`...`light` (print on paper is never pure black and white).
    mutating func paste(_ image: LumaImage, left: Int, top: Int, dark: UInt8, light: UInt8) {
        let scale = Double(light) - Double(dark)
        image.withView { view in
            for row in max(0, -top)..<min(view.height, height - top) {
                for column in max(0, -left)..<min(view.width, width - left) {
                    let value = Double(view.baseAddress[row * view.stride + column]) / 255
                    pixels[(top + row) * width + left + column] = UInt8((Double(dark) + scale * value).rounded())
                }
            }
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
                if (y0 <= y && y < y1) || (y1 <= y && y < y0) {
                    crossings.append(x0 + (y - y0) / (y1 - y0) * (x1 - x0))
                }
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
                    for k in -radius...radius {
                        sum += kernel[k + radius] * Double(source[y * w + min(w - 1, max(0, x + k))])
                    }
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
