import Logging
import LumaScanCapture
import LumaScanCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The capture thread (`lumascan-capture`): dequeues frames from the source into the ring, requeues the buffers
/// the recognition thread hands back, and recovers a failed source (reopen or restart, with backoff). It owns the
/// ring's producer handle and is the only thread that calls the source, apart from `bytes(of:)`.
extension ScanEngine {
    /// The longest a capture-thread wait for a returned buffer lasts before it looks again (every wake-up is also
    /// signalled, so this only bounds a lost wake-up).
    static let waitSliceMilliseconds = 100

    func captureLoop(_ producer: consuming FrameRing.Producer) {
        var reason = StopReason.requested
        var sequenceGaps = SequenceGaps()
        var captured = 0
        var recoveryAttempts = 0
        capture: while !stopRequested.load(ordering: .acquiring) {
            requeueReturned(producer)
            if producer.outstanding >= source.bufferCount {
                // Every buffer waits in the ring or is being recognised (a file or a recording is read faster than
                // recognised): nothing to dequeue into until the recognition thread hands one back.
                bufferReturned.wait(milliseconds: Self.waitSliceMilliseconds)
                continue
            }
            let frame: DequeuedFrame
            do {
                guard let dequeued = try source.dequeue(timeout: options.dequeueTimeout) else { continue }
                frame = dequeued
            } catch is FrameSourceEnd {
                reason = .endOfInput
                break
            } catch {
                counters.sourceFailures.add(1, ordering: .relaxed)
                if let failure = recover(from: error, producer: producer, attempts: &recoveryAttempts) {
                    reason = failure
                    break
                }
                sequenceGaps.reset()
                continue
            }
            recoveryAttempts = 0
            let gap = sequenceGaps.next(frame.metadata.driverSequence)
            if gap > 0 { counters.droppedByDriver.add(gap, ordering: .relaxed) }
            if frame.metadata.driverFlaggedError {
                // A frame the driver flagged (V4L2_BUF_FLAG_ERROR) is counted and skipped here, before the ring: it
                // must neither evict a good frame nor go uncounted when the ring drops it.
                counters.corrupt.add(1, ordering: .relaxed)
                requeue(frame.bufferIndex)
                continue
            }
            while true {
                switch producer.push(frame) {
                case .queued:
                    frameAvailable.wake()
                case .queuedEvicting(let victim):
                    frameAvailable.wake()
                    requeue(victim)
                case .rejected:
                    // A finite source waits for room: its frames must not be lost.
                    if stopRequested.load(ordering: .acquiring) {
                        requeue(frame.bufferIndex)
                        break capture
                    }
                    requeueReturned(producer)
                    bufferReturned.wait(milliseconds: Self.waitSliceMilliseconds)
                    continue
                }
                break
            }
            captured += 1
            if let limit = options.frameLimit, captured >= limit {
                reason = .endOfInput
                break
            }
        }
        captureFinished.store(true, ordering: .releasing)
        frameAvailable.wake()
        // Let recognition finish (drain the ring on end of input; finish the current frame on stop).
        while !recognitionExited.load(ordering: .acquiring) {
            bufferReturned.wait(milliseconds: Self.waitSliceMilliseconds)
        }
        for buffer in producer.evictAll() { requeue(buffer) }
        requeueReturned(producer)
        source.stop()
        if stopRequested.load(ordering: .acquiring), case .endOfInput = reason {
            reason = .requested
        }
        let scanReason: ScanStopReason
        switch reason {
        case .requested: scanReason = .requested
        case .endOfInput: scanReason = .endOfInput
        case .error: scanReason = .error
        }
        lifecycle.withLock { machine in
            if case .actions(let actions) = machine.stop(scanReason) { perform(actions) }
        }
        logger.info("engine stopped", metadata: ["reason": "\(reason.name)", "source": "\(source.name)"])
        emit(.stopped(reason), terminal: true)
    }

    func requeueReturned(_ producer: borrowing FrameRing.Producer) {
        while let buffer = producer.reclaim() { requeue(buffer) }
    }

    func requeue(_ buffer: Int) {
        do {
            try source.requeue(buffer)
        } catch {
            // The next dequeue reports the same failure and drives recovery; a buffer lost here is restored when
            // the stream restarts.
            logger.warning("requeue failed", metadata: ["source": "\(source.name)", "error": "\(error)"])
        }
    }

    /// Tries to bring the source back after `error`; returns the stop reason when it cannot.
    func recover(
        from error: any Error, producer: borrowing FrameRing.Producer, attempts: inout Int
    ) -> StopReason? {
        let recovery = (error as? any RecoverableSourceError)?.recovery ?? .none
        let message = "\(error)"
        let action: SourceFailure.Action
        switch recovery {
        case .none: action = .stopping
        case .restartStream: action = .restartingStream
        case .reopenDevice: action = .reopeningDevice
        }
        logger.error(
            "source failed", metadata: ["source": "\(source.name)", "error": "\(message)", "action": "\(action)"])
        emit(.sourceFailed(SourceFailure(source: source.name, message: message, action: action)))
        guard action != .stopping else { return .error(message) }

        // Take every buffer back before the source lets go of its memory: evict what waits in the ring and wait
        // for the recognition thread to release the frame it holds.
        _ = producer.evictAll()
        while producer.consumerHeld > 0 && !recognitionExited.load(ordering: .acquiring) {
            bufferReturned.wait(milliseconds: Self.waitSliceMilliseconds)
        }
        while producer.reclaim() != nil {}
        source.stop()

        var delay = options.recoveryInitialDelay
        while !stopRequested.load(ordering: .acquiring) {
            attempts += 1
            do {
                try source.start()
                logger.notice("source recovered", metadata: ["source": "\(source.name)", "attempts": "\(attempts)"])
                emit(.sourceRecovered(source: source.name, attempts: attempts))
                return nil
            } catch {
                logger.warning(
                    "recovery attempt failed",
                    metadata: ["source": "\(source.name)", "attempt": "\(attempts)", "error": "\(error)"])
                if let maximum = options.recoveryMaximumAttempts, attempts >= maximum {
                    return .error("\(message); gave up after \(attempts) attempts: \(error)")
                }
            }
            sleepUnlessStopped(delay)
            delay = min(delay * 2, options.recoveryMaximumDelay)
        }
        return .requested
    }

    /// Waits `duration`, or less when ``stop()`` is called meanwhile.
    func sleepUnlessStopped(_ duration: Duration) {
        let deadline = MonotonicInstant(nanoseconds: MonotonicInstant.now().nanoseconds &+ duration.nanosecondsClamped)
        while !stopRequested.load(ordering: .acquiring) {
            let now = MonotonicInstant.now()
            guard now < deadline else { return }
            stopWake.wait(milliseconds: max(1, Int(clamping: deadline.since(now).nanosecondsClamped / 1_000_000)))
        }
    }
}
