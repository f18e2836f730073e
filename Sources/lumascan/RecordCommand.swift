import ArgumentParser
import Dispatch
import Foundation
import Logging
import LumaScan
import Synchronization

/// `lumascan record`: record a camera's frames, or image files, into a recording that `lumascan scan --input`
/// replays.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a camera's frames, or image files, into a recording (.\(RecordingFormat.fileExtension)).",
        discussion: """
            With --device, frames are captured as `lumascan scan` captures them (same format selection and \
            settings) and stored exactly as the camera delivered them, with their timestamps, driver sequence \
            numbers and error flags; give --frames or --duration. With --input (an image file or a folder of \
            images of one size), each image becomes --repeat GREY frames, timestamped at --fps. \
            `lumascan scan --input FILE.\(RecordingFormat.fileExtension)` replays a recording. A summary goes to \
            stderr; Ctrl-C ends a camera recording early, keeping the frames so far.
            """)

    @Option(help: "The V4L2 device to record, such as /dev/video0.")
    var device: String?

    @Option(help: "An image file or a folder of images of one size to record as GREY frames.")
    var input: String?

    @Option(help: "The recording to write (replaced if it exists).")
    var out: String

    @OptionGroup var capture: CaptureOptions

    @Option(help: "Stop after writing this many frames.")
    var frames: Int?

    @Option(help: "Stop after this many seconds (--device only).")
    var duration: Double?

    @Option(
        name: .customLong("repeat"), help: "Write each image this many times, as consecutive frames (--input only).")
    var repeatCount: Int = 1

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        switch (device, input) {
        case (nil, nil): throw ValidationError("give --device or --input")
        case (.some, .some): throw ValidationError("--device and --input exclude each other")
        default: break
        }
        if let frames, frames < 1 { throw ValidationError("--frames: must be at least 1") }
        if let duration, !(duration > 0) { throw ValidationError("--duration: must be above 0") }
        if !(1...1000).contains(repeatCount) { throw ValidationError("--repeat: \(repeatCount) is outside 1...1000") }
        if device != nil {
            if (frames == nil) == (duration == nil) {
                throw ValidationError("recording a camera needs exactly one of --frames and --duration")
            }
            if repeatCount != 1 { throw ValidationError("--repeat applies to --input only") }
        } else {
            if duration != nil { throw ValidationError("--duration applies to --device only; use --frames") }
            if capture.namesCameraSettings {
                throw ValidationError("--format, --size and --buffers apply to --device only")
            }
        }
    }

    func run() throws {
        let logger = try logging.makeLogger(label: "lumascan.record")
        let source: any FrameSource
        var options = RecordingOptions(frameLimit: frames, duration: duration.map { .nanoseconds(Int64($0 * 1e9)) })
        var describe: ((FrameMetadata) -> String?)?
        if let input {
            let images = ImageFileSource(path: input, maxPixels: capture.maxPixels, logger: logger)
            source = images
            options.fps = capture.fps ?? 10
            options.repeatCount = repeatCount
            describe = { images.path(forFrameIndex: $0.index) }
        } else {
            source = V4L2Camera(device: device ?? "/dev/video0", settings: capture.settings(), logger: logger)
        }

        let stopRequested = Atomic<Bool>(false)
        let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let signalSource = DispatchSource.makeSignalSource(signal: number, queue: .global())
            signalSource.setEventHandler { stopRequested.store(true, ordering: .relaxed) }
            signalSource.resume()
            return signalSource
        }
        defer { signals.forEach { $0.cancel() } }

        let summary: RecordingSummary
        do {
            summary = try RecordingWriter.record(
                from: source, to: out, options: options, logger: logger, describeFrame: describe,
                shouldStop: { stopRequested.load(ordering: .relaxed) })
        } catch let error as CaptureError where error.device == source.name && error.code != .corruptFrame {
            // The camera or the images could not be opened (or held no frame).
            throw CommandFailure(status: ExitStatus.deviceUnavailable, message: "\(error)")
        } catch let error as LumaScanError {
            throw CommandFailure(status: ExitStatus.deviceUnavailable, message: "\(error)")
        } catch {
            throw CommandFailure(status: ExitStatus.failed, message: "\(error)")
        }
        let seconds = Double(summary.spanNanoseconds) / 1e9
        printError(
            "lumascan: recorded \(summary.frames) frame(s) of \(summary.format) (\(summary.sourceFrames) from "
                + "\(source.name)), \(String(format: "%.2f", seconds)) s, \(summary.bytes) bytes to \(out)"
                + (summary.droppedByDriver > 0 ? "; the driver dropped \(summary.droppedByDriver)" : ""))
    }
}
