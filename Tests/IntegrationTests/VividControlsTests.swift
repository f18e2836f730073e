import Foundation
import Testing

/// One control as `lumascan controls --json` lists it.
struct ControlJSON: Decodable {
    struct MenuItem: Decodable {
        var index: Int64
        var name: String
    }
    var id: UInt32
    var name: String
    var type: String
    var minimum: Int64
    var maximum: Int64
    var defaultValue: Int64
    var value: Int64?
    var menuItems: [MenuItem]
    var isReadOnly: Bool
    var isWriteOnly: Bool
    var isInactive: Bool
}

/// One entry of `lumascan controls --set ... --json`.
struct SetResultJSON: Decodable {
    var name: String
    var id: UInt32
    var requested: Int64
    var kept: Int64
    var value: Int64?
}

/// The values in `v4l2-ctl --list-ctrls` output, by v4l2-ctl's control name: an independent reading.
func v4l2ctlValues(_ text: String) -> [String: Int64] {
    var values: [String: Int64] = [:]
    for line in text.split(separator: "\n") {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count > 2, words[1].hasPrefix("0x"), let value = line.range(of: " value=") else { continue }
        let number = line[value.upperBound...].prefix { $0 == "-" || $0.isNumber }
        if let parsed = Int64(number) { values[String(words[0])] = parsed }
    }
    return values
}

/// The values in `lumascan controls` text output (`Brightness [integer] 0...255 step 1 default 128 = 200`), by the
/// control's canonical name.
func listedValues(_ text: String) -> [String: Int64] {
    var values: [String: Int64] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix(" ") {
        guard let bracket = line.range(of: " ["), let equals = line.range(of: " = ") else { continue }
        let number = line[equals.upperBound...].prefix { $0 == "-" || $0.isNumber }
        if let value = Int64(number) { values[VividControls.canonical(String(line[..<bracket.lowerBound]))] = value }
    }
    return values
}

@Suite("V4L2 against vivid in a VM: controls", .vivid)
struct VividControlsTests {
    @Test("lumascan controls lists vivid's controls with the values the driver reports")
    func list() async throws {
        try await checkScenario("controls") { check in
            let scenario = check.scenario
            check.expect(
                scenario.status("before") == 0,
                "controls --json exited \(scenario.status("before").map(String.init) ?? "?")")
            let controls = try JSONDecoder().decode(
                [ControlJSON].self, from: Data(try check.unwrap(scenario.text("before.out"), "no listing").utf8))
            let reference = v4l2ctlValues(scenario.text("v4l2-before.txt") ?? "")
            try check.require(reference.count > 20, "v4l2-ctl --list-ctrls gave \(reference.count) values")
            for name in ["Brightness", "Contrast", "Saturation", "Hue"] {
                check.expect(controls.contains { $0.name == name && $0.type == "integer" }, "\(name) is missing")
            }
            for control in controls {
                let key = VividControls.canonical(control.name)
                // Gain follows automatic gain while that is on (a volatile control): it changes between readings.
                guard key != "gain", let value = control.value else { continue }
                check.expect(
                    reference[key] == value,
                    "\(control.name): lumascan read \(value), v4l2-ctl \(reference[key].map(String.init) ?? "nothing")")
            }
            let menu = controls.first { $0.name == "Menu" }
            check.expect(
                menu?.menuItems.map(\.index) == [1, 3, 4],
                "the menu control's entries skip the hole at 2: \(menu?.menuItems.map(\.index) ?? [])")
            let text = scenario.text("after.out") ?? ""
            check.expect(
                scenario.status("after") == 0, "controls exited \(scenario.status("after").map(String.init) ?? "?")")
            check.expect(
                text.contains("Brightness [integer] 0...255 step 1 default 128 = 200\n"),
                "the text listing shows Brightness with its range, default and value:\n\(text.prefix(400))")
            check.expect(
                text.contains(
                    "Menu [menu] 1...4 default 3 = 4 (Menu Item 4)\n    1: Menu Item 1\n    3: Menu Item 3\n"),
                "the text listing shows a menu's entries:\n\(text.prefix(1500))")
        }
    }

