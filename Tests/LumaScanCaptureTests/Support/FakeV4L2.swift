import CLumaCapture
import CV4L2
import Foundation
import LumaScanCore

@testable import LumaScanCapture

#if canImport(Glibc)
import Glibc
#endif

/// A scripted V4L2 device behind the ``V4L2Syscalls`` seam: formats, sizes, frame rates, controls and buffers served
/// from memory, frames delivered from a script, and any call made to fail with an errno.
///
/// It behaves like videobuf2 where LumaScan relies on it: buffers cycle between the driver's queue and the caller,
/// `VIDIOC_DQBUF` says `EAGAIN` when nothing is ready, `VIDIOC_REQBUFS` grants at most ``State/maximumBuffers``, and
/// `VIDIOC_S_FMT` adjusts what it cannot do rather than failing.
final class FakeV4L2: V4L2Syscalls, @unchecked Sendable {
    // SAFETY (Sendable): every access to `state` holds `lock`.
    struct Format {
        var pixelFormat: PixelFormat
        var description: String
        var flags: UInt32 = 0
        var sizes: FrameSizes
        var intervals: [Fraction] = [Fraction(numerator: 1, denominator: 30)]
    }

    struct Frame {
        var sequence: UInt32
        var timestampNanoseconds: UInt64 = 1_000_000_000
        var flags: UInt32 = V4L2Constant.bufferTimestampMonotonic
        var bytes: [UInt8] = [1, 2, 3, 4]
    }

    struct Buffer {
        var memory: UnsafeMutableRawPointer
        var length: Int
        var queued = false
        var mapped = false
    }

    struct State {
        var driver = "fake"
        var card = "Fake Camera"
        var busInfo = "platform:fake-0"
        var capabilities = V4L2Constant.capVideoCapture | V4L2Constant.capStreaming | V4L2Constant.capDeviceCaps
        var deviceCaps = V4L2Constant.capVideoCapture | V4L2Constant.capStreaming
        var formats: [Format]
        var currentFormat: PixelFormat
        var currentSize: Size
        /// Extra bytes per line beyond the tight row.
        var linePadding = 0
        /// A format the driver sets whatever is asked for (to test a driver that switches formats).
        var forcedFormat: PixelFormat?
        var supportsFrameRate = true
        var timePerFrame = Fraction(numerator: 1, denominator: 30)
        var maximumBuffers = 8
        var buffers: [Buffer] = []
        /// Queue order of buffers given to the driver.
        var queue: [Int] = []
        var streaming = false
        var frames: [Frame] = []
        var controls: [CameraControl] = []
        var inputs = ["Camera 0", "HDMI"]
        var input = 0
        /// Errnos to fail calls with, by call name (`open`, `VIDIOC_REQBUFS`, `mmap`, `poll`, ...), used in order.
        var failures: [String: [Int32]] = [:]
        /// Results `poll` returns before it looks at the queue.
        var pollResults: [Int32] = []
        /// Every call made, by name.
        var calls: [String] = []
        var openDescriptors: Set<Int32> = []
        var nextDescriptor: Int32 = 3
        /// The paths that open (others fail with ENOENT), with the state of each node beyond the first.
        var paths: Set<String> = ["/dev/video0"]
        var lastRequest: [String: String] = [:]
    }

    private let lock = Lock(())
    private var state: State

    init(
        formats: [Format] = FakeV4L2.defaultFormats, current: PixelFormat = .yuyv,
        size: Size = Size(width: 8, height: 4)
    ) {
        state = State(formats: formats, currentFormat: current, currentSize: size)
    }

    deinit {
        for buffer in state.buffers { buffer.memory.deallocate() }
    }

    static let defaultFormats: [Format] = [
        Format(
            pixelFormat: .mjpeg, description: "Motion-JPEG", flags: V4L2Constant.formatCompressed,
            sizes: .discrete([Size(width: 8, height: 4), Size(width: 16, height: 8)])),
        Format(
            pixelFormat: .yuyv, description: "YUYV 4:2:2",
            sizes: .discrete([Size(width: 8, height: 4), Size(width: 16, height: 8), Size(width: 32, height: 16)]),
            intervals: [Fraction(numerator: 1, denominator: 30), Fraction(numerator: 1, denominator: 15)]),
    ]

