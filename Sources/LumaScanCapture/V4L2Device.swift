import CLumaCapture
import CV4L2
import LumaScanCore

#if canImport(Glibc)
import Glibc
#endif

/// An open V4L2 node: one internal function per ioctl, taking the request's inputs and returning a validated value.
///
/// Errors name the node and the request (`/dev/video0: VIDIOC_REQBUFS failed: ...`). The descriptor is closed only by
/// ``close()``; a device value does not own it.
struct V4L2Device: Sendable {
    /// The node's path.
    let path: String
    /// The open descriptor.
    let fd: Int32
    /// The system calls used.
    let syscalls: any V4L2Syscalls

    /// How many entries an enumeration reads at most, so a driver that never says "no more" cannot loop forever.
    static let enumerationLimit = 4096

    /// Opens `path` read-write and non-blocking (`VIDIOC_DQBUF` then reports `EAGAIN` instead of waiting; the wait
    /// is `poll`'s, with a timeout), and closed on exec so a child process never holds the camera.
    static func open(_ path: String, syscalls: any V4L2Syscalls) throws(CaptureError) -> V4L2Device {
        let fd = syscalls.open(path, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC)
        // libv4l2's open queries the node and fails with ENOTTY when it is not a V4L2 device at all.
        if fd == -ENOTTY {
            throw CaptureError(
                .notACaptureDevice, device: path, call: "open", errno: ENOTTY,
                message: "\(path): not a V4L2 device (open failed: \(CaptureError.errnoName(ENOTTY)))")
        }
        guard fd >= 0 else { throw CaptureError(errno: -fd, device: path, call: "open") }
        return V4L2Device(path: path, fd: fd, syscalls: syscalls)
    }

    /// Closes the descriptor; returns the error, if any (there is nothing to do about one but log it).
    @discardableResult
    func close() -> CaptureError? {
        let result = syscalls.close(fd)
        return result < 0 ? CaptureError(errno: -result, device: path, call: "close") : nil
    }

    // MARK: - Plumbing

    /// Performs `request` on `value`; returns the raw result (0 or `-errno`).
    private func perform<T>(_ request: UInt, _ value: inout T) -> Int32 {
        withUnsafeMutablePointer(to: &value) { pointer in
            // SAFETY: `pointer` addresses the kernel structure `request` expects and lives until the call returns.
            syscalls.ioctl(fd, request, UnsafeMutableRawPointer(pointer))
        }
    }

    /// Throws the error for `call` when `result` is `-errno`.
    private func check(_ result: Int32, _ call: String) throws(CaptureError) {
        if result < 0 { throw CaptureError(errno: -result, device: path, call: call) }
    }

