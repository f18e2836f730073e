/// The pixel budget every image decoder and recording reader applies: an image or frame declaring more pixels is
/// refused from its header, before its pixels are allocated.
///
/// The values are CLumaVision's `LV_IMAGE_DEFAULT_MAX_PIXELS` and `LV_IMAGE_MAX_PIXELS_LIMIT` (a test checks that they
/// agree), here so that modules that do not link the C decoders (the recording reader, its fuzz target) use the same
/// numbers.
public enum PixelBudget {
    /// The default budget: 64 MP (2^26, 8192 x 8192).
    public static let defaultMaxPixels = 1 << 26
    /// The largest budget there is: 2^30 (a larger one is lowered to it).
    public static let limit = 1 << 30
}
