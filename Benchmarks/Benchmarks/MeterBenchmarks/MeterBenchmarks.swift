// Meter: LumaScan's MeterRecognizer (auto mode: seven-segment and roller-counter readers on the cutout's crop) at
// 1920x1080 on noisy (σ 4) and flat frames with a seven-segment meter in SyntheticScene.meterCutout and without one,
// against raw zbar with its defaults on the same frame, for scale (see RecognizerSuite.swift for the two benchmarks
// per frame). The recognizer is reset after each completion (every third frame), so every frame is read in full.
// The askew meter (the same meter seen from the side) takes the seven-segment reader's costliest path: not sure as
// the camera sees it, the display is read again rectified in every frame (SyntheticSceneTests checks that it is), so
// its allocations guard that path too.
// Roller counters (SyntheticScene.Code.counter, DejaVu drums) are read in counter mode: of each three frames the
// first searches, the next two confirm its reading on the drums' grid (tracking), and the third completes, copying
// the crop (its PNG is encoded only when the result's consumer asks for it).
import Benchmark
import BenchmarkFrames
import LumaScan
import LumaScanBenchKit

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = recognizerSuiteConfiguration(mallocSlack: 8)
    for background in [SyntheticScene.Background.noisy, .flat] {
        for code in [SyntheticScene.Code.meter, .askewMeter, .none] {
            let scene = SyntheticScene(width: 1920, height: 1080, background: background, code: code)
            registerRecognizerBenchmarks(name: "meter-\(scene.name)") {
                try RecognizerStream(scene: scene, zbarSymbologies: nil, resetOnCompletion: true) { logger in
                    try MeterRecognizer(cutout: SyntheticScene.meterCutout, logger: logger)
                }
            }
        }
        let scene = SyntheticScene(width: 1920, height: 1080, background: background, code: .counter)
        registerRecognizerBenchmarks(name: "counter-\(scene.name)") {
            try RecognizerStream(scene: scene, zbarSymbologies: nil, resetOnCompletion: true) { logger in
                try MeterRecognizer(
                    configuration: MeterConfiguration(scanMode: .counterMeter), cutout: SyntheticScene.meterCutout,
                    logger: logger)
            }
        }
    }
}
