import Foundation
import LumaScanCore
import LumaScanTestSupport
import Testing

/// Runs the built `lumascan` binary and returns its exit status, stdout and stderr.
///
/// - Parameter wrapper: a command that runs `lumascan` (its arguments follow it), such as `setpriv` with options.
func runLumaScan(
    _ arguments: [String], wrapper: [String] = []
) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    let binary = try lumascanBinary()
    if let command = wrapper.first {
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = wrapper.dropFirst() + [binary.path] + arguments
    } else {
        process.executableURL = binary
        process.arguments = arguments
    }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes to the end before waiting, so a chatty child cannot fill a pipe and block.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self)
    )
}

/// Runs the built `lumascan` binary with arguments given as bytes, which need not be valid UTF-8 (Foundation's
/// `Process` takes `String`s, which cannot hold such bytes), and returns its exit status, stdout and stderr.
func runLumaScan(rawArguments: [[UInt8]]) throws -> (status: Int32, stdout: String, stderr: String) {
    let binary = try lumascanBinary().path
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-raw-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let (outPath, errPath) = (folder.appendingPathComponent("out").path, folder.appendingPathComponent("err").path)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv: [UnsafeMutablePointer<CChar>?] =
        ([Array(binary.utf8)] + rawArguments).map { bytes in
            let argument = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            argument.initialize(from: bytes.map { CChar(bitPattern: $0) } + [0], count: bytes.count + 1)
            return argument
        } + [nil]
    defer { argv.forEach { $0?.deallocate() } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, binary, &actions, nil, argv, environ)
    guard spawned == 0 else { throw CLIError("posix_spawn failed: \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let read = { (path: String) in
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }
    return ((status >> 8) & 0xFF, read(outPath), read(errPath))
}

/// The `lumascan` executable next to the test bundle (SwiftPM builds it because this target depends on it).
func lumascanBinary() throws -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent("lumascan")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
    }
    for bundle in Bundle.allBundles {
        let candidate = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("lumascan")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw CLIError("the lumascan binary was not found next to \(CommandLine.arguments[0])")
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Parses JSON lines into dictionaries.
func jsonLines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw CLIError("not a JSON object: \(line)")
        }
        return object
    }
}

@Suite("lumascan CLI")
struct CLITests {
    /// A folder of generated images: each file's expected content comes from how it was made.
    static func makeImageFolder() throws -> (folder: URL, expected: [String: (String, String)]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var expected: [String: (String, String)] = [:]
        func write(_ name: String, _ code: LumaImage, scale: Double, degrees: Double) throws {
            let canvas = TestCanvas(width: 640, height: 480, fill: 235)
            _ = canvas.place(code, centre: Point(x: 320, y: 240), scale: scale, degrees: degrees)
            let path = folder.appendingPathComponent(name).path
            guard canvas.writePNG(to: path) == 0 else { throw CLIError("could not write \(path)") }
        }
        try write("ean13.png", EAN.ean13("400638133393").render(moduleWidth: 3, height: 120), scale: 1, degrees: 0)
        expected["ean13.png"] = ("ean13", "4006381333931")
        try write("code128.png", Code128.encode("LUMA-2026").render(moduleWidth: 3, height: 100), scale: 1, degrees: 8)
        expected["code128.png"] = ("code128", "LUMA-2026")
        try write("qr.png", try QRCode("https://lumascan.example/k/42").render(moduleSize: 6), scale: 1, degrees: 20)
        expected["qr.png"] = ("qr", "https://lumascan.example/k/42")
        let empty = TestCanvas(width: 320, height: 240, fill: 128)
        empty.addNoise(sigma: 20, seed: 7)
        empty.draw(text: "NO CODE HERE", x: 20, y: 120)
        _ = empty.writePNG(to: folder.appendingPathComponent("nothing.png").path)
        return (folder, expected)
    }

