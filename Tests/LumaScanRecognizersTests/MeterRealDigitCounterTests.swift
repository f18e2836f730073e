import Foundation
import Logging
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// Roller counters made of photographs of real meter drums: the committed validation crops
/// (Fixtures/meter-digits-validation-atlas.png, never trained on), each drum a whole digit (x.0), in a dark counter
/// window on a plate, read in counter mode as a camera delivers them: up to six frames whose sensor noise differs, with
/// the default stabiliser (three agreeing frames). The drums of one counter are photographs of different
/// meters, light on dark and dark on light, as `scripts/eval-meter.sh` builds them; here half the counters have every
/// drum's photograph inverted at random besides, so that no stroke map of one polarity shows them all.
@Suite("Meter counters of real digit photographs")
struct MeterRealDigitCounterTests {
    private let logger = Logger(label: "MeterRealDigitCounterTests")

    static let cutout = CutoutConfiguration(
        ratioFromSize: .init(width: 3, height: 1), maxWidthPercent: 80, alignment: .center,
        cropPadding: .init(x: 24, y: 24))

    /// One counter: its frame, the reading a person writes down, and the drums' row as the camera sees it (the
    /// bounds of its cells' corners, in frame pixels).
    struct Counter {
        let frame: LumaImage
        let truth: String
        let drumBounds: Rect
    }

    /// The crops of whole drums (class x.0), by digit.
    static func wholeDrums(_ crops: MeterDigitClassifierTests.Crops) -> [[LumaImage]] {
        var byDigit = [[LumaImage]](repeating: [], count: 10)
        let columns = crops.atlasWidth / 20
        for (index, label) in crops.labels.enumerated() where label % 10 == 0 {
            var pixels = [UInt8](repeating: 0, count: 20 * 32)
            let x0 = (index % columns) * 20
            let y0 = (index / columns) * 32
            for y in 0..<32 {
                for x in 0..<20 { pixels[y * 20 + x] = crops.atlas[(y0 + y) * crops.atlasWidth + x0 + x] }
            }
            byDigit[label / 10].append(LumaImage(width: 20, height: 32, pixels: pixels))
        }
        return byDigit
    }

    /// How the camera sees a counter: turned `yaw` degrees about the counter's vertical axis (one end further away and
    /// smaller) and rolled `roll` degrees, from `distance` pixels (as a focal length) away.
    struct Pose {
        var yaw = 0.0
        var roll = 0.0
        var distance = 700.0

        /// Where the camera sees the point `p` of a counter centred at `centre`.
        func seen(_ p: Point, centre: Point) -> Point {
            let yaw = self.yaw * .pi / 180
            let roll = self.roll * .pi / 180
            let x = p.x - centre.x
            let y = p.y - centre.y
            // Turned about the vertical axis, then about the line of sight, then projected.
            let z = -x * sin(yaw) + distance
            let turnedX = x * cos(yaw)
            let rolledX = turnedX * cos(roll) - y * sin(roll)
            let rolledY = turnedX * sin(roll) + y * cos(roll)
            return Point(x: centre.x + distance * rolledX / z, y: centre.y + distance * rolledY / z)
        }
    }

