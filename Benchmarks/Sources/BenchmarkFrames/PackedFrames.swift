import CBenchTurboJPEG
import LumaScan

/// A frame as a camera would deliver it in one of the formats LumaScan turns into luma.
public struct PackedFrame: @unchecked Sendable {
    // SAFETY (Sendable): the bytes are written once, at creation, and only read afterwards.
    /// The frame's layout.
    public let format: FrameFormat
    /// The frame's bytes (for MJPEG, the JPEG).
    public let bytes: UnsafeMutableRawBufferPointer

    /// `image` packed as YUYV 4:2:2 (luma in even bytes, neutral chroma), tight rows.
    public static func yuyv(_ image: LumaImage) -> PackedFrame {
        let format = FrameFormat(pixelFormat: .yuyv, width: image.width, height: image.height)
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: format.sizeImage, alignment: 64)
        image.withView { view in
            for row in 0..<view.height {
                for column in 0..<view.width {
                    bytes[row * format.bytesPerLine + 2 * column] = view[column, row]
                    bytes[row * format.bytesPerLine + 2 * column + 1] = 128
                }
            }
        }
        return PackedFrame(format: format, bytes: bytes)
    }

    /// `image` as a three-component YCbCr 4:2:2 JPEG of `quality`, as UVC cameras send MJPEG; `nil` if TurboJPEG
    /// fails.
    public static func mjpeg(_ image: LumaImage, quality: Int32 = 90) -> PackedFrame? {
        guard let handle = tjInitCompress() else { return nil }
        defer { tjDestroy(handle) }
        let rgb = image.pixels.flatMap { [$0, $0, $0] }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = rgb.withUnsafeBufferPointer { source in
            tjCompress2(
                handle, source.baseAddress, Int32(image.width), Int32(image.width * 3), Int32(image.height),
                Int32(TJPF_RGB.rawValue), &buffer, &size, Int32(TJSAMP_422.rawValue), quality, 0)
        }
        defer { tjFree(buffer) }
        guard result == 0, let buffer else { return nil }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(size), alignment: 64)
        bytes.copyMemory(from: UnsafeRawBufferPointer(start: buffer, count: Int(size)))
        let format = FrameFormat(
            pixelFormat: .mjpeg, width: image.width, height: image.height, bytesPerLine: 0, sizeImage: Int(size))
        return PackedFrame(format: format, bytes: bytes)
    }
}
