import CLumaVision
import Foundation
import Glibc
import LumaScanCore
import LumaScanTestSupport
import Testing

/// The `lv_barcode_*` C API of CLumaVision, below what BarcodeRecognizer uses.
@Suite("lv_barcode_scanner")
struct LVBarcodeScannerTests {
    /// Two codes on one canvas: a QR code on the left and a Code 128 on the right.
    func twoCodes() throws -> LumaImage {
        let canvas = TestCanvas(width: 640, height: 480, fill: 220)
        canvas.place(try QRCode("left").render(moduleSize: 4), centre: Point(x: 150, y: 240))
        canvas.place(Code128.encode("right-side").render(moduleWidth: 2), centre: Point(x: 460, y: 240))
        return canvas.image
    }

    func scan(
        _ image: LumaImage, maxResults: Int = 8, dataCapacity: Int = 1024, roi: Rect? = nil, still: Bool = false
    ) -> (Int32, [lv_barcode_result], [UInt8]) {
        var created: OpaquePointer?
        guard lv_barcode_scanner_create(&created) == 0, let scanner = created else { return (-1, [], []) }
        defer { lv_barcode_scanner_destroy(scanner) }
        var results = [lv_barcode_result](repeating: lv_barcode_result(), count: max(1, maxResults))
        var data = [UInt8](repeating: 0, count: max(1, dataCapacity))
        let region = roi ?? Rect(x: 0, y: 0, width: 0, height: 0)
        let count = image.withView { view in
            (still ? lv_barcode_scan_still : lv_barcode_scan)(
                scanner, view.baseAddress, Int32(view.width), Int32(view.height), view.stride, Int32(region.x),
                Int32(region.y), Int32(region.width), Int32(region.height), &results, Int32(maxResults), &data,
                dataCapacity)
        }
        return (count, Array(results.prefix(Int(max(0, count)))), data)
    }

    func text(_ result: lv_barcode_result, _ data: [UInt8]) -> String {
        String(decoding: data[Int(result.data_offset)..<Int(result.data_offset + result.data_length)], as: UTF8.self)
    }

    @Test("payloads land NUL-terminated in the caller's buffer, with symbology, quality and four points")
    func results() throws {
        let (count, results, data) = scan(try twoCodes())
        #expect(count == 2)
        let byText = Dictionary(uniqueKeysWithValues: results.map { (text($0, data), $0) })
        #expect(byText["left"]?.symbology == Int32(LV_SYM_QRCODE))
        #expect(byText["right-side"]?.symbology == Int32(LV_SYM_CODE128))
        for result in results {
            #expect(result.point_count == 4)
            #expect(result.quality >= 1)
            #expect(data[Int(result.data_offset + result.data_length)] == 0)
        }
        #expect(byText["left"]?.orientation == Int32(LV_ORIENT_UP))
        #expect(byText["right-side"]?.orientation == Int32(LV_ORIENT_UP))
    }

    @Test("result and payload capacity limits")
    func limits() throws {
        let image = try twoCodes()
        #expect(scan(image, maxResults: 1).0 == 1)
        #expect(scan(image, maxResults: 0).0 == 0)
        // A result takes its payload and its text, each with a NUL: 22 bytes for "right-side", 10 for "left". With 22
        // bytes, "left" does not fit after "right-side", nor "right-side" after "left".
        let (count, results, data) = scan(image, dataCapacity: 22)
        #expect(count == 1)
        #expect(["left", "right-side"].contains(results.first.map { text($0, data) } ?? ""))
    }

    @Test("ROI: only the codes centred inside are returned, in frame coordinates")
    func roi() throws {
        let (count, results, data) = scan(try twoCodes(), roi: Rect(x: 280, y: 100, width: 360, height: 300))
        #expect(count == 1)
        #expect(results.first.map { text($0, data) } == "right-side")
        if let first = results.first {
            let xs = withUnsafeBytes(of: first.points) { Array($0.bindMemory(to: Float.self)) }
            #expect(stride(from: 0, to: 8, by: 2).allSatisfy { xs[$0] > 290 })
        }
    }

    @Test("invalid arguments are -EINVAL, never a crash")
    func invalid() {
        #expect(lv_barcode_scanner_configure(nil, Int32(LV_SYM_EAN13), 1, -1, -1) == -EINVAL)
        #expect(lv_barcode_scanner_create(nil) == -EINVAL)
        var created: OpaquePointer?
        guard lv_barcode_scanner_create(&created) == 0, let scanner = created else {
            Issue.record("no scanner")
            return
        }
        defer { lv_barcode_scanner_destroy(scanner) }
        #expect(lv_barcode_scanner_configure(scanner, 5, 1, -1, -1) == -EINVAL)  // zbar's EAN-5: not a symbology
        #expect(lv_barcode_scanner_configure(scanner, 500, 1, -1, -1) == -EINVAL)
        #expect(lv_barcode_scanner_set_density(scanner, 0, 0) == -EINVAL)
        #expect(lv_barcode_scanner_set_qr_downscale(scanner, 5) == -EINVAL)
        #expect(lv_barcode_scanner_set_qr_prefilter(nil, 1) == -EINVAL)
        var results = [lv_barcode_result](repeating: lv_barcode_result(), count: 1)
        var data = [UInt8](repeating: 0, count: 16)
        let pixels = [UInt8](repeating: 0, count: 16)
        #expect(lv_barcode_scan(scanner, pixels, 4, 4, 3, 0, 0, 0, 0, &results, 1, &data, 16) == -EINVAL)
        #expect(lv_barcode_scan(scanner, nil, 4, 4, 4, 0, 0, 0, 0, &results, 1, &data, 16) == -EINVAL)
        #expect(lv_barcode_scan(scanner, pixels, 4, 4, 4, 0, 0, 0, 0, &results, 1, &data, 16) == 0)
        #expect(String(cString: lv_barcode_symbology_name(Int32(LV_SYM_EAN13))) == "EAN-13")
    }

