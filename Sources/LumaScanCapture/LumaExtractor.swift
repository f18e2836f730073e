import CLumaCapture
import LumaScanCore

/// Reads the luma (grey) image of frames in one format; the extractor itself allocates nothing per frame.
///
/// - GREY, NV12 and YU12: the view points into the frame's buffer itself (their first plane is luma), with the
///   format's bytes per line as its stride. Nothing is copied.
/// - YUYV and UYVY: every second byte is copied into a plane the extractor allocated once.
/// - MJPEG and JPEG: the JPEG is decoded to grey only (TurboJPEG, no chroma work) into that plane. (libjpeg still
///   takes a little working memory per image from its own allocator.) Frames without Huffman tables, as UVC cameras
///   send them, decode with the standard tables.
///
/// A view is valid until the next call to ``luma(of:bytesUsed:)`` and, for in-place formats, while the frame's buffer
/// is held. Use one extractor from one thread at a time (the engine keeps one on its recognition thread).
public final class LumaExtractor {
    /// The format of the frames this extractor reads.
    public let format: FrameFormat
    /// The name errors give for the frames' source, such as `/dev/video0`.
    public let sourceName: String
    /// Whether a JPEG that decodes completely but with a decoder warning (corrupt data the decoder worked around, such
    /// as extraneous bytes before a marker, which some UVC cameras add to every frame) is used rather than rejected.
    public let acceptsJPEGWarnings: Bool

    private let stride: Int
    private let plane: UnsafeMutablePointer<UInt8>?
    private let planeStride: Int
    private let decoder: OpaquePointer?
    /// Why the extractor cannot read this format; thrown by every call.
    private let setupError: CaptureError?

    /// Creates an extractor for `format`, allocating the plane (YUYV, UYVY, MJPEG, JPEG) and the JPEG decoder
    /// (MJPEG, JPEG) up front.
    ///
    /// A format the extractor cannot read (an unsupported pixel format, an empty size, fewer bytes per line than a
    /// row needs) makes every ``luma(of:bytesUsed:)`` call throw ``CaptureError/Code/unsupportedFormat``.
    ///
    /// - Parameters:
    ///   - format: the frames' layout.
    ///   - sourceName: the name errors give for the frames' source. Default: `"frame"`.
    ///   - acceptsJPEGWarnings: see ``acceptsJPEGWarnings``. Default: `false`, so damaged frames are skipped.
    public init(format: FrameFormat, sourceName: String = "frame", acceptsJPEGWarnings: Bool = false) {
        self.format = format
        self.sourceName = sourceName
        self.acceptsJPEGWarnings = acceptsJPEGWarnings
        let pixelFormat = format.pixelFormat
        let tight = FrameFormat(pixelFormat: pixelFormat, width: format.width, height: format.height)
        stride = format.bytesPerLine > 0 ? format.bytesPerLine : tight.bytesPerLine
        planeStride = format.width
        func unsupported(_ reason: String) -> CaptureError {
            CaptureError(
                .unsupportedFormat, device: sourceName,
                message: "\(sourceName): cannot read luma from \(format): \(reason)")
        }
        let (pixels, overflow) = format.width.multipliedReportingOverflow(by: format.height)
        if !pixelFormat.isSupported {
            setupError = unsupported("LumaScan does not read this pixel format")
        } else if format.width <= 0 || format.height <= 0 || overflow || pixels > 1 << 28 {
            setupError = unsupported("the frame size is empty or too large")
        } else if !pixelFormat.isCompressed && stride < tight.bytesPerLine {
            setupError = unsupported("\(stride) bytes per line is less than a row needs (\(tight.bytesPerLine))")
        } else {
            setupError = nil
        }
        let needsPlane = setupError == nil && !pixelFormat.hasLumaPlane
        plane = needsPlane ? UnsafeMutablePointer<UInt8>.allocate(capacity: pixels) : nil
        var created: OpaquePointer?
        if needsPlane && pixelFormat.isCompressed { _ = lc_jpeg_decoder_create(&created) }
        decoder = created
        if needsPlane, let plane { plane.initialize(repeating: 0, count: pixels) }
    }

    deinit {
        plane?.deallocate()
        lc_jpeg_decoder_destroy(decoder)
    }

    /// The luma of the frame in `bytes`, of which the first `bytesUsed` are the frame.
    ///
    /// - Throws: ``CaptureError/Code/corruptFrame`` for a buffer shorter than the format needs or a corrupt or
    ///   truncated JPEG (the engine counts and skips such frames); ``CaptureError/Code/unsupportedFormat`` when the
    ///   extractor cannot read its format.
    public func luma(of bytes: UnsafeRawBufferPointer, bytesUsed: Int) throws(CaptureError) -> LumaView {
        if let setupError { throw setupError }
        let available = min(max(bytesUsed, 0), bytes.count)
        guard let base = bytes.baseAddress, available > 0 else { throw corrupt("the buffer is empty") }
        let width = format.width
        let height = format.height
        switch format.pixelFormat {
        case .grey, .nv12, .yu12:
            let needed = stride * (height - 1) + width
            guard available >= needed else {
                throw corrupt("\(available) bytes, but the luma plane needs \(needed)")
            }
            // SAFETY: the frame's bytes are plain bytes; the view covers `needed` of the `available` checked above.
            let pixels = UnsafeRawPointer(base).bindMemory(to: UInt8.self, capacity: needed)
            return LumaView(baseAddress: pixels, width: width, height: height, stride: stride)
        case .yuyv, .uyvy:
            let needed = stride * (height - 1) + 2 * width
            guard available >= needed else { throw corrupt("\(available) bytes, but the frame needs \(needed)") }
            guard let plane else { throw corrupt("no plane") }
            // SAFETY: the source holds `needed` bytes (checked above) and the plane width * height, allocated in init.
            lc_extract_luma_packed(
                base, stride, Int32(width), Int32(height), format.pixelFormat == .uyvy ? 1 : 0, plane, planeStride)
            return LumaView(baseAddress: plane, width: width, height: height, stride: planeStride)
        default:
            guard let plane, let decoder else {
                throw CaptureError(
                    .other, device: sourceName, message: "\(sourceName): the JPEG decoder could not be created")
            }
            // SAFETY: the decoder reads `available` bytes of the buffer and writes at most width * height bytes of
            // the plane; it checks the JPEG's size against width and height first.
            let result = lc_jpeg_decode_grey(decoder, base, available, plane, planeStride, Int32(width), Int32(height))
            if result == 0 || (result == LC_JPEG_EWARNING && acceptsJPEGWarnings) {
                return LumaView(baseAddress: plane, width: width, height: height, stride: planeStride)
            }
            let reason = lc_jpeg_decoder_error(decoder).map { String(cString: $0) } ?? "error \(result)"
            throw corrupt("\(reason) (\(available) bytes, decoder code \(result))")
        }
    }

    private func corrupt(_ reason: String) -> CaptureError {
        CaptureError(.corruptFrame, device: sourceName, message: "\(sourceName): corrupt \(format) frame: \(reason)")
    }
}
