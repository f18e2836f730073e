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
        /// The meter of ``meter`` seen from the side (``SyntheticScene/askewMeterYaw``): its far digits smaller than
        /// its near ones, so that the reading as the camera sees it is not sure and the seven-segment reader reads the
        /// display again rectified (``MeterReading/rectified``), the costliest path through that reader.
        case askewMeter = "askew-meter"
        /// A roller counter (drums of DejaVu Sans Mono digits) reading ``SyntheticScene/counterText``, inside
        /// ``SyntheticScene/meterCutout``, drawn as ``meter`` is.
        case counter
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
    /// What the counter reads.
    public static let counterText = "047193"
    /// Where the meter is: the cutout a meter recognizer must be given for these frames (9:4, 80 % of the width,
    /// centred, with 24 px of crop padding).
    public static let meterCutout = CutoutConfiguration(
        ratioFromSize: .init(width: 9, height: 4), maxWidthPercent: 80, alignment: .center,
        cropPadding: .init(x: 24, y: 24))
    /// How far ``Code/askewMeter`` is turned: its right edge this fraction taller than its middle, its left edge as
    /// much shorter (MeterImageGenerator's `yaw`).
    public static let askewMeterYaw: Float = 0.24
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
    /// The seed of a ``Code/secureQR`` code's copy-detection pattern. A recognizer configured with an issuer's key
    /// scores the authenticity of codes whose seed is that key's (`SecureQRIssuerKey.seed(for:)` of
    /// ``secureQRText``).
    public var secureQRSeed: UInt64

    /// Creates a scene.
    public init(width: Int, height: Int, background: Background, code: Code, secureQRSeed: UInt64 = 42) {
        self.width = width
        self.height = height
        self.background = background
        self.code = code
        self.secureQRSeed = secureQRSeed
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
        case .meter, .askewMeter: (nil, Self.meterText)
        case .counter: (nil, Self.counterText)
        }
    }

    private static let cache = Lock<[SyntheticScene: LumaImage]>([:])

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
        let canvas = TestCanvas(width: width, height: height, fill: 200)
        let seed = UInt64(width * 7919 + height)
        if background != .flat { Self.texture(canvas, seed: seed) }
        let centre = (x: Double(width) * 0.45, y: Double(height) * 0.55)
        switch code {
        case .none:
            break
        case .ean13:
            let module = max(2, height / 240)
            let modules = EAN.ean13(Self.ean13Payload).modules
            let quiet = 11
            let codeWidth = (modules.count + 2 * quiet) * module
            let barHeight = 50 * module
            let left = Int(centre.x) - codeWidth / 2
            let top = Int(centre.y) - barHeight / 2
            canvas.fill(
                Rect(x: left, y: top - 2 * module, width: codeWidth, height: barHeight + 4 * module), value: 250)
            for (index, bar) in modules.enumerated() where bar {
                canvas.fill(
                    Rect(x: left + (quiet + index) * module, y: top, width: module, height: barHeight), value: 20)
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
            canvas.fill(Rect(x: left, y: top, width: side, height: side), value: 250)
            for y in 0..<size {
                for x in 0..<size where code.darkModules[y * size + x] {
                    canvas.fill(
                        Rect(
                            x: left + (quiet + x) * module, y: top + (quiet + y) * module, width: module, height: module
                        ),
                        value: 20)
                }
            }
        case .secureQR:
            let code = try SecureQRGenerator().generate(
                payload: Self.secureQRText, seed: secureQRSeed, modulePixels: max(8, height / 120))
            // Print on paper is never pure black and white: the code's 0–255 become 20–250.
            let printed = LumaImage(
                width: code.image.width, height: code.image.height,
                pixels: code.image.pixels.map { UInt8((20 + 230 * Double($0) / 255).rounded()) })
            canvas.paste(
                printed, x: Int(centre.x) - printed.width / 2, y: Int(centre.y) - printed.height / 2)
        case .meter, .askewMeter, .counter:
            return try drawMeter(on: canvas)
        }
        canvas.blur(sigma: 0.7)
        if background == .noisy { canvas.addNoise(sigma: Self.noiseSigma, seed: seed ^ 0x5EED) }
        return canvas.image
    }

    /// The textured background: a gradient from 150 to 215, twelve soft grey blobs and a row of dark marks like a line
    /// of print, blurred (σ 3) as out-of-focus surroundings are.
    private static func texture(_ canvas: TestCanvas, seed: UInt64) {
        canvas.gradient(from: 150, to: 215)
        canvas.blobs(count: 12, seed: seed)
        canvas.blur(sigma: 3)
        var random = SplitMix64(seed: seed ^ 0x4D41524B)
        let markHeight = max(6, canvas.height / 40)
        var x = canvas.width / 20
        let y = canvas.height - canvas.height / 10
        while x < canvas.width * 3 / 4 {
            let markWidth = markHeight / 2 + Int(random.next() % UInt64(markHeight))
            canvas.fill(Rect(x: x, y: y, width: markWidth, height: markHeight), value: 40)
            x += markWidth + markHeight / 3 + (random.next() % 5 == 0 ? markHeight : 0)
        }
    }

    /// A clean seven-segment meter (the generator's own blur and, for noisy scenes, noise) over the background.
    private func drawMeter(on canvas: TestCanvas) throws(LumaScanError) -> LumaImage {
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
        let counter = code == .counter
        var meter = generator.sample(seed: 7, kind: counter ? .counter : .digital, frameSize: frameSize, cutout: cutout)
            .clean().withText(counter ? Self.counterText : Self.meterText)
        meter.parameters.noise = background == .noisy ? Float(Self.noiseSigma) : 0
        if code == .askewMeter { meter.parameters.yaw = Self.askewMeterYaw }
        generator.render(meter, into: canvas.image)
        return canvas.image
    }
}
