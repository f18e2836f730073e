import Foundation
import LumaScanCore

/// What one code in a corpus image is: its symbology, payload and (for EAN/UPC) printed add-on.
public struct TruthCode: Hashable, Sendable {
    /// The symbology, by LumaScan's name.
    public var symbology: Symbology
    /// The payload as text: GTIN digits with their check digit; Codabar without start and stop characters;
    /// GS1 data with AIs in parentheses; Shift JIS (Kanji) payloads as the UTF-8 text they stand for; binary
    /// payloads as their ISO 8859-1 reading (QR's default character set for bytes), each byte one character.
    public var text: String
    /// The digits of an EAN-2 or EAN-5 add-on printed beside an EAN/UPC code, if any.
    public var addOn: String?

    /// Creates a truth.
    public init(symbology: Symbology, text: String, addOn: String? = nil) {
        self.symbology = symbology
        self.text = text
        self.addOn = addOn
    }
}

/// One code a reader reported.
public struct PeerRead: Hashable, Sendable {
    /// The symbology as the reader named it: a LumaScan name (`ean13`), or a zbarimg or ZXingReader name
    /// (`EAN-13`, `QR-Code`, `QRCode`, `I2/5`, ...), mapped by ``BarcodeTruth/symbologyName(_:)``.
    public var symbology: String
    /// The payload as the reader converted it to text.
    public var text: String

    /// Creates a read.
    public init(symbology: String, text: String) {
        self.symbology = symbology
        self.text = text
    }
}

/// Whether a read is a code of an image, under the equivalences readers' conventions force.
///
/// Accepted as the same code:
/// - EAN-13, UPC-A, UPC-E, ISBN-13 and ISBN-10 by their GTIN-13: UPC-A's 12 digits or an EAN-13 with a leading 0;
///   UPC-E's 8 digits or their UPC-A expansion (12 digits, or 13 as EAN-13, as zbar reports it); an EAN-13 in the
///   978/979 range as ISBN-13 with the same digits, or as ISBN-10 (978 range, check character recomputed).
/// - An EAN-2/EAN-5 add-on: reported on its own (`EAN-2`/`EAN-5`) with its digits, or after the main code's digits
///   with a space (ZXing), a `+` or nothing between (zbar's `COMPOSITE`); the main code without it is read too.
/// - Codabar with or without its start and stop characters (zbar keeps them, ZXing drops them).
/// - GS1 DataBar as its 14-digit GTIN, with or without the `01` AI (zbar reports `01` + GTIN, ZXing the GTIN).
/// - GS1 DataBar Expanded with or without parentheses around the AIs, and with or without GS (0x1D) separators.
/// Everything else must match exactly: the same symbology (QR and Micro QR are different ones) and the same text.
public enum BarcodeTruth {
    /// LumaScan's symbology name for a reader's name of it (zbarimg, ZXingReader or LumaScan), or `nil` when LumaScan
    /// does not name it (EAN-2/EAN-5 add-ons, SQ code).
    public static func symbologyName(_ name: String) -> Symbology? {
        if let symbology = Symbology(rawValue: name) { return symbology }
        switch name {
        case "EAN-13", "COMPOSITE": return .ean13
        case "EAN-8": return .ean8
        case "UPC-A": return .upcA
        case "UPC-E": return .upcE
        case "ISBN-10": return .isbn10
        case "ISBN-13": return .isbn13
        case "CODE-39", "Code39": return .code39
        case "CODE-93", "Code93": return .code93
        case "CODE-128", "Code128": return .code128
        case "I2/5", "ITF": return .interleaved2of5
        case "DataBar": return .dataBar
        case "DataBar-Exp", "DataBarExpanded": return .dataBarExpanded
        case "Codabar": return .codabar
        case "QR-Code", "QRCode": return .qrCode
        case "MicroQRCode": return .microQR
        case "DataMatrix": return .dataMatrix
        case "PDF417": return .pdf417
        case "Aztec": return .aztec
        case "MaxiCode": return .maxiCode
        default: return nil
        }
    }

    /// Whether `read` reports `code` (see the type's equivalences).
    public static func matches(_ read: PeerRead, _ code: TruthCode) -> Bool {
        guard let symbology = symbologyName(read.symbology) else {
            // EAN-2/EAN-5 reported on their own.
            return ["EAN-2", "EAN-5"].contains(read.symbology) && code.addOn == read.text
        }
        guard let key = key(code.symbology, code.text) else { return false }
        if let readKey = Self.key(symbology, read.text), readKey == key { return true }
        // The main code followed by its add-on.
        if let addOn = code.addOn {
            for separator in [" ", "+", ""] where read.text.hasSuffix(separator + addOn) {
                let main = String(read.text.dropLast(separator.count + addOn.count))
                if let readKey = Self.key(symbology, main), readKey == key { return true }
            }
        }
        return false
    }

