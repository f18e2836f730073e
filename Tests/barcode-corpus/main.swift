// barcode-corpus: writes BarcodeRealWorldCorpus (or the bundled samples) to a folder, and scores command-line readers' output on a corpus
// folder against its truth.tsv. scripts/compare-barcodes.sh runs both around zbarimg, ZXingReader and lumascan.
import Foundation
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

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("write", 2): try write(to: arguments[1])
    case ("samples", 2): for path in try BundledSamples.write(to: arguments[1]) { print("wrote \(path)") }
    case ("score", 5): try score(arguments[1], zbarimg: arguments[2], zxingReader: arguments[3], lumascan: arguments[4])
    default: fail(usage)
    }
} catch {
    fail("barcode-corpus: \(error)", status: 1)
}