    @Test("scan --input over a folder prints every code with its file, and nothing for an image without one")
    func scanFolder() throws {
        let (folder, expected) = try Self.makeImageFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runLumaScan(["scan", "--input", folder.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let events = try jsonLines(result.stdout)
        #expect(events.allSatisfy { $0["schemaVersion"] as? Int == 1 })
        #expect(events.first?["event"] as? String == "started")
        #expect(events.last?["event"] as? String == "stopped")
        #expect(events.last?["reason"] as? String == "endOfInput")
        let reports = events.filter { $0["event"] as? String == "report" }
        for (file, (symbology, text)) in expected {
            let matching = reports.filter { ($0["input"] as? String)?.hasSuffix("/" + file) == true }
            #expect(matching.count == 1, "\(file): \(matching)")
            guard let report = matching.first else { continue }
            #expect(report["reportType"] as? String == "COMPLETED_RESULT")
            #expect(report["state"] as? String == "OK")
            #expect(report["symbology"] as? String == symbology)
            #expect(report["text"] as? String == text)
            let bytes = (report["bytesBase64"] as? String).flatMap { Data(base64Encoded: $0) }
            #expect(bytes.map { String(decoding: $0, as: UTF8.self) } == text)
            let polygon = report["polygon"] as? [[Double]] ?? []
            #expect(!polygon.isEmpty)
            #expect(polygon.allSatisfy { $0.count == 2 && (0...640).contains($0[0]) && (0...480).contains($0[1]) })
        }
        let nothing = reports.filter { ($0["input"] as? String)?.hasSuffix("/nothing.png") == true }
        #expect(nothing.count == 1)
        #expect(nothing.first?["reportType"] as? String == "IN_PROGRESS")
        #expect(nothing.first?["state"] as? String == "UNREADABLE")
        #expect(result.stderr.contains("3 result(s)"), "summary: \(result.stderr)")
    }

    @Test("--once ends the scan after the first result, with the session's end reported as completed")
    func once() throws {
        let (folder, _) = try Self.makeImageFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runLumaScan(["scan", "--input", folder.path, "--once", "--results-only"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let events = try jsonLines(result.stdout)
        #expect(events.filter { $0["event"] as? String == "report" }.count == 1)
        let ends = events.compactMap { $0["event"] as? String == "scanningStopped" ? $0["reason"] as? String : nil }
        #expect(ends == ["completed"])
        #expect(events.last?["event"] as? String == "stopped")
        // The CLI stops the engine when the session completes; a folder of four images can run out before that
        // request lands, so the engine's own end is either of the two (the session's end above is not).
        let engineEnd = events.last?["reason"] as? String
        #expect(engineEnd == "requested" || engineEnd == "endOfInput", "engine end: \(engineEnd ?? "none")")
    }

    @Test("bad arguments exit with status 2 and say what is wrong")
    func badArguments() throws {
        let size = try runLumaScan(["scan", "--size", "big", "--input", "/tmp"])
        #expect(size.status == 2)
        #expect(size.stderr.contains("--size"))
        // A name no symbology has (pdf417 is read since ZXing-C++; a valid list would scan all of /tmp).
        let symbology = try runLumaScan(["scan", "--symbologies", "ean13,ean14", "--input", "/tmp"])
        #expect(symbology.status == 2)
        #expect(symbology.stderr.contains("ean14"))
        let unknown = try runLumaScan(["scan", "--no-such-flag"])
        #expect(unknown.status == 2)
    }

    @Test("a device that cannot be opened exits with status 3 and names the device and the reason")
    func missingDevice() throws {
        let result = try runLumaScan(["scan", "--device", "/dev/video-lumascan-missing", "--max-frames", "1"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("/dev/video-lumascan-missing"))
        #expect(result.stderr.lowercased().contains("no such file"))
    }

    /// A fresh folder under the temporary directory; the caller removes it.
    static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes a 480x240 PNG holding the EAN-13 4006381333931 at `path`.
    static func writeEAN13(to path: String) {
        let canvas = TestCanvas(width: 480, height: 240, fill: 235)
        canvas.place(EAN.ean13("400638133393").render(moduleWidth: 3, height: 120), centre: Point(x: 240, y: 120))
        #expect(canvas.writePNG(to: path) == 0, "writing \(path)")
    }

    @Test("an image file that cannot be decoded exits with status 3, naming the file and the reason")
    func undecodableFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-\(UUID().uuidString).png")
        try Data("not an image at all".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runLumaScan(["scan", "--input", file.path])
        #expect(result.status == 3, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("lumascan: \(file.path): cannot read the image: not in an image format"))
        let failed = try jsonLines(result.stdout).filter { $0["event"] as? String == "inputFailed" }
        #expect(failed.count == 1)
        #expect(failed.first?["input"] as? String == file.path)
        #expect(failed.first?["reason"] as? String == "unsupportedFormat")
    }

    @Test("a folder with a good PNG and a truncated WebP: the PNG's code, one inputFailed line, exit status 4")
    func folderWithUnreadableFile() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        Self.writeEAN13(to: folder.appendingPathComponent("good.png").path)
        let rgb = [UInt8](repeating: 90, count: 64 * 64 * 3)
        let webp = try ImageEncoders.webp(rgb: rgb, width: 64, height: 64, quality: 80)
        let bad = folder.appendingPathComponent("cut.webp")
        try Data(webp.prefix(webp.count / 2)).write(to: bad)

        let result = try runLumaScan(["scan", "--input", folder.path])
        #expect(result.status == 4, "stderr: \(result.stderr)")
        let events = try jsonLines(result.stdout)
        #expect(events.first?["event"] as? String == "started")
        let results = events.filter { $0["reportType"] as? String == "COMPLETED_RESULT" }
        #expect(results.map { $0["text"] as? String } == ["4006381333931"])
        #expect((results.first?["input"] as? String)?.hasSuffix("/good.png") == true)
        let failed = events.filter { $0["event"] as? String == "inputFailed" }
        #expect(failed.count == 1)
        #expect(failed.first?["schemaVersion"] as? Int == 1)
        #expect(failed.first?["input"] as? String == bad.path)
        #expect(failed.first?["reason"] as? String == "corruptImage")
        #expect((failed.first?["message"] as? String)?.contains("cut.webp: cannot read the image: ") == true)
        #expect(events.last?["event"] as? String == "stopped")
        #expect(result.stderr.contains("1 input(s) could not be read, 1 scanned"), "stderr: \(result.stderr)")
    }

    @Test("a file whose name is not valid UTF-8, named by --input, is read (its path shown with U+FFFD)")
    func nonUTF8Input() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("plain.png").path
        Self.writeEAN13(to: plain)
        // "caf\xE9.png": Latin-1, not valid UTF-8.
        let raw = Array(folder.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".png".utf8)
        #expect(rename(plain, raw.map { CChar(bitPattern: $0) } + [0]) == 0)

        let result = try runLumaScan(rawArguments: [Array("scan".utf8), Array("--input".utf8), raw])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let results = try jsonLines(result.stdout).filter { $0["reportType"] as? String == "COMPLETED_RESULT" }
        #expect(results.map { $0["text"] as? String } == ["4006381333931"])
        #expect(results.first?["input"] as? String == folder.path + "/caf\u{FFFD}.png")
    }

    @Test("libtiff's messages about corrupt TIFFs stay off stderr; a folder of only unreadable files exits 3")
    func corruptTIFFsAreQuiet() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A directory of 5 entries cut off after its count, and one without the required strip fields: libtiff's
        // default handlers would print "TIFFFetchDirectory: …" and "MissingRequired: …".
        let header: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]  // "II", 42, the directory at byte 8
        let cut = header + [5, 0]
        let incomplete = header + [1, 0] + [0, 1, 4, 0, 1, 0, 0, 0, 16, 0, 0, 0] + [0, 0, 0, 0]  // ImageWidth 16 only
        try Data(cut).write(to: folder.appendingPathComponent("cut.tif"))
        try Data(incomplete).write(to: folder.appendingPathComponent("incomplete.tiff"))
        let result = try runLumaScan(["scan", "--input", folder.path, "--log-level", "critical"])
        #expect(result.status == 3, "stderr: \(result.stderr)")
        let failed = try jsonLines(result.stdout).filter { $0["event"] as? String == "inputFailed" }
        #expect(failed.map { $0["reason"] as? String } == ["corruptImage", "corruptImage"])
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("lumascan: ") }, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("no image could be read: 2 unreadable"))
    }

    @Test("a file without read permission: exit status 3 and a reason that says permission")
    func unreadableFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lumascan-\(UUID().uuidString).png")
        #expect(TestCanvas(width: 8, height: 8).writePNG(to: file.path) == 0)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(chmod(file.path, 0) == 0)
        // Root reads a mode-000 file all the same (CAP_DAC_OVERRIDE): as root, lumascan runs without the two
        // capabilities that bypass file permissions, through util-linux's setpriv.
        let wrapper =
            getuid() == 0 ? ["/usr/bin/setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"] : []
        try #require(
            wrapper.isEmpty || FileManager.default.isExecutableFile(atPath: wrapper[0]),
            "as root this test needs setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
        let result = try runLumaScan(["scan", "--input", file.path], wrapper: wrapper)
        #expect(result.status == 3, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("\(file.path): cannot read the image: permission denied"), "\(result.stderr)")
        let failed = try jsonLines(result.stdout).filter { $0["event"] as? String == "inputFailed" }
        #expect(failed.first?["reason"] as? String == "permissionDenied")
    }

    @Test("devices --json prints a JSON array of capture devices")
    func devicesJSON() throws {
        let result = try runLumaScan(["devices", "--json"])
        #expect(result.status == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        #expect(parsed is [Any])
    }
}

