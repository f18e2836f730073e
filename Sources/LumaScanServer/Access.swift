import Foundation

/// Where the server listens, from `HOST:PORT` (`127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:0` for any free port).
public struct ListenAddress: Hashable, Sendable, CustomStringConvertible {
    /// The host or IP address to bind.
    public var host: String
    /// The TCP port; 0 lets the system choose one.
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; `nil` when it is not one.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    /// Whether only this machine can connect: `localhost`, 127.0.0.0/8 or `::1`.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `HOST:PORT`, with brackets around an IPv6 host.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The bearer token that control and configuration requests must carry.
public struct AccessToken: Sendable {
    private let bytes: [UInt8]

    /// Creates a token from its text, without surrounding white space (a token file's final newline); `nil` when
    /// nothing is left.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        bytes = Array(trimmed.utf8)
    }

    /// Whether an `Authorization` header value is `Bearer <this token>`, compared in time that depends only on the
    /// lengths, never on where the first difference is.
    func accepts(authorization: String?) -> Bool {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return false }
        let offered = Array(authorization.utf8.dropFirst("Bearer ".utf8.count))
        var difference = UInt8(truncatingIfNeeded: offered.count ^ bytes.count)
        if offered.count != bytes.count { difference |= 1 }
        for index in 0..<offered.count {
            difference |= offered[index] ^ bytes[index % bytes.count]
        }
        return difference == 0
    }
}
