import Testing

/// The diagnostics a failed scenario prints: they must still say what failed at the end of a long CI log. Runs on the
/// host, without the VM.
@Suite("Scenario diagnostics")
struct ScenarioDiagnosticsTests {
    /// One kernel warning with its call trace, at `time` seconds.
    private func warning(at time: Int, value: String) -> [String] {
        [
            "schedule_timeout: wrong timeout value \(value)",
            "CPU: 0 PID: 703 Comm: vivid-000-vid-c Not tainted 6.1.0-56-amd64 #1  Debian 6.1.192-2",
            "Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)",
            "Call Trace:",
            " <TASK>",
            "  dump_stack_lvl+0x44/0x5c",
            "  schedule_timeout+0x138/0x150",
            "  ret_from_fork+0x22/0x30",
            " </TASK>",
        ].map { "[  \(time).000000] \($0)" }
    }

    @Test("the first call trace is kept whole; later ones keep their warning line, and the omission is counted")
    func laterCallTracesFolded() {
        let log =
            ["[  140.000000] vivid-000: V4L2 capture device registered as video0"]
            + warning(at: 145, value: "fffffffffffffffe") + warning(at: 147, value: "ffffffffffffffff")
            + warning(at: 148, value: "fffffffffffffffd") + ["[  150.000000] vivid-000: disconnect"]
        let folded = Scenario.foldingCallTraces(log)
        // The first warning whole (9 lines), the other two by their first line, the lines around them, and the note.
        #expect(folded.count == 1 + 9 + 1 + 1 + 1 + 1)
        #expect(Array(folded[1...9]) == warning(at: 145, value: "fffffffffffffffe"))
        #expect(folded[10] == "[  147.000000] schedule_timeout: wrong timeout value ffffffffffffffff")
        #expect(folded[11] == "[  148.000000] schedule_timeout: wrong timeout value fffffffffffffffd")
        #expect(folded[12] == "[  150.000000] vivid-000: disconnect")
        #expect(folded[13] == "(16 lines of 2 later call traces omitted)")
    }

    @Test("a log without call traces is unchanged")
    func noTraces() {
        let log = ["[  1.0] a", "[  2.0] CPU features: none", "[  3.0] b"]
        #expect(Scenario.foldingCallTraces(log) == log)
    }
}
