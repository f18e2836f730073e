// barcode-corpus: writes BarcodeRealWorldCorpus (or the bundled samples) to a folder, and scores command-line readers' output on a corpus
// folder against its truth.tsv. scripts/compare-barcodes.sh runs both around zbarimg, ZXingReader and lumascan.
import CLumaTestKit
import CLumaVision
import Foundation
import LumaScanBenchKit
import LumaScanCore
import LumaScanTestSupport

let usage = """
    usage: barcode-corpus write DIR
               writes every photo (PNG, JPEG for the jpeg-* folders) to DIR/<symbology>/<condition>/ and DIR/truth.tsv
           barcode-corpus samples DIR
               writes the bundled sample images (BundledSamples; Samples/ in the repository) to DIR
           barcode-corpus score DIR ZBARIMG ZXINGREADER LUMASCAN
               prints per folder of DIR (which holds truth.tsv) the images each reader read and its misreads, from
               zbarimg's and ZXingReader's block files and lumascan's JSON lines (see ReaderOutput)
           barcode-corpus heap-growth N
               scans one frame with a QR code N times with lv_barcode_scan on this process's only thread, and prints
               how much the heap in use grew after the first 100 scans: memory held per scan shows here exactly,
               where a test process running other tests beside it could not tell it apart
    """

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

func write(to directory: String) throws {
    let start = Date()
    var images: [RealWorldImage] = []
    for folder in BarcodeRealWorldCorpus.folders {
        let made = try BarcodeRealWorldCorpus.images(in: folder)
        for image in made { try image.write(under: directory) }
        images += made
    }
    try Data(CorpusTSV.truth(images).utf8).write(
        to: URL(fileURLWithPath: directory).appendingPathComponent("truth.tsv"))
    let seconds = String(format: "%.1f s", Date().timeIntervalSince(start))
    print(
        "wrote \(images.count) photos in \(BarcodeRealWorldCorpus.folders.count) folders to \(directory) in \(seconds)")
}

func score(_ directory: String, zbarimg: String, zxingReader: String, lumascan: String) throws {
    let root = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
    let truth = try CorpusTSV.parseTruth(String(contentsOfFile: root + "/truth.tsv", encoding: .utf8))
    var reads: [String: [String: [PeerRead]]] = [:]
    var aborted: [String: Int] = [:]
    for (reader, file) in [("zbarimg", zbarimg), ("ZXingReader", zxingReader)] {
        for block in ReaderOutput.blocks(try String(contentsOfFile: file, encoding: .utf8)) {
            reads[block.path, default: [:]][reader] =
                reader == "zbarimg"
                ? ReaderOutput.zbarimg(block.lines) : ReaderOutput.zxingReader(block.lines, path: block.path)
            if block.aborted { aborted[reader, default: 0] += 1 }
        }
    }
    for (path, read) in ReaderOutput.lumascan(try String(contentsOfFile: lumascan, encoding: .utf8), root: root) {
        reads[path, default: [:]]["lumascan", default: []].append(read)
    }
    var board = BarcodeScoreboard(readers: ["lumascan", "zbarimg", "ZXingReader"], union: ["zbarimg", "ZXingReader"])
    for (path, codes) in truth {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        board.add(folder: folder, image: path, truth: codes, reads: reads[path] ?? [:])
    }
    print(board.table)
    for row in board.rows where !row.misreadExamples.isEmpty {
        print("misreads in \(row.folder): \(row.misreadExamples.joined(separator: "; "))")
    }
    for (reader, count) in aborted.sorted(by: { $0.key < $1.key }) {
        print("\(reader) died on \(count) images (counted as reading nothing there)")
    }
}

/// See `usage`: prints "scans N growth BYTES", or fails when a scan does not read the code.
func heapGrowth(scans: Int) throws {
    let canvas = TestCanvas(width: 320, height: 240, fill: 230)
    canvas.place(try QRCode("heap-growth-check").render(moduleSize: 4), centre: Point(x: 160, y: 120))
    let image = canvas.image
    var created: OpaquePointer?
    guard lv_barcode_scanner_create(&created) == 0, let scanner = created else { fail("barcode-corpus: no scanner") }
    defer { lv_barcode_scanner_destroy(scanner) }
    var results = [lv_barcode_result](repeating: lv_barcode_result(), count: 4)
    var data = [UInt8](repeating: 0, count: 1024)
    var base = 0
    for scan in 0..<(100 + scans) {
        if scan == 100 { base = Int(lt_heap_in_use()) }
        let count = image.withView { view in
            lv_barcode_scan(
                scanner, view.baseAddress, Int32(view.width), Int32(view.height), view.stride, 0, 0, 0, 0, &results,
                4, &data, data.count)
        }
        if count != 1 { fail("barcode-corpus: scan \(scan) read \(count) codes, not 1", status: 1) }
    }
    print("scans \(scans) growth \(Int(lt_heap_in_use()) - base)")
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("write", 2): try write(to: arguments[1])
    case ("samples", 2): for path in try BundledSamples.write(to: arguments[1]) { print("wrote \(path)") }
    case ("heap-growth", 2): try heapGrowth(scans: Int(arguments[1]) ?? 0)
    case ("score", 5): try score(arguments[1], zbarimg: arguments[2], zxingReader: arguments[3], lumascan: arguments[4])
    default: fail(usage)
    }
} catch {
    fail("barcode-corpus: \(error)", status: 1)
}
