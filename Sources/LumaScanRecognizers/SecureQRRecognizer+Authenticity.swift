import CLumaVision
import Logging
import LumaScanCore

#if canImport(Glibc)
import Glibc
#endif

/// The secure-QR recognizer's authenticity score (docs/secure-qr.md, "Authenticity") and the rectified crop of a code
/// it delivers.
extension SecureQRRecognizer {

    /// Whether the recognizer scores authenticity (an issuer key is configured and the mode is secure).
    public var scoresAuthenticity: Bool { authenticator != nil }

    /// Scores the secure graphic of the issuer's code that `analysis` (from ``analyze(_:)`` on the same `luma`)
    /// located and measured against the CDP regenerated from the configured issuer key; `nil` without a key, for a
    /// code that was not located and measured, or when its secure graphic or top-left finder pattern is not inside the
    /// frame. The recognizer scores only the frames it keeps as candidates for delivery (a few per scan), not every
    /// frame.
    ///
    /// - Important: Call it on the thread that calls ``process(_:metadata:into:)``, not concurrently with it.
    public func authenticity(of luma: LumaView, analysis: SecureQRFrameAnalysis) -> SecureQRAuthenticity? {
        guard let authenticator, let issuerKey, analysis.isIssuerCode, let bytes = analysis.bytes,
            let geometry = analysis.geometry, analysis.measurements != nil
        else { return nil }
        let seed: UInt64
        if let cached = seedCache, cached.bytes == bytes {
            seed = cached.seed
        } else {
            seed = issuerKey.seed(for: bytes)
            seedCache = (bytes, seed)
        }
        var status: Int32 = 0
        let score = authenticator.score(
            luma, geometry: geometry, design: &design, seed: seed, threshold: configuration.authenticity.threshold,
            status: &status)
        if score == nil && status != -ERANGE {
            logger.error("secure-QR authenticity failed", metadata: ["status": "\(status)", "recognizer": "\(id)"])
        }
        return score
    }

    /// Rectifies the code and its secure graphic, with one module of margin, at the crop resolution.
    func crop(_ luma: LumaView, analysis: SecureQRFrameAnalysis) -> CropPixels? {
        guard let geometry = analysis.geometry else { return nil }
        let n = Double(geometry.modules)
        var (minX, minY, maxX, maxY) = (0.0, 0.0, n, n)
        if configuration.design.hybrid {
            let zone = geometry.secureGraphic
            minX = min(minX, zone.x)
            minY = min(minY, zone.y)
            maxX = max(maxX, zone.x + zone.width)
            maxY = max(maxY, zone.y + zone.height)
        }
        let region = SecureQRModuleRect(x: minX - 1, y: minY - 1, width: maxX - minX + 2, height: maxY - minY + 2)
        let scale = Double(configuration.cropModulePixels)
        let width = Int((region.width * scale).rounded())
        let height = Int((region.height * scale).rounded())
        guard width > 0, height > 0, width * height <= 16_000_000 else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height)
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            geometry.homography.withUnsafeBufferPointer { homography in
                lv_sqr_rectify(
                    analyzer, luma.baseAddress, Int32(luma.width), Int32(luma.height), luma.stride,
                    homography.baseAddress, region.x, region.y, region.width, region.height, buffer.baseAddress,
                    Int32(width), Int32(height), width)
            }
        }
        guard status == 0 else {
            logger.error("secure-QR crop failed", metadata: ["status": "\(status)", "recognizer": "\(id)"])
            return nil
        }
        return CropPixels(pixels: pixels, width: width, height: height, region: region)
    }
}