    /// Reads or changes the state.
    func with<R>(_ body: (inout State) -> R) -> R {
        lock.withLock { _ in body(&state) }
    }

    var calls: [String] { with { $0.calls } }

    static let requestNames: [UInt: String] = [
        LC_VIDIOC_QUERYCAP: "VIDIOC_QUERYCAP", LC_VIDIOC_ENUM_FMT: "VIDIOC_ENUM_FMT",
        LC_VIDIOC_ENUM_FRAMESIZES: "VIDIOC_ENUM_FRAMESIZES",
        LC_VIDIOC_ENUM_FRAMEINTERVALS: "VIDIOC_ENUM_FRAMEINTERVALS",
        LC_VIDIOC_G_FMT: "VIDIOC_G_FMT", LC_VIDIOC_S_FMT: "VIDIOC_S_FMT", LC_VIDIOC_TRY_FMT: "VIDIOC_TRY_FMT",
        LC_VIDIOC_G_PARM: "VIDIOC_G_PARM", LC_VIDIOC_S_PARM: "VIDIOC_S_PARM", LC_VIDIOC_REQBUFS: "VIDIOC_REQBUFS",
        LC_VIDIOC_QUERYBUF: "VIDIOC_QUERYBUF", LC_VIDIOC_QBUF: "VIDIOC_QBUF", LC_VIDIOC_DQBUF: "VIDIOC_DQBUF",
        LC_VIDIOC_STREAMON: "VIDIOC_STREAMON", LC_VIDIOC_STREAMOFF: "VIDIOC_STREAMOFF",
        LC_VIDIOC_QUERYCTRL: "VIDIOC_QUERYCTRL", LC_VIDIOC_QUERY_EXT_CTRL: "VIDIOC_QUERY_EXT_CTRL",
        LC_VIDIOC_QUERYMENU: "VIDIOC_QUERYMENU", LC_VIDIOC_G_CTRL: "VIDIOC_G_CTRL", LC_VIDIOC_S_CTRL: "VIDIOC_S_CTRL",
        LC_VIDIOC_G_EXT_CTRLS: "VIDIOC_G_EXT_CTRLS", LC_VIDIOC_S_EXT_CTRLS: "VIDIOC_S_EXT_CTRLS",
        LC_VIDIOC_ENUMINPUT: "VIDIOC_ENUMINPUT", LC_VIDIOC_S_INPUT: "VIDIOC_S_INPUT",
        LC_VIDIOC_G_INPUT: "VIDIOC_G_INPUT",
    ]

    /// Records `name` and returns the scripted failure for it, if any.
    private static func begin(_ name: String, _ state: inout State) -> Int32? {
        state.calls.append(name)
        guard var queue = state.failures[name], !queue.isEmpty else { return nil }
        let errno = queue.removeFirst()
        state.failures[name] = queue
        return errno
    }

    // MARK: - V4L2Syscalls

    func open(_ path: String, flags: Int32) -> Int32 {
        with { state in
            if let errno = Self.begin("open", &state) { return -errno }
            guard state.paths.contains(path) else { return -ENOENT }
            guard flags & O_NONBLOCK != 0, flags & O_ACCMODE == O_RDWR else { return -EINVAL }
            let fd = state.nextDescriptor
            state.nextDescriptor += 1
            state.openDescriptors.insert(fd)
            return fd
        }
    }

    func close(_ fd: Int32) -> Int32 {
        with { state in
            if let errno = Self.begin("close", &state) { return -errno }
            guard state.openDescriptors.remove(fd) != nil else { return -EBADF }
            // Closing the last descriptor stops streaming and frees buffers that are not mapped, as the kernel does.
            if state.openDescriptors.isEmpty {
                state.streaming = false
                state.queue = []
                if state.buffers.allSatisfy({ !$0.mapped }) {
                    for buffer in state.buffers { buffer.memory.deallocate() }
                    state.buffers = []
                }
            }
            return 0
        }
    }