    /// The finder centres the prefilter's search returns for `image`, as (x, y, module) triples.
    func finderCandidates(_ image: LumaImage) -> (Int32, [(x: Double, y: Double, module: Double)]) {
        var out = [Float](repeating: 0, count: 3 * 64)
        let count = image.withView { view in
            lv_qr_finder_locate(view.baseAddress, Int32(view.width), Int32(view.height), view.stride, &out, 64)
        }
        let found = (0..<Int(max(0, min(count, 64)))).map {
            (x: Double(out[3 * $0]), y: Double(out[3 * $0 + 1]), module: Double(out[3 * $0 + 2]))
        }
        return (count, found)
    }

    @Test(
        "the QR prefilter's search finds each finder pattern's centre and module size, upright and turned",
        arguments: [0.0, 30.0])
    func finderPatterns(degrees: Double) throws {
        let code = try QRCode("https://lumascan.example/finder")
        let moduleSize = 4
        let image = code.render(moduleSize: moduleSize)
        let canvas = TestCanvas(width: 640, height: 480, fill: 200)
        let centre = Point(x: 300, y: 250)
        canvas.place(image, centre: centre, degrees: degrees)
        canvas.addNoise(sigma: 4, seed: 3)
        // Finder centres sit 3.5 modules inside three corners of the code, past the 4-module quiet zone; mapped to the
        // frame as TestCanvas.place maps the image (turned counter-clockwise about its centre).
        let half = Double(image.width) / 2
        let radians = degrees * .pi / 180
        let inset = Double(moduleSize) * 7.5
        let far = Double(image.width) - inset
        let truth = [(inset, inset), (far, inset), (inset, far)].map { (u, v) -> Point in
            let (dx, dy) = (u - half, v - half)
            return Point(
                x: centre.x + dx * cos(radians) + dy * sin(radians), y: centre.y - dx * sin(radians) + dy * cos(radians)
            )
        }
        let (count, candidates) = finderCandidates(canvas.image)
        #expect(count >= 3, "\(candidates)")
        for point in truth {
            let nearest = candidates.min {
                hypot($0.x - point.x, $0.y - point.y) < hypot($1.x - point.x, $1.y - point.y)
            }
            guard let nearest else { continue }
            #expect(hypot(nearest.x - point.x, nearest.y - point.y) <= 1.5, "\(point): \(candidates)")
            #expect(abs(nearest.module - Double(moduleSize)) <= 1, "\(point): \(candidates)")
        }
        // Anything else it reports (data modules can line up 1:1:3:1:1) lies on the code, never on the background.
        for candidate in candidates {
            #expect(hypot(candidate.x - centre.x, candidate.y - centre.y) <= half, "\(candidate)")
        }
    }

    /// Scans `image` for QR codes only, with the full-resolution reading on at `downscale`, and returns the count
    /// read and the unread codes `lv_barcode_scanner_unread_qr` gives (corners, module size).
    func unreadQR(_ image: LumaImage, downscale: Int32) -> (read: Int32, unread: Int32, codes: [([Point], Double)]) {
        var created: OpaquePointer?
        guard lv_barcode_scanner_create(&created) == 0, let scanner = created else { return (-1, -1, []) }
        defer { lv_barcode_scanner_destroy(scanner) }
        _ = lv_barcode_scanner_disable_all(scanner)
        _ = lv_barcode_scanner_configure(scanner, Int32(LV_SYM_QRCODE), 1, -1, -1)
        _ = lv_barcode_scanner_set_qr_downscale(scanner, downscale)
        _ = lv_barcode_scanner_set_qr_full_resolution(scanner, 1)
        var results = [lv_barcode_result](repeating: lv_barcode_result(), count: 4)
        var data = [UInt8](repeating: 0, count: 1024)
        let read = image.withView { view in
            lv_barcode_scan(
                scanner, view.baseAddress, Int32(view.width), Int32(view.height), view.stride, 0, 0, 0, 0, &results, 4,
                &data, data.count)
        }
        var out = [Float](repeating: 0, count: 18)
        let unread = lv_barcode_scanner_unread_qr(scanner, &out, 2)
        let codes = (0..<Int(max(0, min(unread, 2)))).map { code in
            let corners = (0..<4).map {
                Point(x: Double(out[9 * code + 2 * $0]), y: Double(out[9 * code + 2 * $0 + 1]))
            }
            return (corners, Double(out[9 * code + 8]))
        }
        return (read, unread, codes)
    }

