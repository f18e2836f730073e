// libFuzzer target for configuration documents, built with swiftc -sanitize=fuzzer,address together with
// Sources/LumaScanCore (scripts/fuzz.sh): the strict JSON scan (ConfigurationSyntax) on arbitrary bytes, then, for
// well-formed documents, a cutout configuration decoded from them (every numeric field range-checked at decode
// time) and its geometry on frames of several sizes, which must lie inside each frame. Swift traps on overflow and
// on out-of-bounds access, so any of those is a crash libFuzzer saves.
import Foundation

/// libFuzzer's entry point: one input of `size` bytes at `data`; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try ConfigurationSyntax.check(bytes)
    } catch {
        // Every refusal names a position or the root, and echoes a bounded amount of the document.
        if !error.message.contains("(root)") && !error.message.contains("line ") && !error.message.contains(": ") {
            fatalError("unlocated syntax error: \(error.message)")
        }
        if error.message.count > 4 * ConfigurationSyntax.echoLimit + 400 { fatalError("unbounded message") }
        return 0
    }
    guard let cutout = try? JSONDecoder().decode(CutoutConfiguration.self, from: Data(bytes)) else { return 0 }
    for frame in [Size(width: 1, height: 1), Size(width: 640, height: 480), Size(width: 16384, height: 16384)] {
        let geometry = cutout.geometry(frameSize: frame)
        let bounds = Rect(x: 0, y: 0, width: frame.width, height: frame.height)
        for rect in [geometry.cutout, geometry.crop] where rect.isEmpty || rect.intersection(bounds) != rect {
            fatalError("\(geometry) lies outside the frame for \(cutout)")
        }
    }
    return 0
}
