import Logging
import LumaScanCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A V4L2 camera (a `/dev/video*` capture node) as a ``FrameSource``: memory-mapped streaming I/O through libv4l2.
///
/// ``start()`` opens the node, checks it can capture, chooses and sets the format (see ``CameraSettings``), sets the
/// frame rate when asked, maps the driver's buffers, queues them and starts streaming. ``dequeue(timeout:)`` waits
/// with `poll` and takes a filled buffer back with `VIDIOC_DQBUF`; the frame's pixels stay in that buffer (read them
/// with ``bytes(of:)``) until ``requeue(_:)`` gives it back. ``stop()`` releases everything, so after
/// ``CaptureError/Code/deviceGone`` a later ``start()`` reopens the device.
///
/// Controls (brightness, contrast, exposure, ...) can be listed, read and set at any time, from any thread; while
/// the camera is stopped they open the node briefly.
public final class V4L2Camera: FrameSource, @unchecked Sendable {
    // SAFETY (Sendable): `start`, `dequeue`, `requeue` and `stop` run on the engine's capture thread only, and
    // `bytes(of:)` reads the mapping of a buffer the caller holds, between a `start` and the `stop` after it (the
    // FrameSource contract); the properties they use are confined that way. The control methods may run on any
    // thread: they reach the device only through `controlDevice`, a mutex, which `stop` clears before it closes the
    // descriptor. `driverDroppedFrames` is atomic.

    /// The device node, such as `/dev/video0`.
    public let name: String
    /// The settings the camera asks the device for when it starts.
    public let settings: CameraSettings
    /// The layout of the frames, as the driver set it; valid once ``start()`` has returned.
    public private(set) var format: FrameFormat
    /// How many buffers the driver granted; valid once ``start()`` has returned.
    public private(set) var bufferCount: Int = 0
    /// A camera streams until it is stopped.
    public var isFinite: Bool { false }
    /// The frame rate the driver reports after ``start()``, in frames per second; `nil` when it reports none.
    public private(set) var grantedFrameRate: Double?
    /// The device's name as its driver reports it (such as `HD Pro Webcam C920`); valid once ``start()`` has returned.
    public private(set) var card: String = ""
    /// The driver's name (such as `uvcvideo`); valid once ``start()`` has returned.
    public private(set) var driver: String = ""

    /// Frames the driver dropped, counted from gaps in its sequence numbers (which wrap at 2^32) across every
    /// stream this camera has run. Safe to read from any thread.
    public var driverDroppedFrames: UInt64 { droppedFrames.load(ordering: .relaxed) }

    private let logger: Logger
    private let syscalls: any V4L2Syscalls
    private var device: V4L2Device?
    private var buffers: [MappedBuffer] = []
    private var sequenceGaps = SequenceGaps()
    private var nextFrameIndex: UInt64 = 0
    private var warnedAboutTimestamps = false
    private let droppedFrames = Atomic<UInt64>(0)
    private let controlDevice = Lock<V4L2Device?>(nil)

    private struct MappedBuffer {
        var address: UnsafeMutableRawPointer
        var length: Int
    }

    /// Creates a camera for the node at `device`; nothing is opened until ``start()``.
    ///
    /// - Parameters:
    ///   - device: the node's path. Default: `/dev/video0`.
    ///   - settings: what to ask the device for. Default: the device's best readable format at its current size.
    ///   - logger: where the camera logs; its metadata gains `device`.
    public convenience init(device: String = "/dev/video0", settings: CameraSettings = .init(), logger: Logger) {
        self.init(device: device, settings: settings, logger: logger, syscalls: SystemV4L2Syscalls())
    }

    /// Creates a camera that makes its system calls through `syscalls` (tests pass a scripted device).
    init(device: String, settings: CameraSettings, logger: Logger, syscalls: any V4L2Syscalls) {
        name = device
        self.settings = settings
        self.syscalls = syscalls
        var logger = logger
        logger[metadataKey: "device"] = "\(device)"
        self.logger = logger
        format = FrameFormat(
            pixelFormat: settings.pixelFormat ?? .yuyv, width: settings.size?.width ?? 0,
            height: settings.size?.height ?? 0)
    }

    deinit { stop() }

    // MARK: - FrameSource

