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
    func captureLoop(_ producer: consuming FrameRing.Producer) {
        var reason = StopReason.requested
        var sequenceGaps = SequenceGaps()
        var captured = 0
        var recoveryAttempts = 0
        capture: while !stopRequested {
            requeueReturned(producer)
            if producer.outstanding >= source.bufferCount {
                // Every buffer waits in the ring or is being recognised (a file or a recording is read faster than
                // recognised): nothing to dequeue into until the recognition thread hands one back.
                bufferReturned.wait()
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
                    if stopRequested {
                        requeue(frame.bufferIndex)
                        break capture
                    }
                    requeueReturned(producer)
                    bufferReturned.wait()
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
        carryOut(update { $0.captureEnded() })
        // Let recognition finish (drain the ring on end of input; finish the current frame on stop): wait, lock
        // released, until the state machine says it has exited.
        machine.withLock(when: { $0.recognitionExited }) { _ in }
        for buffer in producer.evictAll() { requeue(buffer) }
        requeueReturned(producer)
        source.stop()
        if stopRequested, case .endOfInput = reason {
            reason = .requested
        }
        update { [reason] in $0.sourceStopped(reason) }
        logger.info("engine stopped", metadata: ["reason": "\(reason.name)", "source": "\(source.name)"])
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
        // What waits in the ring is given up before the failure is announced, so that after the event only the frame
        // the recognition thread holds can still be reported. (Evicted after it, a frame the recognition thread took
        // from the ring in between was reported too: two reports while the source was down, in the VM's disconnect
        // test under load.)
        if action != .stopping { _ = producer.evictAll() }
        emit(.sourceFailed(SourceFailure(source: source.name, message: message, action: action)))
        guard action != .stopping else { return .error(message) }

        // Take every buffer back before the source lets go of its memory: wait for the recognition thread to
        // release the frame it holds.
        while producer.consumerHeld > 0 && !machine.withLock({ $0.recognitionExited }) {
            bufferReturned.wait()
        }
        while producer.reclaim() != nil {}
        source.stop()

        var delay = options.recoveryInitialDelay
        while !stopRequested {
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
        while !stopRequested {
            let now = MonotonicInstant.now()
            guard now < deadline else { return }
            stopWake.wait(milliseconds: max(1, Int(clamping: deadline.since(now).nanosecondsClamped / 1_000_000)))
        }
    }
}