/// Output failures: a full disk is an error, a reader that goes away ends the scan quietly.
@Suite("lumascan output failures")
struct OutputFailureTests {
    /// Runs lumascan with standard output `stdout` and returns its status and standard error.
    private func run(_ arguments: [String], stdout: Any) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = try lumascanBinary()
        process.arguments = arguments
        let err = Pipe()
        process.standardOutput = stdout
        process.standardError = err
        try process.run()
        if let pipe = stdout as? Pipe { try pipe.fileHandleForReading.close() }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: errData, as: UTF8.self))
    }

    @Test("a full disk (/dev/full) exits 1 naming standard output, for scan and for printing commands")
    func fullDisk() throws {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Samples"
        ).standardized.path
        for arguments in [["scan", "--input", samples, "--results-only"], ["config", "default"]] {
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let result = try run(arguments, stdout: full)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("cannot write standard output"), "\(arguments): \(result.stderr)")
        }
    }

    @Test("a reader that goes away (| head) ends the scan quietly, with the summary on stderr")
    func closedPipe() throws {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Samples"
        ).standardized.path
        let result = try run(["scan", "--input", samples], stdout: Pipe())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("result(s)"), "\(result.stderr)")
        #expect(!result.stderr.contains("cannot write"), "\(result.stderr)")
    }
}