    func mmap(_ fd: Int32, length: Int, offset: Int64) -> Result<UnsafeMutableRawPointer, Errno> {
        with { state in
            if let errno = Self.begin("mmap", &state) { return .failure(Errno(rawValue: errno)) }
            let index = Int(offset / Self.offsetUnit)
            guard state.openDescriptors.contains(fd), state.buffers.indices.contains(index),
                offset % Self.offsetUnit == 0, length <= state.buffers[index].length
            else { return .failure(Errno(rawValue: EINVAL)) }
            state.buffers[index].mapped = true
            return .success(state.buffers[index].memory)
        }
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 {
        with { state in
            if let errno = Self.begin("munmap", &state) { return -errno }
            guard let index = state.buffers.firstIndex(where: { $0.memory == address && $0.mapped }) else {
                return -EINVAL
            }
            state.buffers[index].mapped = false
            return 0
        }
    }

    func poll(_ fd: Int32, timeoutMilliseconds: Int32) -> Int32 {
        with { state in
            if let errno = Self.begin("poll", &state) { return -errno }
            if !state.pollResults.isEmpty { return state.pollResults.removeFirst() }
            guard state.streaming else { return Int32(POLLERR) }
            return !state.frames.isEmpty && !state.queue.isEmpty ? Int32(POLLIN) : 0
        }
    }

    static let offsetUnit: Int64 = 0x10_0000

    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        with { state in
            let name = Self.requestNames[request] ?? "ioctl \(request)"
            if let errno = Self.begin(name, &state) { return -errno }
            guard state.openDescriptors.contains(fd) else { return -EBADF }
            return Self.perform(request, argument, &state)
        }
    }

    // MARK: - Requests

    private static func setString<Tuple>(_ tuple: inout Tuple, _ text: String) {
        withUnsafeMutableBytes(of: &tuple) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            for (index, byte) in text.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
    }

    private static func layout(_ pixelFormat: PixelFormat, _ size: Size, padding: Int) -> FrameFormat {
        let tight = FrameFormat(pixelFormat: pixelFormat, width: size.width, height: size.height)
        if pixelFormat.isCompressed { return tight }
        let line = tight.bytesPerLine + padding
        let rows = pixelFormat == .nv12 || pixelFormat == .yu12 ? size.height + (size.height + 1) / 2 : size.height
        return FrameFormat(
            pixelFormat: pixelFormat, width: size.width, height: size.height, bytesPerLine: line,
            sizeImage: line * rows)
    }

    private static func fill(_ pix: inout v4l2_pix_format, _ state: State) {
        let format = layout(state.currentFormat, state.currentSize, padding: state.linePadding)
        pix.pixelformat = format.pixelFormat.fourcc
        pix.width = UInt32(format.width)
        pix.height = UInt32(format.height)
        pix.bytesperline = UInt32(format.bytesPerLine)
        pix.sizeimage = UInt32(format.sizeImage)
        pix.field = V4L2Constant.fieldNone
    }

