import CLumaVision
import LumaScanCore

/// Raw zbar, configured as its own tools configure it, to measure LumaScan's recognizers against on the same frames.
///
/// Each ``scan(_:)`` is one `zbar_scan_image` call over the whole frame with zbar's default configuration: every
/// symbology and feature zbar has (`zbar_image_scanner_set_config(scanner, 0, ZBAR_CFG_ENABLE, 1)`, as `zbarimg`
/// does), scan density 1, 1, no region, no filtering. Nothing ``BarcodeRecognizer`` adds (averaged scan lines, QR
/// downscaling, consistency and duplicate filters) is applied, so timing both on the same ``LumaView`` gives the
/// recognizer's speed as a ratio against zbar. `lumascan bench` and the `Benchmarks` package both use it.
///
/// zbar borrows the view's memory (no copy) when its rows are tight (`stride == width`); padded rows are copied tight
/// first, into scratch memory kept between scans, because zbar takes no row stride.
///
/// Use one baseline from one thread at a time: zbar keeps per-scanner state.
public final class ZBarBaseline: @unchecked Sendable {
    // SAFETY (Sendable): the zbar scanner and the result buffers are used by one thread at a time, as documented.

    /// One code zbar read.
    public struct Result: Hashable, Sendable {
        /// The LumaScan symbology, or `nil` for a zbar symbology LumaScan does not name (SQ code, EAN-2/-5 add-ons).
        public var symbology: Symbology?
        /// zbar's name for the symbology (`"EAN-13"`, `"QR-Code"`, ...).
        public var zbarName: String
        /// The payload's bytes, as zbar reported them.
        public var bytes: [UInt8]
        /// The payload as UTF-8 text.
        public var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// The symbologies the scanner was restricted to, or `nil` for zbar's defaults (everything).
    public let symbologies: [Symbology]?

    private static let maximumResults = 64
    private static let payloadCapacity = 64 * 1024

    private let baseline: OpaquePointer
    private let resultBuffer: UnsafeMutablePointer<lv_barcode_result>
    private let payloads: UnsafeMutablePointer<UInt8>
    private var stored = 0

    /// Creates a baseline scanner with zbar's defaults, or restricted to `symbologies` (as
    /// `zbarimg --set '*.enable=0' --set qrcode.enable=1` would be, for a fair comparison with a recognizer configured
    /// for those symbologies only).
    ///
    /// - Throws: ``LumaScanError`` (`.unsupported`) when zbar cannot be set up, (`.invalidConfiguration`) for an empty
    ///   `symbologies`.
    public init(symbologies: [Symbology]? = nil) throws(LumaScanError) {
        if let symbologies, symbologies.isEmpty {
            throw LumaScanError(.invalidConfiguration, "zbar baseline: enable at least one symbology")
        }
        guard let baseline = lv_zbar_baseline_create() else {
            throw LumaScanError(.unsupported, "zbar baseline: cannot create a zbar image scanner")
        }
        if let symbologies {
            let types = symbologies.map(BarcodeRecognizer.zbarType(of:))
            let status = types.withUnsafeBufferPointer {
                lv_zbar_baseline_restrict(baseline, $0.baseAddress, Int32($0.count))
            }
            guard status == 0 else {
                lv_zbar_baseline_destroy(baseline)
                throw LumaScanError(.unsupported, "zbar baseline: zbar refused the symbologies (\(status))")
            }
        }
        self.baseline = baseline
        self.symbologies = symbologies
        resultBuffer = .allocate(capacity: Self.maximumResults)
        payloads = .allocate(capacity: Self.payloadCapacity)
    }

    deinit {
        lv_zbar_baseline_destroy(baseline)
        resultBuffer.deallocate()
        payloads.deallocate()
    }

    /// Scans `luma` once and returns how many codes zbar decoded (0 when it failed, which it only does when memory ran
    /// out). Allocates nothing on the Swift side; ``results`` then lists what was read.
    @discardableResult
    public func scan(_ luma: LumaView) -> Int {
        let count = lv_zbar_baseline_scan(
            baseline, luma.baseAddress, Int32(luma.width), Int32(luma.height), luma.stride, resultBuffer,
            Int32(Self.maximumResults), payloads, Self.payloadCapacity)
        stored = count > 0 ? min(Int(count), Self.maximumResults) : 0
        return max(0, Int(count))
    }

    /// The codes the last ``scan(_:)`` read (at most 64), in zbar's order.
    public var results: [Result] {
        (0..<stored).map { index in
            let result = resultBuffer[index]
            let bytes = Array(
                UnsafeBufferPointer(start: payloads + Int(result.data_offset), count: Int(result.data_length)))
            return Result(
                symbology: BarcodeRecognizer.symbology(ofZBarType: result.symbology),
                zbarName: String(cString: lv_barcode_symbology_name(result.symbology)), bytes: bytes)
        }
    }
}
