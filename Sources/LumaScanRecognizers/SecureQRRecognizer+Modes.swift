import CLumaVision
import Logging
import LumaScanCore

/// The secure-QR recognizer's three modes, frame by frame: secure (classify every frame, keep the sharpest scans of
/// the issuer's code, complete with the best), unsupported (complete with the first QR code) and limited (complete
/// with the first code of the configured symbologies). The per-frame analysis they share is in
/// `SecureQRRecognizer.swift`, the authenticity score in `SecureQRRecognizer+Authenticity.swift`.
extension SecureQRRecognizer {
    // MARK: Secure mode

    func processSecure(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        let analysis = analyze(luma)
        lastFrameAnalysis = analysis
        let steady = smooth(analysis.state)
        let now = metadata.captureTime
        if let current = appearance, now.since(current.lastSeen) > .seconds(configuration.absenceTolerance) {
            appearance = nil
        }
        func report(_ type: ReportType, _ state: ScanState) {
            let guidance = SecureQRGuidance(
                steadyState: steady, pixelsPerCell: analysis.pixelsPerCell,
                minimumPixelsPerCell: configuration.minimumPixelsPerCell, sharpness: analysis.measurements?.sharpness,
                sharpnessThreshold: configuration.sharpnessThreshold,
                polygon: analysis.geometry?.codePolygon ?? analysis.polygon)
            reports.append(
                ScanReport(
                    type, state, recognizerID: id, frame: metadata, symbology: analysis.symbology,
                    text: analysis.text, bytes: analysis.bytes, polygon: analysis.polygon,
                    detail: guidance))
        }
        switch analysis.state {
        case .notProprietary, .noAuth:
            streak = nil
            let candidate = Candidate(analysis: analysis, metadata: metadata, sharpness: 0, crop: nil)
            complete(
                state: analysis.state, reportType: .completedResult, candidate: candidate, metadata: metadata,
                into: &reports)
            return
        case .unreadable:
            streak = nil
            if analysis.isIssuerCode, let bytes = analysis.bytes { see(bytes, at: now) }
            if timedOut(now: now) {
                completeInsufficientQuality(analysis: analysis, metadata: metadata, into: &reports)
                return
            }
            report(.inProgress, .unreadable)
        case .blurry where analysis.bytes == nil:
            // A code too blurred to decode (see `undecoded`): "hold still", with no payload to complete on.
            streak = nil
            if timedOut(now: now) {
                completeInsufficientQuality(analysis: analysis, metadata: metadata, into: &reports)
                return
            }
            report(.inProgress, .blurry)
        case .ok, .blurry, .tooSmall, .fingerprintNotInFrame:
            let bytes = analysis.bytes ?? []
            see(bytes, at: now)
            let sharpness = analysis.measurements?.sharpness ?? -1
            let measured = analysis.measurements != nil && analysis.geometry != nil
            var candidate: Candidate?
            func makeCandidate() -> Candidate {
                if let candidate { return candidate }
                let made = Candidate(
                    analysis: analysis, metadata: metadata, sharpness: sharpness, crop: crop(luma, analysis: analysis),
                    authenticity: authenticity(of: luma, analysis: analysis))
                candidate = made
                return made
            }
            if measured, sharpness > appearance?.sharpest?.sharpness ?? -Double.infinity {
                appearance?.sharpest = makeCandidate()
            }
            if analysis.state == .ok {
                if var current = streak, current.bytes == bytes {
                    current.count += 1
                    if sharpness > current.best.sharpness { current.best = makeCandidate() }
                    streak = current
                } else {
                    streak = Streak(bytes: bytes, count: 1, best: makeCandidate())
                }
                if let current = streak, current.count >= configuration.stableFrameCount {
                    complete(
                        state: .ok, reportType: .completedResult, candidate: current.best, metadata: metadata,
                        into: &reports)
                    return
                }
                report(.inProgress, .ok)
                return
            }
            streak = nil
            if timedOut(now: now) {
                completeInsufficientQuality(analysis: analysis, metadata: metadata, into: &reports)
                return
            }
            report(.inProgress, analysis.state)
        }
    }

    /// Notes that the issuer's code `bytes` is in view at `now`, starting a new appearance when it is another code.
    func see(_ bytes: [UInt8], at now: MonotonicInstant) {
        if var current = appearance, current.bytes == bytes {
            current.lastSeen = now
            appearance = current
        } else {
            appearance = Appearance(bytes: bytes, start: now, lastSeen: now, sharpest: nil)
        }
    }

    func timedOut(now: MonotonicInstant) -> Bool {
        guard let current = appearance else { return false }
        return now.since(current.start) >= .seconds(configuration.insufficientQualityTimeout)
    }

