import CLumaVision
import LumaScanCore

#if canImport(Glibc)
import Glibc
#endif

/// Whether and how a ``SecureQRRecognizer`` scores the authenticity of the issuer's codes on the device: the
/// configuration's `authenticity` object.
///
/// With a key, each code's CDP seed is `HMAC-SHA256(key, payload)` (its first 8 bytes, big-endian), so the recognizer
/// regenerates the pattern the issuer printed and compares the capture with it (``SecureQRAuthenticity``). Anyone who
/// holds the key can print originals: see `docs/secure-qr.md`, "Authenticity", for the trust model.
public struct SecureQRAuthenticityConfiguration: Hashable, Sendable, Codable {
    /// The file holding the issuer's secret key: its bytes, exactly as stored (no newline is stripped), 1 to 4096 of
    /// them; 32 random bytes (`head -c 32 /dev/urandom`) are recommended. The same file must be given to
    /// `lumascan secure-qr generate --key-file` when the originals are made.
    ///
    /// Default: `nil` — no authenticity score.
    public var keyFile: String?

    /// The score (``SecureQRAuthenticity/score``) from which a capture is `genuine`; below it, `copy`. It depends on
    /// the printer, the paper and the camera: fit it with `lumascan secure-qr calibrate` on captures of real originals
    /// and copies. The default is the equal-error-rate point between originals and first-generation copies in
    /// LumaScan's print-and-capture simulation (`scripts/eval-copy-detection.sh`), rounded; a real printer and
    /// camera will want another.
    ///
    /// Default: `0.92`.
    public var threshold: Double

    /// Creates a configuration; every parameter has the default its property documents.
    public init(keyFile: String? = nil, threshold: Double = 0.92) {
        self.keyFile = keyFile
        self.threshold = threshold
    }

    /// Checks the values and reads the key file; the error's message starts with `path` and the key's name.
    public func validate(path: String) throws(LumaScanError) {
        guard threshold.isFinite, (-1...1).contains(threshold) else {
            throw LumaScanError(.invalidConfiguration, "\(path).threshold: \(threshold) is outside -1...1")
        }
        if keyFile != nil { _ = try key(path: path) }
    }

    /// The issuer's key read from ``keyFile``, or `nil` without one; errors name `path`.keyFile.
    func key(path: String) throws(LumaScanError) -> SecureQRIssuerKey? {
        guard let keyFile else { return nil }
        do {
            return try SecureQRIssuerKey(contentsOfFile: keyFile)
        } catch {
            throw LumaScanError(.invalidConfiguration, "\(path).keyFile: \(error.message)")
        }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case keyFile, threshold }

    /// Decodes a configuration: missing keys take their defaults; unknown keys are errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = SecureQRAuthenticityConfiguration()
        keyFile = try container.decodeIfPresent(String.self, forKey: .keyFile)
        threshold = try container.decodeIfPresent(Double.self, forKey: .threshold) ?? defaults.threshold
    }
}

/// An issuer's secret key, from which each code's CDP seed is derived: `HMAC-SHA256(key, payload)`, its first 8 bytes
/// read big-endian (OpenSSL's libcrypto, through the vision shim).
public struct SecureQRIssuerKey: Sendable {
    /// The most bytes a key file may hold; a larger file is more likely the wrong file than a key.
    public static let maximumLength = 4096

    private let bytes: [UInt8]

    /// A key of `bytes` (1 to ``maximumLength`` of them); throws ``LumaScanError`` (`.invalidConfiguration`) otherwise.
    public init(bytes: [UInt8]) throws(LumaScanError) {
        guard !bytes.isEmpty else { throw LumaScanError(.invalidConfiguration, "the key is empty") }
        guard bytes.count <= Self.maximumLength else {
            throw LumaScanError(
                .invalidConfiguration, "the key has \(bytes.count) bytes, more than \(Self.maximumLength)")
        }
        self.bytes = bytes
    }

    /// The key stored in the file at `path`: its bytes exactly as stored. Throws ``LumaScanError``
    /// (`.invalidConfiguration`) naming the file when it cannot be read, is empty or is larger than
    /// ``maximumLength``.
    public init(contentsOfFile path: String) throws(LumaScanError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LumaScanError(.invalidConfiguration, "cannot read \"\(path)\": \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while contents.count <= Self.maximumLength {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw LumaScanError(
                    .invalidConfiguration, "cannot read \"\(path)\": \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            contents += chunk[..<count]
        }
        do {
            try self.init(bytes: contents)
        } catch {
            throw LumaScanError(.invalidConfiguration, "\"\(path)\": \(error.message)")
        }
    }

    /// The CDP seed of the code whose payload is `payload`.
    public func seed(for payload: [UInt8]) -> UInt64 {
        var seed: UInt64 = 0
        let status = bytes.withUnsafeBufferPointer { key in
            payload.withUnsafeBufferPointer { message in
                lv_sqr_seed_from_key(key.baseAddress, key.count, message.baseAddress, message.count, &seed)
            }
        }
        // The key is never empty and the payload's pointer is valid, so only libcrypto itself could fail; it does not
        // for SHA-256, which OpenSSL always provides.
        precondition(status == 0, "HMAC-SHA256 failed (\(status))")
        return seed
    }

    /// The CDP seed of the code whose payload is the text `payload` (its UTF-8 bytes).
    public func seed(for payload: String) -> UInt64 { seed(for: Array(payload.utf8)) }
}

/// Scores captured secure graphics against the CDP regenerated from a seed, with scratch buffers reused from call to
/// call (one per recognizer, used from one thread at a time).
final class SecureQRAuthenticator {
    private let handle: OpaquePointer

