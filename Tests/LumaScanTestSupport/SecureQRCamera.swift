import CLumaVision
import Foundation
import LumaScanCore
import LumaScanRecognizers

/// How a simulated camera sees a printed code: where and how large, tilted how far, through what optics, noise and
/// exposure.
public struct SecureQRShot: Sendable, CustomStringConvertible {
    /// Frame width in pixels.
    public var frameWidth: Int
    /// Frame height in pixels.
    public var frameHeight: Int
    /// Where the code image's centre lands, in frame pixels; `nil` for the frame's centre.
    public var centre: Point?
    /// Frame pixels per module at the code's centre (before the tilt's foreshortening).
    public var modulePixels: Double
    /// Rotation in the image plane, degrees counter-clockwise as displayed.
    public var rotation: Double
    /// Tilt about the vertical axis, degrees (perspective: one side farther away).
    public var yaw: Double
    /// Tilt about the horizontal axis, degrees.
    public var pitch: Double
    /// Gaussian blur of the optics (defocus, motion), in frame pixels.
    public var blurSigma: Double
    /// Sensor noise, standard deviation in grey levels.
    public var noiseSigma: Double
    /// The luma of the printed dark and light, as exposed.
    public var darkLevel: Double
    /// The luma of the paper.
    public var lightLevel: Double
    /// Gamma applied to the exposed levels (1 is linear).
    public var gamma: Double
    /// Which cluttered background (blobs, gradient, text) the code lies on.
    public var backgroundSeed: UInt64
    /// The noise's seed.
    public var noiseSeed: UInt64

    /// Creates a shot; the defaults are a sharp, well-exposed, frontal 1280x720 frame at 10 px per module.
    public init(
        frameWidth: Int = 1280, frameHeight: Int = 720, centre: Point? = nil, modulePixels: Double = 10,
        rotation: Double = 0, yaw: Double = 0, pitch: Double = 0, blurSigma: Double = 0.5, noiseSigma: Double = 2,
        darkLevel: Double = 30, lightLevel: Double = 220, gamma: Double = 1, backgroundSeed: UInt64 = 1,
        noiseSeed: UInt64 = 1
    ) {
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        self.centre = centre
        self.modulePixels = modulePixels
        self.rotation = rotation
        self.yaw = yaw
        self.pitch = pitch
        self.blurSigma = blurSigma
        self.noiseSigma = noiseSigma
        self.darkLevel = darkLevel
        self.lightLevel = lightLevel
        self.gamma = gamma
        self.backgroundSeed = backgroundSeed
        self.noiseSeed = noiseSeed
    }

    /// A one-line summary for failure messages.
    public var description: String {
        let c = centre.map { "(\(Int($0.x)),\(Int($0.y)))" } ?? "centre"
        return String(
            format: "%dx%d at %@ %.1fpx/mod rot %.0f yaw %.0f pitch %.0f blur %.2f noise %.1f levels %.0f-%.0f γ%.2f",
            frameWidth, frameHeight, c, modulePixels, rotation, yaw, pitch, blurSigma, noiseSigma, darkLevel,
            lightLevel, gamma)
    }
}

/// A simulated camera frame of a code, and the exact mapping from the code image into it.
public struct SecureQRCameraFrame: @unchecked Sendable {
    // SAFETY (Sendable): the image is not mutated after the frame is made.

    /// The frame.
    public let image: LumaImage
    /// The homography from code-image pixel coordinates to frame pixel coordinates (both with pixel centres at
    /// integers), row-major.
    public let homography: [Double]

    /// Where code-image point `p`, in edge coordinates ((0, 0) is the top-left corner of the top-left pixel), lands
    /// in the frame, in LumaScan's frame coordinates (pixel centres at integers).
    public func framePoint(_ p: Point) -> Point {
        let h = homography
        let (x, y) = (p.x - 0.5, p.y - 0.5)
        let w = h[6] * x + h[7] * y + h[8]
        return Point(x: (h[0] * x + h[1] * y + h[2]) / w, y: (h[3] * x + h[4] * y + h[5]) / w)
    }

    /// The frame quadrilateral of the code-image rectangle with corners `topLeft` and `bottomRight`.
    public func frameQuad(_ topLeft: Point, _ bottomRight: Point) -> [Point] {
        [
            topLeft, Point(x: bottomRight.x, y: topLeft.y), bottomRight, Point(x: topLeft.x, y: bottomRight.y),
        ].map(framePoint)
    }
}

/// A simulated camera: places a printed code image in a cluttered scene with perspective, then applies optics blur,
/// exposure and noise. Deterministic for a given shot.
public enum SecureQRCamera {
    private static let backgrounds = Lock<[String: [UInt8]]>([:])

    /// A cluttered background (gradient, blobs, text), made once per size and seed and then copied.
    public static func background(width: Int, height: Int, seed: UInt64) -> LumaImage {
        let key = "\(width)x\(height)#\(seed)"
        let cached = backgrounds.withLock { $0[key] }
        if let cached { return LumaImage(width: width, height: height, pixels: cached) }
        let canvas = BarcodeCorpus.background(width: width, height: height, seed: seed &+ 1000)
        let pixels = canvas.image.pixels
        backgrounds.withLock { $0[key] = pixels }
        return canvas.image
    }

