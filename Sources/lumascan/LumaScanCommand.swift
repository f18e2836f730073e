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
            SecureQRCommand.self, ServeCommand.self,
            BenchCommand.self,
        ],
        defaultSubcommand: ScanCommand.self)

    /// Parses the arguments and runs the command, mapping errors to the documented exit codes (ArgumentParser's own
    /// default for usage errors is 64; LumaScan's is 2).
    static func main() {
        // A reader that goes away (`lumascan scan | head`) is a write error to handle, not a signal that kills.
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot()
            try command.run()
            // print()'s buffered output (config, devices) fails only when it is flushed.
            // (fflush(nil) flushes every stream: Swift 6 cannot name the global `stdout` safely.)
            if fflush(nil) != 0, let failure = outputFailure(errno) { throw failure }
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
    private static let bootstrapped = Lock(false)

    static func once(level: Logger.Level) {
        bootstrapped.withLock { bootstrapped in
            guard !bootstrapped else { return }
            bootstrapped = true
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }
}

/// Writes lines to stdout with one lock, from any thread, and remembers the first write that failed.
///
/// Foundation's `FileHandle.write(_:)` traps on a failed write (a full disk, a closed pipe); this writes with
/// `write(2)`, retries interrupted and partial writes, and on an error keeps its errno, calls ``onFailure`` once and
/// drops every later line, so that the command can end the scan and exit as the README documents.
final class LineWriter: @unchecked Sendable {
    // SAFETY (Sendable): every access to the state holds the lock.
    private let lock = Lock(())
    private var failed: Int32?
    private var failureHandler: (@Sendable () -> Void)?

    /// The errno of the first failed write (`EPIPE` when the reader went away), or `nil`.
    var failure: Int32? { lock.withLock { _ in failed } }

    /// Called once, on the writing thread, when a write fails.
    func onFailure(_ handler: @escaping @Sendable () -> Void) { lock.withLock { _ in failureHandler = handler } }

    func write(_ line: String) {
        let handler: (@Sendable () -> Void)? = lock.withLock { _ in
            guard failed == nil else { return nil }
            let error = Self.writeAll(Array((line + "\n").utf8))
            guard error != 0 else { return nil }
            failed = error
            return failureHandler
        }
        handler?()
    }

    /// Writes `bytes` to standard output; 0, or the errno of the failure.
    private static func writeAll(_ bytes: [UInt8]) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return 0
    }
}

/// What a write error on standard output means for the exit: a closed pipe (`lumascan scan | head`) ends the command
/// quietly; anything else (a full disk) is an error.
func outputFailure(_ error: Int32) -> CommandFailure? {
    guard error != EPIPE else { return nil }
    return CommandFailure(
        status: ExitStatus.failed, message: "cannot write standard output: \(String(cString: strerror(error)))")
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
