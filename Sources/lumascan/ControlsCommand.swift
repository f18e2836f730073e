import ArgumentParser
import Foundation
import LumaScan

/// `lumascan controls`: a camera's controls with their values; `--set NAME=VALUE` sets controls by their V4L2 name
/// and prints the values read back from the device.
struct ControlsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controls",
        abstract: "List a camera's controls with their values, or set controls and print the values read back.",
        discussion: """
            NAME is the driver's control name, compared case-insensitively with spaces, underscores and punctuation \
            alike, so `brightness`, `Brightness` and v4l2-ctl's names such as `exposure_time_absolute` all work. \
            VALUE is an integer (decimal, or hexadecimal with 0x), `true`/`false` for a boolean, or the name of a \
            menu entry. Controls are set in the order given; after setting them each one is read back from the \
            device and printed (buttons are pressed and have no value to read back).
            """)

    @Option(help: "The V4L2 device, such as /dev/video0.")
    var device: String

    @Option(
        name: .customLong("set"), help: ArgumentHelp("Set a control: NAME=VALUE (repeatable).", valueName: "NAME=VALUE")
    )
    var assignments: [String] = []

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var logging: LoggingOptions

    /// One `--set NAME=VALUE`, as given.
    struct Assignment {
        var name: String
        var value: String
    }

    /// The outcome of setting one control, as printed.
    struct SetResult: Encodable {
        /// The control's name as the driver reports it.
        var name: String
        /// The control's id.
        var id: UInt32
        /// The value asked for, after resolving menu entry names and booleans.
        var requested: Int64
        /// The value the driver kept when setting it.
        var kept: Int64
        /// The value read back from the device after every control was set; `nil` for buttons.
        var value: Int64?
    }

    func validate() throws {
        _ = try parsedAssignments()
    }

    func run() throws {
        let logger = try logging.makeLogger(label: "lumascan.controls")
        let camera = V4L2Camera(device: device, logger: logger)
        let controls: [CameraControl]
        do {
            controls = try camera.controls()
        } catch {
            throw CommandFailure(status: Self.status(for: error), message: "\(error)")
        }
        let assignments = try parsedAssignments()
        if assignments.isEmpty {
            try printList(controls)
            return
        }

        var results: [SetResult] = []
        for assignment in assignments {
            guard let control = controls.first(where: { $0.matches(name: assignment.name) }) else {
                let names = controls.map { "'\($0.name)'" }.joined(separator: ", ")
                throw CommandFailure(
                    status: ExitStatus.badArguments,
                    message: "\(device): no control named '\(assignment.name)'; the camera has \(names)")
            }
            let requested = try Self.resolve(assignment.value, for: control, device: device)
            do {
                let kept = try camera.setControl(named: assignment.name, value: requested)
                results.append(SetResult(name: control.name, id: control.id, requested: requested, kept: kept))
            } catch {
                throw CommandFailure(status: Self.status(for: error), message: "\(error)")
            }
        }
        // Read back only once every control is set: a later control can change an earlier one (an automatic mode
        // and its manual value, say), and the device's final state is what counts.
        for index in results.indices {
            guard let control = controls.first(where: { $0.id == results[index].id }), control.type != .button else {
                continue
            }
            do {
                results[index].value = try camera.getControl(id: control.id)
            } catch {
                throw CommandFailure(status: Self.status(for: error), message: "\(error)")
            }
        }
        try printResults(results)
    }

    private func parsedAssignments() throws -> [Assignment] {
        try assignments.map { text in
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex,
                text.index(after: equals) != text.endIndex
            else {
                throw ValidationError("--set: '\(text)' is not NAME=VALUE")
            }
            let name = text[..<equals].trimmingCharacters(in: .whitespaces)
            let value = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !value.isEmpty else { throw ValidationError("--set: '\(text)' is not NAME=VALUE") }
            return Assignment(name: name, value: value)
        }
    }

    /// The number `text` stands for as a value of `control`: an integer (decimal, `0x` hexadecimal, optionally
    /// negative), `true`/`false`/`on`/`off` for booleans, or a menu entry's name.
    static func resolve(_ text: String, for control: CameraControl, device: String) throws -> Int64 {
        if let number = integer(text) { return number }
        let lowered = text.lowercased()
        if control.type == .boolean || control.type == .button {
            switch lowered {
            case "true", "on", "yes": return 1
            case "false", "off", "no": return 0
            default: break
            }
        }
        if let item = control.menuItems.first(where: { $0.name.lowercased() == lowered }) {
            return item.index
        }
        var message = "\(device): '\(text)' is not a value of control '\(control.name)' (\(control.type))"
        if !control.menuItems.isEmpty {
            message += "; entries: " + control.menuItems.map { "\($0.index) (\($0.name))" }.joined(separator: ", ")
        }
        throw CommandFailure(status: ExitStatus.badArguments, message: message)
    }

    /// Parses a decimal or `0x` hexadecimal integer with an optional sign; hexadecimal up to 64 bits, so a 32-bit
    /// bitmask such as `0x80402010` or a 64-bit pattern can be written as the driver shows it.
    static func integer(_ text: String) -> Int64? {
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        if digits.lowercased().hasPrefix("0x") {
            guard let magnitude = UInt64(digits.dropFirst(2), radix: 16) else { return nil }
            let value = Int64(bitPattern: magnitude)
            return negative ? 0 &- value : value
        }
        guard let magnitude = Int64(digits) else {
            // Int64.min has no positive counterpart.
            return negative && digits == "9223372036854775808" ? Int64.min : nil
        }
        return negative ? -magnitude : magnitude
    }

    /// The exit status for a capture error: 3 when the device cannot be opened, 2 for a control or value the camera
    /// rejects, 1 for anything else the driver reports.
    static func status(for error: any Error) -> Int32 {
        guard let error = error as? CaptureError else { return ExitStatus.failed }
        if error.call == "open" || error.code == .notACaptureDevice { return ExitStatus.deviceUnavailable }
        if error.code == .notFound || error.code == .invalidArgument { return ExitStatus.badArguments }
        return ExitStatus.failed
    }

    private func printList(_ controls: [CameraControl]) throws {
        if json {
            print(try Self.encode(controls))
            return
        }
        if controls.isEmpty {
            print("\(device): no controls")
            return
        }
        for control in controls {
            print(Self.describe(control))
            for item in control.menuItems { print("    \(item.index): \(item.name)") }
        }
    }

    private func printResults(_ results: [SetResult]) throws {
        if json {
            print(try Self.encode(results))
            return
        }
        for result in results {
            print("\(result.name) = \(result.value.map(String.init) ?? "(pressed)")")
        }
    }

    /// One line per control: `Brightness [integer] 0...255 step 1 default 128 = 128 (read-only, inactive)`.
    static func describe(_ control: CameraControl) -> String {
        var line = "\(control.name) [\(control.type)]"
        switch control.type {
        case .integer, .integer64, .bitmask, .menu, .integerMenu:
            line += " \(control.minimum)...\(control.maximum)"
            if control.type == .integer || control.type == .integer64 { line += " step \(control.step)" }
        case .boolean, .button, .string:
            break
        }
        if control.type != .button && control.type != .string { line += " default \(control.defaultValue)" }
        if let value = control.value {
            line += " = \(value)"
            if let item = control.menuItems.first(where: { $0.index == value }) { line += " (\(item.name))" }
        }
        let flags = [
            control.isReadOnly ? "read-only" : nil, control.isWriteOnly ? "write-only" : nil,
            control.isInactive ? "inactive" : nil,
        ].compactMap { $0 }
        if !flags.isEmpty { line += " {\(flags.joined(separator: ", "))}" }
        return line
    }

    private static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
