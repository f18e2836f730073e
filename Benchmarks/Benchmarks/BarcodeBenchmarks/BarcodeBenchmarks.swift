// Barcode: LumaScan's BarcodeRecognizer against raw zbar (zbar_scan_image with its default configuration, through
// ZBarBaseline) on the same luma buffer, at 640x480, 1280x720 and 1920x1080, on flat, textured and noisy (σ 4)
// backgrounds, with one code and without, with every symbology enabled (the code is an EAN-13) and with QR only (the
// code is a QR code, and zbar is restricted to QR as well).
//
// Two benchmarks per frame (names have no spaces: see SyntheticScene.name):
// - "<config>-<frame>-vs-zbar" alternates the two readers frame by frame and records each one's time (custom metrics
//   `lumascan (µs)` and `zbar (µs)`) and their ratio (`zbar ÷ lumascan (x100)`), so the ratio comes from one run
//   under the same machine load.
// - "<config>-<frame>" runs LumaScan's recognizer alone, for the guarded metric, allocations per frame
//   (Thresholds/), and wall clock for the record.
import Benchmark
import BenchmarkFrames
import Logging
import LumaScan
import LumaScanBenchKit

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = recognizerSuiteConfiguration()
    for config in BarcodeBenchConfig.allCases {
        for (width, height) in SyntheticScene.sizes {
            for background in SyntheticScene.Background.allCases {
                for code in [config.code, .none] {
                    let scene = SyntheticScene(width: width, height: height, background: background, code: code)
                    registerRecognizerBenchmarks(name: "\(config.rawValue)-\(scene.name)") {
                        try RecognizerStream(
                            scene: scene, zbarSymbologies: config == .all ? nil : config.symbologies,
                            resetOnCompletion: false
                        ) { logger in
                            var configuration = BarcodeConfiguration()
                            configuration.symbologies = config.symbologies
                            return try BarcodeRecognizer(configuration: configuration, logger: logger)
                        }
                    }
                }
            }
        }
    }
}

/// The recognizer configurations measured.
enum BarcodeBenchConfig: String, CaseIterable, Sendable {
    /// Every symbology (the default configuration); zbar with its defaults.
    case all
    /// QR only; zbar restricted to QR.
    case qr

    /// The code drawn into frames with a code.
    var code: SyntheticScene.Code { self == .all ? .ean13 : .qr }

    var symbologies: [Symbology] { self == .all ? Symbology.allCases : [.qrCode] }
}