    /// Opens the device and starts streaming; does nothing when the camera is already streaming.
    ///
    /// On failure everything acquired so far is released, so `start` can simply be called again later.
    ///
    /// - Throws: ``CaptureError``: ``CaptureError/Code/notFound``, ``CaptureError/Code/permissionDenied`` or
    ///   ``CaptureError/Code/busy`` when the node cannot be opened or used; ``CaptureError/Code/notACaptureDevice``
    ///   for a node that cannot capture by streaming; ``CaptureError/Code/unsupportedFormat`` when the device offers
    ///   no format LumaScan reads (or not the one asked for); ``CaptureError/Code/invalidArgument`` for invalid
    ///   settings.
    public func start() throws(CaptureError) {
        guard device == nil else {
            logger.debug("start ignored: the camera is already streaming")
            return
        }
        try settings.validate(device: name)
        let device = try V4L2Device.open(name, syscalls: syscalls)
        var mapped: [MappedBuffer] = []
        var buffersRequested = false
        do throws(CaptureError) {
            let configured = try configure(device)
            let count = try device.requestBuffers(settings.bufferCount)
            buffersRequested = true
            guard count > 0 else {
                throw CaptureError(
                    .other, device: name, call: "VIDIOC_REQBUFS",
                    message: "\(name): VIDIOC_REQBUFS granted no buffers (asked for \(settings.bufferCount))")
            }
            if count != settings.bufferCount {
                logger.notice(
                    "driver granted a different buffer count",
                    metadata: ["requested": "\(settings.bufferCount)", "granted": "\(count)"])
            }
            for index in 0..<count {
                let placement = try device.queryBuffer(index)
                let address = try device.map(placement)
                mapped.append(MappedBuffer(address: address, length: placement.length))
            }
            for index in 0..<count { try device.queueBuffer(index) }
            try device.streamOn()
            format = configured.format
            grantedFrameRate = configured.frameRate
            card = configured.capabilities.card
            driver = configured.capabilities.driver
        } catch {
            // Release in the kernel's order: mappings, then the buffers (vb2 refuses to free mapped ones), then the
            // descriptor.
            for buffer in mapped { try? device.unmap(buffer.address, length: buffer.length) }
            if buffersRequested { _ = try? device.requestBuffers(0) }
            device.close()
            logger.debug("start failed", metadata: ["error": "\(error)"])
            throw error
        }
        self.device = device
        buffers = mapped
        bufferCount = mapped.count
        sequenceGaps.reset()
        controlDevice.withLock { $0 = device }
        logger.info(
            "camera streaming",
            metadata: [
                "card": "\(card)", "driver": "\(driver)", "format": "\(format)",
                "bytesPerLine": "\(format.bytesPerLine)", "sizeImage": "\(format.sizeImage)",
                "buffers": "\(bufferCount)", "fps": "\(grantedFrameRate.map { "\($0)" } ?? "unknown")",
            ])
    }

    private struct Configuration {
        var capabilities: DeviceCapabilities
        var format: FrameFormat
        var frameRate: Double?
    }

    /// Checks the node, selects the input, and sets the format and frame rate.
    private func configure(_ device: V4L2Device) throws(CaptureError) -> Configuration {
        let capabilities = try device.queryCapabilities()
        if let reason = capabilities.unusableReason {
            throw CaptureError(
                .notACaptureDevice, device: name, call: "VIDIOC_QUERYCAP",
                message: "\(name) (\(capabilities.card), driver \(capabilities.driver)) is not a capture device: "
                    + reason)
        }
        if let input = settings.input {
            try device.selectInput(input)
            logger.debug("input selected", metadata: ["input": "\(input)"])
        }
        let offered = try device.enumerateFormats()
        let pixelFormat = try FormatSelection.choosePixelFormat(
            requested: settings.pixelFormat, offered: offered, device: name)
        let current = try? device.getFormat()
        let preferred: Size
        if let size = settings.size {
            preferred = size
        } else if let current, current.format.width > 0, current.format.height > 0 {
            preferred = Size(width: current.format.width, height: current.format.height)
        } else {
            preferred = FormatSelection.fallbackSize
        }
        let sizes = try device.enumerateFrameSizes(pixelFormat)
        let size = sizes.map { FormatSelection.nearestSize(to: preferred, in: $0) } ?? preferred
        logger.debug(
            "setting format",
            metadata: [
                "pixelFormat": "\(pixelFormat)", "preferredSize": "\(preferred)", "size": "\(size)",
                "offered": "\(offered.map(\.pixelFormat.description))",
            ])
        let granted = try device.setFormat(pixelFormat, size: size)
        let format = try FormatSelection.validate(granted, requested: pixelFormat, device: name)
        if format.width != size.width || format.height != size.height {
            logger.notice("driver adjusted the frame size", metadata: ["requested": "\(size)", "granted": "\(format)"])
        }
        return Configuration(capabilities: capabilities, format: format, frameRate: try setFrameRate(device))
    }

