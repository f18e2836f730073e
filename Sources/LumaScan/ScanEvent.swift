import LumaScanCore

/// Why scanning stopped.
public enum StopReason: Hashable, Sendable {
    /// ``ScanEngine/stop()`` was called.
    case requested
    /// A finite source (image files, a recording, a scripted source) delivered its last frame, or the configured
    /// frame limit was reached.
    case endOfInput
    /// The source failed and could not be recovered; the message says why.
    case error(String)

    /// `"requested"`, `"endOfInput"` or `"error"`, as the JSON event schema writes it.
    public var name: String {
        switch self {
        case .requested: "requested"
        case .endOfInput: "endOfInput"
        case .error: "error"
        }
    }
}

/// A failure of the frame source, and what the engine does about it.
public struct SourceFailure: Hashable, Sendable {
    /// What the engine does next.
    public enum Action: String, Hashable, Sendable {
        /// Stops the stream and starts it again (a broken stream, such as a fatal driver error).
        case restartingStream
        /// Closes the device and reopens it with backoff until it comes back (a device that went away).
        case reopeningDevice
        /// Gives up and stops scanning.
        case stopping
    }

    /// The source's name, such as `/dev/video0`.
    public var source: String
    /// The error's description, naming the device and the call that failed.
    public var message: String
    /// What the engine does next.
    public var action: Action

    /// Creates a failure description.
    public init(source: String, message: String, action: Action) {
        self.source = source
        self.message = message
        self.action = action
    }
}

/// A code located in a frame, with how far it seems to be (TireTread's detection and `onDistanceChanged`).
public struct Detection: Hashable, Sendable {
    /// The recognizer that located the code.
    public var recognizerID: String
    /// The code's polygon in frame pixels.
    public var polygon: [Point]
    /// The same polygon with coordinates divided by the frame's width and height (0–1).
    public var normalizedPolygon: [Point]
    /// How far the code seems to be, from its size against the plugin's ``DistanceBounds``.
    public var distance: DistanceStatus
    /// LumaScan's index of the frame.
    public var frameIndex: UInt64

    /// Creates a detection.
    public init(
        recognizerID: String, polygon: [Point], normalizedPolygon: [Point], distance: DistanceStatus,
        frameIndex: UInt64
    ) {
        self.recognizerID = recognizerID
        self.polygon = polygon
        self.normalizedPolygon = normalizedPolygon
        self.distance = distance
        self.frameIndex = frameIndex
    }
}

/// Everything the engine tells its delegate and its ``ScanEngine/events`` sequence, in the order it happened.
public enum ScanEvent: Hashable, Sendable {
    /// The engine started: the camera (or other source) streams `format` frames.
    case started(source: String, format: FrameFormat)
    /// A scanning session started with the plugin `plugin`.
    case scanningStarted(plugin: String)
    /// The scanning session ended; the camera keeps streaming until the engine stops.
    case scanningStopped(ScanStopReason)
    /// Scanning paused: frames stream on but are not recognised.
    case scanningPaused
    /// Scanning resumed after a pause.
    case scanningResumed
    /// Scanning was aborted: reports not yet delivered were discarded.
    case scanningAborted
    /// A code was located and its distance status changed.
    case detection(Detection)
    /// A recognizer reported on a frame.
    case report(ScanReport)
    /// A camera setting from the configuration (a control or the flash) was applied, is not supported by this
    /// camera, or failed; scanning goes on either way.
    case cameraSetting(SettingOutcome)
    /// The source failed; the engine does what the failure's action says.
    case sourceFailed(SourceFailure)
    /// The source works again after a failure (the stream restarted or the device reopened), after `attempts` tries.
    case sourceRecovered(source: String, attempts: Int)
    /// The engine stopped; no event follows.
    case stopped(StopReason)
}

/// Receives the engine's events.
///
/// The engine calls one method, ``scanEngine(_:didEmit:)``, with each ``ScanEvent`` as it is (the same values, in the
/// same order, as the ``ScanEngine/events`` sequence). Its default implementation hands each event to the method
/// named for it (`didReport`, `didDetect`, …), for a delegate that wants only some kinds; every method has a default
/// implementation that does nothing, so a delegate implements only what it needs.
///
/// - Important: The engine calls its delegate on its own delivery thread (named `lumascan-deliver`), one event at a
///   time, in order. A delegate must return quickly and must not block: while it runs, further events wait in a
///   bounded queue, and events that do not fit are dropped and counted in ``ScanStatistics/eventsDropped``. A slow
///   delegate never stalls capture or recognition.
public protocol ScanEngineDelegate: AnyObject, Sendable {
    /// Any event: the one method the engine calls. By default it calls the method below that is named for the event.
    func scanEngine(_ engine: ScanEngine, didEmit event: ScanEvent)
    /// The engine started: the source streams `format` frames.
    func scanEngine(_ engine: ScanEngine, didStartOn source: String, format: FrameFormat)
    /// A scanning session started, paused, resumed, stopped or was aborted (one of the `scanning…` events).
    func scanEngine(_ engine: ScanEngine, scanningDidChange event: ScanEvent)
    /// A code was located and its distance status changed.
    func scanEngine(_ engine: ScanEngine, didDetect detection: Detection)
    /// A recognizer reported on a frame.
    func scanEngine(_ engine: ScanEngine, didReport report: ScanReport)
    /// A camera setting from the configuration was applied, is not supported by this camera, or failed.
    func scanEngine(_ engine: ScanEngine, didApplyCameraSetting outcome: SettingOutcome)
    /// The source failed; `failure.action` says what the engine does next.
    func scanEngine(_ engine: ScanEngine, sourceDidFail failure: SourceFailure)
    /// The source works again after a failure.
    func scanEngine(_ engine: ScanEngine, sourceDidRecover source: String, attempts: Int)
    /// Scanning stopped; the delegate is not called again.
    func scanEngine(_ engine: ScanEngine, didStop reason: StopReason)
}

