import CLumaVision
import Foundation
import LumaScanCore
import LumaScanRecognizers

/// One image of ``BarcodeRealWorldCorpus`` and the truth it was made with.
public struct RealWorldImage: @unchecked Sendable {
    // SAFETY (Sendable): the image is not mutated after it is made.

    /// The folder: symbology and condition (`ean13/clean`, `qr/kanji`, `none/text`, ...).
    public var folder: String
    /// The file name within the folder, without extension (`003`).
    public var name: String
    /// The photo, as a reader of the saved file sees it.
    public var image: LumaImage
    /// The codes in it (none in a code-free folder).
    public var truth: [TruthCode]
    /// Each code's corners in the frame (top left, top right, bottom right, bottom left; quiet zone included).
    public var corners: [[Point]]
    /// The JPEG file's bytes when the photo is saved as a JPEG (the `jpeg-*` folders), else `nil` (PNG).
    public var jpeg: [UInt8]?

    /// The path within a corpus folder: `folder/name.png` or `.jpg`.
    public var path: String { "\(folder)/\(name).\(jpeg == nil ? "png" : "jpg")" }
}

/// A generated corpus that resembles real barcode photos: codes of every symbology (rendered by libzint, not by
/// LumaScan's encoders) printed on labels and products, photographed by ``BarcodePhoto``'s camera model with
/// perspective, curvature, blur, uneven light, glare, low contrast, inversion, damage, noise and JPEG compression;
/// plus code-free photos of text, textures and product art, where a reader must find nothing.
///
/// Folders are named `symbology/condition`. Each holds ``imagesPerFolder`` photos, 640–1280 px wide, each drawn
/// from the folder's ranges with its own seed, so the same folder always holds the same pixels. The truth comes
/// from how each photo was made.
public enum BarcodeRealWorldCorpus {
    /// Photos per folder.
    public static let imagesPerFolder = 5

    /// Every folder, in a stable order: linear codes, matrix and stacked codes, several codes per photo, no code.
    public static var folders: [String] { recipes.map(\.folder) }

    /// The photos of `folder` (one of ``folders``).
    public static func images(in folder: String) throws -> [RealWorldImage] {
        guard let recipe = recipes.first(where: { $0.folder == folder }) else {
            throw LumaScanError(.invalidConfiguration, "no corpus folder \(folder)")
        }
        return try (0..<imagesPerFolder).map { try recipe.image($0) }
    }

    /// One print of every payload kind the folders use (the code as zint drew it, 2 px per module, before the
    /// camera), with its truth: to check the generator's truths against a reader on perfect images.
    public static func prints(seed: UInt64) throws -> [(truth: TruthCode, print: LumaImage)] {
        var random = SplitMix64(seed: seed)
        return try Payloads.all.map { maker in
            let payload = maker(&random)
            let style = ZintStyle(
                modulePixels: 2, quietModules: payload.quietModules, unicode: payload.unicode, option1: payload.option1,
                option2: payload.option2)
            return (payload.truth, try Zint.render(payload.symbology, payload.data, style: style))
        }
    }

    /// Every photo of every folder.
    public static func all() throws -> [RealWorldImage] {
        try folders.flatMap { try images(in: $0) }
    }

    // MARK: Folders