    /// Sets the frame rate when the settings ask for one; returns the rate in force (when the driver reports one).
    private func setFrameRate(_ device: V4L2Device) throws(CaptureError) -> Double? {
        let parameters: StreamParameters
        do {
            parameters = try device.getStreamParameters()
        } catch {
            if settings.fps != nil {
                logger.warning("cannot read the frame rate; keeping the driver's", metadata: ["error": "\(error)"])
            }
            return nil
        }
        guard let fps = settings.fps else { return parameters.timePerFrame.framesPerSecond }
        guard parameters.supportsFrameRate else {
            logger.warning(
                "the driver does not let the frame rate be chosen (no V4L2_CAP_TIMEPERFRAME); keeping its rate",
                metadata: [
                    "requested": "\(fps)",
                    "current": "\(parameters.timePerFrame.framesPerSecond.map { "\($0)" } ?? "?")",
                ])
            return parameters.timePerFrame.framesPerSecond
        }
        let granted = try device.setFrameRate(fps).timePerFrame
        let grantedFPS = granted.framesPerSecond
        logger.info(
            "frame rate set",
            metadata: [
                "requested": "\(fps)", "granted": "\(grantedFPS.map { "\($0)" } ?? "?")",
                "interval": "\(granted.numerator)/\(granted.denominator)",
            ])
        return grantedFPS
    }

    /// Waits up to `timeout` for a frame and takes its buffer from the driver; `nil` when none arrived in time.
    ///
    /// - Throws: ``CaptureError``: ``CaptureError/Code/deviceGone`` when the camera was unplugged,
    ///   ``CaptureError/Code/streamBroken`` when the stream failed (`POLLERR`, `EIO`, `EPIPE`),
    ///   ``CaptureError/Code/invalidState`` when the camera is not streaming.
    public func dequeue(timeout: Duration) throws(CaptureError) -> DequeuedFrame? {
        guard let device else {
            throw CaptureError(.invalidState, device: name, message: "\(name): dequeue called while not streaming")
        }
        let revents = try device.poll(milliseconds: Self.milliseconds(timeout))
        if revents == 0 { return nil }
        if revents & Int32(POLLNVAL) != 0 {
            throw CaptureError(
                .streamBroken, device: name, call: "poll",
                message: "\(name): poll reported the descriptor invalid (POLLNVAL)")
        }
        if revents & Int32(POLLERR | POLLHUP) != 0 {
            // POLLERR says the queue cannot deliver (unplugged, or the driver's stream failed); VIDIOC_DQBUF's errno
            // tells which (ENODEV: gone; anything else: broken). A frame that is there after all is delivered.
            let buffer: DriverBuffer?
            do throws(CaptureError) {
                buffer = try device.dequeueBuffer()
            } catch  where error.code == .deviceGone {
                throw error
            } catch {
                var broken = error
                broken.code = .streamBroken
                broken.message += " (after POLLERR)"
                throw broken
            }
            if let buffer { return try frame(from: buffer) }
            throw CaptureError(
                .streamBroken, device: name, call: "poll",
                message: "\(name): poll reported an error on the stream (POLLERR), and no frame can be dequeued")
        }
        guard let buffer = try device.dequeueBuffer() else { return nil }
        return try frame(from: buffer)
    }

    private func frame(from buffer: DriverBuffer) throws(CaptureError) -> DequeuedFrame {
        let dequeueTime = MonotonicInstant.now()
        guard buffers.indices.contains(buffer.index) else {
            throw CaptureError(
                .streamBroken, device: name, call: "VIDIOC_DQBUF",
                message: "\(name): VIDIOC_DQBUF returned buffer \(buffer.index), but only \(buffers.count) are mapped")
        }
        let gap = sequenceGaps.next(buffer.sequence)
        if gap > 0 {
            droppedFrames.add(gap, ordering: .relaxed)
            logger.trace("driver dropped frames", metadata: ["count": "\(gap)", "sequence": "\(buffer.sequence)"])
        }
        let captureTime: MonotonicInstant
        if buffer.hasMonotonicTimestamp && buffer.timestampNanoseconds > 0 {
            captureTime = MonotonicInstant(nanoseconds: buffer.timestampNanoseconds)
        } else {
            if !warnedAboutTimestamps {
                warnedAboutTimestamps = true
                logger.warning(
                    "the driver's timestamps are not on the monotonic clock; using dequeue times as capture times",
                    metadata: ["flags": "\(String(buffer.flags, radix: 16))"])
            }
            captureTime = dequeueTime
        }
        var bytesUsed = min(buffer.bytesUsed, buffers[buffer.index].length)
        if bytesUsed == 0 && !buffer.hasError && !format.pixelFormat.isCompressed {
            // Some older drivers leave bytesused at 0 for uncompressed frames; such a frame fills the image size.
            bytesUsed = min(format.sizeImage, buffers[buffer.index].length)
        }
        let index = nextFrameIndex
        nextFrameIndex += 1
        return DequeuedFrame(
            bufferIndex: buffer.index,
            metadata: FrameMetadata(
                index: index, driverSequence: buffer.sequence, captureTime: captureTime, dequeueTime: dequeueTime,
                format: format, bytesUsed: bytesUsed,
                driverFlaggedError: buffer.hasError))
    }

