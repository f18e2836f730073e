import Dispatch
import Foundation
import Logging
import LumaScan
import LumaScanAudio
import Synchronization
import Testing

/// ``AudioFeedback`` playing through ALSA's `file` PCM, and its queue and event rules with a test player.
///
/// The ALSA tests play on `file:FILE=…,FORMAT=raw`, the `pcm.file` that alsa-lib's global configuration
/// (/usr/share/alsa/alsa.conf, libasound2-data) defines over the `null` PCM: the samples written to the file are the
/// samples played, with no sound card and without ALSA_CONFIG_PATH. Setting that variable would mean setenv in a test
/// process whose other tests run on other threads at the same time, and alsa-lib reads it on every snd_config_update.
@Suite struct AudioFeedbackTests {
    static let logger = Logger(label: "test.audio")

    @Test func resultEventWritesTheWAVSamplesToThePCM() throws {
        let folder = try SoundFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = SoundFiles.sine(frequency: 440, milliseconds: 25, sampleRate: 8000)
        try SoundFiles.writeWAV(samples, to: folder.appendingPathComponent("result.wav").path)
        let raw = folder.appendingPathComponent("played.raw").path

        let feedback = AudioFeedback(
            configuration: AudioFeedbackConfig(folder: folder.path, device: "file:FILE=\(raw),FORMAT=raw"),
            logger: Self.logger)
        #expect(feedback.availableSounds == [.result])
        feedback.handle(.report(ScanReport(reportType: .completedResult, state: .ok, recognizerID: "till")))
        feedback.finish()

        #expect(feedback.statistics.played == 1)
        #expect(feedback.statistics.failed == 0)
        #expect(try SoundFiles.rawSamples(at: raw) == samples)
    }

    @Test func stereoFileKeepsItsInterleavedSamples() throws {
        let folder = try SoundFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = SoundFiles.sine(frequency: 1000, milliseconds: 10, sampleRate: 16_000, channels: 2)
        try SoundFiles.writeWAV(
            samples, to: folder.appendingPathComponent("start.wav").path, sampleRate: 16_000, channels: 2)
        let raw = folder.appendingPathComponent("played.raw").path

        let feedback = AudioFeedback(
            configuration: AudioFeedbackConfig(folder: folder.path, device: "file:FILE=\(raw),FORMAT=raw"),
            logger: Self.logger)
        feedback.handle(.scanningStarted(plugin: "till"))
        feedback.finish()
        #expect(try SoundFiles.rawSamples(at: raw) == samples)
    }

    @Test func missingFilePlaysNothing() throws {
        let folder = try SoundFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Only start.wav exists: the result event has no file.
        try SoundFiles.writeWAV(SoundFiles.sine(), to: folder.appendingPathComponent("start.wav").path)
        let raw = folder.appendingPathComponent("played.raw").path

        let feedback = AudioFeedback(
            configuration: AudioFeedbackConfig(folder: folder.path, device: "file:FILE=\(raw),FORMAT=raw"),
            logger: Self.logger)
        #expect(feedback.availableSounds == [.start])
        #expect(!feedback.play(.result))
        feedback.handle(.report(ScanReport(reportType: .completedResult, state: .ok, recognizerID: "till")))
        feedback.finish()

        #expect(feedback.statistics == AudioFeedback.Statistics())
        #expect(!FileManager.default.fileExists(atPath: raw))
    }

    @Test func missingDeviceCountsAFailureAndDoesNotStopPlayback() throws {
        let folder = try SoundFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SoundFiles.writeWAV(SoundFiles.sine(), to: folder.appendingPathComponent("stop.wav").path)
        let feedback = AudioFeedback(
            configuration: AudioFeedbackConfig(folder: folder.path, device: "lumascan-no-such-pcm"),
            logger: Self.logger)
        feedback.handle(.scanningAborted)
        feedback.handle(.scanningStopped(.requested))
        feedback.finish()
        #expect(feedback.statistics.failed == 2)
        #expect(feedback.statistics.played == 0)
    }

