/// Where in the frame a recognizer looks: Anyline's `cutoutConfig`, the rectangle the user is asked to fill with the
/// thing to scan, and the crop around it that is actually read.
///
/// Decoding accepts Anyline's JSON spellings (`"maxWidthPercent": "75%"` or `75`, `"alignment": "top_half"`), rejects
/// unknown keys and validates every value, throwing ``LumaScanError`` with code
/// ``LumaScanError/Code/invalidConfiguration`` and a message that names the JSON path
/// (`viewPluginConfig.cutoutConfig.maxWidthPercent: 140% is above 100%`).
/// ``geometry(frameSize:)`` turns the configuration into rectangles for a frame size; it is pure, and every recognizer
/// can use its crop as its region of interest.
public struct CutoutConfiguration: Hashable, Sendable, Codable {
    /// The JSON path of a cutout configuration in an Anyline view configuration, used in error messages.
    public static let jsonPath = "viewPluginConfig.cutoutConfig"

    /// Where the cutout sits vertically.
    public enum Alignment: String, Hashable, Sendable, Codable, CaseIterable {
        /// At the top of the frame.
        case top
        /// Its top at a third of the free height (the frame's height less the cutout's).
        case topHalf = "top_half"
        /// Centred.
        case center
        /// Its top at two thirds of the free height.
        case bottomHalf = "bottom_half"
        /// At the bottom of the frame.
        case bottom
    }

    /// A width-to-height ratio; only the ratio counts, not the numbers' size.
    public struct Ratio: Hashable, Sendable, Codable {
        /// The ratio's width; positive.
        public var width: Double
        /// The ratio's height; positive.
        public var height: Double