    private static func perform(_ request: UInt, _ argument: UnsafeMutableRawPointer, _ state: inout State) -> Int32 {
        switch request {
        case LC_VIDIOC_QUERYCAP:
            let capability = argument.assumingMemoryBound(to: v4l2_capability.self)
            capability.pointee = v4l2_capability()
            setString(&capability.pointee.driver, state.driver)
            setString(&capability.pointee.card, state.card)
            setString(&capability.pointee.bus_info, state.busInfo)
            capability.pointee.capabilities = state.capabilities
            capability.pointee.device_caps = state.deviceCaps
            return 0

        case LC_VIDIOC_ENUM_FMT:
            let description = argument.assumingMemoryBound(to: v4l2_fmtdesc.self)
            guard description.pointee.type == V4L2Constant.captureType,
                state.formats.indices.contains(Int(description.pointee.index))
            else { return -EINVAL }
            let format = state.formats[Int(description.pointee.index)]
            description.pointee.pixelformat = format.pixelFormat.fourcc
            description.pointee.flags = format.flags
            setString(&description.pointee.description, format.description)
            return 0

        case LC_VIDIOC_ENUM_FRAMESIZES:
            let entry = argument.assumingMemoryBound(to: v4l2_frmsizeenum.self)
            guard let format = state.formats.first(where: { $0.pixelFormat.fourcc == entry.pointee.pixel_format })
            else { return -EINVAL }
            let index = Int(entry.pointee.index)
            switch format.sizes {
            case .discrete(let sizes):
                guard sizes.indices.contains(index) else { return -EINVAL }
                entry.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
                entry.pointee.discrete.width = UInt32(sizes[index].width)
                entry.pointee.discrete.height = UInt32(sizes[index].height)
            case .stepwise(let range):
                guard index == 0 else { return -EINVAL }
                entry.pointee.type = V4L2_FRMSIZE_TYPE_STEPWISE.rawValue
                entry.pointee.stepwise.min_width = UInt32(range.minimum.width)
                entry.pointee.stepwise.max_width = UInt32(range.maximum.width)
                entry.pointee.stepwise.step_width = UInt32(range.stepWidth)
                entry.pointee.stepwise.min_height = UInt32(range.minimum.height)
                entry.pointee.stepwise.max_height = UInt32(range.maximum.height)
                entry.pointee.stepwise.step_height = UInt32(range.stepHeight)
            }
            return 0

        case LC_VIDIOC_ENUM_FRAMEINTERVALS:
            let entry = argument.assumingMemoryBound(to: v4l2_frmivalenum.self)
            guard let format = state.formats.first(where: { $0.pixelFormat.fourcc == entry.pointee.pixel_format }),
                format.intervals.indices.contains(Int(entry.pointee.index))
            else { return -EINVAL }
            entry.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
            let interval = format.intervals[Int(entry.pointee.index)]
            entry.pointee.discrete = v4l2_fract(numerator: interval.numerator, denominator: interval.denominator)
            return 0

        case LC_VIDIOC_G_FMT:
            let format = argument.assumingMemoryBound(to: v4l2_format.self)
            guard format.pointee.type == V4L2Constant.captureType else { return -EINVAL }
            fill(&format.pointee.fmt.pix, state)
            return 0

        case LC_VIDIOC_S_FMT, LC_VIDIOC_TRY_FMT:
            let format = argument.assumingMemoryBound(to: v4l2_format.self)
            guard format.pointee.type == V4L2Constant.captureType else { return -EINVAL }
            if request == LC_VIDIOC_S_FMT && !state.buffers.isEmpty { return -EBUSY }
            let pix = format.pointee.fmt.pix
            state.lastRequest["VIDIOC_S_FMT"] = "\(PixelFormat(fourcc: pix.pixelformat)) \(pix.width)x\(pix.height)"
            // Like a driver: an unknown format becomes the first one offered, a size the nearest offered one.
            let offered =
                state.formats.first { $0.pixelFormat.fourcc == pix.pixelformat } ?? state.formats[0]
            let chosen = state.forcedFormat ?? offered.pixelFormat
            let asked = Size(width: Int(pix.width), height: Int(pix.height))
            let size: Size
            switch offered.sizes {
            case .discrete(let sizes): size = sizes.contains(asked) ? asked : sizes[0]
            case .stepwise(let range): size = range.contains(asked) ? asked : range.minimum
            }
            var scratch = state
            scratch.currentFormat = chosen
            scratch.currentSize = size
            fill(&format.pointee.fmt.pix, scratch)
            if request == LC_VIDIOC_S_FMT {
                state.currentFormat = chosen
                state.currentSize = size
            }
            return 0

        case LC_VIDIOC_G_PARM, LC_VIDIOC_S_PARM:
            let parameters = argument.assumingMemoryBound(to: v4l2_streamparm.self)
            guard parameters.pointee.type == V4L2Constant.captureType else { return -EINVAL }
            if request == LC_VIDIOC_S_PARM {
                guard state.supportsFrameRate else { return -ENOTTY }
                let asked = Fraction(parameters.pointee.parm.capture.timeperframe)
                state.lastRequest["VIDIOC_S_PARM"] = "\(asked.numerator)/\(asked.denominator)"
                // Grants the nearest offered interval, as drivers do.
                let intervals = state.formats.first { $0.pixelFormat == state.currentFormat }?.intervals ?? []
                if let askedFPS = asked.framesPerSecond,
                    let nearest = intervals.min(by: {
                        abs(($0.framesPerSecond ?? 0) - askedFPS) < abs(($1.framesPerSecond ?? 0) - askedFPS)
                    })
                {
                    state.timePerFrame = nearest
                }
            }
            parameters.pointee.parm.capture.capability = state.supportsFrameRate ? V4L2Constant.capTimePerFrame : 0
            parameters.pointee.parm.capture.timeperframe = v4l2_fract(
                numerator: state.timePerFrame.numerator, denominator: state.timePerFrame.denominator)
            return 0

        case LC_VIDIOC_REQBUFS:
            let request = argument.assumingMemoryBound(to: v4l2_requestbuffers.self)
            guard request.pointee.type == V4L2Constant.captureType, request.pointee.memory == V4L2Constant.mmapMemory
            else { return -EINVAL }
            if state.streaming || state.buffers.contains(where: \.mapped) { return -EBUSY }
            for buffer in state.buffers { buffer.memory.deallocate() }
            state.buffers = []
            state.queue = []
            let count = min(Int(request.pointee.count), state.maximumBuffers)
            let length =
                (layout(state.currentFormat, state.currentSize, padding: state.linePadding).sizeImage + 4095)
                / 4096 * 4096
            for _ in 0..<count {
                let memory = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 4096)
                memory.initializeMemory(as: UInt8.self, repeating: 0, count: length)
                state.buffers.append(Buffer(memory: memory, length: length))
            }
            request.pointee.count = UInt32(count)
            return 0

        case LC_VIDIOC_QUERYBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            let index = Int(buffer.pointee.index)
            guard state.buffers.indices.contains(index) else { return -EINVAL }
            buffer.pointee.length = UInt32(state.buffers[index].length)
            buffer.pointee.m.offset = UInt32(Int64(index) * offsetUnit)
            return 0

        case LC_VIDIOC_QBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            let index = Int(buffer.pointee.index)
            guard buffer.pointee.memory == V4L2Constant.mmapMemory, state.buffers.indices.contains(index),
                !state.buffers[index].queued
            else { return -EINVAL }
            state.buffers[index].queued = true
            state.queue.append(index)
            return 0

        case LC_VIDIOC_DQBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            guard state.streaming else { return -EINVAL }
            guard !state.frames.isEmpty, !state.queue.isEmpty else { return -EAGAIN }
            let frame = state.frames.removeFirst()
            let index = state.queue.removeFirst()
            state.buffers[index].queued = false
            let count = min(frame.bytes.count, state.buffers[index].length)
            frame.bytes.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { state.buffers[index].memory.copyMemory(from: base, byteCount: count) }
            }
            buffer.pointee.index = UInt32(index)
            buffer.pointee.bytesused = UInt32(count)
            buffer.pointee.flags = frame.flags
            buffer.pointee.sequence = frame.sequence
            buffer.pointee.timestamp = timeval(
                tv_sec: Int(frame.timestampNanoseconds / 1_000_000_000),
                tv_usec: Int(frame.timestampNanoseconds % 1_000_000_000 / 1000))
            buffer.pointee.length = UInt32(state.buffers[index].length)
            return 0

