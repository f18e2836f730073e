import CLumaVision
import Foundation
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport

/// The rendered secure-QR corpus: codes made by ``SecureQRGenerator`` (and, for version 1, by `qrencode`), shot
/// through ``SecureQRCamera`` with perspective, scale, blur, noise, exposure, crops and clutter. Each scene's expected
/// state follows from how it was made — what it contains, the pixels per CDP cell and the blur in cells computed from
/// the shot's exact geometry, and whether the fingerprint zone was placed outside the frame — never from running the
/// recognizer. Parameters near a decision boundary are resampled, so every scene has a clear answer (the guard bands
/// are listed in ``SecureQRCorpus/truth(_:)``).
enum SecureQRCorpus {
    static let issuer = "https://scan.example.com/q/"
    static let shortIssuer = "https://s.co/"
    static let foreign = "https://shop.example.org/item/"
    static let issuerPrefixes = ["https://scan.example.com/", "https://s.co/"]

    /// What a scene shows.
    enum Content: String, Sendable, CaseIterable {
        /// An issuer's secure code (with its CDP).
        case secure
        /// An issuer's secure code at the frame's edge: part of its quiet zone is cut off, the code itself is in.
        case edge
        /// An issuer's code without CDP: a plain QR code in the standard layout, blank paper in the fingerprint zone.
        case plain
        /// Another domain's QR code, plain.
        case foreign
        /// Another domain's code with a CDP.
        case foreignSecure
        /// No code: clutter only.
        case empty
        /// An EAN-13 barcode (no QR code).
        case linear
        /// An issuer's secure code with a finder pattern outside the frame.
        case cut
        /// An issuer's secure code whose alignment pattern is covered (paper-coloured sticker).
        case occludedAlignment
        /// An issuer's version-1 code, which has no alignment pattern.
        case version1
    }

    /// One scene to render.
    struct Recipe: Sendable, CustomStringConvertible {
        var index: Int
        var content: Content
        var hybrid: Bool
        var expected: ScanState
        var shot: SecureQRShot
        var printModulePixels: Int
        var payload: String
        /// Pixels per CDP cell at the secure graphic, from the shot's geometry (0 when there is none).
        var pixelsPerCell: Double
        /// The optics blur in CDP cells.
        var blurCells: Double

        var description: String {
            String(
                format: "#%d %@%@ expect %@ (%.2f px/cell, blur %.2f cells) %@", index, content.rawValue,
                hybrid ? " hybrid" : "", expected.rawValue, pixelsPerCell, blurCells, shot.description)
        }
    }

    /// A rendered scene.
    struct Scene: @unchecked Sendable {
        // SAFETY (Sendable): the image is not mutated once the scene is made.
        var recipe: Recipe
        var image: LumaImage
        /// Truth pattern centres in frame pixels (top-left, top-right, bottom-left finder, alignment), for codes
        /// with all four in the frame.
        var centres: [Point]?
        /// Module pixels at the code's centre, for position tolerances.
        var modulePixels: Double
    }

    static func configuration(hybrid: Bool, mode: SecureQRMode = .secure) -> SecureQRConfiguration {
        SecureQRConfiguration(issuerPrefixes: issuerPrefixes, design: SecureQRDesign(hybrid: hybrid), mode: mode)
    }

    /// How many scenes of each kind: (expected state, content, hybrid, count). 1,150 scenes.
    static let plan: [(ScanState, Content, Bool, Int)] = [
        (.ok, .secure, false, 110), (.ok, .edge, false, 30), (.ok, .secure, true, 80),
        (.blurry, .secure, false, 100), (.blurry, .secure, true, 60),
        (.tooSmall, .secure, false, 80), (.tooSmall, .secure, true, 40), (.tooSmall, .plain, false, 20),
        (.fingerprintNotInFrame, .secure, true, 100), (.fingerprintNotInFrame, .plain, true, 20),
        (.noAuth, .plain, false, 100), (.noAuth, .plain, true, 60),
        (.notProprietary, .foreign, false, 60), (.notProprietary, .foreignSecure, false, 40),
        (.notProprietary, .foreignSecure, true, 40),
        (.unreadable, .empty, false, 50), (.unreadable, .linear, false, 20), (.unreadable, .cut, false, 40),
        (.unreadable, .cut, true, 20), (.unreadable, .occludedAlignment, false, 50),
        (.unreadable, .version1, false, 30),
    ]

