import LumaScanCore

/// The part of each frame a recognizer reads.
///
/// In JSON: `{"pixels": {"x": 0, "y": 120, "width": 640, "height": 240}}` or
/// `{"percent": {"x": 0, "y": 25, "width": 100, "height": 50}}`.
public enum RegionOfInterest: Hashable, Sendable, Codable {
    /// A rectangle in frame pixels (clamped to each frame): origin 0...65536, size 1...65536 (``maximumPixels``).
    case pixels(Rect)
    /// A rectangle in percent of the frame's width and height (0...100), so one configuration fits every resolution.
    case percent(x: Double, y: Double, width: Double, height: Double)

    /// The largest pixel coordinate or size a ``pixels(_:)`` region may give: 65536, four times the largest frame
    /// LumaScan captures or replays (16384 a side), so that any region that validates is computed without overflow.
    public static let maximumPixels = Rect.maximumConfiguredPixels

    /// The region in pixels for a frame of `size`, clamped to the frame (possibly empty).
    public func rect(in size: Size) -> Rect {
        let frame = Rect(x: 0, y: 0, width: size.width, height: size.height)
        switch self {
        case .pixels(let rect):
            return rect.intersection(frame)
        case .percent(let x, let y, let width, let height):
            let left = Int((x / 100 * Double(size.width)).rounded())
            let top = Int((y / 100 * Double(size.height)).rounded())
            let right = Int(((x + width) / 100 * Double(size.width)).rounded())
            let bottom = Int(((y + height) / 100 * Double(size.height)).rounded())
            return Rect(x: left, y: top, width: right - left, height: bottom - top).intersection(frame)
        }
    }

    /// Checks the region, naming `path` (such as `barcodeConfig.regionOfInterest`) in the error.
    public func validate(path: String) throws(LumaScanError) {
        switch self {
        case .pixels(let rect):
            guard rect.x >= 0, rect.y >= 0 else {
                throw LumaScanError(.invalidConfiguration, "\(path).pixels: origin \(rect.x), \(rect.y) is negative")
            }
            guard rect.width > 0, rect.height > 0 else {
                throw LumaScanError(
                    .invalidConfiguration, "\(path).pixels: size \(rect.width)x\(rect.height) is empty")
            }
            for (name, value) in [("x", rect.x), ("y", rect.y), ("width", rect.width), ("height", rect.height)]
            where value > Self.maximumPixels {
                throw LumaScanError(
                    .invalidConfiguration,
                    "\(path).pixels.\(name): \(value) is outside 0...\(Self.maximumPixels) (no frame is larger)")
            }
        case .percent(let x, let y, let width, let height):
            for (name, value) in [("x", x), ("y", y), ("width", width), ("height", height)] {
                guard value.isFinite, value >= 0, value <= 100 else {
                    throw LumaScanError(.invalidConfiguration, "\(path).percent.\(name): \(value)% is outside 0...100%")
                }
            }
            guard width > 0, height > 0 else {
                throw LumaScanError(.invalidConfiguration, "\(path).percent: size \(width)% x \(height)% is empty")
            }
            guard x + width <= 100 else {
                throw LumaScanError(
                    .invalidConfiguration, "\(path).percent.width: x + width is \(x + width)%, above 100%")
            }
            guard y + height <= 100 else {
                throw LumaScanError(
                    .invalidConfiguration, "\(path).percent.height: y + height is \(y + height)%, above 100%")
            }
        }
    }

    private enum Kind: String, CodingKey {
        case pixels, percent
    }

    private enum Field: String, CodingKey, CaseIterable {
        case x, y, width, height
    }

    /// Decodes `{"pixels": {...}}` or `{"percent": {...}}`; any other key is an error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let path = decoder.codingPath.jsonPath
        try container.rejectUnknownKeys(allowed: ["pixels", "percent"], path: path)
        guard container.allKeys.count == 1, let key = container.allKeys.first,
            let kind = Kind(rawValue: key.stringValue)
        else {
            throw LumaScanError(.invalidConfiguration, "\(path): expected exactly one of \"pixels\" or \"percent\"")
        }
        let fields = try container.nestedContainer(keyedBy: AnyKey.self, forKey: key)
        try fields.rejectUnknownKeys(allowed: Field.allCases.map(\.rawValue), path: "\(path).\(kind.rawValue)")
        switch kind {
        case .pixels:
            func int(_ field: Field) throws -> Int { try fields.decodeInteger(forKey: AnyKey(field.rawValue)) }
            self = .pixels(Rect(x: try int(.x), y: try int(.y), width: try int(.width), height: try int(.height)))
        case .percent:
            func double(_ field: Field) throws -> Double {
                try fields.decode(Double.self, forKey: AnyKey(field.rawValue))
            }
            self = .percent(
                x: try double(.x), y: try double(.y), width: try double(.width), height: try double(.height))
        }
    }

    /// Encodes `{"pixels": {...}}` or `{"percent": {...}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .pixels(let rect):
            var fields = container.nestedContainer(keyedBy: Field.self, forKey: .pixels)
            try fields.encode(rect.x, forKey: .x)
            try fields.encode(rect.y, forKey: .y)
            try fields.encode(rect.width, forKey: .width)
            try fields.encode(rect.height, forKey: .height)
        case .percent(let x, let y, let width, let height):
            var fields = container.nestedContainer(keyedBy: Field.self, forKey: .percent)
            try fields.encode(x, forKey: .x)
            try fields.encode(y, forKey: .y)
            try fields.encode(width, forKey: .width)
            try fields.encode(height, forKey: .height)
        }
    }
}

/// The one coding key of the configuration types (see ``ConfigurationKeys/AnyKey``).
typealias AnyKey = ConfigurationKeys.AnyKey

extension Array where Element == any CodingKey {
    /// The JSON path of a barcode configuration's coding path: as it is inside a document, under `barcodeConfig` when
    /// the configuration was decoded on its own (see ``ConfigurationPath/string(_:under:standaloneRoot:)``).
    var jsonPath: String {
        ConfigurationPath.string(self, under: "barcodeConfig", standaloneRoot: "barcodeConfig")
    }
}
