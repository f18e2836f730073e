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
        var lastDistance: DistanceStatus?
    }

    func recognitionLoop(_ consumer: consuming FrameRing.Consumer) {
        var state = RecognitionState()
        state.reports.reserveCapacity(64)
        while true {
            if stopRequested.load(ordering: .acquiring) { break }
            tick()
            guard let frame = consumer.pop() else {
                if captureFinished.load(ordering: .acquiring) {
                    // Capture has stopped; anything it pushed before the flag is visible now.
                    guard let last = consumer.pop() else { break }
                    process(last, consumer: consumer, state: &state)
                    continue
                }
                frameAvailable.wait(milliseconds: 50)
                continue
            }
            process(frame, consumer: consumer, state: &state)
        }
        recognitionExited.store(true, ordering: .releasing)
        bufferReturned.wake()
    }

    /// Lets the lifecycle check its scan timeout, even when no frame arrives.
    func tick() {
        lifecycle.withLock { machine in
            let actions = machine.tick(now: .now())
            if !actions.isEmpty { perform(actions) }
        }
    }

    func process(_ frame: DequeuedFrame, consumer: borrowing FrameRing.Consumer, state: inout RecognitionState) {
        defer {
            consumer.release(frame.bufferIndex)
            bufferReturned.wake()
        }
        let currentGeneration = pluginGeneration.load(ordering: .acquiring)
        if currentGeneration != state.generation {
            let current = plugin.withLock { $0 }
            current.recognizer.reset()
            state.plugin = current
            state.generation = currentGeneration
            state.lastDistance = nil
        }
        let metadata = frame.metadata
        // While paused, stopped or waiting for the start delay, frames are released unrecognised: the ring drains.
        let session: Int? = lifecycle.withLock { $0.recognises(at: metadata.dequeueTime) ? $0.session : nil }
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

        var completed = false
        var located: ScanReport?
        for report in state.reports {
            if report.reportType == .completedResult { completed = true }
            if located == nil && !report.polygon.isEmpty { located = report }
        }
        // Queue the frame's events only if its session is still under way, under the lifecycle lock, so that nothing
        // of a session follows the event that ended it.
        lifecycle.withLock { machine in
            guard machine.isActive && machine.session == session else { return }
            queueEvents(
                of: current, frame: metadata, frameSize: luma.size, completed: completed, located: located,
                machine: &machine, state: &state)
        }
    }

    func queueEvents(
        of current: ScanPlugin, frame metadata: FrameMetadata, frameSize: Size, completed: Bool, located: ScanReport?,
        machine: inout ScanningStateMachine, state: inout RecognitionState
    ) {
        if let located {
            let distance = current.distanceBounds.status(of: located.polygon, frameWidth: frameSize.width)
            if distance != state.lastDistance {
                state.lastDistance = distance
                let normalized = located.polygon.map {
                    Point(x: $0.x / Double(max(1, frameSize.width)), y: $0.y / Double(max(1, frameSize.height)))
                }
                emit(
                    .detection(
                        Detection(
                            recognizerID: located.recognizerID, polygon: located.polygon, normalizedPolygon: normalized,
                            distance: distance, frameIndex: metadata.index)))
            }
        }
        for report in state.reports { emit(.report(report)) }
        if completed && current.cancelOnResult {
            // A parallel composite cancels once every member has completed.
            let done = (current.recognizer as? any CompletingRecognizer)?.hasCompleted ?? true
            if done { perform(machine.completed(cancels: true)) }
        }
    }
}
