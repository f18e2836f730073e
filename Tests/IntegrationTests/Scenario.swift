import Foundation
import Testing

/// One scenario's results, as `vm/scenarios.sh` left them: a folder with the outputs of each command it ran
/// (`NAME.out`, `NAME.err`, `NAME.status`), other files it wrote, and `window` (its start and end, guest uptime).
struct Scenario: Sendable {
    /// The scenario's name, which is also its folder's.
    let name: String
    /// Its folder in the run dir.
    let directory: URL
    /// The run it belongs to.
    let run: VividRun

    /// The text of `file` in the scenario's folder, or `nil` when it does not exist.
    func text(_ file: String) -> String? {
        try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
    }

    /// Whether `file` exists in the scenario's folder.
    func has(_ file: String) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path)
    }

    /// The exit status of command `name`; `nil` when it did not finish.
    func status(_ name: String) -> Int32? {
        text("\(name).status").flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The JSON-line events command `name` printed on stdout.
    func events(_ name: String) throws -> [EventLine] {
        guard let text = text("\(name).out") else { throw VividError("\(self.name): no \(name).out") }
        let decoder = JSONDecoder()
        return try text.split(separator: "\n").map { line in
            do {
                return try decoder.decode(EventLine.self, from: Data(line.utf8))
            } catch {
                throw VividError("\(self.name)/\(name).out: not an event line: \(line) (\(error))")
            }
        }
    }

    /// A value from `window`: `start`, `end`, or a mark the scenario set (`switch`, `inject`).
    func mark(_ key: String) -> Double? {
        for line in (text("window") ?? "").split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == key { return Double(parts[1]) }
        }
        return nil
    }

    /// What to print when a check failed: why the run ended early (if it did), the scenario's notes and setup
    /// problems, lumascan's stderr, and the guest's kernel log during the scenario.
    func diagnostics() -> String {
        var report = "--- scenario '\(name)' failed; its files: \(directory.path)"
        if let problem = run.problem { report += "\n--- the VM run did not complete: \(problem)" }
        for file in ["setup-failed", "notes.txt"] {
            if let text = text(file) { report += "\n--- \(file):\n\(text)" }
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files.sorted() where file.hasSuffix(".err") || file.hasSuffix(".hung") {
            let lines = (text(file) ?? "").split(separator: "\n")
            guard !lines.isEmpty else { continue }
            report += "\n--- \(file) (\(lines.count) lines):\n" + lines.suffix(40).joined(separator: "\n")
        }
        // A lumascan that died of a signal: gdb's reading of its core (siginfo, registers, code, stacks).
        for file in files.sorted() where file.hasSuffix(".crash") {
            let lines = (text(file) ?? "").split(separator: "\n")
            report += "\n--- \(file) (\(lines.count) lines):\n" + lines.prefix(120).joined(separator: "\n")
        }
        let start = mark("start") ?? 0
        let end = mark("end") ?? .infinity
        let kernel = Self.foldingCallTraces(run.dmesg(from: start, to: end))
        report +=
            "\n--- guest dmesg during the scenario (\(start)...\(end) s; complete log: "
            + "\(run.directory.appendingPathComponent("dmesg.txt").path)):\n"
            + (kernel.isEmpty ? "(nothing)" : kernel.joined(separator: "\n"))
        return report
    }

    /// The kernel log with every call trace after the first reduced to its warning line: a starved guest repeats
    /// vivid's `schedule_timeout` trace dozens of times, which would push everything else out of a CI log's tail.
    static func foldingCallTraces(_ lines: [String]) -> [String] {
        var kept: [String] = []
        var traces = 0
        var omitted = 0
        var inTrace = false
        for line in lines {
            let message = line.firstIndex(of: "]").map { line[line.index(after: $0)...].drop { $0 == " " } } ?? ""
            // A trace is "CPU: ... Comm: ...", "Hardware name: ...", "Call Trace:", the frames, "</TASK>".
            if message.hasPrefix("CPU: ") && message.contains(" Comm: ") { traces += 1 }
            if message.hasPrefix("Call Trace:") { inTrace = true }
            let traceLine = inTrace || message.hasPrefix("CPU: ") || message.hasPrefix("Hardware name:")
            if message.hasPrefix("</TASK>") { inTrace = false }
            if traces > 1 && traceLine {
                omitted += 1
                continue
            }
            kept.append(line)
        }
        if omitted > 0 { kept.append("(\(omitted) lines of \(traces - 1) later call traces omitted)") }
        return kept
    }
}