    static let recipes: [Recipe] = [
        Recipe("ean13/clean", [Payloads.ean13], .clean),
        Recipe("ean13/perspective-blur", [Payloads.ean13], .perspectiveBlur),
        Recipe("ean13/jpeg-low", [Payloads.ean13], .jpegLow),
        Recipe("ean13/curved", [Payloads.ean13], .curved),
        Recipe("ean13/glare", [Payloads.ean13], .glare),
        Recipe("ean13/small", [Payloads.ean13], .small),
        Recipe("ean13/defocus", [Payloads.ean13], .defocus),
        Recipe("ean13/motion-blur", [Payloads.ean13], .motion),
        Recipe("ean13/rotated", [Payloads.ean13], .rotated),
        Recipe("ean13/low-contrast", [Payloads.ean13], .lowContrast),
        Recipe("ean13/snapshot", [Payloads.ean13], .snapshot),
        Recipe("ean13/add-on", [Payloads.ean13AddOn], .clean),
        Recipe("ean8/clean", [Payloads.ean8], .clean),
        Recipe("upca/clean", [Payloads.upcA], .clean),
        Recipe("upca/motion-blur", [Payloads.upcA], .motion),
        Recipe("upce/clean", [Payloads.upcE], .clean),
        Recipe("code128/clean", [Payloads.code128], .clean),
        Recipe("code128/inverted", [Payloads.code128], .inverted),
        Recipe("code128/damaged", [Payloads.code128], .damagedLinear),
        Recipe("code128/low-contrast", [Payloads.code128], .lowContrast),
        Recipe("code128/snapshot", [Payloads.code128], .snapshot),
        Recipe("code128/rotated", [Payloads.code128], .rotated),
        Recipe("code39/clean", [Payloads.code39], .clean),
        Recipe("code93/clean", [Payloads.code93], .clean),
        Recipe("i25/clean", [Payloads.itf], .clean),
        Recipe("codabar/clean", [Payloads.codabar], .clean),
        Recipe("databar/clean", [Payloads.dataBar], .clean),
        Recipe("databar-exp/clean", [Payloads.dataBarExpanded], .clean),
        Recipe("qr/clean", [Payloads.qr], .clean2D),
        Recipe("qr/tiny", [Payloads.qr], .tiny2D),
        Recipe("qr/huge", [Payloads.qrShort], .huge2D),
        Recipe("qr/kanji", [Payloads.qrKanji], .clean2D),
        Recipe("qr/binary", [Payloads.qrBinary], .clean2D),
        Recipe("qr/perspective-blur", [Payloads.qr], .perspectiveBlur2D),
        Recipe("qr/curved", [Payloads.qr], .curved2D),
        Recipe("qr/damaged", [Payloads.qr], .damaged2D),
        Recipe("qr/inverted", [Payloads.qr], .inverted2D),
        Recipe("qr/jpeg-low", [Payloads.qr], .jpegLow2D),
        Recipe("micro-qr/clean", [Payloads.microQR], .clean2D),
        Recipe("datamatrix/clean", [Payloads.dataMatrix], .clean2D),
        Recipe("datamatrix/curved", [Payloads.dataMatrix], .curved2D),
        Recipe("datamatrix/damaged", [Payloads.dataMatrix], .damaged2D),
        Recipe("pdf417/clean", [Payloads.pdf417], .clean2D),
        Recipe("pdf417/glare", [Payloads.pdf417], .glare2D),
        Recipe("aztec/clean", [Payloads.aztec], .clean2D),
        Recipe("maxicode/clean", [Payloads.maxiCode], .clean2D),
        Recipe("multi/three-codes", [Payloads.ean13, Payloads.qr, Payloads.code128], .clean),
        Recipe("multi/shelf", [Payloads.ean13, Payloads.upcA, Payloads.ean13, Payloads.ean8], .clean),
        Recipe("multi/mixed-2d", [Payloads.dataMatrix, Payloads.qr, Payloads.pdf417], .clean2D),
        Recipe("none/text", [], .codeFree([.text])),
        Recipe("none/texture", [], .codeFree([.paper, .wood, .fabric])),
        Recipe("none/product-art", [], .codeFree([.product])),
    ]
}

/// A range of camera conditions a folder's photos are drawn from.
struct Conditions: Sendable {
    var modulePixels: ClosedRange<Double> = 1.8...3.2
    /// Image-plane rotation jitter, degrees; `anyOrientation` adds a quarter turn, a half turn or none.
    var rotation: ClosedRange<Double> = -7...7
    var anyOrientation = true
    var yaw: ClosedRange<Double> = -12...12
    var pitch: ClosedRange<Double> = -10...10
    var wrap: ClosedRange<Double> = 0...0
    var defocus: ClosedRange<Double> = 0...0.5
    var blur: ClosedRange<Double> = 0.4...0.8
    var motion: ClosedRange<Double> = 0...0
    var falloff: ClosedRange<Double> = 0...0.3
    var glare: ClosedRange<Double> = 0...0
    var ink: ClosedRange<Double> = 15...45
    var paper: ClosedRange<Double> = 200...240
    var inverted = false
    var scratches: ClosedRange<Int> = 0...0
    var blots: ClosedRange<Int> = 0...0
    var noise: ClosedRange<Double> = 1.5...4
    var jpeg: ClosedRange<Int>?
    var backgrounds: [PhotoBackground] = [.paper, .product, .wood, .fabric]