        /// Creates a ratio, such as `Ratio(width: 9, height: 4)`.
        public init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }
    }

    /// A displacement in frame pixels.
    public struct Offset: Hashable, Sendable, Codable {
        /// Horizontal displacement, positive to the right.
        public var x: Int
        /// Vertical displacement, positive downwards.
        public var y: Int

        /// Creates an offset.
        public init(x: Int = 0, y: Int = 0) {
            self.x = x
            self.y = y
        }

        /// No displacement.
        public static let zero = Offset()
    }

    /// The cutout's width-to-height ratio (JSON: `ratioFromSize {width, height}`).
    ///
    /// Default: 1:1.
    public var ratioFromSize: Ratio
    /// The desired cutout width in frame pixels; 0 leaves it unset, so the cutout is as wide as `maxWidthPercent`
    /// allows.
    ///
    /// Default: 0.
    public var width: Int
    /// The largest cutout width, as a percentage (1–100) of the frame's width (JSON: `"75%"` or `75`).
    ///
    /// Default: 100.
    public var maxWidthPercent: Double
    /// The largest cutout height, as a percentage (1–100) of the frame's height (JSON: `"75%"` or `75`).
    ///
    /// Default: 100.
    public var maxHeightPercent: Double
    /// Where the cutout sits vertically (JSON: `top`, `top_half`, `center`, `bottom_half`, `bottom`).
    ///
    /// Default: ``Alignment/center``.
    public var alignment: Alignment
    /// Moves the cutout from where `alignment` puts it, in frame pixels.
    ///
    /// Default: (0, 0).
    public var offset: Offset
    /// Grows the crop beyond the cutout on each side, in frame pixels; never negative.
    ///
    /// Default: (0, 0).
    public var cropPadding: Offset
    /// Moves the crop, after padding, in frame pixels.
    ///
    /// Default: (0, 0).
    public var cropOffset: Offset

    /// Creates a cutout configuration; call ``validate()`` before use when the values come from outside.
    public init(
        ratioFromSize: Ratio = Ratio(width: 1, height: 1), width: Int = 0, maxWidthPercent: Double = 100,
        maxHeightPercent: Double = 100, alignment: Alignment = .center, offset: Offset = .zero,
        cropPadding: Offset = .zero, cropOffset: Offset = .zero
    ) {
        self.ratioFromSize = ratioFromSize
        self.width = width
        self.maxWidthPercent = maxWidthPercent
        self.maxHeightPercent = maxHeightPercent
        self.alignment = alignment
        self.offset = offset
        self.cropPadding = cropPadding
        self.cropOffset = cropOffset
    }

    /// The range of each `ratioFromSize` number; only their ratio counts, so any scale within it will do.
    public static let ratioNumberRange = 0.001...100_000.0
    /// The most elongated cutout: its width-to-height ratio lies within 1:`maximumAspect`...`maximumAspect`:1, so
    /// that a cutout is never a sliver a recognizer would stretch into a huge working image.
    public static let maximumAspect = 100.0
    /// The range of `width`, `cropPadding` (in pixels, 0 upward) and of `offset` and `cropOffset` (either way):
    /// no frame is larger, so a larger value can only push the cutout off the frame.
    public static let pixelRange = 0...Rect.maximumConfiguredPixels

    /// Throws ``LumaScanError/Code/invalidConfiguration`` naming the first invalid value's JSON path and its range:
    /// `ratioFromSize` numbers within ``ratioNumberRange`` and their ratio within 1:100...100:1 (``maximumAspect``),
    /// `width` and `cropPadding` within ``pixelRange``, `offset` and `cropOffset` within ± its upper bound,
    /// `maxWidthPercent` and `maxHeightPercent` within 1...100%.
    public func validate() throws(LumaScanError) {
        try validate(path: Self.jsonPath)
    }

    /// ``validate()`` for the cutout at `path` in a document: the messages start with that path.
    public func validate(path: String) throws(LumaScanError) {
        let check = ConfigurationCheck(path: path)
        let ratio = check.nested("ratioFromSize")
        try ratio.check("width", ratioFromSize.width, in: Self.ratioNumberRange)
        try ratio.check("height", ratioFromSize.height, in: Self.ratioNumberRange)
        let aspect = ratioFromSize.width / ratioFromSize.height
        guard aspect >= 1 / Self.maximumAspect, aspect <= Self.maximumAspect else {
            throw ratio.fail(
                "width",
                "\(ConfigurationCheck.text(ratioFromSize.width)):\(ConfigurationCheck.text(ratioFromSize.height)) "
                    + "is more elongated than 1:100 or 100:1")
        }
        try check.check("width", width, in: Self.pixelRange, unit: "px")
        try Self.checkPercent(maxWidthPercent, at: check.path("maxWidthPercent"))
        try Self.checkPercent(maxHeightPercent, at: check.path("maxHeightPercent"))
        let limit = Self.pixelRange.upperBound
        for (key, value, range) in [
            ("offset", offset, -limit...limit), ("cropPadding", cropPadding, Self.pixelRange),
            ("cropOffset", cropOffset, -limit...limit),
        ] {
            try check.nested(key).check("x", value.x, in: range, unit: "px")
            try check.nested(key).check("y", value.y, in: range, unit: "px")
        }
    }

    private static func checkPercent(_ value: Double, at path: String) throws(LumaScanError) {
        guard value.isFinite else { throw .invalidConfiguration("\(path): \(value) is not a number") }
        if value > 100 { throw .invalidConfiguration("\(path): \(Self.percentText(value)) is above 100%") }
        if value < 1 { throw .invalidConfiguration("\(path): \(Self.percentText(value)) is below 1%") }
    }

    /// `75%`, or `12.5%`.
    static func percentText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))%" : "\(value)%"
    }
}

// MARK: - Geometry

/// The rectangles a ``CutoutConfiguration`` gives for one frame size, in frame pixels.
public struct CutoutGeometry: Hashable, Sendable, CustomStringConvertible {
    /// The frame's size.
    public var frameSize: Size
    /// The cutout: where the thing to scan is expected.
    public var cutout: Rect
    /// The crop: the cutout grown by the padding and moved by the crop offset, inside the frame. Recognizers read
    /// this part of the frame (as a no-copy view: `luma.cropped(to: geometry.crop)`).
    public var crop: Rect

    /// Creates a geometry.
    public init(frameSize: Size, cutout: Rect, crop: Rect) {
        self.frameSize = frameSize
        self.cutout = cutout
        self.crop = crop
    }

    /// For example `"cutout 768x341+576+326, crop 808x381+556+306 in 1920x1080"`.
    public var description: String { "cutout \(cutout), crop \(crop) in \(frameSize)" }
}

