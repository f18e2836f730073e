import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("lumascan serve")
struct ServeCommandTests {
    /// The repository's Samples folder.
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Samples").standardizedFileURL

    @Test("serves a looping recording on a port it chooses, prints where, answers, and ends cleanly on SIGTERM")
    func serveRecording() async throws {
        let process = Process()
        process.executableURL = try lumascanBinary()
        process.arguments = [
            "serve", "--input", Self.samples.appendingPathComponent("kiosk-demo.lsrec").path, "--loop", "--listen",
            "127.0.0.1:0",
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // The first line on stdout says where the server listens.
        var line: [UInt8] = []
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { break }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        let listening = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        #expect(listening?["event"] as? String == "listening")
        let address = try #require(listening?["address"] as? String)
        #expect(address.hasPrefix("127.0.0.1:") && !address.hasSuffix(":0"))

        let status = try await getJSON("http://\(address)/api/status")
        #expect(status.code == 200)
        #expect(status.object["running"] as? Bool == true)
        #expect(status.object["scanning"] as? String == "scanning")
        let health = try await getJSON("http://\(address)/healthz")
        #expect(health.code == 200)
        #expect(health.object["status"] as? String == "ok")

        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test("refuses to listen beyond loopback without a token")
    func exposedWithoutToken() throws {
        let result = try runLumaScan([
            "serve", "--input", Self.samples.appendingPathComponent("kiosk-demo.lsrec").path, "--listen", "0.0.0.0:0",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--token-file"))
    }

    private func getJSON(_ url: String) async throws -> (code: Int, object: [String: Any]) {
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: url)))
        let code = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (code, try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:])
    }
}
