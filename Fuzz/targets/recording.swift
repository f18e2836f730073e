// libFuzzer target for the recording reader (Sources/LumaScanCapture/RecordingSource.swift), built with swiftc
// -sanitize=fuzzer,address together with the reader's sources (scripts/fuzz.sh): each input is written to a file in
// /dev/shm and replayed to its end as fast as possible, every frame's bytes read, as `lumascan scan --input` replays a
// recording. A damaged recording must end with a CaptureError (or FrameSourceEnd), never a crash or a hang.
import Foundation
import Logging
import LumaScanCore

private let path = "/dev/shm/lumascan-fuzz-recording-\(getpid()).lsrec"
private let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

/// libFuzzer's entry point: one input of `size` bytes at `data`; returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else { return 0 }
    defer { unlink(path) }
    let source = RecordingSource(path: path, bufferCount: 2, logger: logger)
    do {
        try source.start()
    } catch {
        return 0
    }
    defer { source.stop() }
    for _ in 0..<10_000 {
        do {
            guard let frame = try source.dequeue(timeout: .milliseconds(10)) else { continue }
            let bytes = source.bytes(of: frame.bufferIndex)
            var sum = 0
            for byte in bytes.prefix(frame.metadata.bytesUsed) { sum &+= Int(byte) }
            _ = sum
            try source.requeue(frame.bufferIndex)
        } catch {
            return 0
        }
    }
    return 0
}
