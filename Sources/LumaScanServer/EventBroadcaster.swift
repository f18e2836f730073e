import LumaScan
import Synchronization

/// Fans the engine's events, as JSON lines, out to the server's event-stream clients.
///
/// Each client has its own bounded buffer: a client that reads slower than events come loses its oldest events,
/// counted in ``dropped``; publishing never waits for a client, so no client can hold the engine up.
final class EventBroadcaster: Sendable {
    private struct State {
        var next = 0
        var clients: [Int: AsyncStream<String>.Continuation] = [:]
        var closed = false
    }

    /// Events each client buffers before losing the oldest.
    let capacity: Int
    private let state = Lock(State())
    private let droppedCount = Atomic<UInt64>(0)

    /// Creates a broadcaster whose clients each buffer up to `capacity` events.
    init(capacity: Int) { self.capacity = capacity }

    /// Events lost by slow clients, summed over clients.
    var dropped: UInt64 { droppedCount.load(ordering: .relaxed) }

    /// Clients connected now.
    var clientCount: Int { state.withLock { $0.clients.count } }

    /// Connects a client: the sequence yields each later message until the client goes or ``close()`` is called.
    func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: String.self, bufferingPolicy: .bufferingNewest(capacity))
        let id: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            state.next += 1
            state.clients[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.clients.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `message` to every client; a full client's oldest message makes room and counts as dropped.
    func publish(_ message: String) {
        let clients = state.withLock { Array($0.clients.values) }
        for client in clients {
            if case .dropped = client.yield(message) { droppedCount.add(1, ordering: .relaxed) }
        }
    }

    /// Ends every client's sequence and refuses new clients.
    func close() {
        let clients = state.withLock { state in
            state.closed = true
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients { client.finish() }
    }
}
