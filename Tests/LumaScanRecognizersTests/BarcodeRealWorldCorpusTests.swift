import Foundation
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// LumaScan against its peers on ``BarcodeRealWorldCorpus``: on the same photos in the same run, LumaScan's still-image
/// recognizer (every symbology), raw zbar as zbarimg runs it (``ZBarBaseline``) and raw ZXing-C++ with default hints
/// (``ZXingPeer``).
@Suite("BarcodeRealWorldCorpus")
struct BarcodeRealWorldCorpusTests {
    static let readers = ["LumaScan", "zbar", "ZXing"]

    @Test("each kind of payload, rendered by zint without a camera, reads back as its truth", arguments: [1, 2])
    func truths(seed: UInt64) throws {
        let prints = try BarcodeRealWorldCorpus.prints(seed: seed)
        #expect(prints.count >= 20)
        for (truth, print) in prints {
            // On a white margin, as a scanner sees a label.
            let canvas = TestCanvas(width: print.width + 80, height: print.height + 80, fill: 255)
            canvas.paste(print, x: 40, y: 40)
            let (reads, _) = canvas.image.withView { ZXingPeer.read($0) }
            #expect(
                reads.contains { BarcodeTruth.matches($0, truth) }
                    && reads.allSatisfy { BarcodeTruth.matches($0, truth) },
                "\(truth): ZXing read \(reads)")
        }
    }

    // Between them these folders use every step of the camera model (each texture, damage, both blurs, glare,
    // curvature, JPEG), so the address sanitizer run of scripts/test.sh covers CLumaTestKit.
    @Test(
        "a folder is the same photos every time",
        arguments: [
            "qr/damaged", "ean13/jpeg-low", "upca/motion-blur", "pdf417/glare", "qr/curved", "none/product-art",
            "none/text", "none/texture",
        ])
    func deterministic(folder: String) throws {
        let first = try BarcodeRealWorldCorpus.images(in: folder)
        let second = try BarcodeRealWorldCorpus.images(in: folder)
        #expect(first.map(\.image.pixels) == second.map(\.image.pixels))
        #expect(first.map(\.truth) == second.map(\.truth))
        #expect(Set(first.map(\.path)).count == BarcodeRealWorldCorpus.imagesPerFolder)
        #expect(first.allSatisfy { ($0.jpeg != nil) == folder.hasSuffix("jpeg-low") })
    }

    /// Photos scaled up to fill a 1080p frame, as the README's still-image timing measures them: each of these read
    /// every code whole and, before the merge knew better, also reported a wrong reading over the same bars (an ITF
    /// read short, a Code 128 misread on one scan line, an EAN-8 and a UPC-E read from a row of another code).
    @Test(
        "a photo scaled up to 1080p: each code read, and no second reading over the same bars",
        arguments: ["i25/clean/002", "code128/clean/000", "multi/shelf/001", "multi/shelf/002"])
    func fittedTo1080p(path: String) throws {
        let split = try #require(path.lastIndex(of: "/"))
        let folder = String(path[..<split])
        let name = String(path[path.index(after: split)...])
        let image = try #require(try BarcodeRealWorldCorpus.images(in: folder).first { $0.name == name })
        let recognizer = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(stillImage: true), logger: testLogger)
        let reads = results(process(recognizer, image.image.fitted(width: 1920, height: 1080), index: 0)).map {
            PeerRead(symbology: $0.symbology?.rawValue ?? "?", text: $0.text ?? "")
        }
        for truth in image.truth {
            #expect(reads.contains { BarcodeTruth.matches($0, truth) }, "\(path): \(truth) not among \(reads)")
        }
        for read in reads {
            #expect(image.truth.contains { BarcodeTruth.matches(read, $0) }, "\(path): misread \(read)")
        }
    }

    /// The still path runs zbar's linear scan on a second thread when the process may use two CPUs, and collects the
    /// readings in the order of one thread: the reports are the same, to the polygon, as with the thread pinned to one
    /// CPU (where it runs everything on one thread).
    @Test(
        "still images read the same on one CPU as on two",
        .enabled(if: ProcessInfo.processInfo.activeProcessorCount > 1, "needs two CPUs to compare with one"),
        arguments: ["ean13/motion-blur", "multi/shelf", "qr/damaged", "i25/clean", "none/texture"])
    func sameOnOneCPU(folder: String) throws {
        let recognizer = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(stillImage: true), logger: testLogger)
        func reads(_ image: LumaImage) -> [String] {
            results(process(recognizer, image.fitted(width: 1920, height: 1080))).map {
                "\($0.symbology?.rawValue ?? "?") \($0.text ?? "") \($0.polygon)"
            }
        }
        for image in try BarcodeRealWorldCorpus.images(in: folder) {
            let both = reads(image.image)
            let (cpus, one) = onOneCPU { reads(image.image) }
            #expect(cpus > 1, "the thread could run on \(cpus) CPUs")
            #expect(one == both, "\(folder)/\(image.name)")
        }
    }

    @Test(
        "in every folder LumaScan reads as many photos as zbar ∪ ZXing-C++, misreads none, and finds nothing in code-free photos"
    )
    func versusPeers() throws {
        let recognizer = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(stillImage: true), logger: testLogger)
        let zbar = try ZBarBaseline()
        var board = BarcodeScoreboard(readers: Self.readers, union: ["zbar", "ZXing"])
        var generation = Duration.zero
        var reading: [Duration] = [.zero, .zero, .zero]
        let clock = ContinuousClock()
        var frame: UInt64 = 0
        var zxingAborts: [String] = []
        for folder in BarcodeRealWorldCorpus.folders {
            var images: [RealWorldImage] = []
            generation += try clock.measure { images = try BarcodeRealWorldCorpus.images(in: folder) }
            for image in images {
                var reads: [String: [PeerRead]] = [:]
                reading[0] += clock.measure {
                    reads["LumaScan"] = results(process(recognizer, image.image, index: frame)).map {
                        PeerRead(symbology: $0.symbology?.rawValue ?? "?", text: $0.text ?? "")
                    }
                }
                reading[1] += clock.measure {
                    _ = image.image.withView { zbar.scan($0) }
                    reads["zbar"] = zbar.results.map {
                        PeerRead(symbology: $0.symbology?.rawValue ?? $0.zbarName, text: $0.text)
                    }
                }
                reading[2] += clock.measure {
                    let (found, aborted) = image.image.withView { ZXingPeer.read($0) }
                    reads["ZXing"] = found
                    if aborted { zxingAborts.append(image.path) }
                }
                board.add(folder: folder, image: image.path, truth: image.truth, reads: reads)
                frame += 1
            }
        }
        print("BarcodeRealWorldCorpus: read/misread per reader; the last column counts photos zbar or ZXing read")
        print(board.table)
        print(
            "generation \(generation), LumaScan \(reading[0]), zbar \(reading[1]), ZXing \(reading[2]) "
                + "for \(board.total.images) photos")
        for row in board.rows where !row.misreadExamples.isEmpty {
            print("misreads in \(row.folder): \(row.misreadExamples.joined(separator: "; "))")
        }
        print(
            "ZXing-C++ aborted (assertion in Result::operator==) on \(zxingAborts.count) photos, read again for "
                + "one symbol: \(zxingAborts.joined(separator: " "))")

        for row in board.rows {
            let lumaScan = Self.readers.firstIndex(of: "LumaScan") ?? 0
            let misreads = row.misreadExamples.filter { $0.contains(": LumaScan ") }
            if row.codeFree == row.images {
                #expect(row.misreads[lumaScan] == 0, "\(row.folder): results in code-free photos: \(misreads)")
                continue
            }
            #expect(
                row.read[lumaScan] >= row.unionRead,
                "\(row.folder): LumaScan read \(row.read[lumaScan]) of \(row.images) photos, zbar ∪ ZXing \(row.unionRead)"
            )
            #expect(row.misreads[lumaScan] == 0, "\(row.folder): \(row.misreads[lumaScan]) misreads: \(misreads)")
        }
    }
}
