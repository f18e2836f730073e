/// A point in frame pixels (or, where documented, normalised to 0–1).
public struct Point: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Horizontal coordinate, growing to the right.
    public var x: Double
    /// Vertical coordinate, growing downwards.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// `"(x, y)"`.
    public var description: String { "(\(x), \(y))" }
}

/// A size in pixels.
public struct Size: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `"WxH"`.
    public var description: String { "\(width)x\(height)" }
}

/// An axis-aligned rectangle in whole pixels, with its origin at the top left.
public struct Rect: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The largest coordinate or size a configuration may give in frame pixels (a region of interest, a cutout's
    /// offsets and padding): four times the largest frame LumaScan captures or replays (16384 a side), so that any
    /// value that validates is computed without overflow and a larger one could only lie off every frame.
    public static let maximumConfiguredPixels = 65536

    /// Left edge.
    public var x: Int
    /// Top edge.
    public var y: Int
    /// Width; never negative in a rectangle LumaScan returns.
    public var width: Int
    /// Height; never negative in a rectangle LumaScan returns.
    public var height: Int

    /// Creates a rectangle.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// One past the right edge, saturating at `Int.max` / `Int.min` (a rectangle decoded from a configuration may sit
    /// anywhere; its edges must not trap).
    public var maxX: Int { Self.saturatingSum(x, width) }
    /// One past the bottom edge, saturating like ``maxX``.
    public var maxY: Int { Self.saturatingSum(y, height) }

    private static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? Int.max : Int.min
    }
    /// Whether the rectangle covers no pixel.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The part of this rectangle inside `other`; empty (with zero size) when they do not overlap.
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return Rect(x: left, y: top, width: 0, height: 0) }
        // right - left exceeds Int.max only when both rectangles span more than the integer range (a very negative
        // origin with a saturated edge): the size is then clamped, never trapped on.
        let (width, wide) = right.subtractingReportingOverflow(left)
        let (height, tall) = bottom.subtractingReportingOverflow(top)
        return Rect(x: left, y: top, width: wide ? Int.max : width, height: tall ? Int.max : height)
    }

    /// Whether `other` lies entirely inside this rectangle.
    public func contains(_ other: Rect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    /// `"WxH+X+Y"`, as X11 geometry strings read.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