    /// The family a symbology is compared in and the payload normalised for it; `nil` when the payload is not one
    /// the symbology can carry.
    static func key(_ symbology: Symbology, _ text: String) -> String? {
        switch symbology {
        case .ean13, .upcA, .upcE, .isbn13, .isbn10: return gtin13(symbology, text).map { "gtin:" + $0 }
        case .codabar:
            let stops: Set<Character> = ["A", "B", "C", "D", "T", "N", "*", "E", "a", "b", "c", "d"]
            var body = Substring(text)
            if let first = body.first, stops.contains(first) { body = body.dropFirst() }
            if let last = body.last, stops.contains(last) { body = body.dropLast() }
            return "codabar:" + body
        case .dataBar:
            var digits = text.replacingOccurrences(of: "(01)", with: "")
            if digits.count == 16 && digits.hasPrefix("01") { digits = String(digits.dropFirst(2)) }
            return "databar:" + digits
        case .dataBarExpanded:
            return "databar-exp:" + text.filter { $0 != "(" && $0 != ")" && $0 != "\u{1D}" }
        default:
            return symbology.rawValue + ":" + text
        }
    }

    /// The GTIN-13 an EAN/UPC/ISBN payload stands for.
    static func gtin13(_ symbology: Symbology, _ text: String) -> String? {
        let digits = text.compactMap(\.wholeNumberValue)
        switch symbology {
        case .ean13, .isbn13:
            guard digits.count == 13, digits.count == text.count else { return nil }
            return text
        case .upcA:
            guard digits.count == 12, digits.count == text.count else { return nil }
            return "0" + text
        case .upcE:
            guard digits.count == 8, digits.count == text.count, let expanded = upcEExpansion(text) else {
                return nil
            }
            return "0" + expanded
        case .isbn10:
            guard text.count == 10, digits.count >= 9 else { return nil }
            // The ISBN-10 check character: weights 10...2 over the body, then 11 - sum mod 11 (10 is X).
            let sum = zip(digits.prefix(9), stride(from: 10, through: 2, by: -1)).map(*).reduce(0, +)
            let check = (11 - sum % 11) % 11
            guard text.last == (check == 10 ? "X" : Character(String(check))) else { return nil }
            let body = [9, 7, 8] + digits.prefix(9)
            return (body + [EAN.checkDigit(Array(body))]).map(String.init).joined()
        default:
            return nil
        }
    }

    /// The 12-digit UPC-A a UPC-E code (`8` digits: number system, six data digits, check digit) expands to, or `nil`.
    public static func upcEExpansion(_ upcE: String) -> String? {
        let d = upcE.compactMap(\.wholeNumberValue)
        guard d.count == 8, d[0] <= 1 else { return nil }
        let body: [Int]
        switch d[6] {
        case 0...2: body = [d[0], d[1], d[2], d[6], 0, 0, 0, 0, d[3], d[4], d[5]]
        case 3: body = [d[0], d[1], d[2], d[3], 0, 0, 0, 0, 0, d[4], d[5]]
        case 4: body = [d[0], d[1], d[2], d[3], d[4], 0, 0, 0, 0, 0, d[5]]
        default: body = [d[0], d[1], d[2], d[3], d[4], d[5], 0, 0, 0, 0, d[6]]
        }
        return (body + [d[7]]).map(String.init).joined()
    }
}

/// Per-folder counts of several readers on the same images: how many images each read (at least one true code), how
/// many results were misreads (a symbology and payload not in the image), and how many images any reader of a
/// chosen group read (the peers' union).
public struct BarcodeScoreboard: Sendable {
    /// The readers, in column order.
    public let readers: [String]
    /// The readers whose union is counted (for LumaScan's comparison: zbar and ZXing).
    public let union: [String]
    /// The folders in the order first seen, with their counts.
    public private(set) var rows: [Row] = []

    /// One folder's counts.
    public struct Row: Sendable {
        /// The folder.
        public var folder: String
        /// Images in it.
        public var images = 0
        /// Images with no code (all of a code-free folder's).
        public var codeFree = 0
        /// Per reader (in ``BarcodeScoreboard/readers`` order), images where it read at least one true code.
        public var read: [Int]
        /// Per reader, results that were not a code of their image.
        public var misreads: [Int]
        /// Images where at least one of the union's readers read a true code.
        public var unionRead = 0
        /// Codes in the folder's images (more than the images with a code where photos hold several).
        public var codes = 0
        /// Per reader, codes it read (each code of an image counted once).
        public var codesRead: [Int]
        /// Examples of misreads, for messages: `image: reader symbology "text"`.
        public var misreadExamples: [String] = []

        /// An empty row for `readers` readers.
        public init(folder: String, readers: Int) {
            self.folder = folder
            read = Array(repeating: 0, count: readers)
            misreads = Array(repeating: 0, count: readers)
            codesRead = Array(repeating: 0, count: readers)
        }
    }

    /// Creates an empty scoreboard.
    public init(readers: [String], union: [String]) {
        self.readers = readers
        self.union = union
    }

