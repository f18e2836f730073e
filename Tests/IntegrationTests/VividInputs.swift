import Foundation
import LumaScanCore
import LumaScanTestSupport

/// What the host gives the guest: generated images as raw frames for vivid's output node, and the controls to set.
/// The tests' expected values come from here, from how each input was made.
enum VividInputs {
    /// The frame size vivid is set to (`vm/vivid-setup.sh`).
    static let width = 640
    static let height = 480

    /// The per-format capture scenarios: a Code 128 code whose text names the format, so a decode proves that the
    /// luma of that format was read from the right bytes.
    static let captureFormats = ["YUYV", "UYVY", "GREY"]
    static func captureText(_ format: String) -> String { "VIVID-\(format)" }

    /// Image A of the switch scenario: a QR code.
    static let qrText = "https://lumascan.example/vivid/loop-A"
    /// Image B of the switch scenario: an EAN-13 code, from these 12 digits and the check digit computed here.
    static let ean13Digits = "590123412345"
    static var ean13Text: String {
        let digits = ean13Digits.compactMap { $0.wholeNumberValue }
        // GS1: weights 3 and 1 alternate from the rightmost payload digit.
        let sum = digits.reversed().enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 3 : 1) }
        return ean13Digits + String((10 - sum % 10) % 10)
    }
    /// The image of the fault scenarios: a QR code.
    static let faultText = "LUMASCAN-FAULTS"

    /// Writes every input into `directory`: `<name>.<FOURCC>.raw` frames (and a PNG of each image, to look at),
    /// and `controls-set.txt`.
    static func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for format in captureFormats {
            let code = Code128.encode(captureText(format)).render(moduleWidth: 3, height: 100)
            try save(
                scene(code, label: "capture \(format)"), name: "capture-\(format)", formats: [format], in: directory)
        }
        let qr = try QRCode(qrText).render(moduleSize: 6)
        try save(scene(qr, label: "switch A"), name: "switch-a", formats: ["YUYV"], in: directory)
        let ean = EAN.ean13(ean13Digits)
        guard ean.text == ean13Text else {
            throw VividError("the EAN-13 encoder's text \(ean.text) is not \(ean13Text)")
        }
        try save(
            scene(ean.render(moduleWidth: 3, height: 120), label: "switch B"), name: "switch-b", formats: ["YUYV"],
            in: directory)
        let fault = try QRCode(faultText).render(moduleSize: 6)
        try save(scene(fault, label: "faults"), name: "fault", formats: ["YUYV"], in: directory)
        let lines = VividControls.assignments.map { "\($0.name)=\($0.value)" }
        try (lines.joined(separator: "\n") + "\n").write(
            to: directory.appendingPathComponent("controls-set.txt"), atomically: true, encoding: .utf8)
    }

    /// A 640x480 scene: a light background, `code` in the middle, and a label in a corner.
    static func scene(_ code: LumaImage, label: String) -> TestCanvas {
        let canvas = TestCanvas(width: width, height: height, fill: 235)
        canvas.place(code, centre: Point(x: Double(width) / 2, y: Double(height) / 2))
        canvas.draw(text: "LumaScan vivid: \(label)", x: 12, y: 28, scale: 0.7, thickness: 1, value: 60)
        return canvas
    }

    private static func save(_ canvas: TestCanvas, name: String, formats: [String], in directory: URL) throws {
        let png = directory.appendingPathComponent("\(name).png").path
        guard canvas.writePNG(to: png) == 0 else { throw VividError("could not write \(png)") }
        for format in formats {
            let bytes = try frame(canvas.image, format: format)
            try Data(bytes).write(to: directory.appendingPathComponent("\(name).\(format).raw"))
        }
    }

    /// `image` as one raw frame in `format`: GREY as it is; YUYV and UYVY with the grey as luma and neutral chroma
    /// (U = V = 128), two pixels per four bytes (Y0 U Y1 V, or U Y0 V Y1).
    static func frame(_ image: LumaImage, format: String) throws -> [UInt8] {
        let grey = image.pixels
        switch format {
        case "GREY":
            return grey
        case "YUYV", "UYVY":
            precondition(image.width % 2 == 0, "4:2:2 needs an even width")
            var bytes = [UInt8](repeating: 128, count: grey.count * 2)
            let lumaOffset = format == "YUYV" ? 0 : 1
            for index in grey.indices { bytes[index * 2 + lumaOffset] = grey[index] }
            return bytes
        default:
            throw VividError("no converter to \(format)")
        }
    }
}

