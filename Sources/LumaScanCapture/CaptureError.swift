import LumaScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error from LumaScan's capture layer: a code to match on, the device and call that failed, the `errno` where
/// there is one, and a message that names them all.
///
/// For example: `/dev/video0: VIDIOC_REQBUFS failed: Device or resource busy (EBUSY): another process is using the
/// camera`.
public struct CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; extensible, so match with `==` rather than exhaustively.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// No frame is ready yet (`EAGAIN`); ``V4L2Camera/dequeue(timeout:)`` reports it as `nil`, not as an error.
        public static let notReady = Code("notReady")
        /// The device went away (`ENODEV`, `ENXIO`): unplugged, or its driver unloaded. Reopen it with backoff.
        public static let deviceGone = Code("deviceGone")
        /// The stream broke (`EIO`, `EPIPE`, or `POLLERR` from poll); restarting the stream may help.
        public static let streamBroken = Code("streamBroken")
        /// The device is in use (`EBUSY`), usually by another process.
        public static let busy = Code("busy")
        /// No such device node (`ENOENT`), or no control of the name asked for.
        public static let notFound = Code("notFound")
        /// No permission to use the device (`EACCES`, `EPERM`).
        public static let permissionDenied = Code("permissionDenied")
        /// The node exists but cannot capture video by streaming (a metadata, output or multi-planar node).
        public static let notACaptureDevice = Code("notACaptureDevice")
        /// The device does not offer the pixel format or layout asked for, or LumaScan cannot read the one it offers;
        /// or a file is not in a format LumaScan reads (`EMEDIUMTYPE`), or in a variant of one it does not
        /// (`ENOTSUP`: an RLE-compressed BMP, an animated WebP).
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// The driver rejected a value (`EINVAL`), or a setting is out of range.
        public static let invalidArgument = Code("invalidArgument")
        /// The driver does not implement the call (`ENOTTY`, `EOPNOTSUPP`).
        public static let notSupported = Code("notSupported")
        /// The operation is not valid in the source's state, such as dequeuing from a stopped camera.
        public static let invalidState = Code("invalidState")
        /// The operation timed out (`ETIMEDOUT`).
        public static let timeout = Code("timeout")
        /// A frame cannot be read: a corrupt or truncated JPEG, or a buffer shorter than its format needs.
        public static let corruptFrame = Code("corruptFrame")
        /// A recording file is damaged: cut off, a frame marker missing, unknown flags, timestamps going back, or
        /// bytes after the frames its header counts. The message names the file and the byte offset.
        public static let corruptRecording = Code("corruptRecording")
        /// An image file is truncated or corrupt (`EBADMSG`): its format was recognised, its content does not decode.
        public static let corruptImage = Code("corruptImage")
        /// An image file declares more pixels than the pixel budget (`EFBIG`; 64 MP unless configured); it is refused from its header,
        /// before any pixel memory is allocated.
        public static let tooLarge = Code("tooLarge")
        /// Any other failure; ``CaptureError/errno`` says which.
        public static let other = Code("other")

        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The device node (or other source name) concerned, such as `/dev/video0`.
    public var device: String
    /// The call that failed, such as `VIDIOC_STREAMON`, `open` or `poll`; `nil` when no call failed.
    public var call: String?
    /// The `errno` the call failed with, when it failed with one.
    public var errno: Int32?
    /// What failed, naming the device and the call.
    public var message: String

    /// Creates an error with a message of your own; the message should name the device.
    public init(_ code: Code, device: String, call: String? = nil, errno: Int32? = nil, message: String) {
        self.code = code
        self.device = device
        self.call = call
        self.errno = errno
        self.message = message
    }

    /// Creates the error for `call` on `device` failing with `errno`, with a code and a message derived from it.
    ///
    /// The message reads `<device>: <call> failed: <strerror> (<ENAME>)`, followed by a hint where one helps.
    public init(errno: Int32, device: String, call: String) {
        var message =
            "\(device): \(call) failed: \(CaptureError.errnoDescription(errno)) (\(CaptureError.errnoName(errno)))"
        if let hint = CaptureError.hint(errno: errno, call: call) { message += ": \(hint)" }
        self.init(CaptureError.code(forErrno: errno), device: device, call: call, errno: errno, message: message)
    }

    /// The code that an `errno` maps to.
    public static func code(forErrno errno: Int32) -> Code {
        switch errno {
        case EAGAIN: return .notReady
        case ENODEV, ENXIO: return .deviceGone
        case EIO, EPIPE: return .streamBroken
        case EBUSY: return .busy
        case ENOENT: return .notFound
        case EACCES, EPERM: return .permissionDenied
        case EINVAL: return .invalidArgument
        case ENOTTY, EOPNOTSUPP: return .notSupported
        case ETIMEDOUT: return .timeout
        default: return .other
        }
    }

    /// The message.
    public var description: String { message }

    // MARK: - errno text

    /// The symbolic name of an `errno`, such as `EBUSY`; `errno <n>` for one LumaScan does not name.
    static func errnoName(_ errno: Int32) -> String {
        switch errno {
        case EPERM: return "EPERM"
        case ENOENT: return "ENOENT"
        case EINTR: return "EINTR"
        case EIO: return "EIO"
        case ENXIO: return "ENXIO"
        case EBADF: return "EBADF"
        case EAGAIN: return "EAGAIN"
        case ENOMEM: return "ENOMEM"
        case EACCES: return "EACCES"
        case EFAULT: return "EFAULT"
        case EBUSY: return "EBUSY"
        case ENODEV: return "ENODEV"
        case ENOTDIR: return "ENOTDIR"
        case EINVAL: return "EINVAL"
        case EMFILE: return "EMFILE"
        case ENOTTY: return "ENOTTY"
        case ENOSPC: return "ENOSPC"
        case EPIPE: return "EPIPE"
        case ERANGE: return "ERANGE"
        case EOVERFLOW: return "EOVERFLOW"
        case EOPNOTSUPP: return "EOPNOTSUPP"
        case EISDIR: return "EISDIR"
        case EFBIG: return "EFBIG"
        case EBADMSG: return "EBADMSG"
        case EMEDIUMTYPE: return "EMEDIUMTYPE"
        case ETIMEDOUT: return "ETIMEDOUT"
        default: return "errno \(errno)"
        }
    }

    /// The C library's description of an `errno`, such as `Device or resource busy`.
    static func errnoDescription(_ errno: Int32) -> String {
        // strerror returns a pointer to a constant string for every errno glibc knows (and a per-thread buffer for
        // others), so reading it straight away is safe.
        guard let text = strerror(errno) else { return "errno \(errno)" }
        return String(cString: text)
    }

    /// What usually causes `errno` from `call`, and what to do about it.
    static func hint(errno: Int32, call: String) -> String? {
        let isControlCall = call.contains("CTRL") || call == "VIDIOC_QUERYMENU"
        switch errno {
        case EBUSY where isControlCall: return "the control cannot change now (the driver may lock it while streaming)"
        case EBUSY: return "another process is using the camera"
        case ENODEV, ENXIO: return "the camera was disconnected or its driver unloaded"
        case ENOENT where call == "open": return "no such device node; `lumascan devices` lists the cameras"
        case EACCES where isControlCall, EPERM where isControlCall:
            return "the control is read-only, write-only or inactive"
        case EACCES, EPERM: return "no permission to open the camera; add the user to the 'video' group"
        case EIO, EPIPE: return "the stream broke; capture must be restarted"
        case EAGAIN: return "no frame is ready yet"
        case ENOTTY: return "the driver does not implement this call"
        case ENOSPC where call == "VIDIOC_STREAMON":
            return "not enough USB bandwidth; try a compressed format, a smaller size or a lower frame rate"
        case ENOMEM: return "the driver could not allocate buffers; ask for fewer or smaller ones"
        default: return nil
        }
    }
}

