import ArgumentParser
import Foundation
import Logging
import LumaScan

/// Exit codes documented in the README.
enum ExitStatus {
    /// The command ran.
    static let ok: Int32 = 0
    /// The command ran but found a problem it reports (a configuration that does not validate, say).
    static let failed: Int32 = 1
    /// The arguments were wrong.
    static let badArguments: Int32 = 2
    /// The device (or input) could not be opened, or no input image could be read; the message says which and why.
    static let deviceUnavailable: Int32 = 3
    /// `scan --input` over images ran, but some of them could not be read (each has an `inputFailed` event).
    static let someInputsUnreadable: Int32 = 4
}

/// An error that ends the command with a specific exit status and message.
struct CommandFailure: Error, CustomStringConvertible {
    var status: Int32
    var message: String
    var description: String { message }
}

@main
struct LumaScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lumascan",
        abstract: "LumaScan: a real-time camera frame-processing engine for Linux.",
        discussion: """
            Exit codes: 0 ran, 1 ran and found a problem, 2 bad arguments, 3 the device or input could not be opened \
            (or no input image could be read), 4 scan --input ran but some images could not be read.
            """,
        version: "0.1.0",
        subcommands: [
            ScanCommand.self, RecordCommand.self, DevicesCommand.self, ControlsCommand.self, ConfigCommand.self,
            SecureQRCommand.self,
            BenchCommand.self,
        ],
        defaultSubcommand: ScanCommand.self)

    /// Parses the arguments and runs the command, mapping errors to the documented exit codes (ArgumentParser's own
    /// default for usage errors is 64; LumaScan's is 2).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("lumascan: \(failure.message)\n".utf8))
            Foundation.exit(failure.status)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)  // --help, --version: prints and exits 0
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(code == .validationFailure ? ExitStatus.badArguments : code.rawValue)
        }
    }
}

/// Options shared by commands that log.
struct LoggingOptions: ParsableArguments {
    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "warning"

    func makeLogger(label: String) throws -> Logger {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError(
                "--log-level: '\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        LoggingBootstrap.once(level: level)
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}

/// Bootstraps swift-log once per process: only the CLI does this, never the library.
enum LoggingBootstrap {
    private static let done = NSLock()
    nonisolated(unsafe) private static var bootstrapped = false

    static func once(level: Logger.Level) {
        done.lock()
        defer { done.unlock() }
        guard !bootstrapped else { return }
        bootstrapped = true
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// Writes lines to stdout with one lock, from any thread.
final class LineWriter: @unchecked Sendable {
    // SAFETY (Sendable): every write holds the lock.
    private let lock = NSLock()

    func write(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// The bytes of `option`'s value as the shell passed them, where the parsed `value` came from.
///
/// `CommandLine.arguments`, which ArgumentParser parses, decodes each argument as UTF-8 and replaces a byte that is not
/// valid UTF-8 with U+FFFD, so a file name that is not UTF-8 would name no file. This finds the raw argument (after
/// `option`, or in `option=value`) that decodes to `value`; without one, `value`'s own UTF-8.
func rawArgument(option: String, value: String) -> [UInt8] {
    let arguments: [[UInt8]] = (0..<Int(CommandLine.argc)).compactMap { index in
        CommandLine.unsafeArgv[index].map { argument in
            // SAFETY: argv's strings are NUL-terminated and live as long as the process.
            UnsafeBufferPointer(start: argument, count: strlen(argument)).map { UInt8(bitPattern: $0) }
        }
    }
    let name = Array(option.utf8)
    let prefix = name + [UInt8(ascii: "=")]
    for (index, argument) in arguments.enumerated().dropFirst() {
        let candidate: [UInt8]? =
            argument == name && index + 1 < arguments.count
            ? arguments[index + 1] : argument.starts(with: prefix) ? Array(argument.dropFirst(prefix.count)) : nil
        if let candidate, String(decoding: candidate, as: UTF8.self) == value { return candidate }
    }
    return Array(value.utf8)
}

/// Writes to stderr.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
