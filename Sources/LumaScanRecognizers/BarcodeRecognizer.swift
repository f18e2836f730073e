import CLumaVision
import Logging
import LumaScanCore

/// Reads barcodes and QR codes with zbar, frame by frame, and reports each code once per appearance.
///
/// For each frame, every code read that passes the configuration's filters (enabled symbology, payload length,
/// region of interest, consistency count, duplicate interval) becomes a `.completedResult` / `.ok` report with the
/// symbology, the payload as text and bytes, and the code's polygon in frame pixels. When a frame yields no such
/// report, the recognizer makes exactly one `.inProgress` / `.unreadable` report — also when it read a code that
/// was filtered out (a duplicate, or one not yet read in enough frames).
///
/// Time is the frames' capture time (``FrameMetadata/captureTime``), so recorded or synthetic streams filter as a
/// live one would. See ``BarcodeConfiguration`` for the symbology conventions (UPC-A, ISBN).
///
/// Scanning a frame with no code allocates nothing on the Swift side: the result and payload buffers are allocated
/// once, and the caller keeps `reports`' capacity between frames.
public final class BarcodeRecognizer: Recognizer, @unchecked Sendable {
    // SAFETY (Sendable): the engine calls `process` and `reset` on its recognition thread only, one frame at a
    // time (see `Recognizer`); the mutable state (zbar scanner, buffers, tracks) is touched only from there.

    /// The recognizer's id (``BarcodeConfiguration/id``).
    public let id: String
    /// The configuration the recognizer was built with.
    public let configuration: BarcodeConfiguration

    /// How many results one frame can yield; further codes in the same frame are ignored.
    public static let maximumResultsPerFrame = 64
    /// Bytes of payload one frame can yield (a QR code holds at most 2953 bytes).
    static let payloadCapacity = 64 * 1024

    private let logger: Logger
    private let scanner: OpaquePointer
    private let results: UnsafeMutablePointer<lv_barcode_result>
    private let payloads: UnsafeMutablePointer<UInt8>
    private let enabled: Set<Symbology>
    private let duplicateNanoseconds: UInt64
    private var tracks: [TrackKey: Track] = [:]
    /// The index of the last frame this recognizer scanned, when it keeps tracks.
    private var previousFrame: UInt64?
    private var failures = 0
    private var qrDownscale: Int32 = 1
    private var density = BarcodeConfiguration.ScanDensity(x: 1, y: 1)

    private struct TrackKey: Hashable {
        var symbology: Symbology
        var bytes: [UInt8]
    }

    /// One code's current appearance.
    private struct Track {
        var lastSeen: MonotonicInstant
        var lastFrame: UInt64
        var reads: Int
        var reported: Bool
    }

    /// Builds a recognizer; throws ``LumaScanError`` (`.invalidConfiguration`) when ``BarcodeConfiguration/validate()``
    /// fails, or (`.unsupported`) when zbar cannot be set up.
    public init(configuration: BarcodeConfiguration = .init(), logger: Logger) throws {
        try configuration.validate()
        var created: OpaquePointer?
        let creation = lv_barcode_scanner_create(&created)
        guard creation == 0, let scanner = created else {
            throw LumaScanError(.unsupported, "barcode: cannot create the scanner (error \(creation))")
        }
        self.scanner = scanner
        self.configuration = configuration
        self.id = configuration.id
        self.logger = logger
        enabled = Set(configuration.symbologies)
        duplicateNanoseconds = UInt64(configuration.duplicateInterval * 1e9)
        // SAFETY: written only by the shim within the capacities passed with them, freed in deinit.
        results = .allocate(capacity: Self.maximumResultsPerFrame)
        payloads = .allocate(capacity: Self.payloadCapacity)
        tracks.reserveCapacity(16)

        var status = lv_barcode_scanner_disable_all(scanner)
        for symbology in Symbology.allCases where status == 0 {
            let isEnabled = enabled.contains(symbology)
            status = lv_barcode_scanner_configure(
                scanner, Self.zbarType(of: symbology), isEnabled ? 1 : 0,
                Int32(configuration.minLength[symbology] ?? -1), Int32(configuration.maxLength[symbology] ?? -1))
        }
        if status == 0 {
            status = lv_barcode_scanner_set_qr_prefilter(scanner, configuration.qrFinderPrefilter ? 1 : 0)
        }
        guard status == 0 else {
            // deinit does not run for a partly initialised object that throws, so free here.
            lv_barcode_scanner_destroy(scanner)
            results.deallocate()
            payloads.deallocate()
            throw LumaScanError(.unsupported, "barcode: zbar refused the configuration (\(status))")
        }
    }

