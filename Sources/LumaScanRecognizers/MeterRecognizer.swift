import CLumaVision
import Logging
import LumaScanCore

/// Reads meters after Anyline's meter plugin: crops each frame to the cutout (a view, no copy), reads seven-segment
/// digits or roller-counter digits with OpenCV, and completes a reading once it has been seen in
/// ``MeterConfiguration/consecutiveFrames`` confident readings in a row (each at or above
/// ``MeterConfiguration/minConfidence``, without an ambiguous drum, matching ``MeterConfiguration/validationRegex``).
/// Frames between them without such a reading neither count nor break the row; a confident different reading
/// starts it again, unless it is a part of the candidate (its digits without those at one end: the display's end lost
/// in that frame), which takes the candidate's place only once seen in `consecutiveFrames` frames before the candidate
/// is seen again. A frame below the confidence that reads what a confident frame already read, at three quarters
/// of ``MeterConfiguration/minConfidence`` or more, counts for it too (``supportingFraction``); it never starts a row.
/// A reading that is a part of a longer confident one seen in the last 2 x `consecutiveFrames` confident frames (the
/// display's end lost in some frames) waits until the longer one has not been seen for that long; so does a reading
/// whose digits two or more of those frames read with the decimal point elsewhere, or with or without one.
/// A roller counter's reading also completes on the evidence of the last 2 x `consecutiveFrames` frames, where each
/// frame falls short on another drum: `consecutiveFrames` of them agree on every digit, each digit reached
/// `minConfidence` in two of them, and none read other digits confidently (``status(of:)``); the completed reading
/// then carries each digit's highest confidence over those frames.
///
/// Reports, one per frame:
/// - `IN_PROGRESS` / `UNREADABLE` with no text when no digit was found;
/// - `IN_PROGRESS` / `UNREADABLE` with the partial reading as text while a reading is below the confidence, fails
///   validation or is not yet stable (``lastReading``'s ``MeterReading/status`` says which);
/// - `COMPLETED_RESULT` / `OK` with the reading as text (and as UTF-8 bytes) and the whole ``MeterReading`` as the
///   report's ``ScanReport/detail``, once; after it the recognizer reports nothing until ``reset()``.
///
/// Every report's polygon is the digits' bounds in frame pixels (empty when none were found). The meter-specific data
/// (per-digit confidences, cutout and crop rectangles, the crop as PNG) is in ``lastReading``, which describes the
/// frame of the last report appended, and ``completedReading``.
public final class MeterRecognizer: Recognizer, @unchecked Sendable {
    // SAFETY (Sendable): the engine calls `process` and `reset` on its recognition thread only, one frame at a time
    // (the Recognizer contract); the reader handle, the stabilisation state and `lastReading` are touched only there.
    // Reading `lastReading` from another thread while frames are processed is a data race the caller must avoid.

    /// The recognizer's id, copied into every report.
    public let id: String
    /// The meter configuration it was built with.
    public let configuration: MeterConfiguration
    /// The cutout configuration it was built with.
    public let cutout: CutoutConfiguration
    /// The reading behind the last report appended: `nil` before the first frame and after ``reset()``.
    public private(set) var lastReading: MeterReading?
    /// The completed reading, once there is one (until ``reset()``).
    public private(set) var completedReading: MeterReading?