    init() throws(LumaScanError) {
        var created: OpaquePointer?
        let status = lv_sqr_authenticator_create(&created)
        guard status == 0, let handle = created else {
            throw LumaScanError(.unsupported, "cannot create the secure-QR authenticator (error \(status))")
        }
        self.handle = handle
    }

    deinit { lv_sqr_authenticator_destroy(handle) }

    /// The secure graphic of the code located by `geometry` in `luma` compared with the CDP of `seed`; `nil` when it
    /// cannot be compared (the secure graphic or the finder pattern out of the frame), with the status in `status`.
    func score(
        _ luma: LumaView, geometry: SecureQRGeometry, design: inout lv_sqr_design, seed: UInt64, threshold: Double,
        status: inout Int32
    ) -> SecureQRAuthenticity? {
        var result = lv_sqr_authenticity()
        status = geometry.homography.withUnsafeBufferPointer { homography in
            lv_sqr_authenticate(
                handle, luma.baseAddress, Int32(luma.width), Int32(luma.height), luma.stride, homography.baseAddress,
                Int32(geometry.modules), &design, seed, &result)
        }
        guard status == 0 else { return nil }
        return SecureQRAuthenticity(
            ncc: result.ncc, bitErrorRate: result.bit_error_rate, threshold: threshold,
            pixelsPerCell: result.pixels_per_cell, blurCells: result.blur)
    }
}

extension SecureQRRecognizer {
    /// Reads the image file at `path` as grey, classifies it (``analyze(_:)``) and scores the authenticity of the
    /// issuer's code in it (``authenticity(of:analysis:)``): what `lumascan secure-qr calibrate` does with each capture.
    /// The score is `nil` when the image shows no located and measured issuer's code, or the recognizer has no key.
    ///
    /// - Throws: ``LumaScanError`` (`.imageIO`) naming the file when it cannot be read.
    /// - Important: Call it on the thread that calls ``process(_:metadata:into:)``, not concurrently with it.
    public func authenticity(
        ofImageAt path: String
    ) throws(LumaScanError) -> (analysis: SecureQRFrameAnalysis, authenticity: SecureQRAuthenticity?) {
        var image: OpaquePointer?
        let status = lv_image_read_grey(path, &image)
        defer { lv_image_destroy(image) }
        guard status == 0, let image, let pixels = lv_image_pixels(image) else {
            throw LumaScanError(.imageIO, "\(path): cannot read the image (\(String(cString: strerror(-status))))")
        }
        let width = Int(lv_image_width(image))
        let view = LumaView(baseAddress: pixels, width: width, height: Int(lv_image_height(image)), stride: width)
        let analysis = analyze(view)
        return (analysis, authenticity(of: view, analysis: analysis))
    }
}

/// The threshold that best separates scores of genuine captures from scores of copies, with the separation's
/// figures: what `lumascan secure-qr calibrate` prints.
public struct SecureQRThresholdFit: Hashable, Sendable {
    /// The threshold at the equal-error-rate point: halfway between the scores on either side of it, so that a score
    /// at or above it is genuine.
    public var threshold: Double
    /// The error rate where the share of genuine captures scored below the threshold (false rejections) and the share
    /// of copies scored at or above it (false acceptances) are closest; their mean.
    public var equalErrorRate: Double
    /// Genuine captures rejected at ``threshold``.
    public var falseRejectionRate: Double
    /// Copies accepted at ``threshold``.
    public var falseAcceptanceRate: Double
    /// The area under the ROC curve: the chance that a random genuine capture scores above a random copy (ties count
    /// half).
    public var areaUnderCurve: Double

    /// Fits the threshold; `nil` when either list is empty.
    public init?(genuine: [Double], copies: [Double]) {
        guard !genuine.isEmpty, !copies.isEmpty else { return nil }
        let genuineSorted = genuine.sorted()
        let copiesSorted = copies.sorted()
        // AUC by counting, for each genuine score, the copies below it and tied with it.
        var wins = 0.0
        var below = 0
        var tiedEnd = 0
        for score in genuineSorted {
            while below < copiesSorted.count && copiesSorted[below] < score { below += 1 }
            tiedEnd = max(tiedEnd, below)
            while tiedEnd < copiesSorted.count && copiesSorted[tiedEnd] == score { tiedEnd += 1 }
            wins += Double(below) + 0.5 * Double(tiedEnd - below)
        }
        areaUnderCurve = wins / (Double(genuine.count) * Double(copies.count))
        // Candidate thresholds: every score, and one above them all.
        let candidates = Array(Set(genuine + copies)).sorted() + [Double.infinity]
        var best: (gap: Double, sum: Double, index: Int, frr: Double, far: Double)?
        for (index, threshold) in candidates.enumerated() {
            let frr = Double(Self.count(genuineSorted, below: threshold)) / Double(genuine.count)
            let far = 1 - Double(Self.count(copiesSorted, below: threshold)) / Double(copies.count)
            let gap = abs(frr - far)
            let better = best.map { gap < $0.gap - 1e-12 || (abs(gap - $0.gap) <= 1e-12 && frr + far < $0.sum) }
            if better ?? true { best = (gap, frr + far, index, frr, far) }
        }
        guard let best else { return nil }
        let upper = candidates[best.index]
        let lower = best.index > 0 ? candidates[best.index - 1] : upper - 1
        threshold = upper.isFinite ? (upper + lower) / 2 : lower + 1e-6
        falseRejectionRate = best.frr
        falseAcceptanceRate = best.far
        equalErrorRate = (best.frr + best.far) / 2
    }

    /// How many of the sorted `scores` are below `threshold`.
    private static func count(_ scores: [Double], below threshold: Double) -> Int {
        var low = 0
        var high = scores.count
        while low < high {
            let middle = (low + high) / 2
            if scores[middle] < threshold { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
