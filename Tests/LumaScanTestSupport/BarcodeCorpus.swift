import LumaScanCore

/// A generated test image and what a reader must find in it.
public struct TestScene {
    /// What one code in a scene is.
    public struct Code: Sendable {
        /// The symbology a recognizer with every symbology enabled reports.
        public var symbology: Symbology
        /// The payload it must report.
        public var text: String
        /// The code image's corners (top left, top right, bottom right, bottom left, quiet zone included) in frame
        /// pixels, as placed.
        public var corners: [Point]

        /// Creates a code description.
        public init(symbology: Symbology, text: String, corners: [Point]) {
            self.symbology = symbology
            self.text = text
            self.corners = corners
        }
    }

    /// A short description (for failure messages).
    public var name: String
    /// The frame.
    public var image: LumaImage
    /// The codes placed in it (none for a no-code scene).
    public var codes: [Code]

    /// Creates a scene.
    public init(name: String, image: LumaImage, codes: [Code]) {
        self.name = name
        self.image = image
        self.codes = codes
    }
}

/// The generated barcode corpus: codes of each symbology LumaScan's encoders make, at camera-like sizes,
/// rotations, blur and noise, on textured backgrounds; plus scenes with no code at all.
///
/// Sizes are chosen as a camera would see a code held for scanning: 1D codes at 2–4 px per module, QR codes at
/// 3–6 px per module.
public enum BarcodeCorpus {
    /// The payloads used, with the symbology they are reported as and a maker for the code image.
    static func linearCodes() -> [(Symbology, LinearCode)] {
        [
            (.ean13, EAN.ean13("400638133393")),
            (.ean8, EAN.ean8("9638507")),
            (.upcA, EAN.upcA("03600029145")),
            (.isbn13, EAN.ean13("978030640615")),
            (.code128, Code128.encode("LumaScan-42")),
            (.code128, Code128.encode("20240517")),
        ]
    }

    /// A camera-like background: a gradient with soft blobs and a line of text.
    public static func background(width: Int, height: Int, seed: UInt64) -> TestCanvas {
        let canvas = TestCanvas(width: width, height: height)
        canvas.gradient(from: 150, to: 215)
        canvas.blobs(count: 12, seed: seed)
        canvas.blur(sigma: 3)
        canvas.draw(text: "LumaScan test \(seed)", x: width / 20, y: height - height / 12, scale: Double(height) / 600)
        return canvas
    }

    /// Scenes with one code each at `width` x `height`: every linear code at module widths 2, 3 and 4 px at a few
    /// rotations, and QR codes at module sizes 3, 4 and 6 px; each blurred (σ 0.7) and with noise of `noise` σ.
    ///
    /// Above 720 rows, sizes grow with the frame height (× height / 720: 1080p has 3–6 px linear modules and
    /// 4.5–9 px QR modules), as the same code held at the same distance from a higher-resolution camera would.
    public static func scenes(width: Int, height: Int, noise: Double) throws -> [TestScene] {
        let scale = max(1, Double(height) / 720)
        var scenes: [TestScene] = []
        var seed: UInt64 = 1
        let centre = Point(x: Double(width) * 0.45, y: Double(height) * 0.55)
        for (symbology, code) in linearCodes() {
            for (moduleWidth, degrees) in [(2, 0.0), (3, 8.0), (4, 180.0), (3, -90.0)] {
                let image = code.render(moduleWidth: moduleWidth, height: 40 * moduleWidth)
                let room = abs(degrees) == 90 ? height : width
                guard Double(image.width) * scale < Double(room) * 0.9 else { continue }
                seed += 1
                let canvas = background(width: width, height: height, seed: seed)
                let corners = canvas.place(image, centre: centre, scale: scale, degrees: degrees)
                canvas.blur(sigma: 0.7)
                canvas.addNoise(sigma: noise, seed: seed)
                scenes.append(
                    TestScene(
                        name:
                            "\(symbology.rawValue) \(code.text) \(Double(moduleWidth) * scale)px \(degrees)° \(width)x\(height)",
                        image: canvas.image,
                        codes: [TestScene.Code(symbology: symbology, text: code.text, corners: corners)]))
            }
        }
        for (text, moduleSize, degrees) in [
            ("https://example.com/lumascan?id=42", 3, 0.0), ("LUMASCAN 0123456789", 4, 30.0),
            ("Lumascan, a real-time camera frame-processing engine for Linux.", 6, -15.0),
        ] {
            let code = try QRCode(text)
            let image = code.render(moduleSize: moduleSize)
            seed += 1
            let canvas = background(width: width, height: height, seed: seed)
            let corners = canvas.place(image, centre: centre, scale: scale, degrees: degrees)
            canvas.blur(sigma: 0.7)
            canvas.addNoise(sigma: noise, seed: seed)
            scenes.append(
                TestScene(
                    name: "qr \(text) \(Double(moduleSize) * scale)px \(degrees)° \(width)x\(height)",
                    image: canvas.image,
                    codes: [TestScene.Code(symbology: .qrCode, text: text, corners: corners)]))
        }
        return scenes
    }

    /// Scenes with no code: noise, text, blobs, gradients and shapes, deterministic for `seed`.
    public static func noCodeScenes(width: Int, height: Int, seed: UInt64) -> [TestScene] {
        var scenes: [TestScene] = []
        let noise = TestCanvas(width: width, height: height, fill: 128)
        noise.addNoise(sigma: 40, seed: seed)
        scenes.append(TestScene(name: "noise", image: noise.image, codes: []))

        let text = TestCanvas(width: width, height: height, fill: 235)
        var random = SplitMix64(seed: seed)
        for line in 0..<12 {
            let words = (0..<6).map { _ in String(Int(random.next() % 1_000_000_000)) }.joined(separator: " ")
            text.draw(text: "Lot \(line): \(words)", x: 10, y: 30 + line * height / 13, scale: 0.8, thickness: 2)
        }
        scenes.append(TestScene(name: "text", image: text.image, codes: []))

        let blobs = background(width: width, height: height, seed: seed)
        blobs.blobs(count: 40, seed: seed + 1)
        blobs.addNoise(sigma: 4, seed: seed)
        scenes.append(TestScene(name: "blobs", image: blobs.image, codes: []))

        let shapes = TestCanvas(width: width, height: height, fill: 180)
        shapes.gradient(from: 60, to: 230)
        for index in 0..<8 {
            let x = Int(random.next() % UInt64(width))
            let y = Int(random.next() % UInt64(height))
            shapes.fill(Rect(x: x, y: y, width: 20 + index * 9, height: 15 + index * 7), value: UInt8(index * 30))
        }
        shapes.blur(sigma: 1)
        shapes.addNoise(sigma: 4, seed: seed + 2)
        scenes.append(TestScene(name: "shapes", image: shapes.image, codes: []))
        return scenes
    }
}