    @Test func fullQueueDropsRatherThanBlocks() {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let clip = SoundClip(samples: [1, 2, 3], channels: 1, sampleRate: 8000)
        let feedback = AudioFeedback(clips: [.result: clip], queueCapacity: 2, logger: Self.logger) { _ in
            // The first sound holds the playback thread until the test lets it go.
            started.signal()
            release.wait()
            return true
        }
        #expect(feedback.play(.result))
        started.wait()  // the thread is busy with the first sound; the queue is empty

        let clock = ContinuousClock()
        let start = clock.now
        let queued = (0..<6).map { _ in feedback.play(.result) }
        #expect(clock.now - start < .seconds(1))
        #expect(queued == [true, true, false, false, false, false])
        #expect(feedback.statistics.dropped == 4)

        for _ in 0..<3 { release.signal() }
        feedback.finish()
        #expect(feedback.statistics.played == 3)
        #expect(feedback.statistics.dropped == 4)
    }

    @Test func eventsPlayTheirSoundsAndDistanceSoundsAreRateLimited() {
        let clips = Dictionary(
            uniqueKeysWithValues: FeedbackSound.allCases.enumerated().map { index, sound in
                (sound, SoundClip(samples: [Int16(index)], channels: 1, sampleRate: 8000))
            })
        let played = Lock<[FeedbackSound]>([])
        let time = Lock(ContinuousClock.now)
        let feedback = AudioFeedback(
            clips: clips, queueCapacity: 32, logger: Self.logger, now: { time.withLock { $0 } },
            player: { clip in
                let sound = FeedbackSound.allCases[Int(clip.samples[0])]
                played.withLock { $0.append(sound) }
                return true
            })
        func detection(_ distance: DistanceStatus) -> ScanEvent {
            .detection(
                Detection(recognizerID: "till", polygon: [], normalizedPolygon: [], distance: distance, frameIndex: 0))
        }
        func advance(_ duration: Duration) { time.withLock { $0 += duration } }

        feedback.handle(.started(source: "synthetic", format: FrameFormat(pixelFormat: .grey, width: 4, height: 4)))
        feedback.handle(.scanningStarted(plugin: "till"))
        feedback.handle(detection(.tooClose))  // focus (first detection), too-close
        advance(.milliseconds(500))
        feedback.handle(detection(.tooClose))  // within 1.5 s: no sound
        feedback.handle(detection(.ok))  // no sound
        advance(.milliseconds(1500))
        feedback.handle(detection(.tooClose))  // 2 s after the first: too-close
        feedback.handle(detection(.tooFar))  // too-far has its own interval
        feedback.handle(.report(ScanReport(reportType: .inProgress, state: .unreadable, recognizerID: "till")))
        feedback.handle(.report(ScanReport(reportType: .completedResult, state: .ok, recognizerID: "till")))
        feedback.handle(.scanningStopped(.completed))
        feedback.handle(.scanningStarted(plugin: "till"))
        feedback.handle(detection(.ok))  // focus again: a new session
        feedback.handle(.scanningAborted)
        feedback.finish()

        #expect(
            played.withLock { $0 } == [
                .start, .focus, .tooClose, .tooClose, .tooFar, .result, .stop, .start, .focus, .stop,
            ])
        #expect(!feedback.play(.start))  // finished
    }

    @Test func soundLongerThanFiveSecondsIsRefused() throws {
        let folder = try SoundFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("result.wav").path
        try SoundFiles.writeWAV(SoundFiles.sine(milliseconds: 5_100, sampleRate: 8000), to: path)
        #expect {
            try SoundClip.decode(path: path)
        } throws: { error in
            (error as? AudioFeedbackError)?.code == .fileTooLarge
        }
        let feedback = AudioFeedback(
            configuration: AudioFeedbackConfig(folder: folder.path, device: "null"), logger: Self.logger)
        #expect(feedback.availableSounds.isEmpty)
        feedback.finish()
    }

    @Test func undecodableFileIsRefused() throws {
        let folder = try SoundFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("focus.wav").path
        try Data("RIFF not really a wave".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            try SoundClip.decode(path: path)
        } throws: { error in
            (error as? AudioFeedbackError)?.code == .unreadableFile
                && ((error as? AudioFeedbackError)?.message.hasPrefix(path) ?? false)
        }
    }
}
