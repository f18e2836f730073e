import Foundation
import LumaScanBenchKit
import LumaScanCore

/// The sample images bundled in `Samples/` (which `scripts/run.sh` records into `Samples/kiosk-demo.lsrec` and
/// replays when no camera is attached): how they are made and what each holds. `barcode-corpus samples DIR` writes
/// them; the tests only read the committed files.
public enum BundledSamples {
    /// Each sample's file name, the symbology `lumascan` reports for it and its text.
    public static let expected: [(file: String, symbology: String, text: String)] = [
        ("ean13-kiosk.png", "ean13", "4006381333931"),
        ("upca-can.png", "upca", "036000291452"),
        ("code128-ticket.png", "code128", "TICKET-000042"),
        ("qr-url.png", "qr", "https://lumascan.example/hello"),
    ]

    /// Renders every sample: a code on a 480x360 textured background, turned a little, with sensor noise.
    public static func make() throws -> [String: TestCanvas] {
        var canvases: [String: TestCanvas] = [:]
        func scene(_ code: LumaImage, degrees: Double, seed: UInt64) -> TestCanvas {
            let canvas = BarcodeCorpus.background(width: 480, height: 360, seed: seed)
            _ = canvas.place(code, centre: Point(x: 240, y: 180), scale: 1, degrees: degrees)
            canvas.addNoise(sigma: 3, seed: seed)
            return canvas
        }
        canvases["ean13-kiosk.png"] = scene(
            EAN.ean13("400638133393").render(moduleWidth: 3, height: 110), degrees: 0, seed: 1)
        canvases["upca-can.png"] = scene(
            EAN.upcA("03600029145").render(moduleWidth: 3, height: 110), degrees: -6, seed: 2)
        canvases["code128-ticket.png"] = scene(
            Code128.encode("TICKET-000042").render(moduleWidth: 2, height: 90), degrees: 4, seed: 3)
        canvases["qr-url.png"] = scene(
            try QRCode("https://lumascan.example/hello").render(moduleSize: 5), degrees: 12, seed: 4)
        return canvases
    }

    /// Writes every sample as PNG into `directory`; returns the paths written.
    public static func write(to directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try make().sorted { $0.key < $1.key }.map { name, canvas in
            let path = (directory as NSString).appendingPathComponent(name)
            let status = canvas.writePNG(to: path)
            guard status == 0 else { throw LumaScanError(.imageIO, "\(path): PNG writing failed (\(status))") }
            return path
        }
    }

    /// The samples whose file in `directory` is missing or differs in any pixel from what ``make()`` renders now.
    public static func differences(in directory: String) throws -> [String] {
        try make().sorted { $0.key < $1.key }.compactMap { name, canvas in
            let path = (directory as NSString).appendingPathComponent(name)
            guard let bytes = FileManager.default.contents(atPath: path) else { return name }
            return BarcodePhoto.decode(Array(bytes))?.pixels == canvas.image.pixels ? nil : name
        }
    }
}