    private let logger: Logger
    private let reader: OpaquePointer
    private let validation: Regex<AnyRegexOutput>?
    private var geometryCache: CutoutGeometry?
    /// The digit bounds the last report's polygon was made from, and the polygon. A meter held still reports the same
    /// bounds frame after frame and shares one array instead of allocating a new one each frame; a moving meter's new
    /// corners are written into that array in place once no report holds it any more (a report still held, by a
    /// delegate or a reader of the stream, keeps its corners: the array is copied then).
    private var polygonBounds: Rect?
    private var lastPolygon: [Point] = []
    private var candidate: String?
    private var candidateCount = 0
    /// A confident part of the candidate (one end of the display lost) seen in the frames since the candidate's last,
    /// and in how many of them: it takes the candidate's place after `consecutiveFrames` (the longer reading was the
    /// odd one out).
    private var part: String?
    private var partCount = 0
    /// Each digit's least confidence over the candidate's confident frames (capacity kept from frame to frame).
    private var candidateLeast: [Double] = []
    /// How sure every frame of the candidate must have been of the digits a part lacks for the part not to start the
    /// count again (``MeterConfiguration/minConfidence`` is 60 by default).
    static let sureExtraDigits = 90.0
    /// The share of ``MeterConfiguration/minConfidence`` at which a frame below it still counts for a reading that a
    /// confident frame set (three quarters: 45 for the default 60). Chosen on the real-digit counters of
    /// `scripts/eval-meter.sh` (seeds 7, 11, 23, 31, 47: 566 -> 570 of 600 exact, misreads unchanged at 3; half gave
    /// 571) and its seven-segment meters (211 -> 215 of 240, misreads unchanged, no result with no meter in view).
    public static let supportingFraction = 0.75
    /// The confident readings of the last frames that had one, oldest first (at most `recentLimit`): a candidate that
    /// is a part of a longer one among them is not completed.
    private var recent: [String] = []
    private let recentLimit: Int
    private var completed = false
    /// The last `recentLimit` frames, every one of them (a ring: `evidenceNext` is the oldest once `evidenceCount`
    /// reaches the limit), for completing a counter reading on the evidence of several frames
    /// (``completesAcrossFrames(_:)``): each frame's text (empty: nothing read), its least confidence, whether it is a
    /// counter reading without an ambiguous drum, and its digits' confidences (`LV_METER_MAX_DIGITS` a frame).
    /// Preallocated: keeping a frame copies its values and allocates nothing.
    private var evidenceTexts: [String]
    private var evidenceLeast: [Double]
    private var evidenceUsable: [Bool]
    private var evidenceDigits: [Double]
    private var evidenceCount = 0
    private var evidenceNext = 0
    /// Each digit's highest confidence, and in how many frames it reached `minConfidence`, over the frames that agree
    /// with the reading being judged by ``completesAcrossFrames(_:)`` (`LV_METER_MAX_DIGITS` each, reused).
    private var acrossHighest: [Double]
    private var acrossConfident: [Int]
    /// Whether the last completion was made across frames: its reading then carries `acrossHighest`.
    private var completedAcross = false
    /// The most digits a frame's reading has (the reader's limit).
    static let maxDigits = Int(LV_METER_MAX_DIGITS)

    /// Builds a recognizer. Throws ``LumaScanError`` with ``LumaScanError/Code/invalidConfiguration`` for an invalid
    /// configuration (naming the JSON path) and ``LumaScanError/Code/unsupported`` for `dial_meter`.
    public init(
        configuration: MeterConfiguration = .init(), cutout: CutoutConfiguration = .init(), id: String = "meter",
        logger: Logger
    ) throws {
        try configuration.validate()
        try cutout.validate()
        let mode: Int32
        switch configuration.scanMode {
        case .digitalMeter: mode = LV_METER_MODE_DIGITAL
        case .counterMeter: mode = LV_METER_MODE_COUNTER
        case .autoMeter: mode = LV_METER_MODE_AUTO
        case .dialMeter:
            throw LumaScanError(
                .unsupported,
                "\(MeterConfiguration.jsonPath).scanMode: dial_meter is not supported yet; use digital_meter, "
                    + "counter_meter or auto_meter")
        }
        var handle: OpaquePointer?
        let status = lv_meter_create(mode, &handle)
        guard status == 0, let handle else {
            throw LumaScanError(.invalidState, "the meter reader could not be created (code \(status))")
        }
        reader = handle
        // validate() compiled the expression already; a failure here cannot happen, but is reported all the same.
        validation = try configuration.validationRegex.map { try Regex($0) }
        self.configuration = configuration
        // Twice the frames a reading needs: long enough to see a longer reading come back, short enough that a
        // display that really changed completes soon after.
        recentLimit = max(2, 2 * configuration.consecutiveFrames)
        self.cutout = cutout
        self.id = id
        self.logger = logger
        recent.reserveCapacity(recentLimit)
        evidenceTexts = Array(repeating: "", count: recentLimit)
        evidenceLeast = Array(repeating: 0, count: recentLimit)
        evidenceUsable = Array(repeating: false, count: recentLimit)
        evidenceDigits = Array(repeating: 0, count: recentLimit * Self.maxDigits)
        acrossHighest = Array(repeating: 0, count: Self.maxDigits)
        acrossConfident = Array(repeating: 0, count: Self.maxDigits)
    }