    /// Reads QR codes whose modules the shrunk plane (``BarcodeConfiguration/qrDownscale`` above 1) blurs away at full
    /// resolution around the finder patterns it still shows (`lv_barcode_scanner_set_qr_full_resolution`). The
    /// secure-QR recognizer turns it on, so that a code too far away is read, and reported `TOO_SMALL`.
    func readSmallQRCodesAtFullResolution() throws(LumaScanError) {
        let status = lv_barcode_scanner_set_qr_full_resolution(scanner, 1)
        guard status == 0 else { throw LumaScanError(.unsupported, "\(id): zbar refused full-resolution QR reading") }
    }

    /// The first QR code the last frame showed but did not read, with ``readSmallQRCodesAtFullResolution()`` on:
    /// where its QR pass read nothing, the corners of the best code-shaped group of three finder patterns
    /// (`lv_barcode_scanner_unread_qr`; frame pixels, starting at the corner by the right-angle finder) and its module
    /// size in pixels. `nil` when there was none. Call it on the recognition thread, after ``process(_:metadata:into:)``.
    func unreadQRCode() -> (corners: (Float, Float, Float, Float, Float, Float, Float, Float), module: Float)? {
        var code: (Float, Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        let count = withUnsafeMutableBytes(of: &code) { raw in
            lv_barcode_scanner_unread_qr(scanner, raw.baseAddress?.assumingMemoryBound(to: Float.self), 1)
        }
        guard count > 0 else { return nil }
        return ((code.0, code.1, code.2, code.3, code.4, code.5, code.6, code.7), code.8)
    }

    deinit {
        lv_barcode_scanner_destroy(scanner)
        results.deallocate()
        payloads.deallocate()
    }

    /// Reads `luma` and appends its reports to `reports`; see the type's documentation for what is reported.
    public func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        let region = configuration.regionOfInterest?.rect(in: luma.size) ?? luma.bounds
        let before = reports.count
        defer {
            if reports.count == before {
                reports.append(ScanReport(.inProgress, .unreadable, recognizerID: id, frame: metadata))
            }
        }
        guard !region.isEmpty else { return }
        let downscale = Int32(
            configuration.qrDownscale ?? BarcodeConfiguration.automaticQRDownscale(forHeight: luma.height))
        if downscale != qrDownscale, lv_barcode_scanner_set_qr_downscale(scanner, downscale) == 0 {
            qrDownscale = downscale
        }
        let wanted = configuration.scanDensity ?? BarcodeConfiguration.automaticScanDensity(forHeight: luma.height)
        if wanted != density, lv_barcode_scanner_set_density(scanner, Int32(wanted.x), Int32(wanted.y)) == 0 {
            density = wanted
        }
        let scan = configuration.stillImage ? lv_barcode_scan_still : lv_barcode_scan
        // SAFETY: `luma` is valid for this call (LumaView's contract); the shim only reads it.
        let count = scan(
            scanner, luma.baseAddress, Int32(luma.width), Int32(luma.height), luma.stride, Int32(region.x),
            Int32(region.y), Int32(region.width), Int32(region.height), results, Int32(Self.maximumResultsPerFrame),
            payloads, Self.payloadCapacity)
        guard count >= 0 else {
            failures += 1
            if failures == 1 || failures % 1000 == 0 {
                logger.error(
                    "zbar scan failed",
                    metadata: ["status": "\(count)", "failures": "\(failures)", "recognizer": "\(id)"])
            }
            return
        }
        if !configuration.stillImage {
            expireTracks(now: metadata.captureTime)
        } else {
            // A still image is read on its own: parts of a sequence are assembled within the image, never across
            // images, so an image gives the same result whatever came before it.
            sequences.removeAll(keepingCapacity: true)
        }
        defer { if !configuration.stillImage { previousFrame = metadata.index } }
        // Readings that lost a disagreement, or that no reading won: gathered first, so that a winner (a reading zbar
        // confirmed on its own) carries them.
        var disagreement: [BarcodeReading.Alternative] = []
        var disagreementPolygon: [Point] = []
        var disputed = false
        for index in 0..<Int(count) where results[index].flags & Int32(LV_RESULT_CONFLICT) != 0 {
            let result = results[index]
            guard let symbology = Self.symbology(ofZBarType: result.symbology) else { continue }
            disagreement.append(BarcodeReading.Alternative(symbology: symbology, text: text(of: result)))
            if disagreementPolygon.isEmpty { disagreementPolygon = Self.polygon(of: result) }
        }
        for index in 0..<Int(count) {
            let result = results[index]
            guard let symbology = Self.symbology(ofZBarType: result.symbology), enabled.contains(symbology) else {
                continue
            }
            // SAFETY: the shim wrote each string at its offset..<offset + length, inside `payloads`.
            let bytes = Array(
                UnsafeBufferPointer(start: payloads + Int(result.data_offset), count: Int(result.data_length)))
            let text = text(of: result)
            let polygon = Self.polygon(of: result)
            // A reading that disagrees with another of the same bars is never reported as a code.
            if result.flags & Int32(LV_RESULT_CONFLICT) != 0 { continue }
            var reading = Self.reading(of: result, payloads: payloads)
            if result.flags & Int32(LV_RESULT_DISPUTED) != 0 {
                reading.disagreement = disagreement
                disputed = true
            }
            if let part = reading.structuredAppend, let partIndex = part.index {
                reports.append(
                    ScanReport(
                        .inProgress, .ok, recognizerID: id, frame: metadata, symbology: symbology, text: text,
                        bytes: bytes, polygon: polygon, detail: reading))
                guard
                    let message = assemble(
                        symbology: symbology, part: part, index: partIndex, bytes: bytes, text: text)
                else { continue }
                var whole = reading
                whole.structuredAppend = BarcodeReading.StructuredAppend(index: nil, count: part.count, id: part.id)
                if !configuration.stillImage
                    && !shouldReport(symbology: symbology, bytes: message.bytes, metadata: metadata)
                {
                    continue
                }
                reports.append(
                    ScanReport(
                        .completedResult, .ok, recognizerID: id, frame: metadata, symbology: symbology,
                        text: message.text, bytes: message.bytes, polygon: polygon, detail: whole))
                continue
            }
            if !configuration.stillImage && !shouldReport(symbology: symbology, bytes: bytes, metadata: metadata) {
                continue
            }
            logger.debug(
                "code read",
                metadata: ["recognizer": "\(id)", "symbology": "\(symbology.rawValue)", "frame": "\(metadata.index)"])
            reports.append(
                ScanReport(
                    .completedResult, .ok, recognizerID: id, frame: metadata, symbology: symbology, text: text,
                    bytes: bytes, polygon: polygon, detail: reading))
        }
        dropMessagesDecodedWhole(reports: &reports, from: before)
        if !disagreement.isEmpty && !disputed {
            logger.info(
                "readings disagree; none reported",
                metadata: [
                    "recognizer": "\(id)", "frame": "\(metadata.index)",
                    "readings": "\(disagreement.map { "\($0.symbology.rawValue):\($0.text)" })",
                ])
            reports.append(
                ScanReport(
                    .inProgress, .unreadable, recognizerID: id, frame: metadata, polygon: disagreementPolygon,
                    detail: BarcodeReading(decoders: [], passes: 0, disagreement: disagreement)))
        }
    }