    /// Gives buffer `bufferIndex` back to the driver to be filled again (`VIDIOC_QBUF`).
    ///
    /// - Throws: ``CaptureError``: ``CaptureError/Code/invalidState`` when the camera is not streaming,
    ///   ``CaptureError/Code/invalidArgument`` for an index it does not own, or the driver's error.
    public func requeue(_ bufferIndex: Int) throws(CaptureError) {
        guard let device else {
            throw CaptureError(
                .invalidState, device: name, message: "\(name): requeue of buffer \(bufferIndex) while not streaming")
        }
        guard buffers.indices.contains(bufferIndex) else {
            throw CaptureError(
                .invalidArgument, device: name,
                message: "\(name): requeue of buffer \(bufferIndex), but the camera owns \(buffers.count)")
        }
        try device.queueBuffer(bufferIndex)
    }

    /// The mapped memory of buffer `bufferIndex` (only its first `bytesUsed` bytes are the frame); empty when the
    /// camera is stopped or does not own the index.
    public func bytes(of bufferIndex: Int) -> UnsafeRawBufferPointer {
        guard buffers.indices.contains(bufferIndex) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let buffer = buffers[bufferIndex]
        // SAFETY: the mapping stays valid until stop(), which the engine calls only once it holds no buffer.
        return UnsafeRawBufferPointer(start: buffer.address, count: buffer.length)
    }

    /// Stops streaming, unmaps the buffers, frees them and closes the device; safe to call more than once and after
    /// any failure (errors are logged, not thrown: after an unplug they are expected).
    public func stop() {
        controlDevice.withLock { $0 = nil }
        guard let device else { return }
        self.device = nil
        do { try device.streamOff() } catch { logger.debug("VIDIOC_STREAMOFF failed", metadata: ["error": "\(error)"]) }
        for buffer in buffers {
            do {
                try device.unmap(buffer.address, length: buffer.length)
            } catch {
                logger.debug("munmap failed", metadata: ["error": "\(error)"])
            }
        }
        buffers = []
        do { _ = try device.requestBuffers(0) } catch {
            logger.debug("freeing buffers failed", metadata: ["error": "\(error)"])
        }
        if let error = device.close() { logger.debug("close failed", metadata: ["error": "\(error)"]) }
        sequenceGaps.reset()
        logger.info("camera stopped", metadata: ["droppedByDriver": "\(driverDroppedFrames)"])
    }

