/// A borrowed view of an 8-bit luma (grey) image: width, height, row stride and the memory it lives in.
///
/// A luma view never owns its pixels. It points into a capture buffer (for GREY, NV12 and YU12 frames), into a
/// recognizer-owned plane (for YUYV, UYVY and MJPEG frames), or into memory a test or image source owns. It is valid
/// only for the duration of the call it is handed to; a recognizer that needs pixels later copies what it needs into
/// its own scratch buffers.
public struct LumaView {
    /// The first pixel of the first row.
    public let baseAddress: UnsafePointer<UInt8>
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from the start of one row to the start of the next; at least `width`.
    public let stride: Int

    /// Creates a view over memory that holds at least `stride * (height - 1) + width` bytes.
    public init(baseAddress: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) {
        precondition(width >= 0 && height >= 0 && stride >= width, "invalid luma geometry \(width)x\(height)/\(stride)")
        self.baseAddress = baseAddress
        self.width = width
        self.height = height
        self.stride = stride
    }

    /// The image's size.
    public var size: Size { Size(width: width, height: height) }

    /// The whole image as a rectangle at the origin.
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// The pixel at column `x`, row `y`; both must lie inside the image.
    @inlinable
    public subscript(x: Int, y: Int) -> UInt8 {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
        return baseAddress[y * stride + x]
    }

    /// A view of the part of this image inside `rect` (clamped to the image), sharing its memory: no pixel is copied.
    ///
    /// Returns `nil` when the clamped rectangle is empty.
    public func cropped(to rect: Rect) -> LumaView? {
        let clamped = rect.intersection(bounds)
        guard !clamped.isEmpty else { return nil }
        return LumaView(
            baseAddress: baseAddress + clamped.y * stride + clamped.x, width: clamped.width, height: clamped.height,
            stride: stride)
    }
}

/// An owned, contiguous 8-bit luma image, for image files, test generators and recognizers' scratch planes.
///
/// Its storage is allocated once, at creation; ``withView(_:)`` lends it out as a ``LumaView``.
public final class LumaImage: @unchecked Sendable {
    // SAFETY (Sendable): the pixels are written only by the owner before the image is shared, or through
    // `withMutablePixels`, which the owner calls on one thread at a time; this is documented on that method.
    private let storage: UnsafeMutablePointer<UInt8>
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Row stride in bytes (equal to `width`).
    public var stride: Int { width }

    /// Creates an image of the given size filled with `value`.
    public init(width: Int, height: Int, fill value: UInt8 = 0) {
        precondition(width >= 0 && height >= 0, "negative image size")
        self.width = width
        self.height = height
        storage = .allocate(capacity: max(1, width * height))
        storage.initialize(repeating: value, count: max(1, width * height))
    }

    /// Creates an image by copying `pixels`, which must hold `width * height` bytes row by row.
    public convenience init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "\(pixels.count) pixels for \(width)x\(height)")
        self.init(width: width, height: height)
        pixels.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { storage.update(from: base, count: buffer.count) }
        }
    }

    /// Creates an image by copying the pixels a view shows.
    public convenience init(copying view: LumaView) {
        self.init(width: view.width, height: view.height)
        for row in 0..<view.height {
            (storage + row * width).update(from: view.baseAddress + row * view.stride, count: view.width)
        }
    }

    deinit { storage.deallocate() }

    /// Lends the image out as a view for the duration of `body`.
    public func withView<R, E: Error>(_ body: (LumaView) throws(E) -> R) throws(E) -> R {
        try body(LumaView(baseAddress: storage, width: width, height: height, stride: width))
    }

    /// Lends the pixels out for writing, row by row with stride ``stride``.
    ///
    /// - Important: Call it from one thread at a time, and not while a view lent by ``withView(_:)`` is in use.
    public func withMutablePixels<R, E: Error>(
        _ body: (UnsafeMutableBufferPointer<UInt8>) throws(E) -> R
    ) throws(E)
        -> R
    {
        try body(UnsafeMutableBufferPointer(start: storage, count: width * height))
    }

    /// The pixel at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> UInt8 {
        get { storage[y * width + x] }
        set { storage[y * width + x] = newValue }
    }

    /// A copy of all pixels, row by row.
    public var pixels: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: width * height)) }
}

/// Images compare and hash by content (so that a value holding one, such as a meter reading's crop, stays `Hashable`):
/// do not change the pixels of an image that is a set's member or a dictionary's key.
extension LumaImage: Hashable {
    /// Whether two images have the same size and the same pixels.
    public static func == (lhs: LumaImage, rhs: LumaImage) -> Bool {
        if lhs === rhs { return true }
        guard lhs.width == rhs.width, lhs.height == rhs.height else { return false }
        let count = lhs.width * lhs.height
        return UnsafeBufferPointer(start: lhs.storage, count: count).elementsEqual(
            UnsafeBufferPointer(start: rhs.storage, count: count))
    }

    /// Hashes the size and the pixels.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(bytes: UnsafeRawBufferPointer(start: storage, count: width * height))
    }
}