    /// zbar joins the parts of a structured-append sequence it sees in one frame into one symbol without saying so;
    /// when the parts were also read and assembled here, that symbol is the same message reported twice: the
    /// assembled report (which says it is a sequence) is kept.
    private func dropMessagesDecodedWhole(reports: inout [ScanReport], from start: Int) {
        let assembled = reports[start...].filter {
            $0.reportType == .completedResult && $0.detail?.barcode?.structuredAppend != nil
        }
        guard !assembled.isEmpty else { return }
        var index = start
        while index < reports.count {
            let report = reports[index]
            let duplicate =
                report.reportType == .completedResult && report.detail?.barcode?.structuredAppend == nil
                && assembled.contains { $0.symbology == report.symbology && $0.bytes == report.bytes }
            if duplicate { reports.remove(at: index) } else { index += 1 }
        }
    }

    /// The parts of structured-append sequences seen so far, by symbology, id and count.
    private var sequences: [String: [Int: (bytes: [UInt8], text: String)]] = [:]

    /// Adds a part; returns the whole message once every part of its sequence has been seen (and forgets the
    /// sequence). At most 16 sequences are kept at once; a 17th starts the collection over.
    private func assemble(
        symbology: Symbology, part: BarcodeReading.StructuredAppend, index: Int, bytes: [UInt8], text: String
    ) -> (bytes: [UInt8], text: String)? {
        guard part.count > 1, part.count <= 256, index >= 0, index < part.count else { return nil }
        let key = "\(symbology.rawValue)/\(part.id)/\(part.count)"
        if sequences[key] == nil && sequences.count >= 16 { sequences.removeAll(keepingCapacity: true) }
        sequences[key, default: [:]][index] = (bytes, text)
        guard let parts = sequences[key], parts.count == part.count else { return nil }
        sequences[key] = nil
        let ordered = (0..<part.count).compactMap { parts[$0] }
        return (ordered.flatMap(\.bytes), ordered.map(\.text).joined())
    }

