import Logging

/// The logger tests hand to the code under test: swift-log's default handler (stderr, `info` and above), so a failing
/// test's log shows what the code said. Tests never bootstrap the logging system; only the CLI does.
public let testLogger = Logger(label: "lumascan.tests")

/// A logger that discards everything, for tests that provoke errors on purpose and would otherwise fill the log.
public let quietLogger = Logger(label: "lumascan.tests.quiet", factory: { _ in SwiftLogNoOpLogHandler() })