extension CutoutConfiguration {
    /// The cutout and crop rectangles for a frame of `frameSize`, in frame pixels. Pure: the same inputs always give
    /// the same rectangles, and invalid values are clamped rather than trapped (``validate()`` reports them).
    ///
    /// - Width: `width` when set, else `maxWidthPercent` of the frame's width, never above `maxWidthPercent` of it.
    /// - Height: width × ratio height / ratio width. When that exceeds `maxHeightPercent` of the frame's height, the
    ///   height is that limit and the width follows from the ratio, so the ratio is kept.
    /// - Sizes are rounded to whole pixels (halves away from zero) and are at least 1 pixel in a non-empty frame.
    /// - Position: centred horizontally; vertically per `alignment` (`top` 0, `top_half` a third of the free height,
    ///   `center` a half, `bottom_half` two thirds, `bottom` all of it, rounded down); then moved by `offset`, then
    ///   clamped so the cutout lies inside the frame.
    /// - Crop: the cutout grown by `cropPadding` on each side, moved by `cropOffset`, then clipped to the frame. When
    ///   the offset moves it wholly outside the frame, it keeps its size (at most the frame's) and is moved back
    ///   inside, so the crop is never empty in a non-empty frame.
    public func geometry(frameSize: Size) -> CutoutGeometry {
        let frameWidth = max(0, frameSize.width)
        let frameHeight = max(0, frameSize.height)
        guard frameWidth > 0, frameHeight > 0 else {
            let empty = Rect(x: 0, y: 0, width: 0, height: 0)
            return CutoutGeometry(frameSize: frameSize, cutout: empty, crop: empty)
        }
        let ratioWidth = ratioFromSize.width > 0 && ratioFromSize.width.isFinite ? ratioFromSize.width : 1
        let ratioHeight = ratioFromSize.height > 0 && ratioFromSize.height.isFinite ? ratioFromSize.height : 1
        let widthLimit = max(1, Double(frameWidth) * Self.clampPercent(maxWidthPercent) / 100)
        let heightLimit = max(1, Double(frameHeight) * Self.clampPercent(maxHeightPercent) / 100)

        var cutoutWidth = width > 0 ? min(Double(width), widthLimit) : widthLimit
        var cutoutHeight = cutoutWidth * ratioHeight / ratioWidth
        if cutoutHeight > heightLimit {
            cutoutHeight = heightLimit
            cutoutWidth = min(widthLimit, cutoutHeight * ratioWidth / ratioHeight)
        }
        let w = min(frameWidth, max(1, Int(cutoutWidth.rounded())))
        let h = min(frameHeight, max(1, Int(cutoutHeight.rounded())))

        let freeHeight = frameHeight - h
        let alignedY: Int
        switch alignment {
        case .top: alignedY = 0
        case .topHalf: alignedY = freeHeight / 3
        case .center: alignedY = freeHeight / 2
        case .bottomHalf: alignedY = freeHeight * 2 / 3
        case .bottom: alignedY = freeHeight
        }
        let x = Self.clamp((frameWidth - w) / 2 &+ offset.x, 0, frameWidth - w)
        let y = Self.clamp(alignedY &+ offset.y, 0, frameHeight - h)
        let cutout = Rect(x: x, y: y, width: w, height: h)

        let padX = max(0, cropPadding.x)
        let padY = max(0, cropPadding.y)
        let grown = Rect(
            x: x &- padX &+ cropOffset.x, y: y &- padY &+ cropOffset.y,
            width: w &+ padX &* 2, height: h &+ padY &* 2)
        let bounds = Rect(x: 0, y: 0, width: frameWidth, height: frameHeight)
        var crop = grown.intersection(bounds)
        if crop.isEmpty {
            let cropWidth = min(frameWidth, grown.width)
            let cropHeight = min(frameHeight, grown.height)
            crop = Rect(
                x: Self.clamp(grown.x, 0, frameWidth - cropWidth), y: Self.clamp(grown.y, 0, frameHeight - cropHeight),
                width: cropWidth, height: cropHeight)
        }
        return CutoutGeometry(frameSize: frameSize, cutout: cutout, crop: crop)
    }

