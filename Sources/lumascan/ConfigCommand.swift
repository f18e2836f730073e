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
            let data: Data
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue,
                    let contents = FileManager.default.contents(atPath: file)
                else {
                    throw CommandFailure(
                        status: ExitStatus.badArguments, message: "config validate: cannot read '\(file)'")
                }
                data = contents
            }
            let configuration: ScanConfiguration
            do {
                configuration = try ScanConfiguration.decode(data: data)
            } catch {
                throw CommandFailure(status: ExitStatus.failed, message: "\(file): \(error.message)")
            }
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
