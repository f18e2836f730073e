import Foundation
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

@Suite("BarcodeRecognizer")
struct BarcodeRecognizerTests {
    // MARK: The generated corpus

    @Test(
        "reads every corpus code, with its symbology, text and polygon",
        arguments: [
            (640, 480, 0.0), (640, 480, 4.0), (1280, 720, 4.0), (1920, 1080, 4.0),
        ])
    func corpus(width: Int, height: Int, noise: Double) throws {
        let scenes = try BarcodeCorpus.scenes(width: width, height: height, noise: noise)
        #expect(scenes.count >= 20)
        for scene in scenes {
            // Default configuration: two identical frames, as a camera pointed at a code gives; weak-check codes are
            // reported on the second, QR and Code 128 on the first.
            let recognizer = try BarcodeRecognizer(logger: testLogger)
            let first = process(recognizer, scene.image, index: 0, seconds: 0)
            let second = process(recognizer, scene.image, index: 1, seconds: 0.033)
            let expected = scene.codes[0]
            let read = results(first) + results(second)
            #expect(read.count == 1, "\(scene.name): \(read.map { $0.text ?? "" })")
            guard let report = read.first else { continue }
            #expect(report.state == .ok, "\(scene.name)")
            #expect(report.symbology == expected.symbology, "\(scene.name)")
            #expect(report.text == expected.text, "\(scene.name)")
            #expect(report.bytes == Array(expected.text.utf8), "\(scene.name)")
            #expect(report.recognizerID == "barcode")
            let needed = BarcodeConfiguration.defaultConsistencyCount(for: expected.symbology)
            #expect(results(needed == 1 ? first : second).count == 1, "\(scene.name): reported in the wrong frame")
            #expect(isUnreadable(needed == 1 ? second : first), "\(scene.name)")
            expectPolygon(report.polygon, within: expected.corners, scene.name)
        }
    }