    private static func clampPercent(_ value: Double) -> Double {
        value.isFinite ? min(100, max(1, value)) : 100
    }

    private static func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int { min(max(value, low), high) }
}

// MARK: - Decoding

extension CutoutConfiguration {
    private enum Key: String, CaseIterable {
        case ratioFromSize, width, maxWidthPercent, maxHeightPercent, alignment, offset, cropPadding, cropOffset
    }

    /// Decodes Anyline's spellings, rejecting unknown keys and invalid values with a ``LumaScanError`` that names the
    /// JSON path.
    public init(from decoder: any Decoder) throws {
        let path = ConfigurationPath.string(decoder.codingPath, under: "cutoutConfig", standaloneRoot: Self.jsonPath)
        let container = try decoder.container(keyedBy: JSONKey.self)
        try container.rejectUnknownKeys(allowed: Key.allCases.map(\.rawValue), path: path)
        self.init()
        if let nested = try container.nestedObjectIfPresent(Key.ratioFromSize.rawValue, path: path) {
            ratioFromSize = try Ratio(nested, path: "\(path).ratioFromSize")
        }
        if let value = try container.decodeNumberIfPresent(Key.width.rawValue, path: path) {
            width = try ConfigurationPath.integer(value, at: "\(path).width")
        }
        if let value = try container.decodePercentIfPresent(Key.maxWidthPercent.rawValue, path: path) {
            maxWidthPercent = value
        }
        if let value = try container.decodePercentIfPresent(Key.maxHeightPercent.rawValue, path: path) {
            maxHeightPercent = value
        }
        if let text = try container.decodeStringIfPresent(Key.alignment.rawValue, path: path) {
            guard let value = Alignment(rawValue: text) else {
                let known = Alignment.allCases.map(\.rawValue).joined(separator: ", ")
                throw LumaScanError.invalidConfiguration(
                    "\(path).alignment: \(ConfigurationPath.quoted(text)) is not one of \(known)")
            }
            alignment = value
        }
        for (key, target) in [(Key.offset, \Self.offset), (.cropPadding, \.cropPadding), (.cropOffset, \.cropOffset)] {
            if let nested = try container.nestedObjectIfPresent(key.rawValue, path: path) {
                self[keyPath: target] = try Offset(nested, path: "\(path).\(key.rawValue)")
            }
        }
        try validate(path: path)
    }

    /// Encodes with Anyline's spellings (percentages as `"75%"`, alignment as `"top_half"`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(ratioFromSize, forKey: JSONKey(Key.ratioFromSize.rawValue))
        try container.encode(width, forKey: JSONKey(Key.width.rawValue))
        try container.encode(Self.percentText(maxWidthPercent), forKey: JSONKey(Key.maxWidthPercent.rawValue))
        try container.encode(Self.percentText(maxHeightPercent), forKey: JSONKey(Key.maxHeightPercent.rawValue))
        try container.encode(alignment, forKey: JSONKey(Key.alignment.rawValue))
        try container.encode(offset, forKey: JSONKey(Key.offset.rawValue))
        try container.encode(cropPadding, forKey: JSONKey(Key.cropPadding.rawValue))
        try container.encode(cropOffset, forKey: JSONKey(Key.cropOffset.rawValue))
    }
}

extension CutoutConfiguration.Ratio {
    private enum Key: String, CaseIterable { case width, height }

    /// Decodes `{width, height}` (numbers), rejecting unknown keys.
    public init(from decoder: any Decoder) throws {
        let path = ConfigurationPath.string(
            decoder.codingPath, under: "cutoutConfig", standaloneRoot: "\(CutoutConfiguration.jsonPath).ratioFromSize")
        try self.init(decoder.container(keyedBy: JSONKey.self), path: path)
    }

    init(_ container: KeyedDecodingContainer<JSONKey>, path: String) throws {
        try container.rejectUnknownKeys(allowed: Key.allCases.map(\.rawValue), path: path)
        guard let width = try container.decodeNumberIfPresent(Key.width.rawValue, path: path),
            let height = try container.decodeNumberIfPresent(Key.height.rawValue, path: path)
        else { throw LumaScanError.invalidConfiguration("\(path): needs both width and height") }
        self.init(width: width, height: height)
    }
}