    /// The insufficient-quality event: `COMPLETED_RESULT` `BLURRY` with the sharpest scan seen (or, when none was
    /// measured, this frame).
    func completeInsufficientQuality(
        analysis: SecureQRFrameAnalysis, metadata: FrameMetadata, into reports: inout [ScanReport]
    ) {
        let best =
            appearance?.sharpest ?? Candidate(analysis: analysis, metadata: metadata, sharpness: 0, crop: nil)
        complete(
            state: .blurry, reportType: .completedResult, candidate: best, metadata: metadata, symbology: .qrCode,
            into: &reports)
    }

    /// Stops processing, records the completion's result and appends its report, which carries the result as its
    /// ``ScanReport/detail``. The report's code (`symbology`, unless given, text, bytes, polygon) is the candidate's.
    func complete(
        state: ScanState, reportType: ReportType, candidate: Candidate, metadata: FrameMetadata,
        symbology: Symbology? = nil, into reports: inout [ScanReport]
    ) {
        stopped = true
        appearance = nil
        streak = nil
        var crop: SecureQRCrop?
        if let pixels = candidate.crop {
            do {
                let png = try pixels.pixels.withUnsafeBufferPointer { buffer throws(LumaScanError) in
                    guard let base = buffer.baseAddress else { throw LumaScanError(.imageIO, "empty crop") }
                    return try PNG.encode(
                        LumaView(baseAddress: base, width: pixels.width, height: pixels.height, stride: pixels.width))
                }
                crop = SecureQRCrop(
                    png: png, width: pixels.width, height: pixels.height,
                    modulePixels: configuration.cropModulePixels, region: pixels.region)
            } catch {
                logger.error("secure-QR crop encoding failed", metadata: ["error": "\(error)", "recognizer": "\(id)"])
            }
        }
        let analysis = candidate.analysis
        let result = SecureQRResult(
            reportType: reportType, state: state, recognizerID: id, reportFrameIndex: metadata.index,
            frameIndex: candidate.metadata.index, captureTime: candidate.metadata.captureTime,
            symbology: analysis.symbology, text: analysis.text, bytes: analysis.bytes, polygon: analysis.polygon,
            isHybrid: configuration.design.hybrid, geometry: analysis.geometry, measurements: analysis.measurements,
            crop: crop, authenticity: candidate.authenticity)
        completed.withLock { results in
            if results.count >= Self.rememberedResults { results.removeFirst() }
            results.append(result)
        }
        reports.append(
            ScanReport(
                reportType, state, recognizerID: id, frame: metadata, symbology: symbology ?? analysis.symbology,
                text: analysis.text, bytes: analysis.bytes, polygon: analysis.polygon, detail: result))
        logger.debug(
            "secure-QR scan complete",
            metadata: [
                "recognizer": "\(id)", "reportType": "\(reportType.rawValue)", "state": "\(state.rawValue)",
                "frame": "\(metadata.index)", "scanFrame": "\(candidate.metadata.index)",
                "authenticity": "\(candidate.authenticity.map { "\($0.decision) \($0.score)" } ?? "not scored")",
            ])
    }

    // MARK: Unsupported and limited modes

    /// A plain QR reader: `UNSUPPORTED_RESULT` reports.
    func processPlain(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        readQR(luma)
        if let fallbackReader, !readerReports.contains(where: { $0.state == .ok }) {
            readQR(luma, with: fallbackReader)
        }
        finishWithFirstCode(
            metadata: metadata, reportType: .unsupportedResult, nothingRead: .unsupportedResult, into: &reports)
    }

    /// The limited camera manager: QR and 1D codes through the barcode recognizer's own consistency counts.
    func processLimited(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        readerReports.removeAll(keepingCapacity: true)
        reader.process(luma, metadata: metadata, into: &readerReports)
        finishWithFirstCode(metadata: metadata, reportType: .completedResult, nothingRead: .inProgress, into: &reports)
    }

    /// Reports the first issuer's code read (`OK`), else the first other code (`NOT_PROPRIETARY`), and stops; or
    /// `UNREADABLE` when nothing was read.
    func finishWithFirstCode(
        metadata: FrameMetadata, reportType: ReportType, nothingRead: ReportType, into reports: inout [ScanReport]
    ) {
        let codes = readerReports.filter { $0.state == .ok && $0.text != nil }
        guard
            let code = codes.first(where: { configuration.isIssuerPayload($0.text ?? "") }) ?? codes.first
        else {
            reports.append(ScanReport(nothingRead, .unreadable, recognizerID: id, frame: metadata))
            return
        }
        let state: ScanState = configuration.isIssuerPayload(code.text ?? "") ? .ok : .notProprietary
        let analysis = SecureQRFrameAnalysis(
            state: state, symbology: code.symbology, text: code.text, bytes: code.bytes, polygon: code.polygon,
            isIssuerCode: state == .ok)
        complete(
            state: state, reportType: reportType,
            candidate: Candidate(analysis: analysis, metadata: metadata, sharpness: 0, crop: nil), metadata: metadata,
            into: &reports)
    }
}
