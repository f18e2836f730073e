import CLumaVision
import Foundation
import Logging
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

@Suite("SecureQRGenerator")
struct SecureQRGeneratorTests {
    static let payload = "https://scan.example.com/q/GEN42"

    func read(_ image: LumaImage) throws -> [ScanReport] {
        let reader = try BarcodeRecognizer(
            configuration: BarcodeConfiguration(symbologies: [.qrCode], stillImage: true), logger: Logger(label: "t"))
        var reports: [ScanReport] = []
        image.withView {
            reader.process($0, metadata: .test(width: image.width, height: image.height), into: &reports)
        }
        return reports.filter { $0.state == .ok }
    }

    @Test("a standard code: version 4, a 7-module centre CDP, readable by zbar")
    func standard() throws {
        let code = try SecureQRGenerator().generate(payload: Self.payload, seed: 11, modulePixels: 8)
        #expect(code.version == 4 && code.modules == 33 && code.hasSecureGraphic)
        #expect(code.secureGraphic == SecureQRModuleRect(x: 13, y: 13, width: 7, height: 7))
        #expect(code.cells.across == 28 && code.cells.down == 28)
        #expect(code.image.width == 41 * 8 && code.image.height == 41 * 8)
        #expect(code.origin == Point(x: 32, y: 32))
        #expect(try read(code.image).map(\.text) == [Self.payload])

        // Every cell of the CDP is drawn as the seed says; every module outside it as the QR code says.
        let cells = SecureQRGenerator.cells(seed: 11, across: 28, down: 28)
        for row in 0..<28 {
            for column in 0..<28 {
                let p = code.pixel(atModule: 13 + (Double(column) + 0.5) / 4, 13 + (Double(row) + 0.5) / 4)
                #expect((code.image[Int(p.x), Int(p.y)] == 0) == cells[row * 28 + column])
            }
        }
        for row in 0..<33 {
            for column in 0..<33 where !(13..<20).contains(row) || !(13..<20).contains(column) {
                let p = code.pixel(atModule: Double(column) + 0.5, Double(row) + 0.5)
                #expect((code.image[Int(p.x), Int(p.y)] == 0) == code.darkModules[row * 33 + column])
            }
        }
    }

    @Test("a hybrid code: the CDP fills a code-sized zone 2 modules to the right")
    func hybrid() throws {
        let code = try SecureQRGenerator(design: SecureQRDesign(hybrid: true)).generate(
            payload: Self.payload, seed: 11, modulePixels: 6)
        #expect(code.secureGraphic == SecureQRModuleRect(x: 35, y: 0, width: 33, height: 33))
        #expect(code.image.width == (33 + 2 + 33 + 8) * 6 && code.image.height == 41 * 6)
        #expect(try read(code.image).map(\.text) == [Self.payload])
        // The QR code itself is intact.
        for row in 0..<33 {
            for column in 0..<33 {
                let p = code.pixel(atModule: Double(column) + 0.5, Double(row) + 0.5)
                #expect((code.image[Int(p.x), Int(p.y)] == 0) == code.darkModules[row * 33 + column])
            }
        }
        let plain = try SecureQRGenerator(design: SecureQRDesign(hybrid: true)).generate(
            payload: Self.payload, seed: 11, modulePixels: 6, secureGraphic: false)
        let zone = plain.pixel(atModule: 50, 16)
        #expect(plain.image[Int(zone.x), Int(zone.y)] == 255 && !plain.hasSecureGraphic)
    }

    @Test("the CDP is a function of the seed, half dark on average")
    func seeds() throws {
        #expect(
            SecureQRGenerator.cells(seed: 1, across: 8, down: 8) == SecureQRGenerator.cells(seed: 1, across: 8, down: 8)
        )
        #expect(
            SecureQRGenerator.cells(seed: 1, across: 8, down: 8) != SecureQRGenerator.cells(seed: 2, across: 8, down: 8)
        )
        let dark = SecureQRGenerator.cells(seed: 3, across: 100, down: 100).filter { $0 }.count
        #expect((4700...5300).contains(dark))
        let generator = try SecureQRGenerator()
        #expect(
            try generator.generate(payload: Self.payload, seed: 4).image.pixels
                == generator.generate(payload: Self.payload, seed: 4).image.pixels)
    }

    @Test("long payloads move to a larger version; the centre CDP grows with it")
    func versions() throws {
        let long = "https://scan.example.com/q/" + String(repeating: "A1B2C3D4", count: 8)
        let code = try SecureQRGenerator().generate(payload: long, seed: 1, modulePixels: 4)
        #expect(code.version > 4 && code.modules == 17 + 4 * code.version)
        #expect(code.secureGraphic.width >= 7 && Int(code.secureGraphic.width) % 2 == 1)
        #expect(try read(code.image).map(\.text) == [long])
    }

    @Test("PNG output decodes to the same pixels")
    func png() throws {
        let code = try SecureQRGenerator().generate(payload: Self.payload, seed: 2, modulePixels: 3)
        let png = try code.pngData()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        var decoded: OpaquePointer?
        #expect(png.withUnsafeBytes { lv_image_decode_grey($0.baseAddress, $0.count, &decoded) } == 0)
        let image = try #require(decoded)
        defer { lv_image_destroy(image) }
        let count = Int(lv_image_width(image)) * Int(lv_image_height(image))
        #expect(count == code.image.width * code.image.height)
        let pixels = try #require(lv_image_pixels(image))
        #expect(Array(UnsafeBufferPointer(start: pixels, count: count)) == code.image.pixels)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sqr-\(getpid()).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try code.writePNG(to: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(throws: LumaScanError.self) { try code.writePNG(to: "/nonexistent/dir/x.png") }
    }

    @Test("bad input is refused")
    func errors() throws {
        let generator = try SecureQRGenerator()
        #expect(throws: LumaScanError.self) { try generator.generate(payload: "", seed: 1) }
        #expect(throws: LumaScanError.self) { try generator.generate(payload: "a\u{0}b", seed: 1) }
        #expect(throws: LumaScanError.self) { try generator.generate(payload: "x", seed: 1, modulePixels: 0) }
        #expect(throws: LumaScanError.self) {
            try generator.generate(payload: String(repeating: "x", count: 4000), seed: 1)
        }
        #expect(throws: LumaScanError.self) { try SecureQRGenerator(design: SecureQRDesign(version: 1)) }
        #expect(throws: LumaScanError.self) { try SecureQRGenerator(design: SecureQRDesign(version: 7)) }
        // A payload that needs version 7 fits a hybrid code only.
        let long = "https://scan.example.com/q/" + String(repeating: "x", count: 100)
        #expect(throws: LumaScanError.self) { try generator.generate(payload: long, seed: 1) }
        #expect(
            try SecureQRGenerator(design: SecureQRDesign(hybrid: true)).generate(payload: long, seed: 1).version >= 7)
    }
}