    /// A result's UTF-8 text.
    private func text(of result: lv_barcode_result) -> String {
        // SAFETY: the shim wrote the text at text_offset..<text_offset + text_length, inside `payloads`.
        String(
            decoding: UnsafeBufferPointer(start: payloads + Int(result.text_offset), count: Int(result.text_length)),
            as: UTF8.self)
    }

    /// A result's polygon in frame pixels.
    private static func polygon(of result: lv_barcode_result) -> [Point] {
        withUnsafeBytes(of: result.points) { raw in
            let floats = raw.bindMemory(to: Float.self)
            return (0..<Int(result.point_count)).map {
                Point(x: Double(floats[2 * $0]), y: Double(floats[2 * $0 + 1]))
            }
        }
    }

    /// The reading a shim result describes.
    private static func reading(
        of result: lv_barcode_result, payloads: UnsafeMutablePointer<UInt8>
    ) -> BarcodeReading {
        func string(_ offset: UInt32, _ length: UInt32) -> String {
            String(decoding: UnsafeBufferPointer(start: payloads + Int(offset), count: Int(length)), as: UTF8.self)
        }
        var decoders: [BarcodeReading.Decoder] = []
        if result.decoders & Int32(LV_DECODER_ZBAR) != 0 { decoders.append(.zbar) }
        if result.decoders & Int32(LV_DECODER_ZXING) != 0 { decoders.append(.zxing) }
        let charset = withUnsafeBytes(of: result.charset) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        var reading = BarcodeReading(
            decoders: decoders, passes: Int(result.passes), characterSet: charset,
            preprocessed: result.flags & Int32(LV_RESULT_PREPROCESSED) != 0)
        if result.addon_length > 0 { reading.addOn = string(result.addon_offset, result.addon_length) }
        if result.sequence_count > 0 && result.sequence_index >= 0 {
            reading.structuredAppend = BarcodeReading.StructuredAppend(
                index: Int(result.sequence_index), count: Int(result.sequence_count),
                id: string(result.sequence_id_offset, result.sequence_id_length))
        }
        return reading
    }

