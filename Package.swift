// swift-tools-version:6.1
// LumaScan: a real-time camera frame-processing engine for Linux.
import PackageDescription

let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let metrics: Target.Dependency = .product(name: "Metrics", package: "swift-metrics")

// LUMASCAN_SANITIZER_SUBSET=thread or =address leaves out the CLI, the kiosk service, the packages only they use
// (swift-nio, Hummingbird, swift-prometheus, swift-argument-parser ...) and the test targets that the thread- or
// address-sanitizer step of scripts/test.sh does not run: each of those builds starts from scratch on a fresh machine,
// and those packages and tests were most of what it compiled. (The address step keeps barcode-corpus: a test there
// runs it.)
let sanitizerSubset = Context.environment["LUMASCAN_SANITIZER_SUBSET"]
// The CLI, the kiosk service and what only they use: no sanitizer step runs them.
let serviceTargets: Set<String> = [
    "LumaScanServer", "LumaScanServerTests", "lumascan", "lumascanTests", "IntegrationTests",
]
let subsetOmits: Set<String> =
    switch sanitizerSubset {
    case "thread":
        serviceTargets.union([
            "barcode-corpus", "LumaScanRecognizersTests", "LumaScanCaptureTests", "LumaScanEventJSONTests",
        ])
    case "address":
        serviceTargets.union(["LumaScanTests", "LumaScanCoreTests", "LumaScanAudioTests", "LumaScanEventJSONTests"])
    default: []
    }
let corePackages: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
]
let servicePackages: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    // lumascan serve: the HTTP server (no swift-configuration, no full Foundation: traits off) and its metrics.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
]

