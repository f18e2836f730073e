import Logging
import LumaScan

#if canImport(Glibc)
import Glibc
#endif

/// Plays a sound for scanning events, as the TireTread SDK does: scanning started, the first code in focus, a code
/// too close or too far, a result, scanning stopped.
///
/// ```swift
/// let audio = AudioFeedback(configuration: config.audioFeedback!, logger: logger)
/// // In the engine's delegate (any method), or for each element of ScanEngine.events:
/// audio.handle(event)
/// ```
///
/// Each sound is decoded once, when the feedback is created, from the configured folder (see ``FeedbackSound`` for
/// the file names); a missing file is no sound (logged at debug level), a file that cannot be decoded or is longer
/// than ``SoundClip/maxSeconds`` is no sound (logged as an error).
///
/// ``handle(_:)`` never blocks: it puts the sound in a bounded queue that one playback thread (`lumascan-audio`)
/// plays from, opening the ALSA PCM for each sound. When the queue is full the sound is dropped and counted in
/// ``Statistics/dropped``; the engine's delivery thread never waits for the sound card.
public final class AudioFeedback: Sendable {
    /// What the feedback has done so far.
    public struct Statistics: Hashable, Sendable {
        /// Sounds played to the end.
        public var played: UInt64 = 0
        /// Sounds dropped because the queue was full.
        public var dropped: UInt64 = 0
        /// Sounds that failed to play (the ALSA device could not be opened or written to).
        public var failed: UInt64 = 0
        /// Creates empty statistics.
        public init() {}
    }

    /// How many sounds may wait for the playback thread by default; more are dropped.
    public static let defaultQueueCapacity = 4
    /// The least time between two `too-close` (or two `too-far`) sounds, so that a code hovering at the edge of the
    /// bounds does not play a rattle.
    public static let distanceInterval: Duration = .milliseconds(1500)

    /// The sounds whose file was found and decoded.
    public let availableSounds: Set<FeedbackSound>

    private let clips: [FeedbackSound: SoundClip]
    private let state: Lock<State>
    private let wake = LumaScan.Semaphore()
    private let thread: NativeThread
    private let now: @Sendable () -> ContinuousClock.Instant
    private let logger: Logger

    private struct State {
        var pending: [FeedbackSound] = []
        var capacity: Int
        var closed = false
        var statistics = Statistics()
        /// A scanning session started and no code was located in it yet (the next detection plays `focus`).
        var awaitingFocus = false
        var lastDistanceSound: [FeedbackSound: ContinuousClock.Instant] = [:]
    }

    /// Loads the sounds of `configuration`'s folder and starts the playback thread.
    ///
    /// - Parameters:
    ///   - configuration: The folder of the sounds and the ALSA device to play them on.
    ///   - queueCapacity: How many sounds may wait to be played; more are dropped (at least 1).
    ///   - logger: Where missing or undecodable sounds and playback failures are reported.
    public convenience init(
        configuration: AudioFeedbackConfig, queueCapacity: Int = defaultQueueCapacity, logger: Logger
    ) {
        let device = configuration.device
        var failures = 0
        self.init(
            clips: Self.load(folder: configuration.folder, logger: logger), queueCapacity: queueCapacity,
            logger: logger,
            player: { clip in
                do {
                    try PCMPlayback.play(clip, device: device)
                    return true
                } catch {
                    // The first failure is an error; then a device that is gone would log one per event.
                    failures += 1
                    let level: Logger.Level = failures == 1 ? .error : .debug
                    logger.log(level: level, "audio feedback: \(error) (failure \(failures))")
                    return false
                }
            })
    }

    /// Creates the feedback from decoded clips, playing each with `player` on the playback thread (which returns
    /// whether it played); the tests give their own player.
    package init(
        clips: [FeedbackSound: SoundClip], queueCapacity: Int = defaultQueueCapacity, logger: Logger,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        player: @escaping (SoundClip) -> Bool
    ) {
        self.clips = clips
        availableSounds = Set(clips.keys)
        self.now = now
        self.logger = logger
        let state = Lock(State(capacity: max(1, queueCapacity)))
        self.state = state
        let wake = wake
        // SAFETY: the player runs on the playback thread only; it is handed over, never shared.
        nonisolated(unsafe) let player = player
        thread = NativeThread(name: "lumascan-audio") {
            Self.playbackLoop(clips: clips, state: state, wake: wake, player: player)
        }
    }

    deinit {
        // Queued sounds are discarded; one being played ends by itself, and the detached thread with it.
        state.withLock { state in
            state.closed = true
            state.pending.removeAll()
        }
        wake.signal()
    }

