import ArgumentParser
import LumaScan

/// The camera options `scan` and `record` share: pixel format, size, frame rate and buffer count, validated once and
/// applied to ``CameraSettings`` in one place.
struct CaptureOptions: ParsableArguments {
    @Option(help: "The camera's pixel format (YUYV, UYVY, GREY, NV12, YU12, MJPG); default: the best it offers.")
    var format: String?

    // The numeric options parse their value unconditionally, so that `--fps -1` is refused as out of range rather
    // than as a missing value (ArgumentParser would otherwise take `-1` for an option name).
    @Option(parsing: .unconditional, help: "The capture size as WxH; the nearest size the camera offers wins.")
    var size: String?

    @Option(
        parsing: .unconditional,
        help: "The frame rate to ask the camera for (record --input: the frames' rate, default 10).")
    var fps: Double?

    @Option(
        parsing: .unconditional,
        help: "Capture buffers to request from the driver (or, replaying a recording, to replay into).")
    var buffers: Int = CaptureOptions.defaultBuffers

    @Option(
        parsing: .unconditional,
        help: """
            With --input, images and recordings whose frames declare more pixels are refused from their header (default \
            \(ImageFileSource.defaultMaxPixels), 64 MP; at most \(ImageFileSource.maxPixelsLimit)).
            """)
    var maxPixels: Int = ImageFileSource.defaultMaxPixels

    /// `--buffers`' default.
    static let defaultBuffers = 4

    /// Whether any option names a camera setting (every option but a default `--buffers`).
    var namesCameraSettings: Bool { format != nil || size != nil || buffers != Self.defaultBuffers }

    func validate() throws {
        if let format, PixelFormat(format) == nil { throw ValidationError("--format: '\(format)' is not a fourcc") }
        if let size {
            guard let parsed = parseSize(size) else { throw ValidationError("--size: '\(size)' is not WxH") }
            let sides = CaptureResolution.sideRange
            guard sides.contains(parsed.width), sides.contains(parsed.height) else {
                throw ValidationError(
                    "--size: \(size) is out of range; width and height must each be within \(sides.lowerBound)..."
                        + "\(sides.upperBound) pixels")
            }
        }
        if let fps, !(fps > 0 && fps <= 1000) {
            throw ValidationError("--fps: \(fps) is out of range; give a rate above 0 and at most 1000")
        }
        if !(1...ImageFileSource.maxPixelsLimit).contains(maxPixels) {
            throw ValidationError("--max-pixels: \(maxPixels) is outside 1...\(ImageFileSource.maxPixelsLimit)")
        }
        if !(1...ImageFileSource.maxPixelsLimit).contains(maxPixels) {
            throw ValidationError("--max-pixels: \(maxPixels) is outside 1...\(ImageFileSource.maxPixelsLimit)")
        }
        if buffers < 2 || buffers > 32 { throw ValidationError("--buffers: \(buffers) is outside 2...32") }
    }

    /// `base` with the options given on the command line applied over it; `--buffers` overrides `base` only when it
    /// was given a value other than its default, unless `alwaysSetBuffers`.
    func settings(over base: CameraSettings = CameraSettings(), alwaysSetBuffers: Bool = true) -> CameraSettings {
        var settings = base
        if let format { settings.pixelFormat = PixelFormat(format) }
        if let size { settings.size = parseSize(size) }
        if let fps { settings.fps = fps }
        if alwaysSetBuffers || buffers != Self.defaultBuffers { settings.bufferCount = buffers }
        return settings
    }
}