    static let clean = Conditions()
    static let perspectiveBlur = Conditions(
        modulePixels: 2.4...3.6, yaw: 20...38, pitch: -22...22, defocus: 0.8...1.6)
    static let jpegLow = Conditions(noise: 3...6, jpeg: 12...30)
    static let curved = Conditions(modulePixels: 2.2...3.4, anyOrientation: false, wrap: 35...65)
    static let glare = Conditions(falloff: 0.2...0.5, glare: 0.55...0.85)
    static let defocus = Conditions(modulePixels: 2.5...4, defocus: 1.5...3)
    /// A phone snapshot: smallish, a little out of focus, tilted, unevenly lit, compressed.
    static let snapshot = Conditions(
        modulePixels: 1.5...2.4, yaw: 8...25, defocus: 0.6...1.4, falloff: 0.2...0.45, noise: 2...5, jpeg: 35...60)
    static let small = Conditions(modulePixels: 1.15...1.5, anyOrientation: false, blur: 0.3...0.5)
    static let motion = Conditions(modulePixels: 2.6...3.6, motion: 3...7)
    static let inverted = Conditions(inverted: true)
    /// Held at any angle, as a hand holds a product to a camera or a photo is taken of a shelf.
    static let rotated = Conditions(modulePixels: 2...3.4, rotation: 0...360, anyOrientation: false)
    static let damagedLinear = Conditions(modulePixels: 2.2...3.2, scratches: 1...2, blots: 0...2)
    static let lowContrast = Conditions(ink: 105...135, paper: 150...175, noise: 1.5...3)

    static let clean2D = Conditions(modulePixels: 3...6)
    static let tiny2D = Conditions(modulePixels: 1.6...2.2, blur: 0.3...0.5)
    static let huge2D = Conditions(modulePixels: 18...32, defocus: 0...1.5, blur: 0.6...1.2)
    static let perspectiveBlur2D = Conditions(
        modulePixels: 4...7, yaw: 20...40, pitch: -25...25, defocus: 0.8...1.8)
    static let curved2D = Conditions(modulePixels: 4...7, anyOrientation: false, wrap: 35...60)
    static let damaged2D = Conditions(modulePixels: 4...7, scratches: 0...1, blots: 1...4)
    static let inverted2D = Conditions(modulePixels: 3...6, inverted: true)
    static let jpegLow2D = Conditions(modulePixels: 3...5, noise: 3...6, jpeg: 12...30)
    static let glare2D = Conditions(modulePixels: 3...5, falloff: 0.2...0.5, glare: 0.55...0.85)

    static func codeFree(_ backgrounds: [PhotoBackground]) -> Conditions {
        Conditions(defocus: 0...1, falloff: 0...0.4, glare: 0...0.5, noise: 1.5...5, backgrounds: backgrounds)
    }
}

/// How a folder's photos are made: payload makers (one code each; none for a code-free folder) and conditions.
struct Recipe: Sendable {
    let folder: String
    let payloads: [@Sendable (inout SplitMix64) -> Payload]
    let conditions: Conditions

    init(_ folder: String, _ payloads: [@Sendable (inout SplitMix64) -> Payload], _ conditions: Conditions) {
        self.folder = folder
        self.payloads = payloads
        self.conditions = conditions
    }

    /// The frame sizes photos come in (phones' and webcams' still sizes, scaled to 640–1280 px wide).
    static let sizes = [(640, 480), (800, 600), (960, 720), (1024, 768), (1280, 720), (1280, 960)]

