import Foundation

/// Parsers for what the command-line readers print, so that `scripts/compare-barcodes.sh` can score zbarimg,
/// ZXingReader and lumascan with the same ``BarcodeTruth`` as the tests.
///
/// The script runs zbarimg and ZXingReader once per image (ZXingReader 1.4 aborts on some, which would lose the rest
/// of a batch) and writes their output in blocks: a line `@@ <path>`, the reader's output for that image, and a line
/// `@@aborted` when the reader died of a signal.
public enum ReaderOutput {
    /// One image's output from a block file.
    public struct Block: Sendable {
        /// The image's path, as in the block's header.
        public var path: String
        /// What the reader printed for it.
        public var lines: [Substring]
        /// Whether the reader died of a signal on it.
        public var aborted: Bool
    }

    /// The blocks of a block file, in order.
    public static func blocks(_ output: String) -> [Block] {
        var blocks: [Block] = []
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("@@ ") {
                blocks.append(Block(path: String(line.dropFirst(3)), lines: [], aborted: false))
            } else if line == "@@aborted", !blocks.isEmpty {
                blocks[blocks.count - 1].aborted = true
            } else if !blocks.isEmpty {
                blocks[blocks.count - 1].lines.append(line)
            }
        }
        return blocks
    }

    /// zbarimg's symbology names (`zbar_get_symbol_name`), which start its `TYPE:data` lines.
    static let zbarNames: Set<String> = [
        "EAN-2", "EAN-5", "EAN-8", "UPC-E", "ISBN-10", "UPC-A", "EAN-13", "ISBN-13", "COMPOSITE", "I2/5", "DataBar",
        "DataBar-Exp", "Codabar", "CODE-39", "CODE-93", "CODE-128", "PDF417", "QR-Code", "SQ-Code",
    ]

    /// The reads in `zbarimg -q` output for one image: a `TYPE:data` line per code; a line that does not start with a
    /// zbar symbology name continues the previous payload (payloads may hold newlines).
    public static func zbarimg(_ lines: [Substring]) -> [PeerRead] {
        var reads: [PeerRead] = []
        for line in lines {
            if let colon = line.firstIndex(of: ":"), zbarNames.contains(String(line[..<colon])) {
                reads.append(
                    PeerRead(symbology: String(line[..<colon]), text: String(line[line.index(after: colon)...])))
            } else if !reads.isEmpty {
                reads[reads.count - 1].text += "\n" + line
            }
        }
        // zbarimg ends the output with a newline, which leaves an empty continuation.
        return reads.map { read in
            var read = read
            while read.text.hasSuffix("\n") { read.text.removeLast() }
            return read
        }
    }

    /// The reads in `ZXingReader -1` output for the image at `path` (as passed to it): `path FORMAT "text"` per code,
    /// the text escaped (`<LF>`, `<U+E9>`, ...).
    public static func zxingReader(_ lines: [Substring], path: String) -> [PeerRead] {
        lines.compactMap { line -> PeerRead? in
            guard line.hasPrefix(path + " ") else { return nil }
            let rest = line.dropFirst(path.count + 1)
            guard let space = rest.firstIndex(of: " "), rest.last == "\"" else { return nil }
            let quoted = rest[rest.index(after: space)...]
            guard quoted.count >= 2, quoted.first == "\"" else { return nil }
            return PeerRead(symbology: String(rest[..<space]), text: unescapeZXing(quoted.dropFirst().dropLast()))
        }
    }

    /// ASCII control characters by the names ZXingReader's `-escape` gives them.
    static let controlNames = [
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI", "DLE",
        "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US",
    ]

    /// ZXingReader's escaped text: `<U+hex>` for a non-ASCII scalar, `<NAME>` for a control character, `<DEL>`.
    static func unescapeZXing(_ text: Substring) -> String {
        var out = ""
        var rest = text
        while let open = rest.firstIndex(of: "<") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let name = rest[rest.index(after: open)..<close]
            if name.hasPrefix("U+"), let value = UInt32(name.dropFirst(2), radix: 16),
                let scalar = Unicode.Scalar(value)
            {
                out.unicodeScalars.append(scalar)
            } else if let code = controlNames.firstIndex(of: String(name)) {
                out.unicodeScalars.append(Unicode.Scalar(UInt8(code)))
            } else if name == "DEL" {
                out.append("\u{7F}")
            } else {
                out += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// The reads in `lumascan scan --input DIR` JSON lines: each result report's image path (relative to `root`,
    /// LumaScan prints absolute ones), symbology and text.
    public static func lumascan(_ output: String, root: String) -> [(path: String, read: PeerRead)] {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["event"] as? String == "report", object["reportType"] as? String == "COMPLETED_RESULT",
                let input = object["input"] as? String, let symbology = object["symbology"] as? String,
                let text = object["text"] as? String
            else { return nil }
            let path = input.hasPrefix(prefix) ? String(input.dropFirst(prefix.count)) : input
            return (path, PeerRead(symbology: symbology, text: text))
        }
    }
}
