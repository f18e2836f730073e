import LumaScanCore
import Testing

@testable import LumaScanCapture

#if canImport(Glibc)
import Glibc
#endif

@Suite("CaptureError")
struct CaptureErrorTests {
    struct Mapping: Sendable, CustomTestStringConvertible {
        var errno: Int32
        var name: String
        var code: CaptureError.Code
        var testDescription: String { name }
    }

    static let mappings: [Mapping] = [
        Mapping(errno: EAGAIN, name: "EAGAIN", code: .notReady),
        Mapping(errno: ENODEV, name: "ENODEV", code: .deviceGone),
        Mapping(errno: ENXIO, name: "ENXIO", code: .deviceGone),
        Mapping(errno: EIO, name: "EIO", code: .streamBroken),
        Mapping(errno: EPIPE, name: "EPIPE", code: .streamBroken),
        Mapping(errno: EBUSY, name: "EBUSY", code: .busy),
        Mapping(errno: ENOENT, name: "ENOENT", code: .notFound),
        Mapping(errno: EACCES, name: "EACCES", code: .permissionDenied),
        Mapping(errno: EPERM, name: "EPERM", code: .permissionDenied),
        Mapping(errno: EINVAL, name: "EINVAL", code: .invalidArgument),
        Mapping(errno: ENOTTY, name: "ENOTTY", code: .notSupported),
        Mapping(errno: ETIMEDOUT, name: "ETIMEDOUT", code: .timeout),
        Mapping(errno: ENOMEM, name: "ENOMEM", code: .other),
        Mapping(errno: ENOSPC, name: "ENOSPC", code: .other),
    ]

    @Test("errno maps to its code, and the message names device, call and errno", arguments: mappings)
    func errnoMapping(_ mapping: Mapping) {
        let error = CaptureError(errno: mapping.errno, device: "/dev/video3", call: "VIDIOC_QBUF")
        #expect(error.code == mapping.code)
        #expect(CaptureError.code(forErrno: mapping.errno) == mapping.code)
        #expect(error.errno == mapping.errno)
        #expect(error.device == "/dev/video3")
        #expect(error.call == "VIDIOC_QBUF")
        #expect(error.message.hasPrefix("/dev/video3: VIDIOC_QBUF failed: "))
        #expect(error.message.contains("(\(mapping.name))"))
        #expect(error.message.contains(String(cString: strerror(mapping.errno))))
        #expect(error.description == error.message)
    }

    @Test("EBUSY on VIDIOC_REQBUFS says another process is using the camera")
    func busyMessage() {
        let error = CaptureError(errno: EBUSY, device: "/dev/video0", call: "VIDIOC_REQBUFS")
        #expect(
            error.message
                == "/dev/video0: VIDIOC_REQBUFS failed: Device or resource busy (EBUSY): "
                + "another process is using the camera")
    }

    @Test("hints depend on the call")
    func hints() {
        #expect(
            CaptureError(errno: EBUSY, device: "d", call: "VIDIOC_S_CTRL").message.contains("while streaming"))
        #expect(CaptureError(errno: EACCES, device: "d", call: "open").message.contains("'video' group"))
        #expect(CaptureError(errno: EACCES, device: "d", call: "VIDIOC_S_CTRL").message.contains("read-only"))
        #expect(CaptureError(errno: ENOSPC, device: "d", call: "VIDIOC_STREAMON").message.contains("USB bandwidth"))
        #expect(CaptureError(errno: ENODEV, device: "d", call: "VIDIOC_DQBUF").message.contains("disconnected"))
        #expect(CaptureError(errno: 4000, device: "d", call: "x").message.contains("(errno 4000)"))
    }

    @Test("the engine reopens after deviceGone, restarts after streamBroken, and gives up otherwise")
    func recovery() {
        func recovery(_ errno: Int32) -> SourceRecovery {
            CaptureError(errno: errno, device: "d", call: "VIDIOC_DQBUF").recovery
        }
        #expect(recovery(ENODEV) == .reopenDevice)
        #expect(recovery(EIO) == .restartStream)
        #expect(recovery(EPIPE) == .restartStream)
        #expect(recovery(EBUSY) == .none)
        #expect(recovery(EINVAL) == .none)
        let recoverable: any Error = CaptureError(errno: ENXIO, device: "d", call: "poll")
        #expect((recoverable as? any RecoverableSourceError)?.recovery == .reopenDevice)
    }

    @Test("errors compare by code, device, call, errno and message")
    func equality() {
        let a = CaptureError(errno: EIO, device: "/dev/video0", call: "VIDIOC_DQBUF")
        #expect(a == CaptureError(errno: EIO, device: "/dev/video0", call: "VIDIOC_DQBUF"))
        #expect(a != CaptureError(errno: EIO, device: "/dev/video1", call: "VIDIOC_DQBUF"))
        #expect(CaptureError.Code.deviceGone.description == "deviceGone")
    }

    @Test("image files: each lv_image code has its own reason, the message names the file, none is recoverable")
    func imageFiles() {
        let cases: [(Int32, CaptureError.Code, String)] = [
            (ENOENT, .notFound, "no such file"), (EACCES, .permissionDenied, "permission denied"),
            (EISDIR, .invalidArgument, "it is a folder"), (EINVAL, .invalidArgument, "not a regular file"),
            (EMEDIUMTYPE, .unsupportedFormat, "not in an image format LumaScan reads (PNG, JPEG, WebP, TIFF, GIF"),
            (ENOTSUP, .unsupportedFormat, "a variant of its image format"),
            (EBADMSG, .corruptImage, "the file is truncated or corrupt"), (EFBIG, .tooLarge, "the image is too large"),
            (ENOMEM, .other, "out of memory"), (EIO, .other, "read error"),
        ]
        for (errno, code, reason) in cases {
            let error = CaptureError(imageFile: "scans/a.webp", status: -errno, maxPixels: 1 << 26)
            #expect(error.code == code, "\(CaptureError.errnoName(errno))")
            #expect(error.errno == errno)
            #expect(error.message.hasPrefix("scans/a.webp: cannot read the image: \(reason)"), "\(error.message)")
            #expect(error.message.hasSuffix("(\(CaptureError.errnoName(errno)))"), "\(error.message)")
            #expect(error.recovery == .none)
        }
        let folder = CaptureError(folder: "scans/locked", errno: EACCES)
        #expect(folder.code == .permissionDenied)
        #expect(folder.message == "scans/locked: cannot list the folder: Permission denied (EACCES)")
    }
}
