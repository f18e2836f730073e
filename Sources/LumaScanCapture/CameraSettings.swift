import LumaScanCore

/// What a ``V4L2Camera`` asks the device for when it starts.
///
/// Every setting is a preference the driver may adjust; ``V4L2Camera`` logs what was granted and exposes it as
/// ``V4L2Camera/format`` and ``V4L2Camera/grantedFrameRate``.
public struct CameraSettings: Hashable, Sendable {
    /// The pixel format to capture in; `nil` picks the first of ``PixelFormat/supported`` the device offers.
    ///
    /// A format the device does not offer natively fails ``V4L2Camera/start()`` with
    /// ``CaptureError/Code/unsupportedFormat``. Default: `nil`.
    public var pixelFormat: PixelFormat?
    /// The frame size to ask for; the nearest size the device supports wins. `nil` keeps the device's current size.
    /// Default: `nil`.
    public var size: Size?
    /// The frame rate to ask for (`VIDIOC_S_PARM`), in frames per second; `nil` leaves the driver's rate.
    /// Default: `nil`.
    public var fps: Double?
    /// How many buffers to request; the driver may grant a different number. Must be 1...32; 3 or more lets
    /// capture continue while frames are being processed. Default: 4.
    public var bufferCount: Int
    /// The video input to select (`VIDIOC_S_INPUT`) before setting the format; `nil` keeps the current input.
    /// Default: `nil`.
    public var input: Int?

    /// Creates camera settings.
    public init(
        pixelFormat: PixelFormat? = nil, size: Size? = nil, fps: Double? = nil, bufferCount: Int = 4, input: Int? = nil
    ) {
        self.pixelFormat = pixelFormat
        self.size = size
        self.fps = fps
        self.bufferCount = bufferCount
        self.input = input
    }

    /// The largest buffer count accepted.
    public static let maximumBufferCount = 32

    /// Throws ``CaptureError/Code/invalidArgument`` naming the first invalid setting.
    func validate(device: String) throws(CaptureError) {
        func invalid(_ text: String) -> CaptureError {
            CaptureError(.invalidArgument, device: device, message: "\(device): invalid camera settings: \(text)")
        }
        guard (1...Self.maximumBufferCount).contains(bufferCount) else {
            throw invalid("bufferCount \(bufferCount) is outside 1...\(Self.maximumBufferCount)")
        }
        if let size, size.width <= 0 || size.height <= 0 { throw invalid("size \(size) is empty") }
        if let fps, !(fps.isFinite && fps > 0 && fps <= 10_000) { throw invalid("fps \(fps) is not in (0, 10000]") }
        if let input, input < 0 { throw invalid("input \(input) is negative") }
    }
}