    /// Photographs `code` (an image whose dark is 0 and light 255), printed at `codeModulePixels` image pixels per
    /// module, as `shot` describes: a module spans `shot.modulePixels` frame pixels at the code's centre.
    public static func shoot(_ code: LumaImage, codeModulePixels: Int, shot: SecureQRShot) -> SecureQRCameraFrame {
        let frame = background(width: shot.frameWidth, height: shot.frameHeight, seed: shot.backgroundSeed % 4)
        // Exposure: map the print's 0/255 to the exposed levels (with gamma) before the optics mix them.
        var table = [UInt8](repeating: 0, count: 256)
        for value in 0..<256 {
            let t = Double(value) / 255
            let linear = shot.darkLevel + (shot.lightLevel - shot.darkLevel) * t
            let curved = 255 * pow(max(0, min(255, linear)) / 255, shot.gamma)
            table[value] = UInt8(max(0, min(255, curved.rounded())))
        }
        var exposed = code.pixels
        for index in exposed.indices { exposed[index] = table[Int(exposed[index])] }
        let print = LumaImage(width: code.width, height: code.height, pixels: exposed)

        let project = projection(
            printWidth: code.width, printHeight: code.height, codeModulePixels: codeModulePixels, shot: shot)
        return place(print, into: frame, shot: shot, project: project)
    }

    /// Where `shoot` puts the points of a `printWidth` x `printHeight` print: a function from print points relative
    /// to the print's centre (in print pixels) to frame points. Scales to the module size, rotates in the image plane,
    /// tilts in 3D and projects (focal length 1.2 x the frame width, a typical webcam's field of view). Use it to plan
    /// a shot (is the code in the frame?) before rendering it.
    public static func projection(
        printWidth: Int, printHeight: Int, codeModulePixels: Int, shot: SecureQRShot
    )
        -> @Sendable (Double, Double) -> Point
    {
        let centre = shot.centre ?? Point(x: Double(shot.frameWidth) / 2, y: Double(shot.frameHeight) / 2)
        let scale = shot.modulePixels / Double(codeModulePixels)
        let focal = 1.2 * Double(shot.frameWidth)
        let (rc, rs) = (cos(shot.rotation * .pi / 180), sin(shot.rotation * .pi / 180))
        let (yc, ys) = (cos(shot.yaw * .pi / 180), sin(shot.yaw * .pi / 180))
        let (pc, ps) = (cos(shot.pitch * .pi / 180), sin(shot.pitch * .pi / 180))
        return { u, v in
            let x0 = u * scale, y0 = v * scale
            let x1 = x0 * rc + y0 * rs, y1 = -x0 * rs + y0 * rc
            let x2 = x1 * yc, z2 = x1 * ys
            let y3 = y1 * pc, z3 = z2 + y1 * ps
            let depth = focal + z3
            return Point(x: centre.x + focal * x2 / depth, y: centre.y + focal * y3 / depth)
        }
    }

    /// Where print point `p` (edge coordinates) lands in the frame under `shot`, in frame coordinates (pixel centres
    /// at integers), before rendering.
    public static func plannedPoint(
        _ p: Point, printWidth: Int, printHeight: Int, codeModulePixels: Int, shot: SecureQRShot
    ) -> Point {
        let project = projection(
            printWidth: printWidth, printHeight: printHeight, codeModulePixels: codeModulePixels, shot: shot)
        // The warp treats print coordinates as pixel centres, which sit half a pixel from edge coordinates.
        return project(p.x - 0.5 - Double(printWidth) / 2, p.y - 0.5 - Double(printHeight) / 2)
    }

    private static func place(
        _ print: LumaImage, into frame: LumaImage, shot: SecureQRShot, project: (Double, Double) -> Point
    ) -> SecureQRCameraFrame {
        let (w, h) = (Double(print.width), Double(print.height))
        let corners = [project(-w / 2, -h / 2), project(w / 2, -h / 2), project(w / 2, h / 2), project(-w / 2, h / 2)]
        let source: [Double] = [0, 0, w, 0, w, h, 0, h]
        // Work on the part of the frame the code covers (plus room for the blur), so a frame costs little beyond it.
        let margin = Int((3 * shot.blurSigma).rounded(.up)) + 4
        let minX = max(0, Int(corners.map(\.x).min() ?? 0) - margin)
        let minY = max(0, Int(corners.map(\.y).min() ?? 0) - margin)
        let maxX = min(frame.width, Int((corners.map(\.x).max() ?? 0).rounded(.up)) + margin)
        let maxY = min(frame.height, Int((corners.map(\.y).max() ?? 0).rounded(.up)) + margin)
        var matrix = [Double](repeating: 0, count: 9)
        frame.withMutablePixels { pixels in
            guard maxX > minX, maxY > minY, let base = pixels.baseAddress else { return }
            let area = base + minY * frame.width + minX
            let (aw, ah) = (Int32(maxX - minX), Int32(maxY - minY))
            let destination = corners.flatMap { [$0.x - Double(minX), $0.y - Double(minY)] }
            print.withView { view in
                let status = lv_image_warp_perspective(
                    view.baseAddress, Int32(view.width), Int32(view.height), view.stride, area, aw, ah, frame.width,
                    source, destination, -1, &matrix)
                precondition(status == 0, "warp failed: \(status)")
            }
            precondition(lv_image_gaussian_blur(area, aw, ah, frame.width, shot.blurSigma) == 0, "blur failed")
            precondition(
                lv_image_add_noise(area, aw, ah, frame.width, shot.noiseSigma, shot.noiseSeed) == 0, "noise failed")
        }
        // The warp maps the print into the sub-area; shift it back to frame coordinates. OpenCV's matrix maps pixel
        // centres; the print's edge coordinates are the same up to the half-pixel both sides share.
        var homography = matrix
        if matrix.allSatisfy({ $0 == 0 }) {
            homography = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        } else {
            for column in 0..<3 {
                homography[column] += Double(minX) * matrix[6 + column]
                homography[3 + column] += Double(minY) * matrix[6 + column]
            }
        }
        return SecureQRCameraFrame(image: frame, homography: homography)
    }
}
