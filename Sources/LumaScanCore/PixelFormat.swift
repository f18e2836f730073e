/// A V4L2 pixel format, identified by its four-character code.
///
/// LumaScan reads luma from every format it knows: ``grey``, ``nv12`` and ``yu12`` in place, ``yuyv`` and ``uyvy`` by
/// extracting every second byte into a preallocated plane, and ``mjpeg`` by decoding the JPEG to grey only.
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    /// The four-character code as the kernel stores it (little-endian, first character in the low byte).
    public var fourcc: UInt32

    /// Creates a pixel format from its kernel four-character code.
    public init(fourcc: UInt32) { self.fourcc = fourcc }

    /// Creates a pixel format from four ASCII characters, such as `"YUYV"`; `nil` unless the string has exactly four
    /// ASCII characters.
    public init?(_ code: String) {
        let bytes = Array(code.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        fourcc = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    /// The four characters, such as `"YUYV"`.
    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: fourcc >> (8 * $0)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Packed 4:2:2, luma in even bytes (`Y0 U Y1 V`).
    public static let yuyv = PixelFormat("YUYV")!
    /// Packed 4:2:2, luma in odd bytes (`U Y0 V Y1`).
    public static let uyvy = PixelFormat("UYVY")!
    /// 8-bit grey: the whole buffer is luma.
    public static let grey = PixelFormat("GREY")!
    /// Planar 4:2:0 with interleaved chroma: a full luma plane first.
    public static let nv12 = PixelFormat("NV12")!
    /// Planar 4:2:0 (I420): a full luma plane first.
    public static let yu12 = PixelFormat("YU12")!
    /// Motion JPEG: each buffer is one JPEG image.
    public static let mjpeg = PixelFormat("MJPG")!
    /// Plain JPEG, as some drivers label MJPEG.
    public static let jpeg = PixelFormat("JPEG")!

    /// The formats LumaScan can turn into luma, in the order it prefers them when a camera offers several.
    public static let supported: [PixelFormat] = [.grey, .nv12, .yu12, .yuyv, .uyvy, .mjpeg, .jpeg]

    /// Whether LumaScan can read luma from this format.
    public var isSupported: Bool { Self.supported.contains(self) }

    /// Whether the luma of a frame in this format can be read in place, without extraction or decoding.
    public var hasLumaPlane: Bool { self == .grey || self == .nv12 || self == .yu12 }

    /// Whether frames in this format are compressed (their size varies per frame).
    public var isCompressed: Bool { self == .mjpeg || self == .jpeg }
}

/// The layout of the frames a source delivers.
public struct FrameFormat: Hashable, Sendable, CustomStringConvertible {
    /// The pixel format.
    public var pixelFormat: PixelFormat
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Bytes per row of the first plane (for packed formats, of the packed row); 0 for compressed formats.
    public var bytesPerLine: Int
    /// The largest size of one frame in bytes.
    public var sizeImage: Int

    /// Creates a frame format; `bytesPerLine` and `sizeImage` default to the tight layout of `pixelFormat`.
    public init(pixelFormat: PixelFormat, width: Int, height: Int, bytesPerLine: Int? = nil, sizeImage: Int? = nil) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        let tightLine: Int
        let tightSize: Int
        switch pixelFormat {
        case .yuyv, .uyvy:
            tightLine = width * 2
            tightSize = tightLine * height
        case .nv12, .yu12:
            tightLine = width
            tightSize = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        case .mjpeg, .jpeg:
            tightLine = 0
            tightSize = width * height * 2
        default:
            tightLine = width
            tightSize = width * height
        }
        self.bytesPerLine = bytesPerLine ?? tightLine
        self.sizeImage = sizeImage ?? tightSize
    }

    /// For example `"YUYV 640x480"`.
    public var description: String { "\(pixelFormat) \(width)x\(height)" }
}