    /// Photo `index` of the folder.
    func image(_ index: Int) throws -> RealWorldImage {
        // FNV-1a of the folder's name: a stable seed per folder (Swift's hashValue changes from run to run).
        var seed: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in folder.utf8 { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01B3 }
        var random = SplitMix64(seed: seed ^ UInt64(index + 1) &* 0x9E37_79B9)
        let c = conditions
        let (width, height) = Self.sizes[Int(random.next() % UInt64(Self.sizes.count))]
        // Rooms: a code each, side by side (and below) when there are several.
        let rooms = Self.rooms(count: payloads.count)
        var codes: [PrintedCode] = []
        var truth: [TruthCode] = []
        for (maker, room) in zip(payloads, rooms) {
            let payload = maker(&random)
            var modulePixels = random.in(c.modulePixels)
            let printModule = max(1, min(8, Int(modulePixels.rounded())))
            let print = try Zint.render(
                payload.symbology, payload.data,
                style: ZintStyle(
                    modulePixels: printModule, quietModules: payload.quietModules, showText: true,
                    unicode: payload.unicode, option1: payload.option1, option2: payload.option2))
            let quarterTurns = c.anyOrientation ? [0, 0, 0, 1, 2, 3][Int(random.next() % 6)] : 0
            let rotation = random.in(c.rotation) + Double(quarterTurns) * 90
            let yaw = random.in(c.yaw) * (random.next() % 2 == 0 ? 1 : -1)
            let pitch = random.in(c.pitch)
            let centre = Point(
                x: room.x + room.width * (0.5 + random.in(-0.08...0.08)),
                y: room.y + room.height * (0.5 + random.in(-0.08...0.08)))
            // Shrink the code until it fits its room (a huge code in a small frame, a long code turned sideways).
            while modulePixels > 0.8 {
                let shot = SecureQRShot(
                    frameWidth: width, frameHeight: height,
                    centre: Point(x: centre.x * Double(width), y: centre.y * Double(height)),
                    modulePixels: modulePixels,
                    rotation: rotation, yaw: yaw, pitch: pitch)
                let project = SecureQRCamera.projection(
                    printWidth: print.width, printHeight: print.height, codeModulePixels: printModule, shot: shot)
                let (w, h) = (Double(print.width) / 2, Double(print.height) / 2)
                let inside = [(-w, -h), (w, -h), (w, h), (-w, h)].allSatisfy { u, v in
                    let p = project(u, v)
                    return p.x >= room.x * Double(width) && p.x <= room.maxX * Double(width)
                        && p.y >= room.y * Double(height) && p.y <= room.maxY * Double(height)
                }
                if inside { break }
                modulePixels *= 0.92
            }
            let ink = random.in(c.ink)
            let paper = random.in(c.paper)
            codes.append(
                PrintedCode(
                    print: print, printModulePixels: printModule, centre: centre, modulePixels: modulePixels,
                    rotation: rotation, yaw: yaw, pitch: pitch, wrap: random.in(c.wrap), dark: c.inverted ? paper : ink,
                    light: c.inverted ? ink : paper, scratches: random.in(c.scratches), blots: random.in(c.blots)))
            truth.append(payload.truth)
        }
        let glareAt = codes.first?.centre ?? Point(x: random.nextDouble(), y: random.nextDouble())
        let photo = BarcodePhoto(
            width: width, height: height, background: c.backgrounds[Int(random.next() % UInt64(c.backgrounds.count))],
            seed: random.next(), codes: codes, defocus: random.in(c.defocus), blur: random.in(c.blur),
            motion: random.in(c.motion), motionDegrees: random.in(0...180), falloff: random.in(c.falloff),
            lightDegrees: random.in(0...360),
            glare: (
                glareAt.x + random.in(-0.05...0.05), glareAt.y + random.in(-0.05...0.05), random.in(0.06...0.14),
                random.in(c.glare)
            ),
            noise: random.in(c.noise), jpegQuality: c.jpeg.map { random.in($0) })
        let developed = photo.develop()
        let name = index < 10 ? "00\(index)" : "0\(index)"
        return RealWorldImage(
            folder: folder, name: name, image: developed.image, truth: truth, corners: developed.corners,
            jpeg: developed.jpeg)
    }

    /// Where codes go, as fractions of the frame (with a margin at the edges).
    static func rooms(count: Int) -> [Rect01] {
        switch count {
        case 0, 1: return [Rect01(x: 0.04, y: 0.04, width: 0.92, height: 0.92)]
        case 2:
            return [
                Rect01(x: 0.03, y: 0.1, width: 0.45, height: 0.8), Rect01(x: 0.52, y: 0.1, width: 0.45, height: 0.8),
            ]
        default:
            let columns = 2
            let rows = (count + 1) / 2
            return (0..<count).map { index in
                let (row, column) = (index / columns, index % columns)
                return Rect01(
                    x: 0.03 + Double(column) * 0.48, y: 0.03 + Double(row) * 0.94 / Double(rows), width: 0.46,
                    height: 0.94 / Double(rows) - 0.02)
            }
        }
    }
}

/// A rectangle in fractions of the frame.
struct Rect01 {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
    var maxX: Double { x + width }
    var maxY: Double { y + height }
}

extension SplitMix64 {
    /// Uniform in `range`.
    mutating func `in`(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextDouble()
    }

    /// Uniform in `range`.
    mutating func `in`(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// `count` characters drawn from `alphabet`.
    mutating func string(_ alphabet: String, count: Int) -> String {
        let characters = Array(alphabet)
        return String((0..<count).map { _ in characters[Int(next() % UInt64(characters.count))] })
    }

    /// One of `choices`.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(next() % UInt64(choices.count))] }
}

extension RealWorldImage {
    /// Writes the photo to `directory`/``path`` (PNG, or the JPEG it was saved as), creating its folder.
    public func write(under directory: String) throws {
        let url = URL(fileURLWithPath: directory).appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let jpeg {
            try Data(jpeg).write(to: url)
            return
        }
        let status = image.withView {
            lv_image_write_png(url.path, $0.baseAddress, Int32($0.width), Int32($0.height), $0.stride)
        }
        guard status == 0 else { throw LumaScanError(.imageIO, "cannot write \(url.path): \(status)") }
    }
}
