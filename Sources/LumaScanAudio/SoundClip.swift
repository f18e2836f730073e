import CSndFile

#if canImport(Glibc)
import Glibc
#endif

/// A decoded sound: signed 16-bit samples, interleaved by channel, ready for `snd_pcm_writei`.
package struct SoundClip: Hashable, Sendable {
    /// The samples, frame after frame, each frame one sample per channel.
    package var samples: [Int16]
    /// Channels per frame (1 to ``maxChannels``).
    package var channels: Int
    /// Frames per second.
    package var sampleRate: Int

    /// The longest sound decoded: a feedback sound is a short cue, and a longer one would hold the playback thread.
    package static let maxSeconds = 5
    /// The largest file opened, so that a mistaken multi-gigabyte file is refused before libsndfile reads it.
    package static let maxFileBytes = 16 << 20
    /// The most channels a clip may have.
    package static let maxChannels = 8

    /// Creates a clip; `samples.count` must be a multiple of `channels`.
    package init(samples: [Int16], channels: Int, sampleRate: Int) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }

    /// Frames in the clip.
    package var frameCount: Int { channels > 0 ? samples.count / channels : 0 }

    /// Decodes the sound file at `path` with libsndfile (WAV, FLAC, Ogg and the other formats it reads), converting
    /// to 16-bit samples.
    ///
    /// - Throws: ``AudioFeedbackError`` naming `path`: ``AudioFeedbackError/Code/unreadableFile`` when it cannot be
    ///   opened or decoded, ``AudioFeedbackError/Code/fileTooLarge`` when it is larger than ``maxFileBytes``, longer
    ///   than ``maxSeconds`` or has more than ``maxChannels`` channels.
    package static func decode(path: String) throws(AudioFeedbackError) -> SoundClip {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let error = errno
            throw AudioFeedbackError(
                .unreadableFile, "\(path): \(String(cString: strerror(error)))", errno: error)
        }
        guard Int(status.st_size) <= maxFileBytes else {
            throw AudioFeedbackError(
                .fileTooLarge, "\(path): \(status.st_size) bytes is above the \(maxFileBytes >> 20) MB a sound may be")
        }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFeedbackError(.unreadableFile, "\(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        let sampleRate = Int(info.samplerate)
        guard (1...maxChannels).contains(channels), (1...768_000).contains(sampleRate), info.frames >= 0 else {
            throw AudioFeedbackError(
                .fileTooLarge, "\(path): \(channels) channel(s) at \(sampleRate) Hz is not a playable feedback sound")
        }
        guard info.frames <= Int64(sampleRate * maxSeconds) else {
            let seconds = Double(info.frames) / Double(sampleRate)
            throw AudioFeedbackError(
                .fileTooLarge,
                "\(path): \((seconds * 10).rounded() / 10) s is longer than the \(maxSeconds) s a sound may last")
        }
        let frames = Int(info.frames)
        var samples = [Int16](repeating: 0, count: frames * channels)
        let read = samples.withUnsafeMutableBufferPointer { buffer -> Int64 in
            // SAFETY: the buffer holds `frames` frames of `channels` samples, as many as sf_readf_short is asked for.
            guard let base = buffer.baseAddress else { return 0 }
            return sf_readf_short(file, base, Int64(frames))
        }
        guard read == Int64(frames) else {
            throw AudioFeedbackError(
                .unreadableFile,
                "\(path): decoded \(read) of \(frames) frames: \(String(cString: sf_strerror(file)))")
        }
        return SoundClip(samples: samples, channels: channels, sampleRate: sampleRate)
    }
}