    /// Every recipe of the plan, deterministic.
    static func recipes() -> [Recipe] {
        var recipes: [Recipe] = []
        for (expected, content, hybrid, count) in plan {
            for _ in 0..<count {
                recipes.append(recipe(index: recipes.count, expected: expected, content: content, hybrid: hybrid))
            }
        }
        return recipes
    }

    /// The expected state of a scene from how it was made, or `nil` when its parameters fall in a guard band around a
    /// decision (then the scene is resampled). Bands: fingerprint zone at least 20 px inside the frame or at least
    /// 12 px (and a tenth of its side) outside; pixels per cell at most 1.85 (too small) or at least 2.25; blur at
    /// most 0.25 cell (sharp) or at least 0.55 cell (blurry).
    static func truth(_ r: Recipe, zoneInside: Bool?) -> ScanState? {
        switch r.content {
        case .empty, .linear, .cut, .occludedAlignment, .version1: return .unreadable
        case .foreign, .foreignSecure: return .notProprietary
        case .secure, .edge, .plain: break
        }
        if r.hybrid {
            guard let zoneInside else { return nil }
            if !zoneInside { return .fingerprintNotInFrame }
        }
        if r.pixelsPerCell <= 1.85 { return .tooSmall }
        guard r.pixelsPerCell >= 2.25 else { return nil }
        if r.content == .plain { return .noAuth }
        if r.blurCells <= 0.25 { return .ok }
        if r.blurCells >= 0.55 { return .blurry }
        return nil
    }

    /// The design's layout numbers for version 4 (every generated payload fits it).
    static let modules = 33
    static func secureGraphic(hybrid: Bool) -> SecureQRModuleRect {
        // SAFETY: the default design fits version 4 (checked by the generator tests).
        SecureQRDesign(hybrid: hybrid).secureGraphicRegion(modules: modules)!
    }

    /// The print's size and where module (0, 0) lies in it, for the default design (quiet zone 4).
    static func printGeometry(hybrid: Bool, modulePixels: Int) -> (width: Int, height: Int, origin: Double) {
        let extentModules = hybrid ? (2 * modules + 2 + 8) : (modules + 8)
        return (extentModules * modulePixels, (modules + 8) * modulePixels, 4.0 * Double(modulePixels))
    }