        case LC_VIDIOC_STREAMON, LC_VIDIOC_STREAMOFF:
            let type = argument.assumingMemoryBound(to: Int32.self)
            guard UInt32(bitPattern: type.pointee) == V4L2Constant.captureType else { return -EINVAL }
            if request == LC_VIDIOC_STREAMON {
                guard !state.buffers.isEmpty else { return -EINVAL }
                state.streaming = true
            } else {
                state.streaming = false
                for index in state.buffers.indices { state.buffers[index].queued = false }
                state.queue = []
            }
            return 0

        case LC_VIDIOC_QUERY_EXT_CTRL:
            let query = argument.assumingMemoryBound(to: v4l2_query_ext_ctrl.self)
            guard let control = findControl(query.pointee.id, state) else { return -EINVAL }
            query.pointee = v4l2_query_ext_ctrl()
            query.pointee.id = control.id
            query.pointee.type = rawType(control.type)
            setString(&query.pointee.name, control.name)
            query.pointee.minimum = control.minimum
            query.pointee.maximum = control.maximum
            query.pointee.step = control.step
            query.pointee.default_value = control.defaultValue
            query.pointee.flags =
                (control.isReadOnly ? V4L2Constant.controlReadOnly : 0)
                | (control.isInactive ? V4L2Constant.controlInactive : 0)
                | (control.isWriteOnly ? V4L2Constant.controlWriteOnly : 0)
            return 0