    /// A counter of 5-7 drums, `seed`'s digits and photographs, each photograph stretched to the ink range 20-220 (and
    /// inverted at random when `invertSome`), centred in the cutout of a 640 x 480 frame at 60 % of its width, seen
    /// from `pose`, with blur and sensor noise (`noise` seeds it).
    static func counter(
        seed: UInt64, invertSome: Bool, drums: [[LumaImage]], noise: UInt64, pose: Pose = Pose()
    ) -> Counter {
        var random = SplitMix64(seed: seed)
        let count = 5 + Int(random.next() % 3)
        let frameSize = MeterFixture.frameSize
        let area = cutout.geometry(frameSize: frameSize).cutout
        let canvas = TestCanvas(width: frameSize.width, height: frameSize.height, fill: 150)
        let gap = 0.12
        let cellWidth = min(
            0.6 * Double(area.width) / (Double(count) + Double(count - 1) * gap),
            0.55 * Double(area.height) * 20 / 32)
        let cellHeight = cellWidth * 32 / 20
        let rowWidth = Double(count) * cellWidth + Double(count - 1) * gap * cellWidth
        let left = Double(area.x) + (Double(area.width) - rowWidth) / 2
        let top = Double(area.y) + (Double(area.height) - cellHeight) / 2
        let border = 0.12 * cellHeight
        let centre = Point(x: left + rowWidth / 2, y: top + cellHeight / 2)
        func quad(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [Point] {
            [Point(x: x0, y: y0), Point(x: x1, y: y0), Point(x: x1, y: y1), Point(x: x0, y: y1)].map {
                pose.seen($0, centre: centre)
            }
        }
        canvas.fill(
            polygon: quad(left - border, top - border, left + rowWidth + border, top + cellHeight + border), value: 25)
        var truth = ""
        for i in 0..<count {
            let digit = Int(random.next() % 10)
            truth += String(digit)
            let choices = drums[digit]
            let photo = choices[Int(random.next() % UInt64(choices.count))]
            let invert = invertSome && random.next() % 2 == 0
            let low = Double(photo.pixels.min() ?? 0)
            let high = Double(photo.pixels.max() ?? 255)
            let stretched = photo.pixels.map { value -> UInt8 in
                let v = 20 + 200 * (Double(value) - low) / max(1, high - low)
                return UInt8((invert ? 240 - v : v).rounded())
            }
            let x = left + Double(i) * cellWidth * (1 + gap)
            let drum = LumaImage(width: 20, height: 32, pixels: stretched)
            canvas.place(drum, corners: quad(x, top, x + cellWidth, top + cellHeight))
        }
        canvas.blur(sigma: 0.8)
        canvas.addNoise(sigma: 3, seed: noise)
        let row = quad(left, top, left + rowWidth, top + cellHeight)
        let (xs, ys) = (row.map(\.x), row.map(\.y))
        let x0 = xs.min() ?? 0
        let y0 = ys.min() ?? 0
        let bounds = Rect(
            x: Int(x0), y: Int(y0), width: Int((xs.max() ?? 0) - x0), height: Int((ys.max() ?? 0) - y0))
        return Counter(frame: canvas.image, truth: truth, drumBounds: bounds)
    }

    /// Reads the counter of `seed` from up to six frames: the completed reading's text, or nil, and whether the
    /// frame that completed it was read rectified.
    func read(
        seed: UInt64, invertSome: Bool, drums: [[LumaImage]], pose: Pose = Pose()
    ) throws -> (truth: String, read: String?, rectified: Bool) {
        let recognizer = try MeterRecognizer(
            configuration: .init(scanMode: .counterMeter), cutout: Self.cutout, logger: logger)
        var truth = ""
        for index in UInt64(0)..<6 {
            let counter = Self.counter(
                seed: seed, invertSome: invertSome, drums: drums, noise: seed &+ index, pose: pose)
            truth = counter.truth
            var reports: [ScanReport] = []
            counter.frame.withView { recognizer.process($0, metadata: MeterFixture.metadata(index), into: &reports) }
            if let done = reports.first(where: { $0.reportType == .completedResult }) {
                return (truth, done.text, recognizer.lastReading?.rectified ?? false)
            }
        }
        return (truth, nil, false)
    }

    @Test("After reset() a frame reads as a new recognizer reads it: the row the last frames read is forgotten")
    func resetForgetsTheRow() throws {
        let drums = Self.wholeDrums(try MeterDigitClassifierTests.Crops())
        // Never completing, so every frame is read and reported.
        let configuration = MeterConfiguration(scanMode: .counterMeter, consecutiveFrames: 1000)
        let carried = try MeterRecognizer(configuration: configuration, cutout: Self.cutout, logger: logger)
        let reset = try MeterRecognizer(configuration: configuration, cutout: Self.cutout, logger: logger)
        var framesTheRowHelped = 0
        for seed in UInt64(1)...12 {
            for index in UInt64(0)..<6 {
                let counter = Self.counter(
                    seed: seed &* 7919 &+ 1, invertSome: true, drums: drums, noise: seed &* 7919 &+ 1 &+ index)
                let fresh = try MeterRecognizer(configuration: configuration, cutout: Self.cutout, logger: logger)
                var reports: [ScanReport] = []
                counter.frame.withView { view in
                    let metadata = MeterFixture.metadata(index)
                    fresh.process(view, metadata: metadata, into: &reports)
                    carried.process(view, metadata: metadata, into: &reports)
                    reset.reset()
                    reset.process(view, metadata: metadata, into: &reports)
                }
                let alone = fresh.lastReading?.text
                #expect(reset.lastReading?.text == alone, "seed \(seed) frame \(index)")
                if carried.lastReading?.text != alone { framesTheRowHelped += 1 }
            }
        }
        // The remembered row matters (3 of these 72 frames are read only with it, measured when written), so the
        // comparison above can fail.
        #expect(framesTheRowHelped > 0, "no frame read differently with the last frames' row")
    }

    @Test("A counter read surely is confirmed on its grid in the next frames, never surer, and a new one is searched")
    func tracksASureReading() throws {
        let drums = Self.wholeDrums(try MeterDigitClassifierTests.Crops())
        // Never completing, so every frame is read and reported; one recognizer for all counters, as a camera
        // moving from meter to meter delivers them.
        let configuration = MeterConfiguration(scanMode: .counterMeter, consecutiveFrames: 1000)
        let recognizer = try MeterRecognizer(configuration: configuration, cutout: Self.cutout, logger: logger)
        var tracked = 0
        var frames: [String] = []
        for seed in UInt64(1)...12 {
            var last: MeterReading?
            for index in UInt64(0)..<6 {
                let counter = Self.counter(
                    seed: seed &* 7919 &+ 1, invertSome: true, drums: drums, noise: seed &* 7919 &+ 1 &+ index)
                var reports: [ScanReport] = []
                counter.frame.withView {
                    recognizer.process($0, metadata: MeterFixture.metadata(seed * 6 + index), into: &reports)
                }
                let reading = try #require(recognizer.lastReading)
                frames.append("\(counter.truth):\(reading.text)\(reading.tracked ? "+" : "")")
                if reading.tracked {
                    tracked += 1
                    // A confirmation: the last frame's digits, right, and no surer than the last frame's reading.
                    let previous = try #require(last, "seed \(seed): the first frame of a counter tracked")
                    #expect(reading.text == previous.text && reading.text == counter.truth, "seed \(seed) \(index)")
                    #expect(previous.confidence >= 95, "seed \(seed) \(index): tracked after an unsure reading")
                    for (now, before) in zip(reading.digitConfidences, previous.digitConfidences) {
                        #expect(now <= before + 1e-6, "seed \(seed) \(index): surer than the search")
                    }
                }
                last = reading
            }
        }
        // Measured when written: 48 of the 72 frames are confirmations (the first frame of a counter never is, nor a
        // frame after a reading with a drum under 95 %), none misread.
        #expect(tracked >= 36, "\(tracked) tracked frames: \(frames)")
    }

    @Test(
        "Counters of real drum photographs, of either polarity or both, read exactly and never misread",
        arguments: [false, true])
    func readsRealDrums(invertSome: Bool) throws {
        let drums = Self.wholeDrums(try MeterDigitClassifierTests.Crops())
        try #require(drums.allSatisfy { !$0.isEmpty }, "a whole drum of every digit among the committed crops")
        var exact = 0
        var outcomes: [String] = []
        for seed in UInt64(1)...12 {
            let (truth, read, _) = try self.read(
                seed: seed &* 7919 &+ (invertSome ? 1 : 0), invertSome: invertSome, drums: drums)
            outcomes.append("\(truth)→\(read ?? "-")")
            #expect(read == nil || read == truth, "misread: \(truth) read as \(read ?? "")")
            if read == truth { exact += 1 }
        }
        print("real-digit counters (invertSome \(invertSome)): \(exact) of 12 exact: \(outcomes)")
        // Measured when written: 8 of 12 as photographed (the misses: a dim, half-occluded 7 photographed dark on
        // light, which two counters share, and two counters whose frames never agree three times) and 11 of 12 with
        // drums inverted at random; none misread. The floors leave one counter of room for a changed model.
        #expect(exact >= (invertSome ? 10 : 7), "\(exact) of 12 exact: \(outcomes)")
    }

    /// Counter `seed`'s pose in the tests of counters seen from the side: turned 20-26 degrees either way from close
    /// by (its near end a third taller than its far one) and rolled 6-9 degrees either way.
    static func sidePose(_ seed: UInt64) -> Pose {
        Pose(
            yaw: (seed % 2 == 0 ? 1 : -1) * (20 + Double(seed % 4) * 2),
            roll: (seed % 3 == 0 ? 1 : -1) * (6 + Double(seed % 4)), distance: 450)
    }

    @Test("Counters seen from the side and rolled are read from the crop rectified, exactly, and never misread")
    func readsCountersSeenFromTheSide() throws {
        let drums = Self.wholeDrums(try MeterDigitClassifierTests.Crops())
        var exact = 0
        var rectified = 0
        var outcomes: [String] = []
        // The counters of readsRealDrums(invertSome: true), which read 12 of 12 level and face on, each turned and
        // rolled (sidePose).
        for seed in UInt64(1)...12 {
            let (truth, read, wasRectified) = try self.read(
                seed: seed &* 7919 &+ 1, invertSome: true, drums: drums, pose: Self.sidePose(seed))
            outcomes.append("\(truth)→\(read ?? "-")\(wasRectified ? "r" : "")")
            #expect(read == nil || read == truth, "misread: \(truth) read as \(read ?? "")")
            if read == truth { exact += 1 }
            if read != nil && wasRectified { rectified += 1 }
        }
        print("real-digit counters seen from the side: \(exact) of 12 exact: \(outcomes)")
        #expect(exact >= 8, "\(exact) of 12 exact: \(outcomes)")
        #expect(rectified >= 6, "\(rectified) completed from the crop rectified: \(outcomes)")
    }

    @Test(
        "A counter read surely from the crop rectified is confirmed in the next frames in that crop, its bounds the camera's"
    )
    func tracksInTheRectifiedCrop() throws {
        let drums = Self.wholeDrums(try MeterDigitClassifierTests.Crops())
        // Never completing, so every frame is read; a recognizer per counter.
        let configuration = MeterConfiguration(scanMode: .counterMeter, consecutiveFrames: 1000)
        var confirmed = 0
        var frames: [String] = []
        for seed in UInt64(1)...12 {
            let recognizer = try MeterRecognizer(configuration: configuration, cutout: Self.cutout, logger: logger)
            for index in UInt64(0)..<6 {
                let counter = Self.counter(
                    seed: seed &* 7919 &+ 1, invertSome: true, drums: drums, noise: seed &* 7919 &+ 1 &+ index,
                    pose: Self.sidePose(seed))
                var reports: [ScanReport] = []
                counter.frame.withView {
                    recognizer.process($0, metadata: MeterFixture.metadata(index), into: &reports)
                }
                let reading = try #require(recognizer.lastReading)
                let flags = (reading.tracked ? "t" : "") + (reading.rectified ? "r" : "")
                frames.append("\(counter.truth):\(reading.text)\(flags)")
                guard reading.tracked && reading.rectified else { continue }
                confirmed += 1
                #expect(reading.text == counter.truth, "seed \(seed) \(index): confirmed \(reading.text)")
                // The digits' bounds as the camera saw them: about the row of drums in the frame, not the rectified
                // crop's box (the row made level, as long as it is and centred in the crop). Across, the row's ends;
                // up and down, the digits inside the drums' photographs, which they fill 55-78 % of in height.
                let bounds = try #require(reading.digitBounds)
                let row = counter.drumBounds
                let tolerance = row.height / 4
                #expect(
                    abs(bounds.x - row.x) <= tolerance && abs(bounds.width - row.width) <= tolerance
                        && bounds.y >= row.y - tolerance && bounds.y + bounds.height <= row.y + row.height + tolerance
                        && 2 * bounds.height >= row.height,
                    "seed \(seed) \(index): bounds \(bounds) against the drums' \(row)")
            }
        }
        print("real-digit counters seen from the side, frame by frame: \(confirmed) confirmed rectified: \(frames)")
        // Measured when written: 34 of the 72 frames, each right.
        #expect(confirmed >= 24, "\(frames)")
    }
}