// MARK: - Image files

extension CaptureError {
    /// The error for an image file that `lv_image_read_grey` refused with `status` (a negative errno, as
    /// `lv_image.h` lists them), with a code for the reason and a message naming the file and the reason, such as
    /// `scans/a.webp: cannot read the image: the file is truncated or corrupt (EBADMSG)`; `maxPixels` is the pixel
    /// budget the image was read within.
    init(imageFile path: String, status: Int32, maxPixels: Int) {
        let errno = status < 0 ? -status : EIO
        let reason: String
        let code: Code
        switch errno {
        case ENOENT: (code, reason) = (.notFound, "no such file")
        case EACCES, EPERM: (code, reason) = (.permissionDenied, "permission denied: no permission to read the file")
        case EISDIR: (code, reason) = (.invalidArgument, "it is a folder")
        case EINVAL: (code, reason) = (.invalidArgument, "not a regular file (a device, a FIFO or a socket)")
        case EMEDIUMTYPE:
            (code, reason) = (.unsupportedFormat, "not in an image format LumaScan reads (\(Self.imageFormats))")
        case ENOTSUP:
            (code, reason) = (.unsupportedFormat, "a variant of its image format that LumaScan does not read")
        case EBADMSG: (code, reason) = (.corruptImage, "the file is truncated or corrupt")
        case EFBIG:
            (code, reason) = (.tooLarge, "the image is too large: its header declares more than \(maxPixels) pixels")
        case ENOMEM: (code, reason) = (.other, "out of memory")
        case EIO: (code, reason) = (.other, "read error")
        default: (code, reason) = (Self.code(forErrno: errno), Self.errnoDescription(errno))
        }
        self.init(
            code, device: path, call: "lv_image_read_grey_within", errno: errno,
            message: "\(path): cannot read the image: \(reason) (\(Self.errnoName(errno)))")
    }

    /// The error for a folder that cannot be listed (`opendir` failing with `errno`).
    init(folder path: String, errno: Int32) {
        let code: Code =
            switch errno {
            case ENOENT, ENOTDIR: .notFound
            case EACCES, EPERM: .permissionDenied
            default: .other
            }
        self.init(
            code, device: path, call: "opendir", errno: errno,
            message: "\(path): cannot list the folder: \(Self.errnoDescription(errno)) (\(Self.errnoName(errno)))")
    }

    /// The image formats LumaScan reads, for messages.
    static let imageFormats = "PNG, JPEG, WebP, TIFF, GIF, BMP, PGM/PPM/PBM"
}

extension CaptureError: RecoverableSourceError {
    /// How the engine can recover: reopen the device after ``Code/deviceGone``, restart the stream after
    /// ``Code/streamBroken`` or ``Code/timeout``; other errors are final.
    public var recovery: SourceRecovery {
        switch code {
        case .deviceGone: return .reopenDevice
        case .streamBroken, .timeout: return .restartStream
        default: return .none
        }
    }
}