let package = Package(
    name: "LumaScan",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LumaScan", targets: ["LumaScan"]),
        // What tests, the Benchmarks package and `lumascan bench` draw and measure against: synthetic scenes and
        // meters, the one canvas, code encoders and the raw zbar / ZXing-C++ baselines. Never part of the library.
        .library(name: "LumaScanBenchKit", targets: ["LumaScanBenchKit"]),
        .library(name: "LumaScanAudio", targets: ["LumaScanAudio"]),
        .executable(name: "lumascan", targets: ["lumascan"]),
    ],
    dependencies: corePackages + (subsetOmits.isEmpty ? servicePackages : []),
    targets: [
        // System libraries, found through pkg-config; the providers name the Debian packages.
        .systemLibrary(
            name: "CV4L2", path: "CSupport/CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        .systemLibrary(
            name: "CZBar", path: "CSupport/CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(
            name: "CPNG", path: "CSupport/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CTurboJPEG", path: "CSupport/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        // The audio feedback: ALSA plays the sounds, libsndfile decodes them (libasound2-dev, libsndfile1-dev).
        .systemLibrary(
            name: "CALSA", path: "CSupport/CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(
            name: "CSndFile", path: "CSupport/CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CQREncode", path: "CSupport/CQREncode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]),

        // C: what Swift cannot call itself (variadic libv4l2 calls, VIDIOC_* macros) and per-pixel loops.
        .target(name: "CLumaCapture", dependencies: ["CV4L2", "CTurboJPEG"], path: "CSupport/CLumaCapture"),
        // C++ behind an extern "C" header: zbar scanning with symbol polygons, OpenCV imaging, image files.
        // OpenCV (Debian's libopencv-dev) is not a pkg-config system library: pkg-config's opencv4 lists every
        // module and SwiftPM would link them all (about 390 shared libraries to load at each start). Its headers come
        // through the CSupport/OpenCV/include link to /usr/include/opencv4, and only the modules used are linked.
        .target(
            name: "CLumaVision", dependencies: ["CZBar", "CQREncode", "CTurboJPEG", "CPNG"],
            path: "CSupport/CLumaVision",
            // models/ holds the digit network's ONNX file, its licence and figures; the library carries the model as
            // the C array scripts/embed-meter-digits.py generates from it (meter_digits_model.c).
            exclude: ["models"],
            cxxSettings: [.headerSearchPath("../OpenCV/include")],
            linkerSettings: [
                .linkedLibrary("opencv_core"), .linkedLibrary("opencv_imgproc"),
                // The roller-counter digit network (meter_digits.cpp) runs on OpenCV's DNN module.
                .linkedLibrary("opencv_dnn"),
                // ZXing-C++ (Debian's libzxing-dev, /usr/include/ZXing): the second barcode backend.
                .linkedLibrary("ZXing"),
                // Image codecs (codecs_libs.cpp): libwebp, libtiff and giflib (libwebp-dev, libtiff-dev, libgif-dev).
                .linkedLibrary("webp"), .linkedLibrary("tiff"), .linkedLibrary("gif"),
                // HMAC-SHA256 of the secure-QR seed from the issuer's key (secureqr_authenticate.cpp): OpenSSL's
                // libcrypto (libssl-dev).
                .linkedLibrary("crypto"),
            ]),

        // The bench kit's C++: the imaging scenes are drawn with (lv_draw.h), synthetic meters (lv_meter_synth.h, with
        // OpenCV's FreeType module for the counter digits) and the raw zbar / ZXing-C++ baselines (lv_baseline.h).
        .target(
            name: "CLumaBenchKit", dependencies: ["CLumaVision", "CZBar"], path: "CSupport/CLumaBenchKit",
            // CLumaVision's internal headers: lv_shim.hpp (the one exception guard) and barcode_internal.hpp (the one
            // mapping between LumaScan's symbologies and ZXing-C++'s formats).
            cxxSettings: [.headerSearchPath("../OpenCV/include"), .headerSearchPath("../CLumaVision")],
            linkerSettings: [
                .linkedLibrary("opencv_core"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_freetype"),
                .linkedLibrary("ZXing"),
            ]),

        .target(name: "LumaScanCore", dependencies: [logging]),
        .target(name: "LumaScanCapture", dependencies: ["LumaScanCore", "CLumaCapture", "CLumaVision", logging]),
        .target(name: "LumaScanRecognizers", dependencies: ["LumaScanCore", "CLumaVision", logging]),
        .target(
            name: "LumaScan",
            dependencies: [
                "LumaScanCore", "LumaScanCapture", "LumaScanRecognizers", "CLumaCapture", logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // The JSON lines of engine events, shared by the CLI and the kiosk server; kept out of the engine.
        .target(name: "LumaScanEventJSON", dependencies: ["LumaScan"]),
        .target(
            name: "LumaScanBenchKit",
            dependencies: ["LumaScan", "LumaScanCore", "LumaScanRecognizers", "CLumaVision", "CLumaBenchKit"]),
        // Sounds for scanning events (the configuration's audioFeedback), played on ALSA; kept apart from LumaScan so
        // that the engine links no audio library.
        .target(name: "LumaScanAudio", dependencies: ["LumaScan", "CALSA", "CSndFile", logging]),
        // The kiosk service (lumascan serve) as a library, so a daemon can run it next to its ScanEngine.
        // Public/ holds the page; the library carries it as the table scripts/embed-public.py generates from it
        // (PublicFiles.swift), so nothing is read from disk and no resource bundle has to sit next to the binary.
        .target(
            name: "LumaScanServer",
            dependencies: [
                "LumaScan", "LumaScanEventJSON", logging, metrics,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Public"]),
        .executableTarget(
            name: "lumascan",
            dependencies: [
                "LumaScan", "LumaScanEventJSON", "LumaScanBenchKit", "LumaScanAudio", "LumaScanServer", logging,
                metrics,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),

        // Test-only encoders for the image formats the library only reads (WebP, TIFF, GIF), kept out of the library.
        .target(
            name: "CLumaTestCodecs", path: "Tests/CLumaTestCodecs",
            linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("tiff"), .linkedLibrary("gif")]),
        // Test support only, never linked into the library: codes of every symbology from libzint, the
        // print-and-photograph camera model (OpenCV, TurboJPEG) and ZXing-C++ as a peer reader, for the real-world
        // barcode corpus (Debian: libzint-dev, libzxing-dev, installed by scripts/deps.sh).
        .target(
            name: "CLumaTestKit", dependencies: ["CTurboJPEG"], path: "Tests/CLumaTestKit",
            // CLumaVision's internal lv_shim.hpp: the one exception guard of every shim, the kit's too.
            cxxSettings: [
                .headerSearchPath("../../CSupport/OpenCV/include"), .headerSearchPath("../../CSupport/CLumaVision"),
            ],
            linkerSettings: [
                .linkedLibrary("zint"), .linkedLibrary("opencv_core"), .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("ZXing"),
            ]),
        .target(
            name: "LumaScanTestSupport",
            dependencies: [
                "LumaScanCore", "LumaScanRecognizers", "LumaScanBenchKit", "CLumaVision", "CLumaBenchKit",
                "CLumaTestCodecs", "CLumaTestKit",
                logging,
            ],
            path: "Tests/LumaScanTestSupport"),
        // Writes the real-world barcode corpus to a folder and scores peers' reads of it
        // (scripts/compare-barcodes.sh), and measures the heap that repeated scans hold (heap-growth, run by
        // LVBarcodeScannerTests in a process of its own); a test tool, not part of the lumascan product.
        .executableTarget(
            name: "barcode-corpus",
            dependencies: [
                "LumaScanCore", "LumaScanBenchKit", "LumaScanTestSupport", "CLumaVision", "CLumaTestKit",
            ],
            path: "Tests/barcode-corpus"),
        .testTarget(name: "LumaScanCoreTests", dependencies: ["LumaScanCore", "LumaScanTestSupport"]),
        .testTarget(
            name: "LumaScanCaptureTests",
            dependencies: ["LumaScanCapture", "LumaScanTestSupport", "CLumaCapture", "CLumaVision", logging]),
        .testTarget(
            name: "LumaScanRecognizersTests", dependencies: ["LumaScanRecognizers", "LumaScanTestSupport"],
            // Read by path (#filePath), as the tests run from the source tree.
            exclude: ["Fixtures"]),
        .testTarget(name: "LumaScanTests", dependencies: ["LumaScan", "LumaScanTestSupport"]),
        .testTarget(name: "LumaScanEventJSONTests", dependencies: ["LumaScanEventJSON", "LumaScan"]),
        .testTarget(name: "LumaScanAudioTests", dependencies: ["LumaScanAudio", "LumaScan", "CSndFile", logging]),
        .testTarget(
            name: "LumaScanServerTests",
            dependencies: [
                "LumaScanServer", "LumaScan", "LumaScanEventJSON", "LumaScanBenchKit", "LumaScanTestSupport",
                "CLumaCapture", logging,
                metrics,
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(name: "lumascanTests", dependencies: ["lumascan", "LumaScanCore", "LumaScanTestSupport"]),
        .testTarget(
            name: "IntegrationTests", dependencies: ["lumascan", "LumaScanCore", "LumaScanTestSupport"],
            path: "Tests/IntegrationTests", exclude: ["vm"]),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .gnu11,
    cxxLanguageStandard: .cxx17
)

if !subsetOmits.isEmpty {
    package.targets.removeAll { subsetOmits.contains($0.name) }
    package.products.removeAll { $0.name == "lumascan" }
}
