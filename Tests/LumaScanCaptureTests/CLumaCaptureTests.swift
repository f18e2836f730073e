import CLumaCapture
import CV4L2
import Foundation
import LumaScanCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Calls of the scripted ioctl function below; it fails with EINTR while this is below ``eintrFailures``.
private let scriptedCalls = Atomic<Int>(0)
private let eintrFailures = 3
/// Signals the poll test's handler caught.
private let caughtSignals = Atomic<Int>(0)

@Suite("CLumaCapture shim")
struct CLumaCaptureTests {
    @Test("the request codes are the kernel's (x86-64 and arm64 ABI)")
    func requestCodes() {
        // _IOR('V', 0, struct v4l2_capability): 104-byte argument.
        #expect(LC_VIDIOC_QUERYCAP == 0x8068_5600)
        // _IOWR('V', 17, struct v4l2_buffer): 88 bytes on 64-bit.
        #expect(LC_VIDIOC_DQBUF == 0xC058_5611)
        #expect(LC_VIDIOC_QBUF == 0xC058_560F)
        // _IOW('V', 18, int) and _IOW('V', 19, int).
        #expect(LC_VIDIOC_STREAMON == 0x4004_5612)
        #expect(LC_VIDIOC_STREAMOFF == 0x4004_5613)
        // _IOWR('V', 8, struct v4l2_requestbuffers): 20 bytes.
        #expect(LC_VIDIOC_REQBUFS == 0xC014_5608)
        let codes = [
            LC_VIDIOC_QUERYCAP, LC_VIDIOC_ENUM_FMT, LC_VIDIOC_ENUM_FRAMESIZES, LC_VIDIOC_ENUM_FRAMEINTERVALS,
            LC_VIDIOC_G_FMT, LC_VIDIOC_S_FMT, LC_VIDIOC_TRY_FMT, LC_VIDIOC_G_PARM, LC_VIDIOC_S_PARM, LC_VIDIOC_REQBUFS,
            LC_VIDIOC_QUERYBUF, LC_VIDIOC_QBUF, LC_VIDIOC_DQBUF, LC_VIDIOC_STREAMON, LC_VIDIOC_STREAMOFF,
            LC_VIDIOC_QUERYCTRL, LC_VIDIOC_QUERY_EXT_CTRL, LC_VIDIOC_QUERYMENU, LC_VIDIOC_G_CTRL, LC_VIDIOC_S_CTRL,
            LC_VIDIOC_G_EXT_CTRLS, LC_VIDIOC_S_EXT_CTRLS, LC_VIDIOC_ENUMINPUT, LC_VIDIOC_S_INPUT, LC_VIDIOC_G_INPUT,
        ]
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0 >> 8 & 0xFF == 0x56 }, "every code is in the 'V' group")
    }

    @Test("lc_ioctl_retrying retries EINTR and returns other failures as -errno")
    func ioctlRetry() {
        scriptedCalls.store(0, ordering: .relaxed)
        let interrupted: lc_ioctl_function = { _, request, _ in
            let call = scriptedCalls.add(1, ordering: .relaxed).oldValue
            if call < eintrFailures {
                errno = EINTR
                return -1
            }
            return request == 1 ? 7 : 0
        }
        var argument: Int32 = 0
        #expect(lc_ioctl_retrying(interrupted, 3, 0, &argument) == 0)
        #expect(scriptedCalls.load(ordering: .relaxed) == eintrFailures + 1)

        scriptedCalls.store(eintrFailures, ordering: .relaxed)
        #expect(lc_ioctl_retrying(interrupted, 3, 1, &argument) == 7, "non-negative results pass through")

        scriptedCalls.store(0, ordering: .relaxed)
        let failing: lc_ioctl_function = { _, _, _ in
            scriptedCalls.add(1, ordering: .relaxed)
            errno = EIO
            return -1
        }
        #expect(lc_ioctl_retrying(failing, 3, 0, &argument) == -EIO)
        #expect(scriptedCalls.load(ordering: .relaxed) == 1, "EIO is not retried")
        #expect(lc_ioctl_retrying(nil, 3, 0, &argument) == -EINVAL)
    }

    @Test("the libv4l2 wrappers report -errno from the kernel")
    func wrappers() {
        #expect(lc_open("/nonexistent/video0", O_RDWR | O_NONBLOCK) == -ENOENT)
        // libv4l2's open queries the node's capabilities and refuses nodes that are not V4L2 devices.
        #expect(lc_open("/dev/null", O_RDWR | O_NONBLOCK) == -ENOTTY)
        // Descriptors libv4l2 does not manage pass straight through to the kernel.
        let fd = Glibc.open("/dev/null", O_RDWR)
        #expect(fd >= 0)
        var capability = v4l2_capability()
        #expect(lc_ioctl(fd, LC_VIDIOC_QUERYCAP, &capability) == -ENOTTY, "/dev/null is not a V4L2 device")
        var address: UnsafeMutableRawPointer?
        #expect(lc_mmap(fd, 0, 0, &address) == -EINVAL)
        #expect(lc_mmap(fd, 4096, 0, nil) == -EINVAL)
        #expect(lc_close(fd) == 0)
        #expect(lc_close(fd) == -EBADF)
    }

    @Test("lc_poll reports readiness, hang-up, invalid descriptors and timeouts")
    func poll() throws {
        var fds: [Int32] = [0, 0]
        // A socket pair made close-on-exec in the same call (Glibc's module does not export pipe2): a test that starts
        // a process meanwhile must not inherit the writing end, or it does not hang up while that process runs.
        // Setting FD_CLOEXEC after pipe() left a window another test's spawn fell into under load.
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        let (reader, writer) = (fds[0], fds[1])
        let start = MonotonicClock.now()
        #expect(lc_poll(reader, 30) == 0)
        #expect(MonotonicClock.milliseconds(since: start) >= 29)
        var byte: UInt8 = 1
        #expect(write(writer, &byte, 1) == 1)
        #expect(lc_poll(reader, -1) & Int32(POLLIN) != 0)
        close(writer)
        _ = read(reader, &byte, 1)
        // A process forked between its spawn and its exec still holds a copy for a moment: wait for the hang-up
        // rather than sample it (it comes at once when nothing else holds the other end).
        #expect(lc_poll(reader, 5000) & Int32(POLLHUP) != 0)
        close(reader)
        #expect(lc_poll(reader, 0) & Int32(POLLNVAL) != 0)
    }

    @Test("lc_poll keeps waiting through signals for the time that remains")
    func pollThroughSignals() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer {
            close(fds[0])
            close(fds[1])
        }
        // A handler without SA_RESTART: poll(2) fails with EINTR whenever the signal arrives.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in caughtSignals.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }

        caughtSignals.store(0, ordering: .relaxed)
        // The poll runs on a thread of its own with SIGUSR2 unblocked: Dispatch's worker threads, which run the
        // tests, block asynchronous signals.
        let poller = Atomic<UInt>(0)
        let outcome = Lock<(result: Int32, elapsed: UInt64)?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let readFD = fds[0]
        Thread.detachNewThread {
            var unblock = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
            poller.store(UInt(pthread_self()), ordering: .releasing)
            let start = MonotonicClock.now()
            let result = lc_poll(readFD, 400)
            let elapsed = MonotonicClock.milliseconds(since: start)
            outcome.withLock { $0 = (result, elapsed) }
            finished.signal()
        }
        while poller.load(ordering: .acquiring) == 0 { usleep(1000) }
        // Three signals 40 ms apart, all well inside the 400 ms wait.
        for _ in 0..<3 {
            usleep(40_000)
            pthread_kill(pthread_t(poller.load(ordering: .acquiring)), SIGUSR2)
        }
        finished.wait()
        let measured = outcome.withLock { $0 }
        let (result, elapsed) = try #require(measured)
        #expect(result == 0, "a timeout, not -EINTR")
        #expect(elapsed >= 395)
        #expect(elapsed < 2000)
        #expect(caughtSignals.load(ordering: .relaxed) == 3)
    }

    @Test("lc_extract_luma_packed copies every second byte for any width, offset and strides")
    func extractPacked() {
        for width in [1, 2, 15, 16, 17, 31, 32, 33, 64, 70] {
            for offset: Int32 in [0, 1] {
                let height = 3
                let sourceStride = 2 * width + 6
                let destinationStride = width + 3
                let source = (0..<sourceStride * height).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
                var destination = [UInt8](repeating: 0xAA, count: destinationStride * height)
                source.withUnsafeBytes { src in
                    destination.withUnsafeMutableBytes { dst in
                        lc_extract_luma_packed(
                            src.baseAddress, sourceStride, Int32(width), Int32(height), offset, dst.baseAddress,
                            destinationStride)
                    }
                }
                for y in 0..<height {
                    for x in 0..<destinationStride {
                        let expected = x < width ? source[y * sourceStride + 2 * x + Int(offset)] : 0xAA
                        if destination[y * destinationStride + x] != expected {
                            Issue.record("width \(width) offset \(offset): (\(x), \(y)) is wrong")
                            return
                        }
                    }
                }
            }
        }
        // Degenerate sizes do nothing.
        var untouched: [UInt8] = [9]
        untouched.withUnsafeMutableBytes { lc_extract_luma_packed(nil, 0, 5, 5, 0, $0.baseAddress, 5) }
        untouched.withUnsafeMutableBytes { lc_extract_luma_packed($0.baseAddress, 2, 0, 1, 0, $0.baseAddress, 1) }
        #expect(untouched == [9])
    }

    @Test("the JPEG helpers validate their arguments")
    func jpegArguments() throws {
        #expect(lc_jpeg_grey_capacity(0, 10) == 0)
        #expect(lc_jpeg_grey_capacity(16, 16) >= 256)
        #expect(lc_jpeg_decoder_create(nil) == LC_JPEG_EINVAL)
        var createdDecoder: OpaquePointer?
        #expect(lc_jpeg_decoder_create(&createdDecoder) == 0)
        let decoder = try #require(createdDecoder)
        defer { lc_jpeg_decoder_destroy(decoder) }
        var plane = [UInt8](repeating: 0, count: 64)
        let jpeg = JPEGFixtures.greyJPEG([UInt8](repeating: 128, count: 64), width: 8, height: 8)
        let decoded = jpeg.withUnsafeBytes { source in
            plane.withUnsafeMutableBytes {
                lc_jpeg_decode_grey(decoder, source.baseAddress, source.count, $0.baseAddress, 8, 8, 8)
            }
        }
        #expect(decoded == 0)
        #expect(plane.allSatisfy { abs(Int($0) - 128) <= 1 })
        let narrow = jpeg.withUnsafeBytes { source in
            plane.withUnsafeMutableBytes {
                lc_jpeg_decode_grey(decoder, source.baseAddress, source.count, $0.baseAddress, 4, 8, 8)
            }
        }
        #expect(narrow == LC_JPEG_EINVAL)
        #expect(String(cString: lc_jpeg_decoder_error(decoder)) == "invalid arguments")
        #expect(lc_jpeg_decode_grey(nil, nil, 0, nil, 0, 0, 0) == LC_JPEG_EINVAL)
        lc_jpeg_decoder_destroy(nil)

        var createdEncoder: OpaquePointer?
        #expect(lc_jpeg_encoder_create(&createdEncoder) == 0)
        let encoder = try #require(createdEncoder)
        defer { lc_jpeg_encoder_destroy(encoder) }
        var output = [UInt8](repeating: 0, count: 16)
        let small = plane.withUnsafeBytes { source in
            output.withUnsafeMutableBytes {
                lc_jpeg_encode_grey(encoder, source.baseAddress, 8, 8, 8, 90, $0.baseAddress, 16)
            }
        }
        #expect(small == Int(LC_JPEG_EINVAL), "the output must hold lc_jpeg_grey_capacity bytes")
        output = [UInt8](repeating: 0, count: lc_jpeg_grey_capacity(8, 8))
        let capacity = output.count
        let badQuality = plane.withUnsafeBytes { source in
            output.withUnsafeMutableBytes {
                lc_jpeg_encode_grey(encoder, source.baseAddress, 8, 8, 8, 0, $0.baseAddress, capacity)
            }
        }
        #expect(badQuality == Int(LC_JPEG_EINVAL))
        #expect(String(cString: lc_jpeg_encoder_error(encoder)) == "invalid arguments")
    }
}

/// Milliseconds on the monotonic clock, for timing the poll tests.
enum MonotonicClock {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
    }

    static func milliseconds(since start: UInt64) -> UInt64 { now() - start }
}