        case LC_VIDIOC_QUERYCTRL:
            let query = argument.assumingMemoryBound(to: v4l2_queryctrl.self)
            guard let control = findControl(query.pointee.id, state) else { return -EINVAL }
            query.pointee = v4l2_queryctrl()
            query.pointee.id = control.id
            query.pointee.type = rawType(control.type)
            setString(&query.pointee.name, control.name)
            query.pointee.minimum = Int32(clamping: control.minimum)
            query.pointee.maximum = Int32(clamping: control.maximum)
            query.pointee.step = Int32(clamping: control.step)
            query.pointee.default_value = Int32(clamping: control.defaultValue)
            query.pointee.flags = control.isReadOnly ? V4L2Constant.controlReadOnly : 0
            return 0

        case LC_VIDIOC_QUERYMENU:
            let entry = argument.assumingMemoryBound(to: v4l2_querymenu.self)
            guard let control = state.controls.first(where: { $0.id == entry.pointee.id }),
                let item = control.menuItems.first(where: { $0.index == Int64(entry.pointee.index) })
            else { return -EINVAL }
            if control.type == .integerMenu {
                entry.pointee.value = Int64(item.name) ?? 0
            } else {
                setString(&entry.pointee.name, item.name)
            }
            return 0

        case LC_VIDIOC_G_CTRL, LC_VIDIOC_S_CTRL:
            let entry = argument.assumingMemoryBound(to: v4l2_control.self)
            guard let index = state.controls.firstIndex(where: { $0.id == entry.pointee.id }) else { return -EINVAL }
            if request == LC_VIDIOC_S_CTRL {
                if state.controls[index].isReadOnly { return -EACCES }
                // Drivers round to the step.
                let control = state.controls[index]
                let step = Int64(max(1, control.step))
                let value = control.minimum + (Int64(entry.pointee.value) - control.minimum) / step * step
                state.controls[index].value = value
                entry.pointee.value = Int32(value)
            } else {
                if state.controls[index].isWriteOnly { return -EACCES }
                entry.pointee.value = Int32(state.controls[index].value ?? 0)
            }
            return 0

        case LC_VIDIOC_G_EXT_CTRLS, LC_VIDIOC_S_EXT_CTRLS:
            let list = argument.assumingMemoryBound(to: v4l2_ext_controls.self)
            guard list.pointee.count == 1, let entry = list.pointee.controls,
                let index = state.controls.firstIndex(where: { $0.id == entry.pointee.id })
            else { return -EINVAL }
            if request == LC_VIDIOC_S_EXT_CTRLS {
                state.controls[index].value = entry.pointee.value64
            } else {
                entry.pointee.value64 = state.controls[index].value ?? 0
            }
            return 0

