import CLumaCapture

#if canImport(Glibc)
import Glibc
#endif

/// An `errno` value, as a failed system call reports it.
struct Errno: Error, Hashable, Sendable {
    /// The positive `errno` number.
    var rawValue: Int32
}

/// The system calls the capture layer makes, in the shim's convention: a non-negative result on success, `-errno` on
/// failure, `EINTR` already retried.
///
/// ``SystemV4L2Syscalls`` calls the kernel through libv4l2; tests substitute a scripted device.
protocol V4L2Syscalls: Sendable {
    /// Opens a device node; returns the descriptor or `-errno`.
    func open(_ path: String, flags: Int32) -> Int32
    /// Closes a descriptor; returns 0 or `-errno`.
    func close(_ fd: Int32) -> Int32
    /// Performs `request` with `argument` pointing at the request's kernel structure; returns 0 or `-errno`.
    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    /// Maps `length` bytes of the device's memory at `offset`, shared and read-write.
    func mmap(_ fd: Int32, length: Int, offset: Int64) -> Result<UnsafeMutableRawPointer, Errno>
    /// Unmaps a mapping made by ``mmap(_:length:offset:)``; returns 0 or `-errno`.
    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32
    /// Waits up to `timeoutMilliseconds` for a frame; returns the `revents` bits (0 on timeout) or `-errno`.
    func poll(_ fd: Int32, timeoutMilliseconds: Int32) -> Int32
}

/// The real system calls, through CLumaCapture's libv4l2 wrappers.
struct SystemV4L2Syscalls: V4L2Syscalls {
    func open(_ path: String, flags: Int32) -> Int32 { lc_open(path, flags) }

    func close(_ fd: Int32) -> Int32 { lc_close(fd) }

    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        lc_ioctl(fd, request, argument)
    }

    func mmap(_ fd: Int32, length: Int, offset: Int64) -> Result<UnsafeMutableRawPointer, Errno> {
        var address: UnsafeMutableRawPointer?
        // SAFETY: lc_mmap stores the mapping's address in `address` (a local) only when it succeeds.
        let result = lc_mmap(fd, length, offset, &address)
        guard result == 0, let address else { return .failure(Errno(rawValue: result < 0 ? -result : EINVAL)) }
        return .success(address)
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 { lc_munmap(address, length) }

    func poll(_ fd: Int32, timeoutMilliseconds: Int32) -> Int32 { lc_poll(fd, timeoutMilliseconds) }
}
