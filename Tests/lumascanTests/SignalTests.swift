import Foundation
import LumaScanCore
import Testing

@Suite("Signals")
struct SignalTests {
    /// A binary PGM of `width` x `height` pseudo-random bytes (each row the previous one rotated), written quickly:
    /// a frame that takes LumaScan's still-image path far longer than a second to scan.
    static func writeBusyImage(to url: URL, width: Int, height: Int) throws {
        var random = SplitMix64(seed: 7)
        var row = (0..<width).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var data = Data("P5\n\(width) \(height)\n255\n".utf8)
        data.reserveCapacity(data.count + width * height)
        for _ in 0..<height {
            data.append(contentsOf: row)
            row = Array(row[37...] + row[..<37])
        }
        try data.write(to: url)
    }

    /// The CPU time (user + system, in clock ticks) the thread of `pid` named `name` has used, or 0 when there is none.
    static func cpuTicks(ofThread name: String, in pid: Int32) -> Int {
        let tasks = "/proc/\(pid)/task"
        for task in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let comm = try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                let stat = try? String(contentsOfFile: "\(tasks)/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm)": state is field 3, utime field 14 and stime field 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            return user + system
        }
        return 0
    }

    @Test("SIGTERM during a frame that takes seconds ends the scan at once: the message, status 143, no summary")
    func terminateDuringLongFrame() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lumascan-busy-\(UUID().uuidString).pgm")
        try Self.writeBusyImage(to: url, width: 7000, height: 7000)
        defer { try? FileManager.default.removeItem(at: url) }

        let process = Process()
        process.executableURL = try lumascanBinary()
        process.arguments = ["scan", "--input", url.path, "--log-level", "info"]
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        // Send SIGTERM once the recognition thread has spent a fifth of a second on the photograph, so the signal
        // comes while it is busy with the frame (which takes it seconds).
        let pid = process.processIdentifier
        var busy = false
        for _ in 0..<600 where !busy && process.isRunning {
            busy = Self.cpuTicks(ofThread: "lumascan-recog", in: pid) >= 20
            if !busy { usleep(10_000) }
        }
        try #require(busy, "the recognition thread never got busy")
        process.terminate()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: stderr, as: UTF8.self)
        // Without the deadline the scan would finish the frame, print its summary and exit 0.
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 128 + SIGTERM, "\(text)")
        #expect(text.contains("lumascan: still busy with a frame 0.9 s after the signal"), "\(text)")
        #expect(!text.contains("result(s)"), "\(text)")
    }
}
