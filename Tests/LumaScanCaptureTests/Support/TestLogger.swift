import Logging

/// A logger that discards everything, so tests do not depend on (or bootstrap) the logging system.
let quietLogger = Logger(label: "lumascan.capture.tests", factory: { _ in SwiftLogNoOpLogHandler() })