        case LC_VIDIOC_ENUMINPUT:
            let input = argument.assumingMemoryBound(to: v4l2_input.self)
            guard state.inputs.indices.contains(Int(input.pointee.index)) else { return -EINVAL }
            setString(&input.pointee.name, state.inputs[Int(input.pointee.index)])
            return 0

        case LC_VIDIOC_G_INPUT, LC_VIDIOC_S_INPUT:
            let value = argument.assumingMemoryBound(to: Int32.self)
            if request == LC_VIDIOC_S_INPUT {
                guard state.inputs.indices.contains(Int(value.pointee)) else { return -EINVAL }
                state.input = Int(value.pointee)
            } else {
                value.pointee = Int32(state.input)
            }
            return 0

        default:
            return -ENOTTY
        }
    }

    private static func findControl(_ rawID: UInt32, _ state: State) -> CameraControl? {
        if rawID & V4L2Constant.nextControl != 0 {
            let after = rawID & ~(V4L2Constant.nextControl | UInt32(V4L2_CTRL_FLAG_NEXT_COMPOUND))
            return state.controls.filter { $0.id > after }.min { $0.id < $1.id }
        }
        return state.controls.first { $0.id == rawID }
    }

    private static func rawType(_ type: CameraControl.ControlType) -> UInt32 {
        switch type {
        case .integer: return V4L2_CTRL_TYPE_INTEGER.rawValue
        case .boolean: return V4L2_CTRL_TYPE_BOOLEAN.rawValue
        case .menu: return V4L2_CTRL_TYPE_MENU.rawValue
        case .integerMenu: return V4L2_CTRL_TYPE_INTEGER_MENU.rawValue
        case .button: return V4L2_CTRL_TYPE_BUTTON.rawValue
        case .integer64: return V4L2_CTRL_TYPE_INTEGER64.rawValue
        case .string: return V4L2_CTRL_TYPE_STRING.rawValue
        case .bitmask: return V4L2_CTRL_TYPE_BITMASK.rawValue
        }
    }

    /// Controls like a UVC webcam's.
    static let webcamControls: [CameraControl] = [
        CameraControl(
            id: UInt32(V4L2_CID_BRIGHTNESS), name: "Brightness", type: .integer, minimum: 0, maximum: 255, step: 1,
            defaultValue: 128, value: 100),
        CameraControl(
            id: UInt32(V4L2_CID_CONTRAST), name: "Contrast", type: .integer, minimum: 0, maximum: 100, step: 5,
            defaultValue: 50, value: 50),
        CameraControl(
            id: UInt32(V4L2_CID_AUTO_WHITE_BALANCE), name: "White Balance Automatic", type: .boolean, minimum: 0,
            maximum: 1, step: 1, defaultValue: 1, value: 1),
        CameraControl(
            id: UInt32(V4L2_CID_POWER_LINE_FREQUENCY), name: "Power Line Frequency", type: .menu, minimum: 0,
            maximum: 2, step: 1, defaultValue: 1, value: 2,
            menuItems: [.init(index: 0, name: "Disabled"), .init(index: 2, name: "60 Hz")]),
        CameraControl(
            id: UInt32(V4L2_CID_WHITE_BALANCE_TEMPERATURE), name: "White Balance Temperature", type: .integer,
            minimum: 2800, maximum: 6500, step: 10, defaultValue: 4600, value: 4600, isInactive: true),
        CameraControl(
            id: UInt32(V4L2_CID_EXPOSURE_ABSOLUTE), name: "Exposure Time, Absolute", type: .integer64, minimum: 1,
            maximum: 5000, step: 1, defaultValue: 156, value: 156),
        CameraControl(
            id: UInt32(V4L2_CID_AUTOGAIN), name: "Gain, Automatic", type: .boolean, minimum: 0, maximum: 1,
            step: 1, defaultValue: 1, value: 1, isReadOnly: true),
        CameraControl(
            id: UInt32(V4L2_CID_PAN_RESET), name: "Pan, Reset", type: .button, minimum: 0, maximum: 0, step: 0,
            defaultValue: 0, isWriteOnly: true),
    ]
}
