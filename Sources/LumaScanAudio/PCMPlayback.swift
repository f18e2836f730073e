import CALSA

/// Plays a clip on an ALSA PCM from start to end: open, set up, write, drain, close.
///
/// Blocking: it returns when the clip has been played (or written, for a file or null PCM). Only ``AudioFeedback``'s
/// playback thread calls it.
package enum PCMPlayback {
    /// How long ALSA's buffer holds, in microseconds: short, so that the sound starts soon after its event.
    static let latencyMicroseconds: UInt32 = 100_000
    /// The most times in a row a write may fail and be recovered (an underrun or a suspend) before playback gives up.
    static let maxRecoveries = 8

    #if _endian(big)
    static let format = SND_PCM_FORMAT_S16_BE
    #else
    static let format = SND_PCM_FORMAT_S16_LE
    #endif

    /// Plays `clip` on the ALSA PCM named `device` (`default`, `plughw:1,0`, `file:FILE=/tmp/out.raw,FORMAT=raw`).
    ///
    /// - Throws: ``AudioFeedbackError`` with code ``AudioFeedbackError/Code/playbackFailed``, naming the device, the
    ///   call that failed and ALSA's message, when the PCM cannot be opened or set up or a write fails for good.
    package static func play(_ clip: SoundClip, device: String) throws(AudioFeedbackError) {
        func failure(_ call: String, _ result: Int32) -> AudioFeedbackError {
            AudioFeedbackError(
                .playbackFailed, "ALSA \(device): \(call): \(String(cString: snd_strerror(result)))", errno: -result)
        }
        var handle: OpaquePointer?
        let opened = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard opened >= 0, let pcm = handle else { throw failure("snd_pcm_open", opened) }
        defer { snd_pcm_close(pcm) }
        // soft_resample 1: ALSA's plug layer converts the clip's rate and channels when the hardware cannot take them.
        let setUp = snd_pcm_set_params(
            pcm, format, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(clip.channels), UInt32(clip.sampleRate), 1,
            latencyMicroseconds)
        guard setUp >= 0 else { throw failure("snd_pcm_set_params", setUp) }

        let frames = clip.frameCount
        var offset = 0
        var recoveries = 0
        while offset < frames {
            let written = clip.samples.withUnsafeBufferPointer { buffer -> Int in
                // SAFETY: `offset` < `frames`, so the pointer and the frame count stay within the clip's samples.
                guard let base = buffer.baseAddress else { return 0 }
                return snd_pcm_writei(pcm, base + offset * clip.channels, snd_pcm_uframes_t(frames - offset))
            }
            if written >= 0 {
                offset += written
                recoveries = 0
                continue
            }
            // -EPIPE (an underrun: the thread was late) and -ESTRPIPE (the device was suspended): snd_pcm_recover
            // prepares the PCM again and the write is retried; -EINTR is retried too. Anything else is final.
            recoveries += 1
            let recovered = snd_pcm_recover(pcm, Int32(written), 1)
            guard recovered >= 0, recoveries <= maxRecoveries else { throw failure("snd_pcm_writei", Int32(written)) }
        }
        let drained = snd_pcm_drain(pcm)
        guard drained >= 0 else { throw failure("snd_pcm_drain", drained) }
    }
}