    /// Forgets every code seen, so each is reported again at its next consistent read.
    public func reset() {
        tracks.removeAll(keepingCapacity: true)
        sequences.removeAll(keepingCapacity: true)
        previousFrame = nil
    }

    /// Whether `track`'s appearance has ended by `now`: the code has not been read for longer than the duplicate
    /// interval and was missing from at least one frame scanned since. A code read in every frame scanned stays the
    /// same appearance however slow recognition is (frames seconds apart, as under emulation or on a loaded kiosk);
    /// with an interval of 0 every frame is a new appearance.
    private func hasEnded(_ track: Track, now: MonotonicInstant) -> Bool {
        guard now.since(track.lastSeen).nanosecondsClamped > duplicateNanoseconds else { return false }
        return duplicateNanoseconds == 0 || track.lastFrame != previousFrame
    }

    /// Drops the tracks of appearances that have ended (see ``hasEnded(_:now:)``). Allocates only when one is dropped.
    private func expireTracks(now: MonotonicInstant) {
        guard !tracks.isEmpty else { return }
        if tracks.values.contains(where: { hasEnded($0, now: now) }) {
            tracks = tracks.filter { !hasEnded($0.value, now: now) }
        }
    }

    /// Counts a read of a code in this frame; true when it is to be reported now.
    private func shouldReport(symbology: Symbology, bytes: [UInt8], metadata: FrameMetadata) -> Bool {
        let key = TrackKey(symbology: symbology, bytes: bytes)
        let now = metadata.captureTime
        let needed = configuration.consistency(for: symbology)
        if var track = tracks[key], !hasEnded(track, now: now) {
            // The same appearance: count each frame once (a frame can show the same code twice).
            guard track.lastFrame != metadata.index else { return false }
            track.lastSeen = now
            track.lastFrame = metadata.index
            track.reads += 1
            let report = !track.reported && track.reads >= needed
            if report { track.reported = true }
            tracks[key] = track
            return report
        }
        let report = needed <= 1
        tracks[key] = Track(lastSeen: now, lastFrame: metadata.index, reads: 1, reported: report)
        return report
    }

    /// zbar's symbol type for a symbology.
    package static func zbarType(of symbology: Symbology) -> Int32 {
        let value: Int
        switch symbology {
        case .ean13: value = LV_SYM_EAN13
        case .ean8: value = LV_SYM_EAN8
        case .upcA: value = LV_SYM_UPCA
        case .upcE: value = LV_SYM_UPCE
        case .isbn10: value = LV_SYM_ISBN10
        case .isbn13: value = LV_SYM_ISBN13
        case .code39: value = LV_SYM_CODE39
        case .code93: value = LV_SYM_CODE93
        case .code128: value = LV_SYM_CODE128
        case .interleaved2of5: value = LV_SYM_I25
        case .dataBar: value = LV_SYM_DATABAR
        case .dataBarExpanded: value = LV_SYM_DATABAR_EXP
        case .codabar: value = LV_SYM_CODABAR
        case .qrCode: value = LV_SYM_QRCODE
        case .microQR: value = LV_SYM_MICROQR
        case .dataMatrix: value = LV_SYM_DATAMATRIX
        case .pdf417: value = LV_SYM_PDF417
        case .aztec: value = LV_SYM_AZTEC
        case .maxiCode: value = LV_SYM_MAXICODE
        }
        return Int32(value)
    }

    /// The symbology of a zbar symbol type, or `nil` for one LumaScan does not report.
    package static func symbology(ofZBarType type: Int32) -> Symbology? {
        Symbology.allCases.first { zbarType(of: $0) == type }
    }
}