    @Test(
        "a QR code whose finder patterns show but whose data does not decode is given as unread, with its corners",
        arguments: [(Int32(1), 0.0), (Int32(2), 20.0)])
    func unreadQRCode(downscale: Int32, degrees: Double) throws {
        let code = try QRCode("https://lumascan.example/unread-qr-code")
        let moduleSize = 8
        let image = code.render(moduleSize: moduleSize, quietZone: 0)
        let n = Double(image.width) / Double(moduleSize)
        let canvas = TestCanvas(width: 1920, height: 1080, fill: 235)
        let centre = Point(x: 900, y: 520)
        let corners = canvas.place(image, centre: centre, degrees: degrees)
        // The intact code is read, and nothing is unread.
        let intact = unreadQR(canvas.image, downscale: downscale)
        #expect(intact.read == 1 && intact.unread == 0 && intact.codes.isEmpty)
        // Grey over everything but the three finder patterns (modules 8 and on, down and right): no reader decodes it.
        func at(_ u: Double, _ v: Double) -> Point {
            let (a, b) = (u / n, v / n)
            return Point(
                x: corners[0].x + a * (corners[1].x - corners[0].x) + b * (corners[3].x - corners[0].x),
                y: corners[0].y + a * (corners[1].y - corners[0].y) + b * (corners[3].y - corners[0].y))
        }
        canvas.fill(polygon: [at(8, 8), at(n, 8), at(n, n), at(8, n)], value: 128)
        canvas.fill(polygon: [at(8, 0), at(n - 8, 0), at(n - 8, 8), at(8, 8)], value: 128)
        canvas.fill(polygon: [at(0, 8), at(8, 8), at(8, n - 8), at(0, n - 8)], value: 128)
        canvas.addNoise(sigma: 3, seed: 4)
        let damaged = unreadQR(canvas.image, downscale: downscale)
        #expect(damaged.read == 0 && damaged.unread == 1, "\(damaged)")
        let (found, module) = try #require(damaged.codes.first)
        #expect(abs(module - Double(moduleSize)) <= 1.5, "module \(module)")
        // Corner 0 is the right-angle finder's (the code's top left), corner 2 the opposite one; 1 and 3 the other two
        // in either order. Each within 1.5 modules.
        func near(_ a: Point, _ b: Point) -> Bool { hypot(a.x - b.x, a.y - b.y) <= 1.5 * Double(moduleSize) }
        #expect(near(found[0], corners[0]) && near(found[2], corners[2]), "\(found) against \(corners)")
        #expect(
            (near(found[1], corners[1]) && near(found[3], corners[3]))
                || (near(found[1], corners[3]) && near(found[3], corners[1])), "\(found) against \(corners)")
    }

    @Test("the QR prefilter's search finds nothing on a noisy frame with text and no code, and refuses bad arguments")
    func noFinderPatterns() {
        let canvas = TestCanvas(width: 640, height: 480, fill: 128)
        canvas.draw(text: "NO QR CODE HERE 1:1:3:1:1", x: 20, y: 200, scale: 1.5)
        canvas.addNoise(sigma: 4, seed: 9)
        let (count, candidates) = finderCandidates(canvas.image)
        #expect(count == 0, "\(candidates)")
        var out = [Float](repeating: 0, count: 3)
        let pixels = [UInt8](repeating: 0, count: 16)
        #expect(lv_qr_finder_locate(nil, 4, 4, 4, &out, 1) == -EINVAL)
        #expect(lv_qr_finder_locate(pixels, 4, 4, 3, &out, 1) == -EINVAL)
        #expect(lv_qr_finder_locate(pixels, 4, 4, 4, nil, 1) == -EINVAL)
        #expect(lv_qr_finder_locate(pixels, 4, 4, 4, nil, 0) == 0)
    }

    /// Runs `barcode-corpus heap-growth` (built beside the test binary): the growth is measured in a process of its
    /// own, as the tests beside this one allocate in this process meanwhile.
    func heapGrowth(scans: Int) throws -> Int {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        var found: [URL] = []
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("barcode-corpus")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { found.append(candidate) }
            directory.deleteLastPathComponent()
        }
        let tool = try #require(found.first, "barcode-corpus is built beside the test binary")
        let process = Process()
        process.executableURL = tool
        process.arguments = ["heap-growth", String(scans)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        let words = text.split(whereSeparator: \.isWhitespace)
        return try #require(words.count == 4 ? Int(words[3]) : nil, "\(text)")
    }

    /// zbar 0.23 kept every QR symbol it decoded (about 176 bytes each) until the scanner was destroyed: a kiosk
    /// scanning one code for a day grew by megabytes. 600 scans held 110 kB before the fix.
    @Test("scanning a QR code again and again holds no memory per scan")
    func qrScansHoldNoMemory() throws {
        let growth = try heapGrowth(scans: 600)
        #expect(growth < 16 * 1024, "the heap in use grew by \(growth) bytes over 600 scans")
    }
}