/// Bad capture options are refused with what is wrong with them, before anything is opened.
@Suite("lumascan capture options")
struct CaptureOptionTests {
    @Test(
        "an out-of-range number is called out of range, with the valid range",
        arguments: [
            (["scan", "--fps", "-1"], "--fps: -1.0 is out of range; give a rate above 0 and at most 1000"),
            (
                ["record", "--device", "/dev/null", "--out", "/tmp/x.lsr", "--frames", "1", "--fps", "-5"],
                "--fps: -5.0 is out of range"
            ),
            (
                ["scan", "--size", "99999999999999x1"],
                "--size: 99999999999999x1 is out of range; width and height must each be within 16...16384 pixels"
            ),
            (["scan", "--size", "640x-1"], "--size: '640x-1' is not WxH"),
            (["scan", "--buffers", "-3"], "--buffers: -3 is outside 2...32"),
        ])
    func outOfRange(arguments: [String], expected: String) throws {
        let result = try runLumaScan(arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"), "\(result.stderr)")
    }

    @Test("--format and --size with --input are refused: an input's frames keep their own format")
    func formatWithInput() throws {
        for option in [["--format", "H264"], ["--size", "640x480"]] {
            let result = try runLumaScan(["scan", "--input", "/nonexistent.png"] + option)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("--format and --size choose what a camera captures"), "\(result.stderr)")
        }
    }

    @Test("a node that is not a V4L2 device gets LumaScan's one message, without libv4l2's lines before it")
    func notAV4L2Device() throws {
        let result = try runLumaScan(["scan", "--device", "/dev/null", "--max-frames", "1"])
        #expect(result.status != 0)
        #expect(result.stderr == "lumascan: /dev/null: not a V4L2 device (open failed: ENOTTY)\n", "\(result.stderr)")
    }
}