    /// Counts one image: its truth and each reader's reads (keyed by reader name; a reader missing is counted as
    /// having read nothing).
    public mutating func add(folder: String, image: String, truth: [TruthCode], reads: [String: [PeerRead]]) {
        let index = rows.firstIndex { $0.folder == folder } ?? rows.count
        if index == rows.count { rows.append(Row(folder: folder, readers: readers.count)) }
        rows[index].images += 1
        rows[index].codes += truth.count
        if truth.isEmpty { rows[index].codeFree += 1 }
        var unionRead = false
        for (column, reader) in readers.enumerated() {
            let found = reads[reader] ?? []
            let good = found.filter { read in truth.contains { BarcodeTruth.matches(read, $0) } }
            rows[index].codesRead[column] +=
                truth.filter { code in good.contains { BarcodeTruth.matches($0, code) } }.count
            if !good.isEmpty {
                rows[index].read[column] += 1
                if union.contains(reader) { unionRead = true }
            }
            for bad in found where !good.contains(bad) {
                rows[index].misreads[column] += 1
                if rows[index].misreadExamples.count < 5 {
                    rows[index].misreadExamples.append(
                        "\(image): \(reader) \(bad.symbology) \(bad.text.debugDescription)")
                }
            }
        }
        if unionRead { rows[index].unionRead += 1 }
    }

    /// The folders' counts summed.
    public var total: Row {
        var total = Row(folder: "total", readers: readers.count)
        for row in rows {
            total.images += row.images
            total.codeFree += row.codeFree
            total.unionRead += row.unionRead
            total.codes += row.codes
            for column in readers.indices {
                total.read[column] += row.read[column]
                total.misreads[column] += row.misreads[column]
                total.codesRead[column] += row.codesRead[column]
            }
        }
        return total
    }

    /// The counts as a text table, a row per folder and the totals: `read/misreads` per reader, then the union;
    /// below it, for folders whose photos hold several codes, how many of the codes each reader read.
    public var table: String {
        let header = ["folder", "images"] + readers.map { "\($0) read/misread" } + [union.joined(separator: "∪")]
        let lines =
            [header]
            + (rows + [total]).map { row in
                [row.folder, "\(row.images)"] + readers.indices.map { "\(row.read[$0])/\(row.misreads[$0])" }
                    + ["\(row.unionRead)"]
            }
        let widths = header.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
        return lines.map { cells in
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n") + severalCodes
    }

    /// Lines for the folders with several codes per photo: codes in them, and codes each reader read.
    var severalCodes: String {
        rows.filter { $0.codes > $0.images - $0.codeFree }.map { row in
            let counts = readers.indices.map { "\(readers[$0]) \(row.codesRead[$0])" }.joined(separator: ", ")
            return "\n\(row.folder): \(row.codes) codes, read: \(counts)"
        }.joined()
    }
}

/// A corpus folder's `truth.tsv`: `path<TAB>symbology<TAB>text<TAB>add-on`, one line per code, paths relative to the
/// corpus folder, symbologies by LumaScan's names (or zbarimg's and ZXingReader's, see
/// ``BarcodeTruth/symbologyName(_:)``); an image with no code has one line with symbology `-` and empty text. Lines
/// starting with `#` are comments. Fields are escaped as `jq`'s `@tsv` escapes them: `\\`, `\t`, `\n`, `\r`.
public enum CorpusTSV {
    /// `field` escaped for a TSV cell.
    public static func escape(_ field: String) -> String {
        var out = ""
        for character in field {
            switch character {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.append(character)
            }
        }
        return out
    }

    /// A TSV cell unescaped.
    public static func unescape(_ cell: Substring) -> String {
        var out = ""
        var escaping = false
        for character in cell {
            if escaping {
                switch character {
                case "t": out.append("\t")
                case "n": out.append("\n")
                case "r": out.append("\r")
                default: out.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// `truth.tsv` for `images`.
    public static func truth(_ images: [RealWorldImage]) -> String {
        var lines = ["# path\tsymbology\ttext\tadd-on"]
        for image in images {
            if image.truth.isEmpty { lines.append("\(image.path)\t-\t\t") }
            for code in image.truth {
                lines.append(
                    "\(escape(image.path))\t\(code.symbology.rawValue)\t\(escape(code.text))\t\(code.addOn ?? "")")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The images of a `truth.tsv`, in file order, with their codes. Throws ``LumaScanError``
    /// (`.invalidConfiguration`) naming the line of an unknown symbology or a short line.
    public static func parseTruth(_ text: String) throws -> [(path: String, truth: [TruthCode])] {
        var images: [(path: String, truth: [TruthCode])] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty && !line.hasPrefix("#") {
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard cells.count >= 2 else {
                throw LumaScanError(.invalidConfiguration, "truth.tsv:\(number + 1): expected path, symbology, text")
            }
            let path = unescape(cells[0])
            if images.last?.path != path { images.append((path, [])) }
            guard cells[1] != "-" else { continue }
            guard let symbology = BarcodeTruth.symbologyName(String(cells[1])) else {
                throw LumaScanError(.invalidConfiguration, "truth.tsv:\(number + 1): unknown symbology \(cells[1])")
            }
            let addOn = cells.count > 3 && !cells[3].isEmpty ? String(cells[3]) : nil
            images[images.count - 1].truth.append(
                TruthCode(symbology: symbology, text: cells.count > 2 ? unescape(cells[2]) : "", addOn: addOn))
        }
        return images
    }
}