extension CutoutConfiguration.Offset {
    private enum Key: String, CaseIterable { case x, y }

    /// Decodes `{x, y}` (whole numbers of pixels; a missing one is 0), rejecting unknown keys.
    public init(from decoder: any Decoder) throws {
        let path = ConfigurationPath.string(
            decoder.codingPath, under: "cutoutConfig", standaloneRoot: "\(CutoutConfiguration.jsonPath).offset")
        try self.init(decoder.container(keyedBy: JSONKey.self), path: path)
    }

    init(_ container: KeyedDecodingContainer<JSONKey>, path: String) throws {
        try container.rejectUnknownKeys(allowed: Key.allCases.map(\.rawValue), path: path)
        var result = Self()
        for (key, target) in [(Key.x, \Self.x), (.y, \.y)] {
            guard let value = try container.decodeNumberIfPresent(key.rawValue, path: path) else { continue }
            result[keyPath: target] = try ConfigurationPath.integer(value, at: "\(path).\(key.rawValue)")
        }
        self = result
    }
}

// MARK: - JSON helpers shared by configuration types

extension LumaScanError {
    /// An ``Code/invalidConfiguration`` error with `message`.
    static func invalidConfiguration(_ message: String) -> LumaScanError {
        LumaScanError(.invalidConfiguration, message)
    }
}

/// A coding key for any JSON member name, so the decoders here can list the keys present and reject unknown ones.
typealias JSONKey = ConfigurationKeys.AnyKey

extension KeyedDecodingContainer where Key == JSONKey {
    /// A number, or `nil` when the key is absent or null; anything else is an error naming `path.key`.
    func decodeNumberIfPresent(_ key: String, path: String) throws -> Double? {
        let codingKey = JSONKey(key)
        guard contains(codingKey), try !decodeNil(forKey: codingKey) else { return nil }
        do {
            return try decode(Double.self, forKey: codingKey)
        } catch {
            throw LumaScanError(.invalidConfiguration, "\(path).\(key): expected a number", underlying: error)
        }
    }

    /// A string, or `nil` when the key is absent or null; anything else is an error naming `path.key`.
    func decodeStringIfPresent(_ key: String, path: String) throws -> String? {
        let codingKey = JSONKey(key)
        guard contains(codingKey), try !decodeNil(forKey: codingKey) else { return nil }
        do {
            return try decode(String.self, forKey: codingKey)
        } catch {
            throw LumaScanError(.invalidConfiguration, "\(path).\(key): expected a string", underlying: error)
        }
    }

    /// A percentage written as `"75%"`, `"75"` or `75`, or `nil` when absent or null; range checks are the
    /// caller's.
    func decodePercentIfPresent(_ key: String, path: String) throws -> Double? {
        let codingKey = JSONKey(key)
        guard contains(codingKey), try !decodeNil(forKey: codingKey) else { return nil }
        if let number = try? decode(Double.self, forKey: codingKey) { return number }
        let text: String
        do {
            text = try decode(String.self, forKey: codingKey)
        } catch {
            throw LumaScanError(
                .invalidConfiguration, "\(path).\(key): expected a percentage such as \"75%\" or 75",
                underlying: error)
        }
        var digits = Substring(text.trimmingSpaces())
        if digits.hasSuffix("%") { digits = digits.dropLast() }
        guard let value = Double(digits.trimmingSpaces()), value.isFinite else {
            throw LumaScanError.invalidConfiguration(
                "\(path).\(key): \(ConfigurationPath.quoted(text)) is not a percentage such as \"75%\"")
        }
        return value
    }

    /// The nested object at `key`, or `nil` when absent or null; anything else is an error naming `path.key`.
    func nestedObjectIfPresent(_ key: String, path: String) throws -> KeyedDecodingContainer<JSONKey>? {
        let codingKey = JSONKey(key)
        guard contains(codingKey), try !decodeNil(forKey: codingKey) else { return nil }
        do {
            return try nestedContainer(keyedBy: JSONKey.self, forKey: codingKey)
        } catch {
            throw LumaScanError(.invalidConfiguration, "\(path).\(key): expected an object", underlying: error)
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
