import CLumaTestKit
import CLumaVision
import LumaScanCore
import LumaScanRecognizers

/// One printed code in a ``BarcodePhoto``: the print, where the camera sees it and what happened to it.
public struct PrintedCode: @unchecked Sendable {
    // SAFETY (Sendable): the print image is never mutated after it is made (damage works on a copy).

    /// The code as printed: 0 ink, 255 paper (``Zint/render(_:_:style:)`` makes one).
    public var print: LumaImage
    /// Print pixels per module.
    public var printModulePixels: Int
    /// Where the print's centre lands, as fractions of the frame's width and height.
    public var centre: Point
    /// Frame pixels per module at the print's centre.
    public var modulePixels: Double
    /// Rotation in the image plane, degrees counter-clockwise as displayed.
    public var rotation: Double
    /// Tilt about the vertical axis, degrees (perspective).
    public var yaw: Double
    /// Tilt about the horizontal axis, degrees.
    public var pitch: Double
    /// How far around a cylinder the print wraps from its middle to each side, degrees (0 flat, bottles 40–70).
    public var wrap: Double
    /// The grey level ink is exposed at.
    public var dark: Double
    /// The grey level paper is exposed at (below `dark` for a light-on-dark, inverted print).
    public var light: Double
    /// Scratches across the print.
    public var scratches: Int
    /// Blots where ink is missing or smeared, 1–3 modules square.
    public var blots: Int

    /// Creates a printed code; the defaults are a flat, upright, undamaged black-on-white print at the frame's centre.
    public init(
        print: LumaImage, printModulePixels: Int, centre: Point = Point(x: 0.5, y: 0.5), modulePixels: Double,
        rotation: Double = 0, yaw: Double = 0, pitch: Double = 0, wrap: Double = 0, dark: Double = 25,
        light: Double = 225, scratches: Int = 0, blots: Int = 0
    ) {
        self.print = print
        self.printModulePixels = printModulePixels
        self.centre = centre
        self.modulePixels = modulePixels
        self.rotation = rotation
        self.yaw = yaw
        self.pitch = pitch
        self.wrap = wrap
        self.dark = dark
        self.light = light
        self.scratches = scratches
        self.blots = blots
    }
}

/// Backgrounds a ``BarcodePhoto`` is taken on.
public enum PhotoBackground: Sendable, CaseIterable {
    /// Paper or cardboard.
    case paper
    /// Wood grain.
    case wood
    /// Woven fabric.
    case fabric
    /// Product art: colour fields, circles, lettering, decorative stripes, halftone.
    case product
    /// A printed page of text.
    case text

    var kind: Int32 {
        switch self {
        case .paper: Int32(LT_TEXTURE_PAPER)
        case .wood: Int32(LT_TEXTURE_WOOD)
        case .fabric: Int32(LT_TEXTURE_FABRIC)
        case .product: Int32(LT_TEXTURE_PRODUCT)
        case .text: Int32(LT_TEXTURE_TEXT)
        }
    }
}

/// A print-and-photograph camera model: codes printed on labels, lying on a background, photographed with
/// perspective and curvature, through optics (defocus, Gaussian and motion blur), under uneven light and glare, at an
/// exposure, with sensor noise, and saved as a JPEG when asked. Deterministic: the same photo gives the same pixels.
///
/// Placement reuses ``SecureQRCamera/projection(printWidth:printHeight:codeModulePixels:shot:)`` (scale, rotation,
/// 3D tilt, a webcam's focal length); noise and Gaussian blur are ``TestCanvas``'s.
public struct BarcodePhoto: Sendable {
    /// Frame width in pixels.
    public var width: Int
    /// Frame height in pixels.
    public var height: Int
    /// What the codes lie on.
    public var background: PhotoBackground
    /// Which background of its kind.
    public var seed: UInt64
    /// The codes, placed in order (a later one covers an earlier one).
    public var codes: [PrintedCode]
    /// Defocus: the radius of the blur disk, pixels.
    public var defocus: Double
    /// Gaussian blur of the optics, sigma in pixels.
    public var blur: Double
    /// Motion blur length, pixels.
    public var motion: Double
    /// Motion direction, degrees.
    public var motionDegrees: Double
    /// Brightness lost from the brightest to the darkest corner, 0...1.
    public var falloff: Double
    /// Direction the light falls off along, degrees.
    public var lightDegrees: Double
    /// Glare: centre (fractions of width and height), radius (fraction of the width) and strength (0...1).
    public var glare: (x: Double, y: Double, radius: Double, strength: Double)
    /// Exposure: where black and white end up, and the gamma.
    public var levels: (black: Double, white: Double, gamma: Double)
    /// Sensor noise, standard deviation in grey levels.
    public var noise: Double
    /// JPEG quality the photo is saved at (1...100), or `nil` for a lossless photo.
    public var jpegQuality: Int?

