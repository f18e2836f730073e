import CLumaBenchKit
import CLumaVision
import Glibc
import LumaScanCore
import LumaScanRecognizers

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

    private let baseline: OpaquePointer
    private let buffers = BaselineBuffers()

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
        var created: OpaquePointer?
        let status = lv_zbar_baseline_create(&created)
        guard status == 0, let baseline = created else {
            throw LumaScanError(.unsupported, "zbar baseline: cannot create a zbar image scanner (error \(status))")
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
    }

    deinit { lv_zbar_baseline_destroy(baseline) }

    /// Scans `luma` once and returns how many codes zbar decoded (0 when it failed, which it only does when memory ran
    /// out). Allocates nothing on the Swift side; ``results`` then lists what was read.
    @discardableResult
    public func scan(_ luma: LumaView) -> Int {
        let count = buffers.fill { results, maximum, payloads, capacity in
            lv_zbar_baseline_scan(
                baseline, luma.baseAddress, Int32(luma.width), Int32(luma.height), luma.stride, results, maximum,
                payloads, capacity)
        }
        return max(0, Int(count))
    }

    /// The codes the last ``scan(_:)`` read (at most 64), in zbar's order.
    public var results: [Result] { buffers.codes() }
}

/// Raw ZXing-C++, as its own reader runs it, to measure LumaScan's barcode recognizer against on the same frames.
///
/// Each ``scan(_:)`` is one `ZXing::ReadBarcodes` call over the whole frame with default hints (every format, try
/// harder, try rotate, try downscale), borrowing the view's memory. Nothing ``BarcodeRecognizer`` adds is applied.
/// `lumascan bench` uses it beside ``ZBarBaseline``. Debian's ZXing-C++ 1.4 fails some of its own assertions (which
/// would abort `ZXingReader`); such a frame counts as read with nothing, and ``assertionFailures`` counts it.
///
/// Use one baseline from one thread at a time.
public final class ZXingBaseline: @unchecked Sendable {
    // SAFETY (Sendable): the reader state and the result buffers are used by one thread at a time, as documented.

    /// The symbologies the reader was restricted to, or `nil` for every format ZXing-C++ reads.
    public let symbologies: [Symbology]?
    /// Frames on which ZXing-C++ failed one of its own assertions (read as nothing).
    public private(set) var assertionFailures = 0

    private let baseline: OpaquePointer
    private let buffers = BaselineBuffers()

    /// Creates a baseline with ZXing-C++'s default hints, or restricted to the formats of `symbologies` (those
    /// ZXing-C++ reads; the others are left out, as `ZXingReader -format` cannot name them).
    ///
    /// - Throws: ``LumaScanError`` (`.unsupported`) when ZXing-C++ cannot be set up, (`.invalidConfiguration`) when
    ///   none of `symbologies` is a format ZXing-C++ reads.
    public init(symbologies: [Symbology]? = nil) throws(LumaScanError) {
        var created: OpaquePointer?
        let status = lv_zxing_baseline_create(&created)
        guard status == 0, let baseline = created else {
            throw LumaScanError(.unsupported, "ZXing-C++ baseline: cannot create a reader (error \(status))")
        }
        if let symbologies {
            let types = symbologies.map(BarcodeRecognizer.zbarType(of:)).filter { type in
                lv_zxing_baseline_restrict(baseline, [type], 1) == 0
            }
            let status = types.withUnsafeBufferPointer {
                lv_zxing_baseline_restrict(baseline, $0.baseAddress, Int32($0.count))
            }
            guard !types.isEmpty, status == 0 else {
                lv_zxing_baseline_destroy(baseline)
                throw LumaScanError(.invalidConfiguration, "ZXing-C++ baseline: it reads none of \(symbologies)")
            }
        }
        self.baseline = baseline
        self.symbologies = symbologies
    }

    deinit { lv_zxing_baseline_destroy(baseline) }

    /// Reads `luma` once and returns how many codes ZXing-C++ decoded. Allocates nothing on the Swift side;
    /// ``results`` then lists what was read.
    @discardableResult
    public func scan(_ luma: LumaView) -> Int {
        let count = buffers.fill { results, maximum, payloads, capacity in
            lv_zxing_baseline_scan(
                baseline, luma.baseAddress, Int32(luma.width), Int32(luma.height), luma.stride, results, maximum,
                payloads, capacity)
        }
        if count == -EFAULT { assertionFailures += 1 }
        return max(0, Int(count))
    }

    /// The codes the last ``scan(_:)`` read (at most 64), in ZXing-C++'s order, as zbar would name them.
    public var results: [ZBarBaseline.Result] { buffers.codes() }
}

/// The result and payload buffers a baseline's C shim fills, allocated once.
private final class BaselineBuffers {
    static let maximumResults = 64
    static let payloadCapacity = 64 * 1024
    let results = UnsafeMutablePointer<lv_barcode_result>.allocate(capacity: maximumResults)
    let payloads = UnsafeMutablePointer<UInt8>.allocate(capacity: payloadCapacity)
    var stored = 0

    deinit {
        results.deallocate()
        payloads.deallocate()
    }

    /// Runs a baseline's scan into the buffers (`scan(results, maximum, payloads, capacity)` returns a count or a
    /// negative errno) and keeps what it stored; returns the scan's status, 0 and up or negative.
    func fill(
        _ scan: (UnsafeMutablePointer<lv_barcode_result>, Int32, UnsafeMutablePointer<UInt8>, Int) -> Int32
    ) -> Int32 {
        let count = scan(results, Int32(Self.maximumResults), payloads, Self.payloadCapacity)
        stored = count > 0 ? min(Int(count), Self.maximumResults) : 0
        return count
    }

    /// The stored results as codes.
    func codes() -> [ZBarBaseline.Result] {
        (0..<stored).map { index in
            let result = results[index]
            // SAFETY: the shim wrote this payload at data_offset..<data_offset + data_length, inside `payloads`.
            let bytes = Array(
                UnsafeBufferPointer(start: payloads + Int(result.data_offset), count: Int(result.data_length)))
            return ZBarBaseline.Result(
                symbology: BarcodeRecognizer.symbology(ofZBarType: result.symbology),
                zbarName: String(cString: lv_barcode_symbology_name(result.symbology)), bytes: bytes)
        }
    }
}