/// One JSON line from `lumascan scan`: every key of every event type in the schema, all optional.
struct EventLine: Decodable, Sendable {
    var schemaVersion: Int?
    var event: String
    // started
    var source: String?
    var pixelFormat: String?
    var width: Int?
    var height: Int?
    // report
    var reportType: String?
    var state: String?
    var recognizer: String?
    var symbology: String?
    var text: String?
    var bytesBase64: String?
    var polygon: [[Double]]?
    var frame: Int?
    var driverSequence: Int?
    var captureTime: Double?
    var reportTime: Double?
    // sourceFailed, sourceRecovered, stopped
    var message: String?
    var action: String?
    var attempts: Int?
    var reason: String?
    // statistics
    var framesCaptured: Int?
    var framesProcessed: Int?
    var framesDroppedByRing: Int?
    var framesInFlight: Int?
    var framesDroppedByDriver: Int?
    var framesCorrupt: Int?
    var reports: Int?
    var eventsDelivered: Int?
    var eventsDropped: Int?
    var sourceFailures: Int?

    /// Whether this is a report with a result (a code read).
    var isResult: Bool { event == "report" && reportType == "COMPLETED_RESULT" }
}

extension BidirectionalCollection where Element == EventLine {
    /// The `report` events.
    var reports: [EventLine] { filter { $0.event == "report" } }
    /// The reports with a code read.
    var results: [EventLine] { filter(\.isResult) }
    /// The `statistics` event (`--statistics`), if there is one.
    var statistics: EventLine? { last { $0.event == "statistics" } }
    /// The events named `name`.
    func named(_ name: String) -> [EventLine] { filter { $0.event == name } }
}

/// Checks for one scenario: each failed check is recorded as an issue at the caller's source location, and when
/// any failed, ``finish()`` prints the scenario's diagnostics (guest dmesg, lumascan's stderr).
final class Checks {
    let scenario: Scenario
    private(set) var failures = 0
    /// What each failed check said, in order.
    private(set) var messages: [String] = []

    init(_ scenario: Scenario) { self.scenario = scenario }

    /// Records an issue saying `comment` unless `condition` holds; returns `condition`.
    @discardableResult
    func expect(
        _ condition: Bool, _ comment: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        if !condition {
            failures += 1
            messages.append("\(scenario.name): \(comment())")
            Issue.record(Comment(rawValue: "\(scenario.name): \(comment())"), sourceLocation: sourceLocation)
        }
        return condition
    }

    /// Like ``expect(_:_:sourceLocation:)``, but stops the test when `condition` fails.
    func require(
        _ condition: Bool, _ comment: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard expect(condition, comment(), sourceLocation: sourceLocation) else { throw StopChecks() }
    }

    /// Unwraps `value`, or records `comment` and stops the test.
    func unwrap<T>(
        _ value: T?, _ comment: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> T {
        guard let value else {
            expect(false, comment(), sourceLocation: sourceLocation)
            throw StopChecks()
        }
        return value
    }

    /// Records `error` as a failure.
    func record(_ error: any Error, sourceLocation: SourceLocation = #_sourceLocation) {
        expect(false, "\(error)", sourceLocation: sourceLocation)
    }

    /// Prints the diagnostics when a check failed, and then the failed checks again, so that the tail of a long
    /// CI log still says what failed.
    func finish() {
        guard failures > 0 else { return }
        print(scenario.diagnostics())
        print("--- scenario '\(scenario.name)': \(failures) failed checks:\n" + messages.joined(separator: "\n"))
    }

    /// Thrown by ``require(_:_:sourceLocation:)`` to end the checks; already recorded.
    struct StopChecks: Error {}
}

/// Runs `body` on scenario `name`'s results; a failed check prints the guest's dmesg for the scenario.
///
/// Fails (with the reason) when the VM could not run or the scenario left no results.
func checkScenario(
    _ name: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: (Checks) throws -> Void
) async throws {
    let scenario = try await VividMachine.run().scenario(name)
    let checks = Checks(scenario)
    defer { checks.finish() }
    do {
        try body(checks)
    } catch is Checks.StopChecks {
        // Already recorded.
    } catch {
        checks.record(error, sourceLocation: sourceLocation)
    }
    if let setup = scenario.text("setup-failed") {
        checks.expect(false, "the scenario's setup failed in the guest: \(setup)", sourceLocation: sourceLocation)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when the VM may be booted: `LUMASCAN_SKIP_VM=1` skips it, saying so.
    static var vivid: Self {
        .disabled(
            if: VividMachine.skipVM,
            "LUMASCAN_SKIP_VM=1 asks not to boot the VM, so the V4L2 tests against vivid are skipped")
    }
}