    /// Creates a photo; the defaults are a sharp, evenly lit, well exposed shot with a little noise.
    public init(
        width: Int = 1024, height: Int = 768, background: PhotoBackground = .paper, seed: UInt64 = 1,
        codes: [PrintedCode], defocus: Double = 0, blur: Double = 0.6, motion: Double = 0, motionDegrees: Double = 0,
        falloff: Double = 0.1, lightDegrees: Double = 30,
        glare: (x: Double, y: Double, radius: Double, strength: Double) =
            (0, 0, 0, 0),
        levels: (black: Double, white: Double, gamma: Double) = (0, 255, 1), noise: Double = 2, jpegQuality: Int? = nil
    ) {
        self.width = width
        self.height = height
        self.background = background
        self.seed = seed
        self.codes = codes
        self.defocus = defocus
        self.blur = blur
        self.motion = motion
        self.motionDegrees = motionDegrees
        self.falloff = falloff
        self.lightDegrees = lightDegrees
        self.glare = glare
        self.levels = levels
        self.noise = noise
        self.jpegQuality = jpegQuality
    }

    /// What ``develop()`` makes.
    public struct Developed: @unchecked Sendable {
        // SAFETY (Sendable): the image is not mutated after it is developed.

        /// The photo as a reader sees it (after the JPEG round trip, when there is one).
        public var image: LumaImage
        /// Each code's corners in the frame (top left, top right, bottom right, bottom left; quiet zone included).
        public var corners: [[Point]]
        /// The JPEG file's bytes, when the photo was saved as JPEG.
        public var jpeg: [UInt8]?
    }

    /// Takes the photo.
    public func develop() -> Developed {
        let canvas = TestCanvas(width: width, height: height)
        canvas.image.withMutablePixels { pixels in
            check(lt_texture(pixels.baseAddress, Int32(width), Int32(height), width, background.kind, seed), "texture")
        }
        var allCorners: [[Point]] = []
        for code in codes {
            var print = code.print
            if code.scratches > 0 || code.blots > 0 {
                print = LumaImage(width: print.width, height: print.height, pixels: print.pixels)
                print.withMutablePixels { pixels in
                    check(
                        lt_damage(
                            pixels.baseAddress, Int32(print.width), Int32(print.height), print.width,
                            Int32(code.printModulePixels), Int32(code.scratches), Int32(code.blots), seed),
                        "damage")
                }
            }
            let shot = SecureQRShot(
                frameWidth: width, frameHeight: height,
                centre: Point(x: code.centre.x * Double(width), y: code.centre.y * Double(height)),
                modulePixels: code.modulePixels, rotation: code.rotation, yaw: code.yaw, pitch: code.pitch)
            let project = SecureQRCamera.projection(
                printWidth: print.width, printHeight: print.height, codeModulePixels: code.printModulePixels, shot: shot
            )
            let (w, h) = (Double(print.width), Double(print.height))
            let corners = [
                project(-w / 2, -h / 2), project(w / 2, -h / 2), project(w / 2, h / 2), project(-w / 2, h / 2),
            ]
            allCorners.append(corners)
            let quad = corners.flatMap { [$0.x, $0.y] }
            print.withView { view in
                canvas.image.withMutablePixels { pixels in
                    check(
                        lt_place_code(
                            view.baseAddress, Int32(view.width), Int32(view.height), view.stride, pixels.baseAddress,
                            Int32(width), Int32(height), width, quad, code.dark, code.light, code.wrap),
                        "place")
                }
            }
        }
        canvas.image.withMutablePixels { pixels in
            let (base, w, h) = (pixels.baseAddress, Int32(width), Int32(height))
            check(lt_defocus(base, w, h, width, defocus), "defocus")
            check(lt_motion_blur(base, w, h, width, motion, motionDegrees), "motion blur")
            check(
                lt_lighting(
                    base, w, h, width, falloff, lightDegrees, glare.x * Double(width), glare.y * Double(height),
                    glare.radius * Double(width), glare.strength),
                "lighting")
            check(lt_levels(base, w, h, width, levels.black, levels.white, levels.gamma), "levels")
        }
        canvas.blur(sigma: blur)
        canvas.addNoise(sigma: noise, seed: seed &+ 7)
        guard let jpegQuality else { return Developed(image: canvas.image, corners: allCorners, jpeg: nil) }
        let jpeg = Self.jpeg(canvas.image, quality: jpegQuality)
        guard let image = Self.decode(jpeg) else { preconditionFailure("JPEG decoding failed") }
        return Developed(image: image, corners: allCorners, jpeg: jpeg)
    }