    deinit { lv_meter_destroy(reader) }

    /// The cutout and crop rectangles for a frame size (cached for the last size seen).
    public func geometry(frameSize: Size) -> CutoutGeometry {
        if let geometryCache, geometryCache.frameSize == frameSize { return geometryCache }
        let geometry = cutout.geometry(frameSize: frameSize)
        geometryCache = geometry
        return geometry
    }

    /// Reads the cutout of one frame and appends one report (none after a completed result, until ``reset()``).
    public func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        if completed { return }
        let geometry = geometry(frameSize: luma.size)
        guard let crop = luma.cropped(to: geometry.crop) else {
            let reading = MeterReading(
                text: "", digitConfidences: [], confidence: 0, reader: nil, lightOnDark: false,
                cutout: geometry.cutout, crop: geometry.crop, digitBounds: nil, status: .noDigits, cropImage: nil,
                frameIndex: metadata.index)
            append(reading, metadata: metadata, into: &reports)
            return
        }
        var result = lv_meter_result()
        let count = lv_meter_read(
            reader, crop.baseAddress, Int32(crop.width), Int32(crop.height), crop.stride, &result)
        if count < 0 {
            logger.error("meter reader failed", metadata: ["code": "\(count)", "frame": "\(metadata.index)"])
        }
        var reading = Self.reading(
            from: result, geometry: geometry, maxDecimals: configuration.maxNumDecimalDigits,
            reusing: lastReading?.digitConfidences ?? [])
        reading.frameIndex = metadata.index
        reading.status = status(of: reading)
        // Every frame's reading, for working out why a meter does not complete (`--log-level trace`); swift-log
        // builds neither the message nor the metadata below trace level.
        logger.trace(
            "meter frame",
            metadata: [
                "frame": "\(metadata.index)", "reading": "\(reading.text)", "status": "\(reading.status)",
                "confidences": "\(reading.digitConfidences.map { Int($0) })",
                "ambiguous": "\(reading.ambiguousDigits)", "lightOnDark": "\(reading.lightOnDark)",
                "tracked": "\(reading.tracked)", "rectified": "\(reading.rectified)",
            ])
        if reading.status == .completed {
            applyAcrossFrames(to: &reading)
            // A copy, not the PNG: encoding it takes milliseconds, which the consumer of the result spends when it
            // asks for `cropPNG`, not the recognition thread.
            reading.cropImage = LumaImage(copying: crop)
            completed = true
            completedReading = reading
            logger.debug(
                "meter reading completed",
                metadata: ["reading": "\(reading.text)", "confidence": "\(Int(reading.confidence))"])
        }
        append(reading, metadata: metadata, into: &reports)
    }

    /// Forgets the stabilisation state and any completed reading, so scanning starts again.
    public func reset() {
        candidate = nil
        candidateCount = 0
        part = nil
        partCount = 0
        candidateLeast.removeAll(keepingCapacity: true)
        recent.removeAll(keepingCapacity: true)
        (evidenceCount, evidenceNext) = (0, 0)
        completedAcross = false
        completed = false
        lastReading = nil
        completedReading = nil
        // The reader's own memory of the last frames (the counter row it scans when a frame shows none) goes too: a
        // reset reads the next frame as a new recognizer would.
        _ = lv_meter_reset(reader)
    }

    private func append(_ reading: MeterReading, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        lastReading = reading
        var polygon: [Point] = []
        if let box = reading.digitBounds {
            if polygonBounds != box {
                polygonBounds = box
                if lastPolygon.count != 4 { lastPolygon = Array(repeating: Point(x: 0, y: 0), count: 4) }
                lastPolygon[0] = Point(x: Double(box.x), y: Double(box.y))
                lastPolygon[1] = Point(x: Double(box.maxX), y: Double(box.y))
                lastPolygon[2] = Point(x: Double(box.maxX), y: Double(box.maxY))
                lastPolygon[3] = Point(x: Double(box.x), y: Double(box.maxY))
            }
            polygon = lastPolygon
        }
        if reading.status == .completed {
            reports.append(
                ScanReport(
                    .completedResult, .ok, recognizerID: id, frame: metadata, text: reading.text,
                    bytes: Array(reading.text.utf8), polygon: polygon, detail: reading))
        } else {
            reports.append(
                ScanReport(
                    .inProgress, .unreadable, recognizerID: id, frame: metadata,
                    text: reading.text.isEmpty ? nil : reading.text, polygon: polygon))
        }
    }

    /// The status of a fresh reading, advancing the stabilisation state: `consecutiveFrames` confident frames
    /// (``stabilise(_:)``), or, for a roller counter, the evidence of several frames (``completesAcrossFrames(_:)``).
    func status(of reading: MeterReading) -> MeterReading.Status {
        let status = stabilise(reading)
        keepEvidence(reading)
        completedAcross = false
        if status != .completed, completesAcrossFrames(reading) {
            completedAcross = true
            return .completed
        }
        return status
    }

    /// Gives a reading that ``status(of:)`` completed across frames each digit's confidence as the surest of the
    /// frames that agreed on it (and the reading the least of those); any other reading is left as it is.
    func applyAcrossFrames(to reading: inout MeterReading) {
        guard completedAcross, reading.status == .completed else { return }
        for index in reading.digitConfidences.indices where index < Self.maxDigits {
            reading.digitConfidences[index] = acrossHighest[index]
        }
        reading.confidence = reading.digitConfidences.min() ?? 0
    }

    /// Keeps `reading` among the last `recentLimit` frames' evidence, in place of the oldest.
    private func keepEvidence(_ reading: MeterReading) {
        let slot = evidenceNext
        evidenceNext = (evidenceNext + 1) % recentLimit
        evidenceCount = min(evidenceCount + 1, recentLimit)
        evidenceTexts[slot] = reading.text
        evidenceLeast[slot] = reading.confidence
        let digits = min(reading.digitConfidences.count, Self.maxDigits)
        evidenceUsable[slot] =
            reading.reader == .counter && reading.ambiguousDigits.isEmpty && digits == reading.digitConfidences.count
        for index in 0..<digits { evidenceDigits[slot * Self.maxDigits + index] = reading.digitConfidences[index] }
    }

    /// Whether the counter reading of this frame completes on the evidence of the last `recentLimit` frames (twice
    /// `consecutiveFrames`), where no `consecutiveFrames` confident frames in a row made it: at least
    /// `consecutiveFrames` of them read the same digits with no drum ambiguous, each digit reached `minConfidence` in
    /// two of those (one when `consecutiveFrames` is 1), none of them read other digits confidently, and none read a
    /// longer reading that contains these at three quarters of `minConfidence` (``supportingFraction``) or more.
    ///
    /// A turning drum, the other polarity's grid disputing a drum (its confidence 0 in that frame) or a drum seen
    /// badly in one frame leaves a real counter's frames each short of the confidence on a different drum, though
    /// they agree on every digit. On the real-digit counters of `scripts/eval-meter.sh` (the same recordings read
    /// before and after; 1,440 meters, seeds 7-67, both cutouts) 1,377 -> 1,389 exact, every gain a meter without a
    /// result before, the same 9 misreads. A digit confident in one frame only is not enough: a half-turned last drum
    /// (8069253, its 3.5 read as 4 in six frames, at 66 once) would then complete a misread.
    /// Seven-segment readings keep the confident row alone: their doubts (a decimal point, a corner) are doubts of
    /// the reading, not noise of one frame.
    private func completesAcrossFrames(_ reading: MeterReading) -> Bool {
        let digits = reading.digitConfidences.count
        guard reading.reader == .counter, !reading.text.isEmpty, reading.ambiguousDigits.isEmpty,
            digits <= Self.maxDigits
        else { return false }
        let minimum = Double(configuration.minConfidence)
        for index in 0..<digits { (acrossHighest[index], acrossConfident[index]) = (0, 0) }
        var agreeing = 0
        for offset in 0..<evidenceCount {
            let slot = (evidenceNext + recentLimit - 1 - offset) % recentLimit
            let text = evidenceTexts[slot]
            if text.isEmpty { continue }
            if text == reading.text {
                guard evidenceUsable[slot] else { continue }
                agreeing += 1
                for index in 0..<digits {
                    let confidence = evidenceDigits[slot * Self.maxDigits + index]
                    acrossHighest[index] = max(acrossHighest[index], confidence)
                    if confidence >= minimum { acrossConfident[index] += 1 }
                }
            } else if evidenceLeast[slot] >= minimum {
                return false  // a frame confident of other digits
            } else if Self.isPart(reading.text, of: text), evidenceLeast[slot] >= Self.supportingFraction * minimum {
                return false  // the counter's end lost in this frame's reading
            }
        }
        guard agreeing >= configuration.consecutiveFrames else { return false }
        let needed = min(2, configuration.consecutiveFrames)
        for index in 0..<digits where acrossConfident[index] < needed { return false }
        // Last, being the dearest check (the stabiliser matched only the frames it found confident).
        if let validation, (try? validation.wholeMatch(in: reading.text)) == nil { return false }
        return true
    }

    /// Whether `part` is a part of the longer reading `longer` (its digits without some at an end, or inside it).
    static func isPart(_ part: String, of longer: String) -> Bool {
        longer.count > part.count && longer.contains(part)
    }

    /// The status of a fresh reading by the confident row: `consecutiveFrames` confident frames agreeing.
    private func stabilise(_ reading: MeterReading) -> MeterReading.Status {
        let valid: MeterReading.Status?
        if reading.text.isEmpty {
            valid = .noDigits
        } else if reading.confidence < Double(configuration.minConfidence) || !reading.ambiguousDigits.isEmpty {
            // A drum caught between two digits is no digit to be confident of, whatever the figures say.
            valid = .belowConfidence
        } else if let validation, (try? validation.wholeMatch(in: reading.text)) == nil {
            valid = .failsValidation
        } else {
            valid = nil
        }
        // A frame that shows no confident reading (motion, glare, a drum turning) says nothing against the
        // candidate: it does not start the count again. Only a confident different reading does. It counts for the
        // candidate when it reads the same digits at nearly the confidence asked for: the real-digit counters of
        // scripts/eval-meter.sh often show a turning drum that one frame reads confidently and the next ones just
        // below it.
        if let valid {
            guard valid == .belowConfidence, let candidate, reading.text == candidate,
                reading.confidence >= Self.supportingFraction * Double(configuration.minConfidence)
            else { return valid }
            candidateCount += 1
            return isComplete(candidate) ? .completed : valid
        }
        if reading.text == candidate {
            candidateCount += 1
            (part, partCount) = (nil, 0)
            for (index, confidence) in reading.digitConfidences.enumerated() where index < candidateLeast.count {
                candidateLeast[index] = min(candidateLeast[index], confidence)
            }
        } else if isSurePart(reading) {
            // A confident part of the candidate, one end of the display lost in this frame (the near "1" of 1464717
            // or the leading "7." of 7.095127 in one frame of two or three): it neither counts nor starts the count
            // again, unless it is seen `consecutiveFrames` times before the candidate is again (one frame read a
            // digit too many: 1235347 once, then 123534).
            partCount = reading.text == part ? partCount + 1 : 1
            part = reading.text
            if partCount < configuration.consecutiveFrames {
                remember(reading.text)
                return .stabilising(count: partCount)
            }
            start(reading, count: partCount)
        } else {
            start(reading, count: 1)
        }
        remember(reading.text)
        return isComplete(reading.text) ? .completed : .stabilising(count: candidateCount)
    }

    /// Whether `reading` is the candidate without the digits at one end, and every confident frame of the candidate
    /// was sure of those (``sureExtraDigits``): then the frame lost them, rather than the candidate's frames making
    /// them up (952793 between frames of 9527937 whose last digit was read at 74, 95 and 51 is a part that does
    /// start the count again).
    private func isSurePart(_ reading: MeterReading) -> Bool {
        guard let candidate, candidate.count > reading.text.count else { return false }
        let extra = candidateLeast.count - reading.digitConfidences.count
        guard extra > 0 else { return false }
        if candidate.hasSuffix(reading.text), candidateLeast.prefix(extra).allSatisfy({ $0 >= Self.sureExtraDigits }) {
            return true
        }
        return candidate.hasPrefix(reading.text)
            && candidateLeast.suffix(extra).allSatisfy { $0 >= Self.sureExtraDigits }
    }

    /// Makes `reading` the candidate, seen in `count` frames.
    private func start(_ reading: MeterReading, count: Int) {
        candidate = reading.text
        candidateCount = count
        (part, partCount) = (nil, 0)
        candidateLeast.removeAll(keepingCapacity: true)
        candidateLeast.append(contentsOf: reading.digitConfidences)
    }

    /// Keeps a confident reading among the `recentLimit` last.
    private func remember(_ text: String) {
        if recent.count == recentLimit { recent.removeFirst() }
        recent.append(text)
    }

    /// Whether the candidate `text` has been seen in enough frames, and is not a part of a longer reading.
    private func isComplete(_ text: String) -> Bool {
        // A display whose end some frames lose (a digit at the edge of the glare, the near end of a display seen from
        // the side, a grid that covers part of a counter) reads as a confident part of itself: while a longer
        // confident reading that contains the candidate was seen in the last frames, the candidate waits.
        let inLonger = recent.contains { Self.isPart(text, of: $0) }
        // The decimal point is the reader's least sure mark: while the same digits with the point elsewhere, or with
        // or without one, were read confidently in two or more of the last frames, the candidate waits too. (One such
        // frame is taken for the reader's slip: waiting on it lost more right readings than it saved misreads.)
        var otherPoint = 0
        for reading in recent where reading != text && Self.sameDigits(reading, text) { otherPoint += 1 }
        return candidateCount >= configuration.consecutiveFrames && !inLonger && otherPoint < 2
    }

    /// Whether two readings have the same digits, whatever their decimal points (compared in place, without copies).
    static func sameDigits(_ a: String, _ b: String) -> Bool {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        let point = UInt8(ascii: ".")
        while true {
            var x = left.next()
            while x == point { x = left.next() }
            var y = right.next()
            while y == point { y = right.next() }
            if x != y { return false }
            if x == nil { return true }
        }
    }

    /// Turns the C result into a reading (status and frame index to be filled in), mapping crop pixels to frame
    /// pixels and dropping decimal digits beyond `maxDecimals` (when it is not negative). The reading shares
    /// `previous` as its confidences when they are the same values (the last frame's, for a meter held still), so
    /// that such a frame allocates no array of its own.
    static func reading(
        from result: lv_meter_result, geometry: CutoutGeometry, maxDecimals: Int, reusing previous: [Double] = []
    ) -> MeterReading {
        let count = max(0, min(Int(result.digit_count), Int(LV_METER_MAX_DIGITS)))
        var kept = count  // the digits left once decimals beyond maxDecimals are dropped
        var decimalAfter = Int(result.decimal_after)
        if decimalAfter >= 0, maxDecimals >= 0, count - decimalAfter > maxDecimals {
            kept = decimalAfter + maxDecimals
        }
        if decimalAfter >= 0, decimalAfter >= kept { decimalAfter = -1 }  // no decimals left
        // Read from the result in place (the digits are not copied into an array of their own: a frame's reading
        // allocates only what it hands out: the confidences when they changed, and a text longer than a small string).
        let confidences = withUnsafeBytes(of: result.confidence) { raw in
            let value = { Double(raw.load(fromByteOffset: $0 * MemoryLayout<Float>.stride, as: Float.self)) }
            let same = previous.count == kept && previous.indices.allSatisfy { previous[$0] == value($0) }
            return same ? previous : (0..<kept).map(value)
        }
        var text = ""
        withUnsafeBytes(of: result.digits) { digits in
            for index in 0..<kept {
                if index == decimalAfter, index > 0 { text.append(".") }
                text.append(Character(Unicode.Scalar(digits[index])))
            }
        }
        let crop = geometry.crop
        let bounds: Rect? =
            count > 0 && result.box_width > 0 && result.box_height > 0
            ? Rect(
                x: crop.x + Int(result.box_x), y: crop.y + Int(result.box_y), width: Int(result.box_width),
                height: Int(result.box_height)) : nil
        let reader: MeterReading.Reader? =
            switch result.mode {
            case LV_METER_MODE_DIGITAL: .digital
            case LV_METER_MODE_COUNTER: .counter
            default: nil
            }
        return MeterReading(
            text: text, digitConfidences: confidences, confidence: confidences.min() ?? 0,
            reader: count > 0 ? reader : nil,
            lightOnDark: result.light_on_dark != 0, cutout: geometry.cutout, crop: crop, digitBounds: bounds,
            status: .noDigits, cropImage: nil, frameIndex: 0,
            ambiguousDigits: (0..<kept).filter { $0 < 32 && result.ambiguous & (UInt32(1) << UInt32($0)) != 0 },
            tracked: result.tracked != 0, rectified: result.rectified != 0)
    }
}
