import Foundation
import Testing

/// The VM every integration test shares: booted once per test run, on first use, running every scenario of
/// `vm/scenarios.sh` against the kernel's vivid driver; each test then asserts on its scenario's result files.
///
/// The host writes the inputs first (raw frames of generated images, the controls to set), then runs
/// `vm/run-in-vm.sh --out <run dir> -- sh vm/scenarios.sh` with the `lumascan` binary built next to this test
/// bundle. Run dirs live under `.vm-cache/integration/` (git-ignored); the newest few are kept, each with the guest's
/// complete `dmesg.txt`, `console.log` and every scenario's outputs.
///
/// `LUMASCAN_SKIP_VM=1` skips the tests (``skipVM``); otherwise a VM that cannot start fails every test, saying why.
/// `LUMASCAN_IT_SCENARIOS` runs only the named scenarios (for a quick local loop; the others' tests then fail).
enum VividMachine {
    /// Whether `LUMASCAN_SKIP_VM=1` asks for the VM tests to be skipped.
    static let skipVM = ProcessInfo.processInfo.environment["LUMASCAN_SKIP_VM"] == "1"

    /// How long the VM may run (boot, every scenario, poweroff) before it is killed. Since the feeder streams from a
    /// copy in the guest's memory (`vm/vivid-feed.sh`), the run takes 130 s on this project's build machine and 290 s
    /// with two busy processes beside it (2026-11-27); before, it took 450-500 s there and ran past this limit on a
    /// slow CI host. The limit leaves room for a host running at a third of its usual speed (the guest's waits
    /// stretch likewise: `PATIENCE` in `vm/scenarios.sh`). A run that still reaches it is killed and its diagnostics
    /// printed.
    static let timeoutSeconds = 900

    /// Run dirs kept under `.vm-cache/integration/`, newest first.
    static let keptRuns = 5

    /// The one boot, started by the first test that needs it.
    private static let boot = Task<VividRun, any Error> { try await VividRun.boot() }

    /// The results of the run, booting the VM if no test has yet.
    static func run() async throws -> VividRun { try await boot.value }

    /// The repository root on the host (the guest sees the host's `/` at the same paths).
    static let repositoryRoot: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().resolvingSymlinksInPath()
    }()

    /// The `lumascan` executable: `LUMASCAN_IT_LUMASCAN` when set (a release build, say), else the one SwiftPM built
    /// next to this test bundle (the target depends on it).
    static func lumascanBinary() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["LUMASCAN_IT_LUMASCAN"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw VividError("LUMASCAN_IT_LUMASCAN=\(path) is not an executable file")
            }
            return URL(fileURLWithPath: path).resolvingSymlinksInPath()
        }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("lumascan")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        for bundle in Bundle.allBundles {
            let candidate = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("lumascan")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw VividError("the lumascan binary was not found next to \(CommandLine.arguments[0]); build it first")
    }
}

/// A failure to run the VM, or a scenario that left no result; the message says why.
struct VividError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The outcome of the one VM boot: where its files are, and what went wrong if the guest did not finish.
struct VividRun: Sendable {
    /// The run dir: inputs, one folder per scenario, and the harness's files (`dmesg.txt`, `console.log`, ...).
    let directory: URL
    /// Why the run did not complete (a timeout, a guest script failure), or `nil` when every scenario ran.
    let problem: String?
    /// Host wall time of the whole VM run, in seconds.
    let seconds: Double