    /// `image` as a grey JPEG file of `quality`.
    public static func jpeg(_ image: LumaImage, quality: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: image.width * image.height + 65_536)
        var length = 0
        let status = image.withView { view in
            bytes.withUnsafeMutableBufferPointer {
                lt_jpeg_encode(
                    view.baseAddress, Int32(view.width), Int32(view.height), view.stride, Int32(quality),
                    $0.baseAddress, $0.count, &length)
            }
        }
        check(status, "JPEG encoding")
        return Array(bytes.prefix(length))
    }

    /// Decodes image file bytes (JPEG, PNG, ...) to grey as LumaScan reads image files (CLumaVision's codecs); `nil`
    /// when they do not decode.
    static func decode(_ bytes: [UInt8]) -> LumaImage? {
        var decoded: OpaquePointer?
        let status = bytes.withUnsafeBufferPointer { lv_image_decode_grey($0.baseAddress, $0.count, &decoded) }
        guard status == 0, let decoded else { return nil }
        defer { lv_image_destroy(decoded) }
        guard let pixels = lv_image_pixels(decoded) else { return nil }
        let (w, h) = (Int(lv_image_width(decoded)), Int(lv_image_height(decoded)))
        return LumaImage(width: w, height: h, pixels: Array(UnsafeBufferPointer(start: pixels, count: w * h)))
    }
}

/// Stops on a camera-model failure: the arguments come from the corpus' own tables, so a failure is a bug there.
private func check(_ status: Int32, _ step: String) {
    precondition(status >= 0, "CLumaTestKit \(step) failed: \(status)")
}

extension LumaImage {
    /// The image shown full screen in a `width` x `height` frame: scaled by the largest factor that keeps it inside
    /// (bicubic), centred, the rest filled by replicating its edges (`lt_fit_frame`). The still-image path's 1080p
    /// figures in the README are measured on the generated corpus made this way.
    public func fitted(width: Int, height: Int) -> LumaImage {
        let frame = LumaImage(width: width, height: height)
        withView { view in
            frame.withMutablePixels { pixels in
                check(
                    lt_fit_frame(
                        view.baseAddress, Int32(view.width), Int32(view.height), view.stride, pixels.baseAddress,
                        Int32(width), Int32(height), width), "fit")
            }
        }
        return frame
    }
}

/// Runs `body` with the calling thread pinned to one of its CPUs (`lt_pin_to_one_cpu`), then lets it run on all of
/// them again. Returns how many CPUs the thread could run on before, and what `body` returned. `body` must not
/// suspend: the pin belongs to the thread.
public func onOneCPU<R>(_ body: () throws -> R) rethrows -> (cpus: Int, result: R) {
    let cpus = lt_pin_to_one_cpu()
    check(cpus, "pin to one CPU")
    defer { check(lt_unpin(), "unpin") }
    return (Int(cpus), try body())
}