    @Test("brightness, contrast and every other control vivid offers are set through LumaScan and read back")
    func setAndReadBack() async throws {
        try await checkScenario("controls") { check in
            let scenario = check.scenario
            check.expect(
                scenario.status("set") == 0, "controls --set exited \(scenario.status("set").map(String.init) ?? "?")")
            let decoder = JSONDecoder()
            let before = try decoder.decode(
                [ControlJSON].self, from: Data(try check.unwrap(scenario.text("before.out"), "no listing before").utf8))
            let set = try decoder.decode(
                [SetResultJSON].self, from: Data(try check.unwrap(scenario.text("set.out"), "no --set output").utf8))
            let after = listedValues(try check.unwrap(scenario.text("after.out"), "no listing after"))
            let reference = v4l2ctlValues(scenario.text("v4l2-after.txt") ?? "")

            // Every control with a value to set is covered.
            let targets = Dictionary(uniqueKeysWithValues: VividControls.assignments.map { ($0.name, $0.value) })
            let settable = before.filter { !$0.isReadOnly && $0.type != "button" && $0.type != "string" }
            let uncovered = settable.map { VividControls.canonical($0.name) }.filter { targets[$0] == nil }
            check.expect(uncovered.isEmpty, "vivid offers controls the test does not set: \(uncovered)")

            check.expect(
                set.count == VividControls.assignments.count, "\(set.count) results for \(targets.count) controls")
            for (assignment, result) in zip(VividControls.assignments, set) {
                let name = assignment.name
                check.expect(VividControls.canonical(result.name) == name, "result \(result.name) for \(name)")
                let original = before.first { VividControls.canonical($0.name) == name }
                check.expect(original != nil, "\(name) is not listed")
                check.expect(
                    original?.value != assignment.value, "\(name) was \(assignment.value) already: nothing to prove")
                check.expect(
                    result.requested == assignment.value && result.kept == assignment.value,
                    "\(name): requested \(result.requested), kept \(result.kept), wanted \(assignment.value)")
                check.expect(
                    result.value == assignment.value,
                    "\(name): read back \(result.value.map(String.init) ?? "nothing"), set \(assignment.value)")
                let listed = after[name]
                check.expect(
                    listed == assignment.value, "\(name): listed as \(listed.map(String.init) ?? "nothing") afterwards")
                check.expect(
                    reference[name] == assignment.value,
                    "\(name): v4l2-ctl reads \(reference[name].map(String.init) ?? "nothing"), set \(assignment.value)")
            }
        }
    }

    @Test("an unknown control and a menu hole are refused with status 2, saying why; earlier settings stay")
    func refusals() async throws {
        try await checkScenario("controls") { check in
            let scenario = check.scenario
            let unknown = scenario.text("unknown.err") ?? ""
            check.expect(
                scenario.status("unknown") == 2,
                "unknown: exited \(scenario.status("unknown").map(String.init) ?? "?"), not 2")
            check.expect(
                unknown.contains("/dev/video0: no control named 'no_such_control'") && unknown.contains("Brightness"),
                "unknown: the message should name the device, the control asked for and those there are: \(unknown)")
            let hole = scenario.text("hole.err") ?? ""
            check.expect(
                scenario.status("hole") == 2, "hole: exited \(scenario.status("hole").map(String.init) ?? "?"), not 2")
            check.expect(
                hole.contains("/dev/video0") && hole.contains("'Menu'") && hole.contains("not a menu entry"),
                "hole: the message should name the device, the control and the reason: \(hole)")
            // Controls are set in order: brightness=100 came before the refused menu=2, and the menu kept its value.
            let values = v4l2ctlReadings(scenario.text("v4l2-hole.txt") ?? "")
            check.expect(
                values["brightness"] == 100 && values["menu"] == 4, "after the refusal v4l2-ctl reads \(values)")
        }
    }
}

/// `v4l2-ctl -C a,b` output (`brightness: 100`, `menu: 4 (Menu Item 4)`) by name.
func v4l2ctlReadings(_ text: String) -> [String: Int64] {
    var values: [String: Int64] = [:]
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: ":", maxSplits: 1)
        let number = parts.count == 2 ? parts[1].drop { $0 == " " }.prefix { $0 == "-" || $0.isNumber } : ""
        if let value = Int64(number) {
            values[String(parts[0])] = value
        }
    }
    return values
}
