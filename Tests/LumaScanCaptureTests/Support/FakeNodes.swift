import Foundation
import LumaScanCore

@testable import LumaScanCapture

/// Several scripted nodes behind one ``V4L2Syscalls``, routed by path on open and by descriptor afterwards.
final class FakeNodes: V4L2Syscalls, @unchecked Sendable {
    // SAFETY (Sendable): `routes` and `nextDescriptor` are accessed only while holding `lock`.
    private let nodes: [String: FakeV4L2]
    private let lock = Lock(())
    private var routes: [Int32: (node: FakeV4L2, fd: Int32)] = [:]
    private var nextDescriptor: Int32 = 100

    init(_ nodes: [String: FakeV4L2]) {
        self.nodes = nodes
        for (path, node) in nodes { node.with { $0.paths = [path] } }
    }

    /// Whether every node has every descriptor closed.
    var allClosed: Bool { nodes.values.allSatisfy { $0.with { $0.openDescriptors.isEmpty } } }

    private func route(_ fd: Int32) -> (node: FakeV4L2, fd: Int32)? {
        lock.withLock { _ in routes[fd] }
    }

    func open(_ path: String, flags: Int32) -> Int32 {
        guard let node = nodes[path] else { return -ENOENT }
        let inner = node.open(path, flags: flags)
        guard inner >= 0 else { return inner }
        return lock.withLock { _ in
            let fd = nextDescriptor
            nextDescriptor += 1
            routes[fd] = (node, inner)
            return fd
        }
    }

    func close(_ fd: Int32) -> Int32 {
        guard let (node, inner) = route(fd) else { return -EBADF }
        lock.withLock { _ in routes[fd] = nil }
        return node.close(inner)
    }

    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        guard let (node, inner) = route(fd) else { return -EBADF }
        return node.ioctl(inner, request, argument)
    }

    func mmap(_ fd: Int32, length: Int, offset: Int64) -> Result<UnsafeMutableRawPointer, Errno> {
        guard let (node, inner) = route(fd) else { return .failure(Errno(rawValue: EBADF)) }
        return node.mmap(inner, length: length, offset: offset)
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 { -EINVAL }

    func poll(_ fd: Int32, timeoutMilliseconds: Int32) -> Int32 {
        guard let (node, inner) = route(fd) else { return -EBADF }
        return node.poll(inner, timeoutMilliseconds: timeoutMilliseconds)
    }
}