    private static func recipe(index: Int, expected: ScanState, content: Content, hybrid: Bool) -> Recipe {
        var random = SplitMix64(seed: UInt64(index) &* 0x9E37_79B9 &+ 17)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * random.nextDouble()
        }
        let cellsPerModule = 4.0
        for _ in 0..<5000 {
            let large = random.nextDouble() < 0.3
            var shot = SecureQRShot(
                frameWidth: large ? 1920 : 1280, frameHeight: large ? 1080 : 720,
                rotation: uniform(0...360), backgroundSeed: random.next() % 4, noiseSeed: random.next())
            let fit = large ? 19.0 : 13.5
            var tilt = 25.0
            switch expected {
            case .tooSmall:
                shot.modulePixels = uniform(6.6...7.4)
                tilt = 10
            case .notProprietary, .unreadable:
                shot.modulePixels = uniform(7.5...fit)
            default:
                shot.modulePixels = uniform(9.4...fit)
            }
            if content == .version1 { shot.modulePixels = uniform(8...min(fit * 1.5, 22)) }
            shot.yaw = uniform(-tilt...tilt)
            shot.pitch = uniform(-tilt...tilt)
            shot.noiseSigma = uniform(1...6)
            shot.darkLevel = uniform(10...80)
            shot.lightLevel = uniform(150...245)
            shot.gamma = uniform(0.8...1.25)
            let printPx = max(8, 4 * Int((shot.modulePixels / 4).rounded(.up)))
            let n = content == .version1 ? 21 : modules
            let geometry = printGeometry(hybrid: hybrid && content != .version1, modulePixels: printPx)
            let frameW = Double(shot.frameWidth), frameH = Double(shot.frameHeight)
            shot.centre = Point(x: uniform(0...frameW), y: uniform(0...frameH))
            func planned(_ mx: Double, _ my: Double) -> Point {
                SecureQRCamera.plannedPoint(
                    Point(x: geometry.origin + mx * Double(printPx), y: geometry.origin + my * Double(printPx)),
                    printWidth: geometry.width, printHeight: geometry.height, codeModulePixels: printPx, shot: shot)
            }
            func inside(_ p: Point, margin: Double) -> Bool {
                p.x >= margin && p.y >= margin && p.x <= frameW - 1 - margin && p.y <= frameH - 1 - margin
            }
            func outside(_ p: Point) -> Double {
                max(0, -p.x, -p.y, p.x - (frameW - 1), p.y - (frameH - 1))
            }
            let nn = Double(n)
            let code = [
                planned(-1.5, -1.5), planned(nn + 1.5, -1.5), planned(nn + 1.5, nn + 1.5), planned(-1.5, nn + 1.5),
            ]
            let graphic = secureGraphic(hybrid: hybrid)
            let region = graphic.corners.map { planned($0.x, $0.y) }
            var zoneInside: Bool?
            switch content {
            case .cut:
                let finders = [planned(3.5, 3.5), planned(nn - 3.5, 3.5), planned(3.5, nn - 3.5)]
                let centre = planned(nn / 2, nn / 2)
                guard inside(centre, margin: 0), finders.contains(where: { outside($0) > 3 * shot.modulePixels })
                else { continue }
            case .empty, .linear:
                break
            case .edge:
                let tight = [
                    planned(-0.3, -0.3), planned(nn + 0.3, -0.3), planned(nn + 0.3, nn + 0.3), planned(-0.3, nn + 0.3),
                ]
                let quiet = [planned(-3, -3), planned(nn + 3, -3), planned(nn + 3, nn + 3), planned(-3, nn + 3)]
                guard tight.allSatisfy({ inside($0, margin: 2) }),
                    quiet.contains(where: { outside($0) > shot.modulePixels })
                else { continue }
            default:
                if hybrid && content != .version1 {
                    guard code.allSatisfy({ inside($0, margin: 10) }) else { continue }
                    let side = sqrt(polygonArea(region))
                    if region.allSatisfy({ inside($0, margin: 20) }) {
                        zoneInside = true
                    } else if let worst = region.map(outside).max(), worst >= max(12, side / 10) {
                        zoneInside = false
                    }
                } else {
                    guard code.allSatisfy({ inside($0, margin: 10) }) else { continue }
                }
            }
            let pixelsPerCell = sqrt(polygonArea(region) / (graphic.width * graphic.height)) / cellsPerModule
            switch expected {
            case .blurry:
                shot.blurSigma = uniform(0.55...0.9) * pixelsPerCell
            case .tooSmall:
                shot.blurSigma = uniform(0.4...0.8)
            default:
                let blurry = random.nextDouble() < 0.3 && (content == .plain || expected == .notProprietary)
                shot.blurSigma =
                    blurry ? uniform(0.55...0.9) * pixelsPerCell : max(0.4, uniform(0...0.25) * pixelsPerCell)
            }
            let payloadCharacters = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
            let tag = String(
                (0..<8).map { _ in payloadCharacters[Int(random.next() % UInt64(payloadCharacters.count))] })
            let payload: String
            switch content {
            case .foreign, .foreignSecure: payload = foreign + tag
            case .version1: payload = shortIssuer + String(tag.prefix(4))
            default: payload = issuer + tag
            }
            var recipe = Recipe(
                index: index, content: content, hybrid: hybrid, expected: expected, shot: shot,
                printModulePixels: printPx, payload: payload, pixelsPerCell: pixelsPerCell,
                blurCells: shot.blurSigma / pixelsPerCell)
            if content == .empty || content == .linear || content == .cut || content == .version1 {
                recipe.pixelsPerCell = 0
                recipe.blurCells = 0
            }
            if truth(recipe, zoneInside: zoneInside) == expected { return recipe }
        }
        fatalError("no \(expected.rawValue) recipe for \(content.rawValue) scene \(index)")
    }

    static func polygonArea(_ points: [Point]) -> Double {
        var sum = 0.0
        for index in points.indices {
            let (a, b) = (points[index], points[(index + 1) % points.count])
            sum += a.x * b.y - b.x * a.y
        }
        return abs(sum) / 2
    }

    /// Renders a recipe.
    static func render(_ r: Recipe) throws -> Scene {
        var shot = r.shot
        switch r.content {
        case .empty:
            let image = SecureQRCamera.background(
                width: shot.frameWidth, height: shot.frameHeight, seed: shot.backgroundSeed)
            image.withMutablePixels { pixels in
                _ = lv_image_add_noise(
                    pixels.baseAddress, Int32(image.width), Int32(image.height), image.width, shot.noiseSigma,
                    shot.noiseSeed)
            }
            return Scene(recipe: r, image: image, centres: nil, modulePixels: 0)
        case .linear:
            let code = EAN.ean13("400638133393").render(moduleWidth: 3, height: 120)
            shot.modulePixels = 3
            let frame = SecureQRCamera.shoot(code, codeModulePixels: 3, shot: shot)
            return Scene(recipe: r, image: frame.image, centres: nil, modulePixels: 0)
        case .version1:
            let code = try QRCode(r.payload, errorCorrection: .low)
            precondition(code.size == 21, "\(r.payload) is not a version-1 code")
            let image = code.render(moduleSize: r.printModulePixels, quietZone: 4)
            let frame = SecureQRCamera.shoot(image, codeModulePixels: r.printModulePixels, shot: shot)
            return Scene(recipe: r, image: frame.image, centres: nil, modulePixels: shot.modulePixels)
        default:
            let generator = try SecureQRGenerator(design: SecureQRDesign(hybrid: r.hybrid))
            let withCDP = r.content != .plain && r.content != .foreign
            let code = try generator.generate(
                payload: r.payload, seed: UInt64(r.index), modulePixels: r.printModulePixels, secureGraphic: withCDP)
            precondition(code.modules == modules, "payload \(r.payload) needs version \(code.version)")
            let frame = SecureQRCamera.shoot(code.image, codeModulePixels: r.printModulePixels, shot: shot)
            let n = Double(code.modules)
            func framePoint(_ x: Double, _ y: Double) -> Point { frame.framePoint(code.pixel(atModule: x, y)) }
            if r.content == .occludedAlignment {
                // A paper-coloured sticker over the alignment pattern and the module around it.
                let sticker = [(n - 9.5, n - 9.5), (n - 3.5, n - 9.5), (n - 3.5, n - 3.5), (n - 9.5, n - 3.5)]
                    .map { framePoint($0.0, $0.1) }
                let xy = sticker.flatMap { [$0.x, $0.y] }
                frame.image.withMutablePixels { pixels in
                    _ = lv_image_fill_polygon(
                        pixels.baseAddress, Int32(frame.image.width), Int32(frame.image.height), frame.image.width, xy,
                        4, UInt8(max(0, min(255, shot.lightLevel))), 1)
                }
            }
            let centres = [
                framePoint(3.5, 3.5), framePoint(n - 3.5, 3.5), framePoint(3.5, n - 3.5),
                framePoint(n - 6.5, n - 6.5),
            ]
            return Scene(recipe: r, image: frame.image, centres: centres, modulePixels: shot.modulePixels)
        }
    }

    /// The report type a fresh secure-mode recognizer gives its first frame in `state`.
    static func reportType(firstFrameIn state: ScanState) -> ReportType {
        state == .notProprietary || state == .noAuth ? .completedResult : .inProgress
    }
}