    /// Writes the inputs, boots the VM, waits for it, and checks that it ran.
    static func boot() async throws -> VividRun {
        let root = VividMachine.repositoryRoot
        let harness = root.appendingPathComponent("Tests/IntegrationTests/vm")
        let lumascan = try VividMachine.lumascanBinary()
        let directory = try makeRunDirectory(root: root)
        try VividInputs.write(to: directory.appendingPathComponent("inputs"))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            harness.appendingPathComponent("run-in-vm.sh").path, "--quiet", "--out", directory.path,
            "--timeout", String(VividMachine.timeoutSeconds), "--cwd", root.path,
            "--env", "LUMASCAN_IT_LUMASCAN=\(lumascan.path)",
            "--", "sh", harness.appendingPathComponent("scenarios.sh").path,
        ]
        let logURL = directory.appendingPathComponent("host.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice

        print("[vivid] booting the VM for the integration tests (run dir \(directory.path))")
        let start = Date()
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: VividError("cannot run \(harness.path)/run-in-vm.sh: \(error)"))
            }
        }
        let seconds = Date().timeIntervalSince(start)
        let hostLog = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        let done = FileManager.default.fileExists(atPath: directory.appendingPathComponent("done").path)
        let errorLines = hostLog.split(separator: "\n").filter { $0.contains("[vm] ERROR") }.joined(separator: "\n")
        print(
            "[vivid] VM run finished in \(String(format: "%.1f", seconds)) s with status \(status)"
                + " (guest timings: \(Self.guestTimings(directory)))")

        Self.printCrashes(directory)

        switch status {
        case 0 where done:
            return VividRun(directory: directory, problem: nil, seconds: seconds)
        case 125:
            // The VM could not run the command at all: nothing to assert on.
            throw VividError(
                "the VM could not start (run-in-vm.sh exit 125): \(errorLines.isEmpty ? hostLog : errorLines)\n"
                    + "run dir: \(directory.path)")
        case 124:
            return VividRun(
                directory: directory,
                problem: "the VM timed out after \(VividMachine.timeoutSeconds) s and was killed: \(errorLines)\n"
                    + Self.consoleTail(directory),
                seconds: seconds)
        default:
            return VividRun(
                directory: directory,
                problem: "the guest's scenarios.sh exited with status \(status)\(done ? "" : " before finishing")\n"
                    + Self.consoleTail(directory),
                seconds: seconds)
        }
    }

    /// A new run dir under `.vm-cache/integration/`; older run dirs beyond ``VividMachine/keptRuns`` are removed.
    private static func makeRunDirectory(root: URL) throws -> URL {
        let parent = root.appendingPathComponent(".vm-cache/integration")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        let name = "run-\(formatter.string(from: Date()))-\(ProcessInfo.processInfo.processIdentifier)"
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        for old in existing.filter({ $0.hasPrefix("run-") }).sorted().reversed().dropFirst(VividMachine.keptRuns - 1) {
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(old))
        }
        let directory = parent.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private static func consoleTail(_ directory: URL) -> String {
        let console = (try? String(contentsOf: directory.appendingPathComponent("console.log"), encoding: .utf8)) ?? ""
        return "last console lines:\n" + console.split(separator: "\n").suffix(25).joined(separator: "\n")
    }

    /// Prints every lumascan that died of a signal in the run, with gdb's reading of its core, and every command the
    /// guest ran again after a SIGTRAP (vm/scenarios.sh `run`): a retry passes the test, so it is said here, loudly.
    private static func printCrashes(_ directory: URL) {
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return }
        for case let file as URL in files {
            guard file.pathExtension == "retried" || file.pathExtension == "crash" else { continue }
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n")
            let name = file.deletingLastPathComponent().lastPathComponent + "/" + file.lastPathComponent
            print("[vivid] NOTE \(name):\n" + lines.prefix(60).map { "[vivid]   \($0)" }.joined(separator: "\n"))
        }
    }

    private static func guestTimings(_ directory: URL) -> String {
        let text = (try? String(contentsOf: directory.appendingPathComponent("timings.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").joined(separator: ", ")
    }

    /// The result of scenario `name`; throws when it did not run (saying why the run ended early, if it did).
    func scenario(_ name: String) throws -> Scenario {
        let folder = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("window").path) else {
            throw VividError(
                "scenario '\(name)' did not run in the VM\(problem.map { ": \($0)" } ?? "") (run dir \(directory.path))"
            )
        }
        return Scenario(name: name, directory: folder, run: self)
    }

    /// The guest's kernel log lines between guest uptimes `start` and `end` (seconds).
    func dmesg(from start: Double, to end: Double) -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("dmesg.txt"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { line in
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]"),
                let time = Double(line[line.index(after: line.startIndex)..<close].trimmingCharacters(in: .whitespaces))
            else { return false }
            return time >= start && time <= end
        }
    }
}
