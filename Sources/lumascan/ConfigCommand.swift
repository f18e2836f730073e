import ArgumentParser
import Foundation
import LumaScan

/// `lumascan config`: print a complete default scan configuration, or check one.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print a default scan configuration (JSON), or validate one.",
        discussion: """
            A scan configuration is one JSON document in Anyline's shape: cameraConfig, flashConfig, and \
            viewPluginConfig (or viewPluginCompositeConfig); see the README's Configuration section.
            """,
        subcommands: [DefaultDocument.self, Validate.self])

    /// `lumascan config default [--plugin barcode|secure-qr|meter]`.
    struct DefaultDocument: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "default",
            abstract: "Print the complete default configuration of a plugin, every key with its default value.")

        @Option(
            help: """
                The plugin: \(ScanConfiguration.PluginKind.allCases.map(\.rawValue).joined(separator: ", ")).
                """)
        var plugin: String = ScanConfiguration.PluginKind.barcode.rawValue

        func validate() throws {
            _ = try kind()
        }

        func run() throws {
            let kind = try kind()
            print(ScanConfiguration.defaultConfiguration(for: kind).asJSONString(pretty: true))
            if kind == .secureQR {
                printError(
                    "lumascan: note: list the issuers' URL prefixes in "
                        + "viewPluginConfig.pluginConfig.secureQRConfig.issuerPrefixes; the document does not "
                        + "validate without them")
            }
        }

        private func kind() throws -> ScanConfiguration.PluginKind {
            guard let kind = ScanConfiguration.PluginKind(rawValue: plugin) else {
                let known = ScanConfiguration.PluginKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--plugin: '\(plugin)' is not one of \(known)")
            }
            return kind
        }
    }

    /// `lumascan config validate FILE`.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check a configuration document.",
            discussion: """
                Exit status 0 when it is valid (a one-line summary goes to stdout), 1 when it is not (the message on \
                stderr starts with the JSON path of the problem), 2 for bad arguments or an unreadable file.
                """)

        @Argument(help: "The JSON document to check, or - for standard input.")
        var file: String

        func run() throws {
            let configuration = try loadConfigurationDocument(
                file, unreadable: ExitStatus.badArguments, invalid: ExitStatus.failed)
            let plugins = configuration.viewPlugins.map { view in
                "\(view.pluginConfig.recognizer.kind.rawValue) '\(view.pluginConfig.id)'"
            }
            let shape =
                configuration.viewPluginCompositeConfig.map {
                    "\($0.processingMode.rawValue) composite '\($0.id)' of "
                } ?? ""
            print("\(file): valid: \(shape)\(plugins.joined(separator: ", "))")
        }
    }
}

/// Reads (``readConfigurationDocument(_:status:)``, failing with `unreadable`) and decodes the configuration document
/// at `path`; one that does not decode or validate is a ``CommandFailure`` with `invalid` and a message naming the
/// file and the JSON path of the problem.
func loadConfigurationDocument(
    _ path: String, unreadable: Int32, invalid: Int32
) throws(CommandFailure) -> ScanConfiguration {
    let data = try readConfigurationDocument(path, status: unreadable)
    do {
        return try ScanConfiguration.decode(data: data)
    } catch {
        throw CommandFailure(status: invalid, message: "\(path): \(error)")
    }
}

/// The most a configuration document may hold: 1 MiB, far above any real one, so that `- < /dev/zero` or a wrong
/// file name cannot make lumascan read without end.
let maximumConfigurationBytes = 1 << 20

/// Reads a configuration document from `path` (`-` for standard input) with read(2), at most
/// ``maximumConfigurationBytes``; a file that cannot be read, or a larger one, is a ``CommandFailure`` with `status`
/// and a message naming the file and the reason (its errno's, as the system words it).
func readConfigurationDocument(_ path: String, status: Int32) throws(CommandFailure) -> Data {
    let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
    let name = path == "-" ? "standard input" : path
    func failure(_ error: Int32) -> CommandFailure {
        CommandFailure(status: status, message: "cannot read \(name): \(String(cString: strerror(error)))")
    }
    guard descriptor >= 0 else { throw failure(errno) }
    defer { if descriptor != STDIN_FILENO { close(descriptor) } }
    var bytes = [UInt8](repeating: 0, count: maximumConfigurationBytes + 1)
    var count = 0
    while count < bytes.count {
        let read = bytes[count...].withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if read < 0 {
            if errno == EINTR { continue }
            throw failure(errno)
        }
        if read == 0 { break }
        count += read
    }
    guard count <= maximumConfigurationBytes else {
        throw CommandFailure(
            status: status, message: "\(name): larger than \(maximumConfigurationBytes) bytes; not a configuration")
    }
    return Data(bytes[..<count])
}