    /// A NUL-terminated string in a fixed-size C array (imported as a tuple).
    static func string<Tuple>(fromCArray tuple: Tuple) -> String {
        // SAFETY: the bytes are a copy of the tuple, read only inside the closure.
        withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    // MARK: - Capabilities and formats

    /// `VIDIOC_QUERYCAP`. A node that is not a V4L2 device at all (`ENOTTY`) is
    /// ``CaptureError/Code/notACaptureDevice``.
    func queryCapabilities() throws(CaptureError) -> DeviceCapabilities {
        var capability = v4l2_capability()
        let result = perform(LC_VIDIOC_QUERYCAP, &capability)
        if result == -ENOTTY || result == -EINVAL {
            throw CaptureError(
                .notACaptureDevice, device: path, call: "VIDIOC_QUERYCAP", errno: -result,
                message: "\(path): not a V4L2 device (VIDIOC_QUERYCAP failed: \(CaptureError.errnoName(-result)))")
        }
        try check(result, "VIDIOC_QUERYCAP")
        let deviceCaps =
            capability.capabilities & V4L2Constant.capDeviceCaps != 0 ? capability.device_caps : capability.capabilities
        return DeviceCapabilities(
            driver: Self.string(fromCArray: capability.driver), card: Self.string(fromCArray: capability.card),
            busInfo: Self.string(fromCArray: capability.bus_info), version: capability.version,
            capabilities: capability.capabilities, deviceCaps: deviceCaps)
    }

    /// `VIDIOC_ENUM_FMT` for single-planar capture, every index until the driver says `EINVAL`.
    func enumerateFormats() throws(CaptureError) -> [FormatDescription] {
        var formats: [FormatDescription] = []
        for index in 0..<Self.enumerationLimit {
            var description = v4l2_fmtdesc()
            description.index = UInt32(index)
            description.type = V4L2Constant.captureType
            let result = perform(LC_VIDIOC_ENUM_FMT, &description)
            if result == -EINVAL { break }
            try check(result, "VIDIOC_ENUM_FMT")
            formats.append(
                FormatDescription(
                    pixelFormat: PixelFormat(fourcc: description.pixelformat),
                    description: Self.string(fromCArray: description.description), flags: description.flags))
        }
        return formats
    }

    /// `VIDIOC_ENUM_FRAMESIZES` for `pixelFormat`; `nil` when the driver does not enumerate sizes.
    func enumerateFrameSizes(_ pixelFormat: PixelFormat) throws(CaptureError) -> FrameSizes? {
        var sizes: [Size] = []
        for index in 0..<Self.enumerationLimit {
            var entry = v4l2_frmsizeenum()
            entry.index = UInt32(index)
            entry.pixel_format = pixelFormat.fourcc
            let result = perform(LC_VIDIOC_ENUM_FRAMESIZES, &entry)
            if result == -EINVAL || (index == 0 && result == -ENOTTY) { break }
            try check(result, "VIDIOC_ENUM_FRAMESIZES")
            switch entry.type {
            case V4L2_FRMSIZE_TYPE_DISCRETE.rawValue:
                let size = Size(width: Int(entry.discrete.width), height: Int(entry.discrete.height))
                if size.width > 0 && size.height > 0 { sizes.append(size) }
            case V4L2_FRMSIZE_TYPE_STEPWISE.rawValue, V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue:
                // Only index 0 is valid for ranges.
                guard index == 0 else { break }
                let range = entry.stepwise
                let minimum = Size(width: Int(range.min_width), height: Int(range.min_height))
                let maximum = Size(width: Int(range.max_width), height: Int(range.max_height))
                guard minimum.width > 0, minimum.height > 0, maximum.width >= minimum.width,
                    maximum.height >= minimum.height
                else { return nil }
                return .stepwise(
                    StepwiseSizes(
                        minimum: minimum, maximum: maximum, stepWidth: max(1, Int(range.step_width)),
                        stepHeight: max(1, Int(range.step_height))))
            default:
                continue
            }
        }
        return sizes.isEmpty ? nil : .discrete(sizes)
    }

    /// `VIDIOC_ENUM_FRAMEINTERVALS` for `pixelFormat` at `size`; `nil` when the driver does not enumerate them.
    func enumerateFrameIntervals(_ pixelFormat: PixelFormat, size: Size) throws(CaptureError) -> FrameIntervals? {
        var intervals: [Fraction] = []
        for index in 0..<Self.enumerationLimit {
            var entry = v4l2_frmivalenum()
            entry.index = UInt32(index)
            entry.pixel_format = pixelFormat.fourcc
            entry.width = UInt32(clamping: size.width)
            entry.height = UInt32(clamping: size.height)
            let result = perform(LC_VIDIOC_ENUM_FRAMEINTERVALS, &entry)
            if result == -EINVAL || (index == 0 && result == -ENOTTY) { break }
            try check(result, "VIDIOC_ENUM_FRAMEINTERVALS")
            switch entry.type {
            case V4L2_FRMIVAL_TYPE_DISCRETE.rawValue:
                let interval = Fraction(entry.discrete)
                if interval.framesPerSecond != nil { intervals.append(interval) }
            case V4L2_FRMIVAL_TYPE_STEPWISE.rawValue, V4L2_FRMIVAL_TYPE_CONTINUOUS.rawValue:
                guard index == 0 else { break }
                let range = entry.stepwise
                let minimum = Fraction(range.min)
                let maximum = Fraction(range.max)
                guard minimum.framesPerSecond != nil, maximum.framesPerSecond != nil else { return nil }
                return .stepwise(minimum: minimum, maximum: maximum, step: Fraction(range.step))
            default:
                continue
            }
        }
        return intervals.isEmpty ? nil : .discrete(intervals)
    }

    private func negotiated(_ format: v4l2_format) -> NegotiatedFormat {
        let pix = format.fmt.pix
        return NegotiatedFormat(
            format: FrameFormat(
                pixelFormat: PixelFormat(fourcc: pix.pixelformat), width: Int(pix.width), height: Int(pix.height),
                bytesPerLine: Int(pix.bytesperline), sizeImage: Int(pix.sizeimage)),
            field: pix.field)
    }

    /// `VIDIOC_G_FMT`: the format in force.
    func getFormat() throws(CaptureError) -> NegotiatedFormat {
        var format = v4l2_format()
        format.type = V4L2Constant.captureType
        try check(perform(LC_VIDIOC_G_FMT, &format), "VIDIOC_G_FMT")
        return negotiated(format)
    }

    private func requestFormat(
        _ request: UInt, _ call: String, _ pixelFormat: PixelFormat, _ size: Size
    ) throws(CaptureError) -> NegotiatedFormat {
        var format = v4l2_format()
        format.type = V4L2Constant.captureType
        format.fmt.pix.pixelformat = pixelFormat.fourcc
        format.fmt.pix.width = UInt32(clamping: size.width)
        format.fmt.pix.height = UInt32(clamping: size.height)
        // Progressive frames: a buffer holding one field would have half the rows.
        format.fmt.pix.field = V4L2Constant.fieldNone
        try check(perform(request, &format), call)
        return negotiated(format)
    }

    /// `VIDIOC_S_FMT`: asks for `pixelFormat` at `size`; returns what the driver set, which may differ.
    func setFormat(_ pixelFormat: PixelFormat, size: Size) throws(CaptureError) -> NegotiatedFormat {
        try requestFormat(LC_VIDIOC_S_FMT, "VIDIOC_S_FMT", pixelFormat, size)
    }

    /// `VIDIOC_TRY_FMT`: what the driver would set for `pixelFormat` at `size`, without setting it.
    func tryFormat(_ pixelFormat: PixelFormat, size: Size) throws(CaptureError) -> NegotiatedFormat {
        try requestFormat(LC_VIDIOC_TRY_FMT, "VIDIOC_TRY_FMT", pixelFormat, size)
    }

    // MARK: - Frame rate

    private func streamParameters(_ parameters: v4l2_streamparm) -> StreamParameters {
        let capture = parameters.parm.capture
        return StreamParameters(
            supportsFrameRate: capture.capability & V4L2Constant.capTimePerFrame != 0,
            timePerFrame: Fraction(capture.timeperframe))
    }

    /// `VIDIOC_G_PARM` for capture.
    func getStreamParameters() throws(CaptureError) -> StreamParameters {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2Constant.captureType
        try check(perform(LC_VIDIOC_G_PARM, &parameters), "VIDIOC_G_PARM")
        return streamParameters(parameters)
    }

    /// `VIDIOC_S_PARM` with the frame interval for `fps`; returns the parameters the driver granted.
    func setFrameRate(_ fps: Double) throws(CaptureError) -> StreamParameters {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2Constant.captureType
        let interval = Fraction(interval: fps)
        parameters.parm.capture.timeperframe.numerator = interval.numerator
        parameters.parm.capture.timeperframe.denominator = interval.denominator
        try check(perform(LC_VIDIOC_S_PARM, &parameters), "VIDIOC_S_PARM")
        return streamParameters(parameters)
    }

    // MARK: - Inputs

    /// `VIDIOC_ENUMINPUT`, every index until `EINVAL`; empty when the driver has no inputs to choose from.
    func enumerateInputs() throws(CaptureError) -> [VideoInput] {
        var inputs: [VideoInput] = []
        for index in 0..<Self.enumerationLimit {
            var input = v4l2_input()
            input.index = UInt32(index)
            let result = perform(LC_VIDIOC_ENUMINPUT, &input)
            if result == -EINVAL || (index == 0 && result == -ENOTTY) { break }
            try check(result, "VIDIOC_ENUMINPUT")
            inputs.append(
                VideoInput(
                    index: index, name: Self.string(fromCArray: input.name), type: input.type, status: input.status))
        }
        return inputs
    }

    /// `VIDIOC_G_INPUT`: the selected input.
    func currentInput() throws(CaptureError) -> Int {
        var index: Int32 = 0
        try check(perform(LC_VIDIOC_G_INPUT, &index), "VIDIOC_G_INPUT")
        return Int(index)
    }

    /// `VIDIOC_S_INPUT`: selects input `index`.
    func selectInput(_ index: Int) throws(CaptureError) {
        var value = Int32(clamping: index)
        try check(perform(LC_VIDIOC_S_INPUT, &value), "VIDIOC_S_INPUT")
    }

    // MARK: - Buffers and streaming

    /// `VIDIOC_REQBUFS` for `count` memory-mapped buffers; returns how many the driver allocated (0 frees them).
    func requestBuffers(_ count: Int) throws(CaptureError) -> Int {
        var request = v4l2_requestbuffers()
        request.count = UInt32(clamping: count)
        request.type = V4L2Constant.captureType
        request.memory = V4L2Constant.mmapMemory
        try check(perform(LC_VIDIOC_REQBUFS, &request), "VIDIOC_REQBUFS")
        return Int(request.count)
    }

    /// `VIDIOC_QUERYBUF`: where buffer `index` lives.
    func queryBuffer(_ index: Int) throws(CaptureError) -> BufferPlacement {
        var buffer = v4l2_buffer()
        buffer.index = UInt32(clamping: index)
        buffer.type = V4L2Constant.captureType
        buffer.memory = V4L2Constant.mmapMemory
        try check(perform(LC_VIDIOC_QUERYBUF, &buffer), "VIDIOC_QUERYBUF")
        guard buffer.length > 0 else {
            throw CaptureError(
                .other, device: path, call: "VIDIOC_QUERYBUF",
                message: "\(path): VIDIOC_QUERYBUF reported an empty buffer \(index)")
        }
        return BufferPlacement(index: index, offset: Int64(buffer.m.offset), length: Int(buffer.length))
    }

    /// Maps a buffer into memory.
    func map(_ placement: BufferPlacement) throws(CaptureError) -> UnsafeMutableRawPointer {
        switch syscalls.mmap(fd, length: placement.length, offset: placement.offset) {
        case .success(let address): return address
        case .failure(let error): throw CaptureError(errno: error.rawValue, device: path, call: "mmap")
        }
    }

    /// Unmaps a buffer mapped by ``map(_:)``.
    func unmap(_ address: UnsafeMutableRawPointer, length: Int) throws(CaptureError) {
        try check(syscalls.munmap(address, length: length), "munmap")
    }

    /// `VIDIOC_QBUF`: gives buffer `index` to the driver to fill.
    func queueBuffer(_ index: Int) throws(CaptureError) {
        var buffer = v4l2_buffer()
        buffer.index = UInt32(clamping: index)
        buffer.type = V4L2Constant.captureType
        buffer.memory = V4L2Constant.mmapMemory
        try check(perform(LC_VIDIOC_QBUF, &buffer), "VIDIOC_QBUF")
    }

    /// `VIDIOC_DQBUF`: takes a filled buffer back; `nil` when none is ready (`EAGAIN`).
    func dequeueBuffer() throws(CaptureError) -> DriverBuffer? {
        var buffer = v4l2_buffer()
        buffer.type = V4L2Constant.captureType
        buffer.memory = V4L2Constant.mmapMemory
        let result = perform(LC_VIDIOC_DQBUF, &buffer)
        if result == -EAGAIN { return nil }
        try check(result, "VIDIOC_DQBUF")
        let seconds = UInt64(clamping: buffer.timestamp.tv_sec)
        let microseconds = UInt64(clamping: buffer.timestamp.tv_usec)
        return DriverBuffer(
            index: Int(buffer.index), bytesUsed: Int(buffer.bytesused), flags: buffer.flags,
            sequence: buffer.sequence, timestampNanoseconds: seconds &* 1_000_000_000 &+ microseconds &* 1000)
    }

    /// `VIDIOC_STREAMON` for capture.
    func streamOn() throws(CaptureError) {
        var type = Int32(bitPattern: V4L2Constant.captureType)
        try check(perform(LC_VIDIOC_STREAMON, &type), "VIDIOC_STREAMON")
    }

    /// `VIDIOC_STREAMOFF` for capture: stops streaming and takes every buffer back from the driver.
    func streamOff() throws(CaptureError) {
        var type = Int32(bitPattern: V4L2Constant.captureType)
        try check(perform(LC_VIDIOC_STREAMOFF, &type), "VIDIOC_STREAMOFF")
    }

    /// Waits up to `milliseconds` for a frame; returns the `revents` bits (0 on timeout).
    func poll(milliseconds: Int32) throws(CaptureError) -> Int32 {
        let result = syscalls.poll(fd, timeoutMilliseconds: milliseconds)
        try check(result, "poll")
        return result
    }

    // MARK: - Controls

    /// Every control (`VIDIOC_QUERY_EXT_CTRL` with `V4L2_CTRL_FLAG_NEXT_CTRL`, or `VIDIOC_QUERYCTRL` on drivers
    /// without the extended call), with menu entries; disabled controls, class headings and compound controls are
    /// left out. Current values are not read.
    func queryControls() throws(CaptureError) -> [CameraControl] {
        var controls: [CameraControl] = []
        var nextID = V4L2Constant.nextControl
        var previous: UInt32 = 0
        for _ in 0..<Self.enumerationLimit {
            var query = v4l2_query_ext_ctrl()
            query.id = nextID
            let result = perform(LC_VIDIOC_QUERY_EXT_CTRL, &query)
            if result == -EINVAL { break }
            if result == -ENOTTY && controls.isEmpty { return try queryControlsLegacy() }
            try check(result, "VIDIOC_QUERY_EXT_CTRL")
            // A driver that does not advance would loop forever.
            guard query.id > previous else { break }
            previous = query.id
            nextID = query.id | V4L2Constant.nextControl
            if var control = Self.control(from: query) {
                control.menuItems = try menuItems(of: control)
                controls.append(control)
            }
        }
        return controls
    }

    private func queryControlsLegacy() throws(CaptureError) -> [CameraControl] {
        var controls: [CameraControl] = []
        var nextID = V4L2Constant.nextControl
        var previous: UInt32 = 0
        for _ in 0..<Self.enumerationLimit {
            var query = v4l2_queryctrl()
            query.id = nextID
            let result = perform(LC_VIDIOC_QUERYCTRL, &query)
            if result == -EINVAL || (controls.isEmpty && result == -ENOTTY) { break }
            try check(result, "VIDIOC_QUERYCTRL")
            guard query.id > previous else { break }
            previous = query.id
            nextID = query.id | V4L2Constant.nextControl
            if var control = Self.control(from: query) {
                control.menuItems = try menuItems(of: control)
                controls.append(control)
            }
        }
        return controls
    }

    /// The control with `id`, with its menu entries; ``CaptureError/Code/notFound`` when there is none.
    func queryControl(id: UInt32) throws(CaptureError) -> CameraControl {
        var query = v4l2_query_ext_ctrl()
        query.id = id
        let result = perform(LC_VIDIOC_QUERY_EXT_CTRL, &query)
        var control: CameraControl?
        switch result {
        case 0:
            control = Self.control(from: query)
        case -ENOTTY:
            var legacy = v4l2_queryctrl()
            legacy.id = id
            let legacyResult = perform(LC_VIDIOC_QUERYCTRL, &legacy)
            if legacyResult != -EINVAL {
                try check(legacyResult, "VIDIOC_QUERYCTRL")
                control = Self.control(from: legacy)
            }
        case -EINVAL:
            break
        default:
            try check(result, "VIDIOC_QUERY_EXT_CTRL")
        }
        guard var found = control, found.id == id else {
            throw CaptureError(.notFound, device: path, message: "\(path): no control with id \(Self.hex(id))")
        }
        found.menuItems = try menuItems(of: found)
        return found
    }

    /// `VIDIOC_QUERYMENU` for every index of a menu control (skipping the holes drivers leave with `EINVAL`).
    func menuItems(of control: CameraControl) throws(CaptureError) -> [CameraControl.MenuItem] {
        guard control.type == .menu || control.type == .integerMenu, control.maximum >= control.minimum,
            control.minimum >= 0, control.maximum - control.minimum < Int64(Self.enumerationLimit)
        else { return [] }
        var items: [CameraControl.MenuItem] = []
        for index in control.minimum...control.maximum {
            var entry = v4l2_querymenu()
            entry.id = control.id
            entry.index = UInt32(index)
            let result = perform(LC_VIDIOC_QUERYMENU, &entry)
            if result == -EINVAL { continue }
            try check(result, "VIDIOC_QUERYMENU")
            let name = control.type == .integerMenu ? String(entry.value) : Self.string(fromCArray: entry.name)
            items.append(CameraControl.MenuItem(index: index, name: name))
        }
        return items
    }

    /// The current value of `control` (`VIDIOC_G_CTRL`, or `VIDIOC_G_EXT_CTRLS` for 64-bit controls).
    func getControlValue(_ control: CameraControl) throws(CaptureError) -> Int64 {
        if control.type == .integer64 {
            var value = v4l2_ext_control()
            value.id = control.id
            try extendedControls(LC_VIDIOC_G_EXT_CTRLS, "VIDIOC_G_EXT_CTRLS", &value)
            return value.value64
        }
        var value = v4l2_control()
        value.id = control.id
        try check(perform(LC_VIDIOC_G_CTRL, &value), "VIDIOC_G_CTRL")
        return Int64(value.value)
    }

    /// Sets `control` to `value` (`VIDIOC_S_CTRL`, or `VIDIOC_S_EXT_CTRLS` for 64-bit controls); returns the value
    /// the driver kept (drivers round to the control's step).
    func setControlValue(_ control: CameraControl, _ value: Int64) throws(CaptureError) -> Int64 {
        if control.type == .integer64 {
            var entry = v4l2_ext_control()
            entry.id = control.id
            entry.value64 = value
            try extendedControls(LC_VIDIOC_S_EXT_CTRLS, "VIDIOC_S_EXT_CTRLS", &entry)
            return entry.value64
        }
        var entry = v4l2_control()
        entry.id = control.id
        entry.value = Int32(clamping: value)
        try check(perform(LC_VIDIOC_S_CTRL, &entry), "VIDIOC_S_CTRL")
        return Int64(entry.value)
    }

    private func extendedControls(
        _ request: UInt, _ call: String, _ control: inout v4l2_ext_control
    ) throws(CaptureError) {
        var list = v4l2_ext_controls()
        list.which = V4L2Constant.whichCurrentValue
        list.count = 1
        let result = withUnsafeMutablePointer(to: &control) { pointer in
            // SAFETY: `list.controls` points at `control` only for the duration of this call.
            list.controls = pointer
            return perform(request, &list)
        }
        try check(result, call)
    }

    static func hex(_ id: UInt32) -> String {
        let digits = String(id, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    private static func controlType(_ raw: UInt32) -> CameraControl.ControlType? {
        switch raw {
        case V4L2_CTRL_TYPE_INTEGER.rawValue: return .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: return .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: return .menu
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: return .integerMenu
        case V4L2_CTRL_TYPE_BUTTON.rawValue: return .button
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: return .integer64
        case V4L2_CTRL_TYPE_STRING.rawValue: return .string
        case V4L2_CTRL_TYPE_BITMASK.rawValue: return .bitmask
        default: return nil  // class headings and compound types
        }
    }

    static func control(from query: v4l2_query_ext_ctrl) -> CameraControl? {
        // Compound types (and class headings) have no ControlType and are left out.
        guard query.flags & V4L2Constant.controlDisabled == 0, let type = controlType(query.type) else { return nil }
        return CameraControl(
            id: query.id, name: string(fromCArray: query.name), type: type, minimum: query.minimum,
            maximum: query.maximum, step: query.step, defaultValue: query.default_value,
            isReadOnly: query.flags & V4L2Constant.controlReadOnly != 0,
            isInactive: query.flags & V4L2Constant.controlInactive != 0,
            isWriteOnly: query.flags & V4L2Constant.controlWriteOnly != 0)
    }

    static func control(from query: v4l2_queryctrl) -> CameraControl? {
        guard query.flags & V4L2Constant.controlDisabled == 0, let type = controlType(query.type) else { return nil }
        return CameraControl(
            id: query.id, name: string(fromCArray: query.name), type: type, minimum: Int64(query.minimum),
            maximum: Int64(query.maximum), step: UInt64(UInt32(bitPattern: query.step)),
            defaultValue: Int64(query.default_value),
            isReadOnly: query.flags & V4L2Constant.controlReadOnly != 0,
            isInactive: query.flags & V4L2Constant.controlInactive != 0,
            isWriteOnly: query.flags & V4L2Constant.controlWriteOnly != 0)
    }
}