    /// Plays the sound `event` calls for, if any, without waiting: enqueues it for the playback thread.
    ///
    /// - ``ScanEvent/scanningStarted(plugin:)``: `start`; the next detection plays `focus`.
    /// - ``ScanEvent/detection(_:)``: `focus` for the first one of a session; `too-close` or `too-far` for a
    ///   detection with that distance, at most once per ``distanceInterval`` each.
    /// - ``ScanEvent/report(_:)`` with a COMPLETED_RESULT: `result`.
    /// - ``ScanEvent/scanningStopped(_:)`` and ``ScanEvent/scanningAborted``: `stop`.
    ///
    /// Other events play nothing. Call it from one thread at a time in event order (the engine's delegate or one
    /// loop over ``ScanEngine/events``); it is safe from any thread.
    public func handle(_ event: ScanEvent) {
        let instant = now()
        let sounds: [FeedbackSound] = state.withLock { state in
            switch event {
            case .scanningStarted:
                state.awaitingFocus = true
                return [.start]
            case .scanningStopped, .scanningAborted:
                state.awaitingFocus = false
                return [.stop]
            case .report(let report) where report.reportType == .completedResult:
                return [.result]
            case .detection(let detection):
                var sounds: [FeedbackSound] = []
                if state.awaitingFocus {
                    state.awaitingFocus = false
                    sounds.append(.focus)
                }
                let distanceSound: FeedbackSound?
                switch detection.distance {
                case .tooClose: distanceSound = .tooClose
                case .tooFar: distanceSound = .tooFar
                case .ok: distanceSound = nil
                }
                if let distanceSound {
                    let last = state.lastDistanceSound[distanceSound]
                    if last.map({ $0.duration(to: instant) >= Self.distanceInterval }) ?? true {
                        state.lastDistanceSound[distanceSound] = instant
                        sounds.append(distanceSound)
                    }
                }
                return sounds
            default:
                return []
            }
        }
        for sound in sounds { play(sound) }
    }

    /// Enqueues `sound` for the playback thread without waiting.
    ///
    /// - Returns: `true` when it was queued; `false` when its file is missing (nothing to play), the queue is full
    ///   (the sound is dropped and counted in ``Statistics/dropped``) or the feedback finished.
    @discardableResult
    public func play(_ sound: FeedbackSound) -> Bool {
        guard clips[sound] != nil else { return false }
        let queued = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            guard state.pending.count < state.capacity else {
                state.statistics.dropped += 1
                return false
            }
            state.pending.append(sound)
            return true
        }
        if queued { wake.signal() }
        return queued
    }

    /// What the feedback has done so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Plays the sounds still queued, then ends the playback thread and returns; later sounds are not played.
    /// Call it once, when scanning is over (so that the `stop` sound is heard before the process exits).
    public func finish() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        wake.signal()
        thread.join()
        let totals = statistics
        logger.debug(
            """
            audio feedback: \(totals.played) sound(s) played, \(totals.dropped) dropped (queue full), \
            \(totals.failed) failed
            """)
    }

    /// The playback thread: one sound at a time, in order, until finished and the queue is empty.
    private static func playbackLoop(
        clips: [FeedbackSound: SoundClip], state: Lock<State>, wake: LumaScan.Semaphore, player: (SoundClip) -> Bool
    ) {
        while true {
            wake.wait()
            let next = state.withLock { state -> (sound: FeedbackSound?, done: Bool) in
                if !state.pending.isEmpty { return (state.pending.removeFirst(), false) }
                return (nil, state.closed)
            }
            if next.done { return }
            guard let sound = next.sound, let clip = clips[sound] else { continue }
            let played = player(clip)
            state.withLock { state in
                if played { state.statistics.played += 1 } else { state.statistics.failed += 1 }
            }
            // Every queued sound and finish() signal once each, so each wake has a sound to play or is the last.
        }
    }

    /// Decodes each ``FeedbackSound`` found in `folder`; logs the missing ones at debug level and the bad ones as
    /// errors.
    static func load(folder: String, logger: Logger) -> [FeedbackSound: SoundClip] {
        var clips: [FeedbackSound: SoundClip] = [:]
        for sound in FeedbackSound.allCases {
            let path = folder.hasSuffix("/") ? folder + sound.fileName : "\(folder)/\(sound.fileName)"
            do {
                clips[sound] = try SoundClip.decode(path: path)
            } catch  where error.code == .unreadableFile && error.errno == ENOENT {
                logger.debug("audio feedback: no \(path); the \(sound.rawValue) event plays no sound")
            } catch {
                logger.error("audio feedback: \(error); the \(sound.rawValue) event plays no sound")
            }
        }
        return clips
    }
}