/// The controls the controls scenario sets on vivid's capture node, in order, with the value each is set to.
///
/// Every writable control vivid offers there is listed (buttons aside: they inject faults and have no value); each
/// value differs from the one the control has when the scenario runs (vivid's defaults, after `vivid-setup.sh`).
/// Order matters where controls depend on each other: `gain_automatic` goes off before `gain` is set, and
/// `dv_timings_signal_mode` selects "Selected DV Timings" before `dv_timings` picks one.
enum VividControls {
    struct Assignment: Sendable {
        /// The name as v4l2-ctl prints it (LumaScan matches names with spaces, underscores and case alike).
        var name: String
        /// The value to set and to read back.
        var value: Int64
    }

    static let assignments: [Assignment] = [
        // User controls.
        .init(name: "brightness", value: 200),
        .init(name: "contrast", value: 60),
        .init(name: "saturation", value: 17),
        .init(name: "hue", value: -77),
        .init(name: "volume", value: 31),
        .init(name: "mute", value: 1),
        .init(name: "gain_automatic", value: 0),
        .init(name: "gain", value: 150),
        .init(name: "horizontal_flip", value: 1),
        .init(name: "vertical_flip", value: 1),
        .init(name: "alpha_component", value: 99),
        .init(name: "boolean", value: 0),
        .init(name: "integer_32_bits", value: -1_234_567_890),
        .init(name: "integer_64_bits", value: 1_234_567_890_123_456),  // beyond 32 bits: the extended-control path
        .init(name: "menu", value: 4),
        .init(name: "bitmask", value: 0x0040_0010),
        .init(name: "integer_menu", value: 7),
        // Digital video.
        .init(name: "rx_rgb_quantization_range", value: 2),
        // Vivid's own controls.
        .init(name: "test_pattern", value: 20),
        .init(name: "osd_text_mode", value: 1),
        .init(name: "horizontal_movement", value: 5),
        .init(name: "vertical_movement", value: 1),
        .init(name: "show_border", value: 1),
        .init(name: "show_square", value: 1),
        .init(name: "insert_sav_code_in_image", value: 1),
        .init(name: "insert_eav_code_in_image", value: 1),
        .init(name: "insert_video_guard_band", value: 1),
        .init(name: "sensor_flipped_horizontally", value: 1),
        .init(name: "sensor_flipped_vertically", value: 1),
        .init(name: "dv_timings_aspect_ratio", value: 3),
        .init(name: "timestamp_source", value: 1),
        .init(name: "colorspace", value: 4),
        .init(name: "transfer_function", value: 2),
        .init(name: "y_cbcr_encoding", value: 6),
        .init(name: "quantization", value: 1),
        .init(name: "limited_rgb_range_16_235", value: 1),  // vivid starts at 0
        .init(name: "apply_alpha_to_red_only", value: 1),
        .init(name: "enable_capture_cropping", value: 0),
        .init(name: "enable_capture_composing", value: 0),
        .init(name: "enable_capture_scaler", value: 0),
        .init(name: "loop_video", value: 0),
        .init(name: "wrap_sequence_number", value: 1),
        .init(name: "wrap_timestamp", value: 2),
        .init(name: "maximum_edid_blocks", value: 7),
        .init(name: "fill_percentage_of_frame", value: 50),
        .init(name: "reduced_framerate", value: 1),
        .init(name: "hsv_encoding", value: 1),
        .init(name: "dv_timings_signal_mode", value: 4),
        .init(name: "dv_timings", value: 9),
        .init(name: "percentage_of_dropped_buffers", value: 25),
    ]

    /// A control name in one canonical form: lowercase letters and digits, other runs as one underscore (how
    /// v4l2-ctl derives its names from the driver's).
    static func canonical(_ name: String) -> String {
        var result = ""
        var separator = false
        for character in name.lowercased() {
            if character.isLetter || character.isNumber {
                if separator && !result.isEmpty { result.append("_") }
                separator = false
                result.append(character)
            } else {
                separator = true
            }
        }
        return result
    }
}
