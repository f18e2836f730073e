// swift-tools-version:6.1
// LumaScan's benchmarks: a package of its own, so that the library never depends on the benchmark tooling.
//
//   cd Benchmarks && swift package benchmark                      # run every suite (see ../scripts/bench.sh)
//   swift package benchmark thresholds check --metric mallocCountTotal   # the allocation guard
//
// One executable target per suite, each under Benchmarks/<Suite>/ as the Benchmark plugin requires.
import PackageDescription

let benchmark: Target.Dependency = .product(name: "Benchmark", package: "benchmark")
let plugins: [Target.PluginUsage] = [.plugin(name: "BenchmarkPlugin", package: "benchmark")]

let package = Package(
    name: "LumaScanBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that the dependency does not take the name of the folder the repository is cloned into.
        .package(name: "LumaScan", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
    ],
    targets: [
        // TurboJPEG, to encode the MJPEG frames the Pixels suite decodes.
        .systemLibrary(
            name: "CBenchTurboJPEG", path: "Sources/CBenchTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        // Packed frames, the recognizer-stream harness and measuring helpers shared by the suites (the frames themselves
        // are the bench kit's SyntheticScene, which `lumascan bench` draws too).
        .target(
            name: "BenchmarkFrames",
            dependencies: [
                "CBenchTurboJPEG", benchmark, .product(name: "LumaScan", package: "LumaScan"),
                .product(name: "LumaScanBenchKit", package: "LumaScan"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]),

        .executableTarget(
            name: "FrameRingBenchmarks", dependencies: [benchmark, "BenchmarkFrames"],
            path: "Benchmarks/FrameRingBenchmarks", plugins: plugins),
        .executableTarget(
            name: "PixelsBenchmarks", dependencies: [benchmark, "BenchmarkFrames"],
            path: "Benchmarks/PixelsBenchmarks", plugins: plugins),
        .executableTarget(
            name: "BarcodeBenchmarks", dependencies: [benchmark, "BenchmarkFrames"],
            path: "Benchmarks/BarcodeBenchmarks", plugins: plugins),
        .executableTarget(
            name: "SecureQRBenchmarks", dependencies: [benchmark, "BenchmarkFrames"],
            path: "Benchmarks/SecureQRBenchmarks", plugins: plugins),
        .executableTarget(
            name: "MeterBenchmarks", dependencies: [benchmark, "BenchmarkFrames"],
            path: "Benchmarks/MeterBenchmarks", plugins: plugins),
        .executableTarget(
            name: "EngineBenchmarks", dependencies: [benchmark, "BenchmarkFrames"],
            path: "Benchmarks/EngineBenchmarks", plugins: plugins),
    ],
    swiftLanguageModes: [.v6]
)
