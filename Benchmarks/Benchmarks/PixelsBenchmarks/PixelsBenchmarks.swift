// Pixels: turning camera frames into luma, per frame, at 640x480, 1280x720 and 1920x1080: YUYV extraction (every
// second byte copied into the extractor's plane) and MJPEG decoding (TurboJPEG, grey only), through LumaExtractor as
// the engine uses it.
import Benchmark
import BenchmarkFrames
import LumaScan
import LumaScanBenchKit

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .microseconds,
        maxDuration: .seconds(2), maxIterations: 1000,
        thresholds: [.mallocCountTotal: BenchmarkThresholds(absolute: [.p90: 0])])

    for (width, height) in SyntheticScene.sizes {
        let spec = SyntheticScene(width: width, height: height, background: .noisy, code: .ean13)

        Benchmark("YUYV-to-luma-\(width)x\(height)") { (benchmark: Benchmark, state: PixelState) in
            for _ in benchmark.scaledIterations {
                blackHole(try? state.extractor.luma(of: state.bytes, bytesUsed: state.bytesUsed).baseAddress)
            }
        } setup: {
            PixelState(PackedFrame.yuyv(try spec.image()))
        }

        Benchmark("MJPEG-to-luma-\(width)x\(height)") { (benchmark: Benchmark, state: PixelState) in
            for _ in benchmark.scaledIterations {
                blackHole(try? state.extractor.luma(of: state.bytes, bytesUsed: state.bytesUsed).baseAddress)
            }
        } setup: {
            guard let frame = PackedFrame.mjpeg(try spec.image()) else {
                fatalError("TurboJPEG could not encode the \(spec) frame")
            }
            return PixelState(frame)
        }
    }
}

/// A packed frame and the extractor that reads it; checked once to give the expected luma size.
struct PixelState: @unchecked Sendable {
    // SAFETY (Sendable): used by the benchmark's one thread.
    let extractor: LumaExtractor
    let bytes: UnsafeRawBufferPointer
    let bytesUsed: Int

    init(_ frame: PackedFrame) {
        extractor = LumaExtractor(format: frame.format, sourceName: "benchmark")
        bytes = UnsafeRawBufferPointer(frame.bytes)
        bytesUsed = frame.format.sizeImage
        do {
            let view = try extractor.luma(of: bytes, bytesUsed: bytesUsed)
            precondition(view.width == frame.format.width && view.height == frame.format.height, "luma size")
        } catch {
            fatalError("the \(frame.format) frame does not decode: \(error)")
        }
    }
}
