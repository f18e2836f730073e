import Logging
import LumaScanCapture
import LumaScanCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The recognition thread (`lumascan-recog`): takes the newest frame from the ring, turns it into luma, runs the
/// plugin's recognizer while the lifecycle says so, and queues the frame's events; it owns the ring's consumer handle.
extension ScanEngine {
    /// What the recognition thread keeps between frames.
    struct RecognitionState {
        var plugin: ScanPlugin?
        var generation = -1
        var extractor: LumaExtractor?
        var reports: [ScanReport] = []
        /// The frame's events, gathered before they are queued in one step.
        var events: [ScanEvent] = []
        var lastDistance: DistanceStatus?
        /// Whether the last frame's ticket said stop was asked for: the thread exits after that frame.
        var stopSeen = false
    }

    func recognitionLoop(_ consumer: consuming FrameRing.Consumer) {
        var state = RecognitionState()
        state.reports.reserveCapacity(64)
        state.events.reserveCapacity(64)
        while true {
            if let frame = consumer.pop() {
                // Taking the frame made room in the ring: a finite source's capture waiting to push may go on.
                bufferReturned.wake()
                // A frame taken from the ring is recognised to the end (one report per recognised frame), even when
                // stop was asked for meanwhile; the thread exits after it.
                process(frame, consumer: consumer, state: &state)
                if state.stopSeen { break }
                continue
            }
            // No frame waits: let the session's scan timeout pass even so, then sleep until a frame is pushed, the
            // session changes, stop is asked for, or the session's next instant (the end of its start delay, its
            // timeout) comes.
            let now = MonotonicInstant.now()
            let (stop, captureDone, wakeAt, actions) = machine.withLock { machine in
                let (wakeAt, actions) = machine.idle(now: now)
                return (machine.stopRequested, machine.captureFinished, wakeAt, actions)
            }
            carryOutChange(actions)
            if stop { break }
            if captureDone {
                // Capture has stopped; anything it pushed before its flag is visible now.
                guard let last = consumer.pop() else { break }
                process(last, consumer: consumer, state: &state)
                if state.stopSeen { break }
                continue
            }
            if let wakeAt {
                let milliseconds = (wakeAt.since(now).nanosecondsClamped + 999_999) / 1_000_000
                frameAvailable.wait(milliseconds: max(1, Int(clamping: milliseconds)))
            } else {
                frameAvailable.wait()
            }
        }
        update { $0.recognitionEnded() }
        bufferReturned.wake()
    }

    /// Processes one frame, and notes in `state` whether stop was asked for.
    func process(_ frame: DequeuedFrame, consumer: borrowing FrameRing.Consumer, state: inout RecognitionState) {
        defer {
            consumer.release(frame.bufferIndex)
            bufferReturned.wake()
        }
        let metadata = frame.metadata
        // One step of the state machine: stop, the scan timeout, whether the frame is recognised (while paused,
        // stopped or waiting for the start delay, frames are released unrecognised: the ring drains), a new plugin.
        let (ticket, actions) = machine.withLock {
            $0.ticket(at: metadata.dequeueTime, knownGeneration: state.generation)
        }
        carryOutChange(actions)
        state.stopSeen = ticket.stop
        if let (newPlugin, generation) = ticket.newPlugin {
            newPlugin.recognizer.reset()
            state.plugin = newPlugin
            state.generation = generation
            state.lastDistance = nil
        }
        let session = ticket.session
        // The preview takes a frame's luma (at most every 100 ms, only while someone watches) even when not scanning.
        let previewWanted = preview.wantsFrame(at: metadata.dequeueTime)
        guard session != nil || previewWanted else { return }
        if state.extractor?.format != metadata.format {
            state.extractor = LumaExtractor(format: metadata.format, sourceName: source.name)
        }
        guard let extractor = state.extractor else { return }
        let lumaStart = MonotonicInstant.now()
        let luma: LumaView
        do {
            luma = try extractor.luma(of: source.bytes(of: frame.bufferIndex), bytesUsed: metadata.bytesUsed)
        } catch {
            counters.corrupt.add(1, ordering: .relaxed)
            logger.debug("corrupt frame skipped", metadata: ["frame": "\(metadata.index)", "error": "\(error)"])
            return
        }
        if previewWanted { preview.offer(luma, at: metadata.dequeueTime) }
        guard let session, let current = state.plugin else { return }
        let recognitionStart = MonotonicInstant.now()
        state.reports.removeAll(keepingCapacity: true)
        current.recognizer.process(luma, metadata: metadata, into: &state.reports)
        let end = MonotonicInstant.now()
        counters.lumaNanoseconds.add(recognitionStart.nanoseconds - lumaStart.nanoseconds, ordering: .relaxed)
        counters.recognitionNanoseconds.add(end.nanoseconds - recognitionStart.nanoseconds, ordering: .relaxed)
        stageTimes.record(
            lumaNanoseconds: recognitionStart.nanoseconds - lumaStart.nanoseconds,
            recognitionNanoseconds: end.nanoseconds - recognitionStart.nanoseconds)
        counters.pipelineNanoseconds.add(end.since(metadata.dequeueTime).nanosecondsClamped, ordering: .relaxed)
        counters.reports.add(UInt64(state.reports.count), ordering: .relaxed)
        queueEvents(of: current, session: session, frame: metadata, frameSize: luma.size, state: &state)
    }

    /// Gathers the frame's events (a detection when the code's distance changed, then its reports) and queues them in
    /// one step of the state machine, only if the frame's session is still under way, so that nothing of a session
    /// follows the event that ended it. A completed result ends the session when the plugin cancels on result (a
    /// composite once every member has completed).
    func queueEvents(
        of current: ScanPlugin, session: Int, frame metadata: FrameMetadata, frameSize: Size,
        state: inout RecognitionState
    ) {
        state.events.removeAll(keepingCapacity: true)
        var completed = false
        var located: ScanReport?
        for report in state.reports {
            if report.reportType == .completedResult { completed = true }
            if located == nil && !report.polygon.isEmpty { located = report }
        }
        if let located {
            let distance = current.distanceBounds.status(of: located.polygon, frameWidth: frameSize.width)
            if distance != state.lastDistance {
                state.lastDistance = distance
                let normalized = located.polygon.map {
                    Point(x: $0.x / Double(max(1, frameSize.width)), y: $0.y / Double(max(1, frameSize.height)))
                }
                state.events.append(
                    .detection(
                        Detection(
                            recognizerID: located.recognizerID, polygon: located.polygon, normalizedPolygon: normalized,
                            distance: distance, frameIndex: metadata.index)))
            }
        }
        for report in state.reports { state.events.append(.report(report)) }
        let completes =
            completed && current.cancelOnResult
            && ((current.recognizer as? any CompletingRecognizer)?.hasCompleted ?? true)
        guard !state.events.isEmpty || completes else { return }
        let events = state.events
        if let actions = update({ $0.queueFrame(events, session: session, completes: completes) }) {
            carryOut(actions)
        }
    }
}