    /// `timeout` in whole milliseconds, rounded up, within `0...Int32.max`.
    static func milliseconds(_ timeout: Duration) -> Int32 {
        let (seconds, attoseconds) = timeout.components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
        let milliseconds = (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded(.up)
        return Int32(min(milliseconds, Double(Int32.max)))
    }

    // MARK: - Controls

    /// The camera's controls with their current values.
    ///
    /// - Throws: ``CaptureError`` when the device cannot be opened or queried.
    public func controls() throws(CaptureError) -> [CameraControl] {
        let logger = self.logger
        return try withControlDevice { device throws(CaptureError) in try device.controlsWithValues(logger: logger) }
    }

    /// The control whose name matches `name` (case-insensitively, with spaces, underscores and punctuation
    /// equivalent, as ``CameraControl/matches(name:)`` compares), with its current value; `nil` when there is none.
    public func control(named name: String) throws(CaptureError) -> CameraControl? {
        try controls().first { $0.matches(name: name) }
    }

    /// The current value of control `id`.
    ///
    /// - Throws: ``CaptureError``: ``CaptureError/Code/notFound`` when the camera has no such control,
    ///   ``CaptureError/Code/invalidArgument`` for a control without a readable value (buttons, strings, write-only).
    public func getControl(id: UInt32) throws(CaptureError) -> Int64 {
        try withControlDevice { device throws(CaptureError) in
            let control = try device.queryControl(id: id)
            guard control.type != .button, control.type != .string, !control.isWriteOnly else {
                throw CaptureError(
                    .invalidArgument, device: name,
                    message: "\(name): control '\(control.name)' (\(V4L2Device.hex(id))) has no value to read")
            }
            return try device.getControlValue(control)
        }
    }

    /// Sets control `id` to `value`; returns the value the driver kept (it may round to the control's step).
    ///
    /// Integer values must lie in the control's range, boolean values be 0 or 1, and menu values be one of its
    /// entries; a button is pressed whatever the value.
    ///
    /// - Throws: ``CaptureError``: ``CaptureError/Code/notFound`` when the camera has no such control,
    ///   ``CaptureError/Code/invalidArgument`` for a value out of range or a read-only control, or the driver's
    ///   error (``CaptureError/Code/busy`` when it cannot change the control now).
    @discardableResult
    public func setControl(id: UInt32, value: Int64) throws(CaptureError) -> Int64 {
        try withControlDevice { device throws(CaptureError) in
            let control = try device.queryControl(id: id)
            return try set(control, to: value, on: device)
        }
    }

    /// Sets the control whose name matches `name` to `value`; see ``setControl(id:value:)``.
    ///
    /// - Throws: ``CaptureError/Code/notFound`` (naming the controls there are) when no control matches.
    @discardableResult
    public func setControl(named name: String, value: Int64) throws(CaptureError) -> Int64 {
        try withControlDevice { device throws(CaptureError) in
            let controls = try device.queryControls()
            guard let control = controls.first(where: { $0.matches(name: name) }) else {
                let names = controls.map { "'\($0.name)'" }.joined(separator: ", ")
                throw CaptureError(
                    .notFound, device: self.name,
                    message:
                        "\(self.name): no control named '\(name)'; the camera has \(names.isEmpty ? "none" : names)")
            }
            return try set(control, to: value, on: device)
        }
    }

    private func set(_ control: CameraControl, to value: Int64, on device: V4L2Device) throws(CaptureError) -> Int64 {
        func invalid(_ reason: String) -> CaptureError {
            CaptureError(
                .invalidArgument, device: name,
                message: "\(name): cannot set control '\(control.name)' (\(V4L2Device.hex(control.id))) to \(value): "
                    + reason)
        }
        if control.isReadOnly { throw invalid("it is read-only") }
        switch control.type {
        case .string:
            throw invalid("string controls are not supported")
        case .button:
            return try device.setControlValue(control, 1)
        case .menu, .integerMenu:
            guard control.menuItems.contains(where: { $0.index == value }) else {
                let entries = control.menuItems.map { "\($0.index) (\($0.name))" }.joined(separator: ", ")
                throw invalid("not a menu entry; entries: \(entries)")
            }
        case .boolean:
            guard value == 0 || value == 1 else { throw invalid("a boolean control takes 0 or 1") }
        case .integer, .integer64, .bitmask:
            guard value >= control.minimum && value <= control.maximum else {
                throw invalid("outside \(control.minimum)...\(control.maximum)")
            }
        }
        let kept = try device.setControlValue(control, value)
        logger.debug(
            "control set", metadata: ["control": "\(control.name)", "requested": "\(value)", "value": "\(kept)"])
        return kept
    }

    /// Runs `body` with the streaming device, or with the node opened for the call when the camera is stopped.
    private func withControlDevice<R: Sendable>(
        _ body: (V4L2Device) throws(CaptureError) -> R
    ) throws(CaptureError) -> R {
        let name = self.name
        let syscalls = self.syscalls
        return try controlDevice.withLock { (open: inout V4L2Device?) throws(CaptureError) -> R in
            if let open { return try body(open) }
            let temporary = try V4L2Device.open(name, syscalls: syscalls)
            defer { temporary.close() }
            return try body(temporary)
        }
    }
}

extension V4L2Device {
    /// Every control, with its current value where one can be read (failures to read are logged and leave `nil`).
    func controlsWithValues(logger: Logger) throws(CaptureError) -> [CameraControl] {
        var controls = try queryControls()
        for index in controls.indices {
            let control = controls[index]
            guard control.type != .button, control.type != .string, !control.isWriteOnly else { continue }
            do {
                controls[index].value = try getControlValue(control)
            } catch {
                logger.debug("cannot read control", metadata: ["control": "\(control.name)", "error": "\(error)"])
            }
        }
        return controls
    }
}
