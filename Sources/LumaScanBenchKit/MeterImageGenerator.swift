import CLumaBenchKit
import CLumaVision
import Glibc
import LumaScanCore

/// The kinds of meter the generator draws.
public enum SyntheticMeterKind: Sendable, Hashable, CaseIterable {
    /// A seven-segment LCD or LED display.
    case digital
    /// A roller counter drawn with DejaVu Sans Mono.
    case counter
}

/// One generated meter: how it was drawn, and the reading it shows (the generator's ground truth).
public struct SyntheticMeter: @unchecked Sendable {
    // SAFETY (Sendable): a plain C struct of numbers and a fixed character array, copied by value.
    /// The drawing parameters (the C generator's), editable before rendering.
    public var parameters: lv_meter_synth_params

    /// The kind of meter.
    public var kind: SyntheticMeterKind { parameters.kind == LV_METER_SYNTH_DIGITAL ? .digital : .counter }

    /// The reading a person would write down: digits with at most one decimal point (the ground truth).
    public var truth: String {
        withUnsafeBytes(of: parameters.text) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The frame size it is drawn for.
    public var frameSize: Size { Size(width: Int(parameters.frame_width), height: Int(parameters.frame_height)) }

    /// Whether a counter drum is caught between two digits (more than 0.1 of a digit from one).
    public var hasRollingDrum: Bool {
        guard kind == .counter else { return false }
        return withUnsafeBytes(of: parameters.roll) { raw in
            raw.bindMemory(to: Float.self).prefix(truth.count).contains { abs($0) > 0.1 }
        }
    }

    /// The same meter showing `text` instead (digits with at most one '.', at most 15 characters; for counters, digits
    /// only, with the drums' rolls unchanged).
    public func withText(_ text: String) -> SyntheticMeter {
        var copy = self
        let bytes = Array(text.utf8.prefix(Int(LV_METER_SYNTH_MAX_TEXT)))
        withUnsafeMutableBytes(of: &copy.parameters.text) { raw in
            _ = raw.initializeMemory(as: UInt8.self, repeating: 0)
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        copy.parameters.blank_leading = 0
        return copy
    }

    /// The same meter without glare, perspective, rotation or drums caught mid-roll, with light blur and noise: a
    /// reading the recognizer must get right.
    public func clean() -> SyntheticMeter {
        var copy = self
        copy.parameters.glare = 0
        copy.parameters.blur = 0.4
        copy.parameters.noise = 2
        copy.parameters.perspective = 0
        copy.parameters.rotation = 0
        copy.parameters.unlit = min(copy.parameters.unlit, 0.1)
        withUnsafeMutableBytes(of: &copy.parameters.roll) { raw in
            _ = raw.initializeMemory(as: UInt8.self, repeating: 0)
        }
        return copy
    }

    /// A different noise pattern for the same meter, as consecutive video frames of it have.
    public func withNoiseSeed(_ seed: UInt64) -> SyntheticMeter {
        var copy = self
        copy.parameters.noise_seed = seed
        return copy
    }
}

/// Draws synthetic meters (seven-segment displays and roller counters) into grey frames, placed where a cutout
/// expects them, with perspective, glare, blur and noise. The same seed always gives the same meter.
///
/// For tests, benchmarks and `lumascan bench --recognizer meter`: the meter recognizer's accuracy is measured on these
/// frames, whose ground truth is known.
///
/// - Important: One generator is not thread-safe; make one per test (creating one renders the fonts' glyphs once).
public final class MeterImageGenerator: @unchecked Sendable {
    // SAFETY (Sendable): the handle's scratch images are used by one render at a time; the type's documentation asks
    // for one generator per thread.
    private let handle: OpaquePointer

    /// Where the DejaVu fonts are on Debian (fonts-dejavu-core).
    public static let debianFontDirectory = "/usr/share/fonts/truetype/dejavu"

    /// Creates a generator that draws counter digits with DejaVu Sans Mono from `fontDirectory`.
    public init(fontDirectory: String = MeterImageGenerator.debianFontDirectory) throws {
        var handle: OpaquePointer?
        let status = lv_meter_synth_create(fontDirectory, &handle)
        guard status == 0, let handle else {
            throw LumaScanError(.imageIO, "cannot load DejaVu Sans Mono from \(fontDirectory) (code \(status))")
        }
        self.handle = handle
    }

    deinit { lv_meter_synth_destroy(handle) }

    /// Draws random parameters for one meter of `kind` from `seed`, for a frame of `frameSize` with the display
    /// where `cutout` expects it.
    public func sample(seed: UInt64, kind: SyntheticMeterKind, frameSize: Size, cutout: Rect) -> SyntheticMeter {
        var parameters = lv_meter_synth_params()
        let status = lv_meter_synth_sample(
            seed, kind == .digital ? LV_METER_SYNTH_DIGITAL : LV_METER_SYNTH_COUNTER, Int32(frameSize.width),
            Int32(frameSize.height), Int32(cutout.x), Int32(cutout.y), Int32(cutout.width), Int32(cutout.height),
            &parameters)
        precondition(status == 0, "lv_meter_synth_sample failed with \(status) for \(frameSize), \(cutout)")
        return SyntheticMeter(parameters: parameters)
    }

    /// Renders `meter` into a new frame.
    public func render(_ meter: SyntheticMeter) -> LumaImage {
        let image = LumaImage(width: meter.frameSize.width, height: meter.frameSize.height)
        render(meter, into: image)
        return image
    }

    /// Renders `meter` into `image`, which must have the meter's frame size.
    public func render(_ meter: SyntheticMeter, into image: LumaImage) {
        precondition(image.width == meter.frameSize.width && image.height == meter.frameSize.height, "frame size")
        var parameters = meter.parameters
        let status = image.withMutablePixels { pixels in
            guard let base = pixels.baseAddress else { return -EINVAL }
            return lv_meter_synth_render(handle, &parameters, base, image.stride)
        }
        precondition(status == 0, "lv_meter_synth_render failed with \(status)")
    }

    /// The ten digit templates of `font` (0 regular, 1 bold) rendered from the font now, as the reader's built-in
    /// ones were made.
    public func renderedTemplates(font: Int) -> [UInt8] {
        let size = 10 * Int(LV_METER_TEMPLATE_WIDTH) * Int(LV_METER_TEMPLATE_HEIGHT)
        var pixels = [UInt8](repeating: 0, count: size)
        let status = pixels.withUnsafeMutableBufferPointer {
            lv_meter_synth_templates(handle, Int32(font), $0.baseAddress)
        }
        precondition(status == 0, "lv_meter_synth_templates failed with \(status)")
        return pixels
    }

    /// The reader's built-in templates of `font` (0 regular, 1 bold).
    public static func builtInTemplates(font: Int) -> [UInt8] {
        var pointer: UnsafePointer<UInt8>?
        let status = lv_meter_templates(Int32(font), &pointer)
        precondition(status == 0, "lv_meter_templates failed with \(status)")
        let size = 10 * Int(LV_METER_TEMPLATE_WIDTH) * Int(LV_METER_TEMPLATE_HEIGHT)
        return pointer.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }
}