extension ScanEngineDelegate {
    /// Hands `event` to the method named for its kind.
    public func scanEngine(_ engine: ScanEngine, didEmit event: ScanEvent) {
        switch event {
        case .started(let source, let format): scanEngine(engine, didStartOn: source, format: format)
        case .report(let report): scanEngine(engine, didReport: report)
        case .detection(let detection): scanEngine(engine, didDetect: detection)
        case .cameraSetting(let outcome): scanEngine(engine, didApplyCameraSetting: outcome)
        case .scanningStarted, .scanningStopped, .scanningPaused, .scanningResumed, .scanningAborted:
            scanEngine(engine, scanningDidChange: event)
        case .sourceFailed(let failure): scanEngine(engine, sourceDidFail: failure)
        case .sourceRecovered(let source, let attempts):
            scanEngine(engine, sourceDidRecover: source, attempts: attempts)
        case .stopped(let reason): scanEngine(engine, didStop: reason)
        }
    }

    /// Does nothing.
    public func scanEngine(_ engine: ScanEngine, didStartOn source: String, format: FrameFormat) {}
    /// Does nothing.
    public func scanEngine(_ engine: ScanEngine, scanningDidChange event: ScanEvent) {}
    /// Does nothing.
    public func scanEngine(_ engine: ScanEngine, didDetect detection: Detection) {}
    /// Does nothing.
    public func scanEngine(_ engine: ScanEngine, didReport report: ScanReport) {}
    /// Does nothing.
    public func scanEngine(_ engine: ScanEngine, didApplyCameraSetting outcome: SettingOutcome) {}
    /// Does nothing.
    public func scanEngine(_ engine: ScanEngine, sourceDidFail failure: SourceFailure) {}
    /// Does nothing.
    public func scanEngine(_ engine: ScanEngine, sourceDidRecover source: String, attempts: Int) {}
    /// Does nothing.
    public func scanEngine(_ engine: ScanEngine, didStop reason: StopReason) {}
}

/// The engine's events as an `AsyncSequence`: the same content, in the same order, as the delegate receives.
///
/// The sequence finishes after ``ScanEvent/stopped(_:)``. It buffers up to the engine's configured number of events
/// for a slow reader; older events beyond that are dropped and counted in ``ScanStatistics/eventsDropped``.
public struct ScanEvents: AsyncSequence, Sendable {
    /// The element type.
    public typealias Element = ScanEvent
    /// The failure type: the sequence never throws.
    public typealias Failure = Never

    let stream: AsyncStream<ScanEvent>

    /// Iterates the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<ScanEvent>.AsyncIterator
        /// The next event, or `nil` after the engine stopped.
        public mutating func next() async -> ScanEvent? { await base.next() }
        /// The next event, or `nil` after the engine stopped.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> ScanEvent? {
            await base.next(isolation: actor)
        }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}

/// What the engine has done so far.
public struct ScanStatistics: Hashable, Sendable {
    /// Frames the source delivered and the engine put into the ring (frames the driver flagged as erroneous are
    /// counted in ``framesCorrupt`` instead and never enter the ring).
    public var framesCaptured: UInt64 = 0
    /// Frames the recognition thread took from the ring and finished with (including corrupt ones).
    public var framesProcessed: UInt64 = 0
    /// Frames evicted from the ring because recognition was busy (the newest frame wins).
    public var framesDroppedByRing: UInt64 = 0
    /// Frames in the ring or being recognised when the statistics were read.
    public var framesInFlight: UInt64 = 0
    /// Frames the driver dropped: gaps in its sequence numbers.
    public var framesDroppedByDriver: UInt64 = 0
    /// Frames skipped as corrupt: flagged by the driver (skipped before the ring), or truncated or an undecodable
    /// JPEG (skipped by recognition, and so also counted as processed).
    public var framesCorrupt: UInt64 = 0
    /// Reports the recognizers made.
    public var reports: UInt64 = 0
    /// Events handed to the delegate and the event sequence.
    public var eventsDelivered: UInt64 = 0
    /// Events dropped because the delivery queue or the event sequence's buffer was full.
    public var eventsDropped: UInt64 = 0
    /// Times the source failed.
    public var sourceFailures: UInt64 = 0
    /// Total time spent turning frames into luma (extraction or JPEG decoding).
    public var lumaTime: Duration = .zero
    /// Total time spent in recognizers.
    public var recognitionTime: Duration = .zero
    /// Total time from a frame's dequeue to the end of its recognition.
    public var pipelineTime: Duration = .zero

    /// Creates empty statistics.
    public init() {}

    /// Mean luma time per processed frame, in milliseconds.
    public var meanLumaMilliseconds: Double { mean(lumaTime) }
    /// Mean recognizer time per processed frame, in milliseconds.
    public var meanRecognitionMilliseconds: Double { mean(recognitionTime) }
    /// Mean dequeue-to-recognised time per processed frame, in milliseconds.
    public var meanPipelineMilliseconds: Double { mean(pipelineTime) }

    private func mean(_ total: Duration) -> Double {
        framesProcessed == 0 ? 0 : total.milliseconds / Double(framesProcessed)
    }
}
