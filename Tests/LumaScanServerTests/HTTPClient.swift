import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A response read by ``TestHTTP``.
struct HTTPAnswer: Sendable {
    var status: Int
    /// Header names in lower case.
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw TestHTTPError("not a JSON object: \(text)")
        }
        return object
    }
}

struct TestHTTPError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A minimal HTTP/1.1 client over a blocking socket, on its own thread (never the cooperative pool, which the server's
/// tasks need), so the tests see exactly what goes over the wire: status, headers, chunked bodies, streams.
final class TestHTTP: @unchecked Sendable {
    // SAFETY (Sendable): a connection is used by one test at a time; its state is touched only inside `blocking`.
    private let descriptor: Int32
    private var received: [UInt8] = []
    private var headEnd: Int?

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestHTTPError("socket: \(errno)") }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw TestHTTPError("connect to port \(port): errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// One request on a new connection, read to its end.
    static func request(
        _ method: String, _ path: String, port: Int, headers: [String: String] = [:], body: [UInt8]? = nil
    ) async throws -> HTTPAnswer {
        let connection = try TestHTTP(port: port)
        try connection.send(method, path, headers: headers.merging(["Connection": "close"]) { $1 }, body: body)
        return try await connection.readToEnd()
    }

    /// Sends a request.
    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil) throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + (body ?? [])
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            // A server that refuses a large body may close before reading it all: what it answers still counts.
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Reads until the server closes the connection; returns the response.
    func readToEnd(timeout: Duration = .seconds(600)) async throws -> HTTPAnswer {
        try await blocking { [self] in
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if try readSome() == 0 { break }
            }
            return try answer()
        }
    }

    /// Reads until `condition` holds for the (de-chunked) body read so far, or fails after `timeout`.
    func read(
        until condition: @escaping @Sendable ([UInt8]) -> Bool, timeout: Duration = .seconds(600)
    ) async throws -> HTTPAnswer {
        try await blocking { [self] in
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if headEnd != nil, let answer = try? answer(), condition(answer.body) { return answer }
                if try readSome() == 0 {
                    let answer = try answer()
                    if condition(answer.body) { return answer }
                    throw TestHTTPError("the server closed the stream first; read \(answer.text.prefix(2000))")
                }
            }
            throw TestHTTPError("timed out; read \(String(decoding: received.prefix(2000), as: UTF8.self))")
        }
    }

    /// Reads what is there (waiting up to the socket's one-second timeout); 0 at the end of the stream.
    private func readSome() throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return -1 }
            if errno == ECONNRESET { return 0 }
            throw TestHTTPError("recv: errno \(errno)")
        }
        received += chunk[0..<count]
        if headEnd == nil, let end = Self.find([13, 10, 13, 10], in: received) { headEnd = end + 4 }
        return count
    }

    private func answer() throws -> HTTPAnswer {
        guard let headEnd else { throw TestHTTPError("no response head in \(received.count) bytes") }
        let head = String(decoding: received[0..<headEnd], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw TestHTTPError("bad status line \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(received[headEnd...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = Self.dechunk(body) }
        return HTTPAnswer(status: status, headers: headers, body: body)
    }

    /// The complete chunks' data.
    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while let lineEnd = find([13, 10], in: bytes, from: index) {
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            guard start + size + 2 <= bytes.count else { break }
            output += bytes[start..<start + size]
            index = start + size + 2
        }
        return output
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if Array(haystack[index..<index + needle.count]) == needle { return index }
        }
        return nil
    }

    /// Runs blocking socket work on a thread of its own.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }
}
