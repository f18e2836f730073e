// SecureQR: LumaScan's SecureQRRecognizer (secure mode: zbar QR read, pattern location, blur, size and CDP checks) at
// 1920x1080 on noisy (σ 4) and flat frames with a standard secure QR code and without one, against raw zbar
// restricted to QR on the same frame (see RecognizerSuite.swift for the two benchmarks per frame). The recognizer is
// reset after each completion, so every frame is classified in full; completions (a crop and a PNG every third
// frame) are part of the measured cost.
import Benchmark
import BenchmarkFrames
import LumaScan
import LumaScanBenchKit

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = recognizerSuiteConfiguration(mallocSlack: 8)
    for background in [SyntheticScene.Background.noisy, .flat] {
        for code in [SyntheticScene.Code.secureQR, .none] {
            let scene = SyntheticScene(width: 1920, height: 1080, background: background, code: code)
            registerRecognizerBenchmarks(name: "secure-qr-\(scene.name)") {
                try RecognizerStream(scene: scene, zbarSymbologies: [.qrCode], resetOnCompletion: true) { logger in
                    try SecureQRRecognizer(
                        configuration: SecureQRConfiguration(issuerPrefixes: [SyntheticScene.secureQRIssuer]),
                        logger: logger)
                }
            }
        }
    }
}