    @Test("frames with no code give only IN_PROGRESS / UNREADABLE", arguments: [(640, 480), (1280, 720)])
    func noCode(width: Int, height: Int) throws {
        // Single-frame reporting, the strictest setting: any misread would show.
        let recognizer = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(consistencyCount: singleFrame), logger: testLogger)
        var index: UInt64 = 0
        for seed in [UInt64(3), 11] {
            for scene in BarcodeCorpus.noCodeScenes(width: width, height: height, seed: seed) {
                let reports = process(recognizer, scene.image, index: index, seconds: Double(index) * 2)
                index += 1
                #expect(
                    isUnreadable(reports),
                    "\(scene.name): \(reports.map { "\($0.symbology?.rawValue ?? "") \($0.text ?? "")" })")
                #expect(reports.first?.frameIndex == index - 1)
            }
        }
    }

    @Test(
        "the QR finder prefilter reads every QR code a full scan reads, at the same place, and nothing on frames without",
        arguments: [(640, 480), (1280, 720), (1920, 1080)])
    func qrPrefilter(width: Int, height: Int) throws {
        let scenes =
            try BarcodeCorpus.scenes(width: width, height: height, noise: 4).filter {
                $0.codes.first?.symbology == .qrCode
            } + BarcodeCorpus.noCodeScenes(width: width, height: height, seed: 5)
        #expect(scenes.count >= 6)
        // Whole frames, and a region that starts mid-row (zbar then reads a band of whole rows with a column crop).
        let regions: [RegionOfInterest?] = [nil, .percent(x: 10, y: 5, width: 80, height: 90)]
        for scene in scenes {
            for region in regions {
                func read(prefilter: Bool) throws -> [ScanReport] {
                    let configuration = BarcodeConfiguration(
                        symbologies: [.qrCode], regionOfInterest: region, qrFinderPrefilter: prefilter)
                    return results(
                        process(try BarcodeRecognizer(configuration: configuration, logger: testLogger), scene.image))
                }
                let filtered = try read(prefilter: true)
                let full = try read(prefilter: false)
                let context = "\(scene.name) \(String(describing: region))"
                #expect(filtered.map(\.text) == scene.codes.map(\.text), "\(context)")
                #expect(filtered.map(\.text) == full.map(\.text), "\(context)")
                // zbar places corners from the finder lines it saw, and a crop shows it fewer: a corner may move by
                // a pixel or two of the plane QR codes are read on (a 2x-shrunk one at 1080p), never more.
                let tolerance = 2.0 * Double(BarcodeConfiguration.automaticQRDownscale(forHeight: height))
                for (a, b) in zip(filtered, full) {
                    #expect(a.polygon.count == b.polygon.count, "\(context)")
                    for (p, q) in zip(a.polygon, b.polygon) {
                        #expect(hypot(p.x - q.x, p.y - q.y) <= tolerance, "\(context): \(a.polygon) vs \(b.polygon)")
                    }
                }
            }
        }
    }

    // MARK: Filtering across frames

    @Test("a code seen in consecutive frames is reported once, and again after an absence longer than the interval")
    func duplicates() throws {
        let qr = try QRCode("duplicate test")
        let (withCode, _) = scene(qr.render(moduleSize: 4))
        let empty = TestCanvas(width: 640, height: 480, fill: 210).image
        let recognizer = try BarcodeRecognizer(logger: testLogger)  // duplicateInterval 1 s
        var index: UInt64 = 0
        func frame(_ image: LumaImage, at seconds: Double) -> [ScanReport] {
            defer { index += 1 }
            return process(recognizer, image, index: index, seconds: seconds)
        }
        #expect(results(frame(withCode, at: 0.0)).map(\.text) == ["duplicate test"])
        for t in [0.1, 0.2, 0.3] { #expect(isUnreadable(frame(withCode, at: t))) }
        // Absent 0.6 s (< 1 s), then back: the same appearance, not reported.
        #expect(isUnreadable(frame(empty, at: 0.6)))
        #expect(isUnreadable(frame(withCode, at: 0.9)))
        // Absent from 0.9 s to 2.0 s (1.1 s > 1 s): reported again.
        #expect(isUnreadable(frame(empty, at: 1.5)))
        #expect(results(frame(withCode, at: 2.0)).map(\.text) == ["duplicate test"])
        #expect(isUnreadable(frame(withCode, at: 2.1)))
        // reset() forgets it.
        recognizer.reset()
        #expect(results(frame(withCode, at: 2.2)).map(\.text) == ["duplicate test"])
    }

    @Test("a code read in every frame stays one appearance when recognition is slower than the interval")
    func slowRecognition() throws {
        let qr = try QRCode("slow frames")
        let (withCode, _) = scene(qr.render(moduleSize: 4))
        let empty = TestCanvas(width: 640, height: 480, fill: 210).image
        let recognizer = try BarcodeRecognizer(logger: testLogger)  // duplicateInterval 1 s
        // Frames scanned 2.5 s apart, as under emulation: the code in each one is reported once.
        var texts: [[String?]] = []
        for index in 0..<5 {
            texts.append(
                results(process(recognizer, withCode, index: UInt64(index), seconds: 2.5 * Double(index))).map(\.text))
        }
        #expect(texts == [["slow frames"], [], [], [], []], "\(texts)")
        // One scanned frame without it, then back after more than the interval: a new appearance.
        #expect(isUnreadable(process(recognizer, empty, index: 5, seconds: 12.5)))
        #expect(results(process(recognizer, withCode, index: 6, seconds: 15)).map(\.text) == ["slow frames"])
        // Frames dropped between scans (indices 7...9 never scanned) do not count as an absence.
        #expect(isUnreadable(process(recognizer, withCode, index: 10, seconds: 17.5)))
    }

    @Test("a weak-check 1D code reaches its consistency count across slow frames")
    func slowConsistency() throws {
        let (image, _) = scene(EAN.ean13("590123412345").render(moduleWidth: 3))
        let recognizer = try BarcodeRecognizer(logger: testLogger)  // EAN-13: 2 reads
        #expect(isUnreadable(process(recognizer, image, index: 0, seconds: 0)))
        #expect(results(process(recognizer, image, index: 1, seconds: 3)).map(\.text) == ["5901234123457"])
    }

    @Test("duplicateInterval 0 reports the code in every frame")
    func zeroInterval() throws {
        let qr = try QRCode("every frame")
        let (image, _) = scene(qr.render(moduleSize: 4))
        let recognizer = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(symbologies: [.qrCode, .code128], duplicateInterval: 0),
            logger: testLogger)
        for index in 0..<3 {
            #expect(results(process(recognizer, image, index: UInt64(index), seconds: Double(index) * 0.04)).count == 1)
        }
    }

    @Test("a weak-check 1D code is reported only once read in two frames within the interval")
    func consistency() throws {
        let code = EAN.ean13("590123412345")
        let (image, _) = scene(code.render(moduleWidth: 3))
        let empty = TestCanvas(width: 640, height: 480, fill: 210).image

        // Seen in one frame only: never reported.
        let once = try BarcodeRecognizer(logger: testLogger)
        #expect(isUnreadable(process(once, image, index: 0, seconds: 0)))
        for index in 1...3 {
            #expect(isUnreadable(process(once, empty, index: UInt64(index), seconds: Double(index) * 0.1)))
        }

        // Seen in two frames, not consecutive but 0.5 s apart: reported on the second.
        let twice = try BarcodeRecognizer(logger: testLogger)
        #expect(isUnreadable(process(twice, image, index: 0, seconds: 0)))
        #expect(isUnreadable(process(twice, empty, index: 1, seconds: 0.25)))
        let second = process(twice, image, index: 2, seconds: 0.5)
        #expect(results(second).map(\.text) == [code.text])
        #expect(results(second).first?.symbology == .ean13)
        #expect(results(second).first?.frameIndex == 2)

        // Two reads 1.5 s apart (more than the interval) with a frame without the code between: counting starts
        // again, nothing reported until the next read.
        let apart = try BarcodeRecognizer(logger: testLogger)
        #expect(isUnreadable(process(apart, image, index: 0, seconds: 0)))
        #expect(isUnreadable(process(apart, empty, index: 1, seconds: 0.75)))
        #expect(isUnreadable(process(apart, image, index: 2, seconds: 1.5)))
        #expect(results(process(apart, image, index: 3, seconds: 1.6)).count == 1)

        // Code 128 needs one frame by default; a consistency of 3 makes EAN-13 wait for a third frame.
        let strict = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(consistencyCount: [.ean13: 3]), logger: testLogger)
        #expect(isUnreadable(process(strict, image, index: 0, seconds: 0)))
        #expect(isUnreadable(process(strict, image, index: 1, seconds: 0.1)))
        #expect(results(process(strict, image, index: 2, seconds: 0.2)).count == 1)
    }

    // MARK: Region of interest

    @Test("a code outside the region is not read; inside, its polygon is in frame pixels")
    func regionOfInterest() throws {
        let code = Code128.encode("ROI-7")
        let (image, corners) = scene(code.render(moduleWidth: 3), centre: Point(x: 160, y: 360))
        let rightHalf = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(regionOfInterest: .percent(x: 50, y: 0, width: 50, height: 100)),
            logger: testLogger)
        #expect(isUnreadable(process(rightHalf, image)))

        for region in [
            RegionOfInterest.percent(x: 0, y: 50, width: 50, height: 50),
            .pixels(Rect(x: 20, y: 250, width: 300, height: 220)),
            .pixels(Rect(x: 0, y: 240, width: 640, height: 240)),
        ] {
            let recognizer = try BarcodeRecognizer(
                configuration: BarcodeConfiguration(regionOfInterest: region), logger: testLogger)
            let read = results(process(recognizer, image))
            #expect(read.map(\.text) == ["ROI-7"], "\(region)")
            if let polygon = read.first?.polygon { expectPolygon(polygon, within: corners, "\(region)") }
        }
    }

    @Test("padded rows (stride > width) read the same, with and without a region reaching the last row")
    func stride() throws {
        let qr = try QRCode("stride")
        let code = EAN.ean8("5512345")
        let canvas = TestCanvas(width: 640, height: 480, fill: 210)
        let qrCorners = canvas.place(qr.render(moduleSize: 4), centre: Point(x: 150, y: 150))
        let eanCorners = canvas.place(code.render(moduleWidth: 3), centre: Point(x: 420, y: 380))
        // Copy into rows of 700 bytes; the padding is noise, and the buffer ends right after the last row's pixels.
        let stride = 700
        var padded = [UInt8](repeating: 0, count: stride * 479 + 640)
        var random = SplitMix64(seed: 5)
        for index in padded.indices { padded[index] = UInt8(truncatingIfNeeded: random.next()) }
        let pixels = canvas.image.pixels
        for row in 0..<480 {
            for column in 0..<640 { padded[row * stride + column] = pixels[row * 640 + column] }
        }
        for region: RegionOfInterest? in [nil, .pixels(Rect(x: 0, y: 0, width: 640, height: 470))] {
            let recognizer = try BarcodeRecognizer(
                configuration: BarcodeConfiguration(consistencyCount: singleFrame, regionOfInterest: region),
                logger: testLogger)
            var reports: [ScanReport] = []
            padded.withUnsafeBufferPointer { buffer in
                let view = LumaView(baseAddress: buffer.baseAddress!, width: 640, height: 480, stride: stride)
                recognizer.process(view, metadata: .test(width: 640, height: 480), into: &reports)
            }
            let read = results(reports)
            #expect(Set(read.compactMap(\.text)) == ["stride", code.text], "\(String(describing: region))")
            for report in read {
                expectPolygon(
                    report.polygon, within: report.symbology == .qrCode ? qrCorners : eanCorners,
                    "\(String(describing: region))")
            }
        }
    }

    // MARK: Symbologies and lengths

    @Test("payload lengths per symbology")
    func lengths() throws {
        let code = Code128.encode("LENGTH-11ab")  // 11 characters
        let (image, _) = scene(code.render(moduleWidth: 3))
        for (minimum, maximum, read) in [
            (nil, nil, true), (12, nil, false), (nil, 11, true), (nil, 10, false),
            (11, 11, true), (3, 40, true),
        ] as [(Int?, Int?, Bool)] {
            var configuration = BarcodeConfiguration()
            configuration.minLength[.code128] = minimum
            configuration.maxLength[.code128] = maximum
            let recognizer = try BarcodeRecognizer(configuration: configuration, logger: testLogger)
            let texts = results(process(recognizer, image)).map(\.text)
            #expect(
                texts == (read ? ["LENGTH-11ab"] : []),
                "min \(String(describing: minimum)) max \(String(describing: maximum))")
        }
        // A limit on another symbology does not affect Code 128.
        let other = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(minLength: [.code39: 20]), logger: testLogger)
        #expect(results(process(other, image)).count == 1)
    }

    @Test("UPC-A: 12 digits as .upcA when enabled, 13 digits as .ean13 when only EAN-13 is")
    func upcA() throws {
        let code = EAN.upcA("03600029145")
        #expect(code.text == "036000291452")
        let (image, _) = scene(code.render(moduleWidth: 3))
        func read(_ symbologies: [Symbology]) throws -> [ScanReport] {
            let recognizer = try BarcodeRecognizer(
                configuration: BarcodeConfiguration(symbologies: symbologies, consistencyCount: singleFrame),
                logger: testLogger)
            return results(process(recognizer, image))
        }
        for symbologies: [Symbology] in [Symbology.allCases, [.upcA], [.upcA, .ean13]] {
            let reports = try read(symbologies)
            #expect(reports.map(\.text) == ["036000291452"], "\(symbologies)")
            #expect(reports.map(\.symbology) == [.upcA], "\(symbologies)")
        }
        let asEAN = try read([.ean13])
        #expect(asEAN.map(\.text) == ["0036000291452"])
        #expect(asEAN.map(\.symbology) == [.ean13])
        // UPC-A alone does not read an EAN-13 that does not start with 0.
        let ean = EAN.ean13("400638133393")
        let recognizer = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(symbologies: [.upcA], consistencyCount: singleFrame),
            logger: testLogger)
        #expect(isUnreadable(process(recognizer, scene(ean.render(moduleWidth: 3)).0)))
    }

    @Test("Bookland EAN-13: .isbn13 by default, .isbn10 with only EAN-13 and ISBN-10, .ean13 with only EAN-13")
    func isbn() throws {
        let code = EAN.ean13("978030640615")
        let (image, _) = scene(code.render(moduleWidth: 3))
        // ISBN-10 from how the code was made: digits 4...12 of the EAN, then the mod-11 check character.
        let nine = Array(code.text.dropFirst(3).prefix(9)).compactMap(\.wholeNumberValue)
        let sum = nine.enumerated().reduce(0) { $0 + $1.element * (10 - $1.offset) }
        let check = (11 - sum % 11) % 11
        let isbn10 = nine.map(String.init).joined() + (check == 10 ? "X" : String(check))
        for (symbologies, symbology, text) in [
            (Symbology.allCases, Symbology.isbn13, code.text), ([.ean13, .isbn10], .isbn10, isbn10),
            ([.ean13], .ean13, code.text), ([.isbn13], .isbn13, code.text),
        ] {
            let recognizer = try BarcodeRecognizer(
                configuration: BarcodeConfiguration(symbologies: symbologies, consistencyCount: singleFrame),
                logger: testLogger)
            let reports = results(process(recognizer, image))
            #expect(reports.map(\.symbology) == [symbology], "\(symbologies)")
            #expect(reports.map(\.text) == [text], "\(symbologies)")
        }
    }

    @Test("only the enabled symbologies are read")
    func enabledSymbologies() throws {
        let (image, _) = scene(Code128.encode("ONLY").render(moduleWidth: 3))
        let qrOnly = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(symbologies: [.qrCode]), logger: testLogger)
        #expect(isUnreadable(process(qrOnly, image)))
        let code128 = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(symbologies: [.code128]), logger: testLogger)
        #expect(results(process(code128, image)).map(\.symbology) == [.code128])
    }

    @Test("several codes in one frame are each reported", arguments: [(640, 480), (1920, 1080)])
    func severalCodes(width: Int, height: Int) throws {
        let qr = try QRCode("several-1")
        let ean = EAN.ean13("871234567890")
        let code128 = Code128.encode("several-3")
        let scale = max(1, Double(height) / 720)
        let canvas = BarcodeCorpus.background(width: width, height: height, seed: 9)
        let w = Double(width)
        let h = Double(height)
        let placed = [
            ("several-1", canvas.place(qr.render(moduleSize: 4), centre: Point(x: w * 0.2, y: h * 0.3), scale: scale)),
            (ean.text, canvas.place(ean.render(moduleWidth: 2), centre: Point(x: w * 0.7, y: h * 0.25), scale: scale)),
            (
                "several-3",
                canvas.place(
                    code128.render(moduleWidth: 2), centre: Point(x: w * 0.55, y: h * 0.75), scale: scale, degrees: 5)
            ),
        ]
        canvas.addNoise(sigma: 3, seed: 1)
        let recognizer = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(consistencyCount: singleFrame), logger: testLogger)
        let read = results(process(recognizer, canvas.image))
        #expect(Set(read.compactMap(\.text)) == Set(placed.map(\.0)))
        #expect(read.count == 3)
        for (text, corners) in placed {
            if let report = read.first(where: { $0.text == text }) {
                expectPolygon(report.polygon, within: corners, text)
            }
        }
    }

    // MARK: Still images

    @Test("still-image mode reads in one frame, reports repeats, and reads codes too small for zbar's camera pass")
    func stillImage() throws {
        let code = EAN.ean13("400638133393")
        // 1.4 px per module, slightly blurred: below what zbar's camera pass reads, read by the still-image passes.
        let canvas = TestCanvas(width: 320, height: 200, fill: 230)
        let corners = canvas.place(code.render(moduleWidth: 1, height: 40), centre: Point(x: 160, y: 100), scale: 1.4)
        canvas.blur(sigma: 0.5)
        let camera = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(consistencyCount: singleFrame), logger: testLogger)
        // ZXing-C++'s row pass reads it, but a camera frame's EAN/UPC reading needs zbar (misread guard).
        #expect(isUnreadable(process(camera, canvas.image)))
        let still = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(stillImage: true), logger: testLogger)
        for index in 0..<2 {
            let read = results(process(still, canvas.image, index: UInt64(index), seconds: Double(index) * 0.01))
            #expect(read.map(\.text) == [code.text])
            if let polygon = read.first?.polygon { expectPolygon(polygon, within: corners, "still") }
        }
        // A dim, low-contrast photo: grey 110 bars on grey 140.
        let dim = TestCanvas(width: 640, height: 480, fill: 140)
        let qr = try QRCode("dim photo")
        dim.place(qr.render(moduleSize: 4, dark: 110, light: 140), centre: Point(x: 320, y: 240))
        dim.addNoise(sigma: 3, seed: 2)
        #expect(results(process(still, dim.image)).map(\.text) == ["dim photo"])
    }

    @Test("an invalid configuration is refused at init")
    func invalidConfiguration() {
        #expect(throws: LumaScanError.self) {
            try BarcodeRecognizer(configuration: BarcodeConfiguration(symbologies: []), logger: testLogger)
        }
    }
}
