/// The sounds ``AudioFeedback`` plays, one file each in the configured folder.
public enum FeedbackSound: String, Hashable, Sendable, CaseIterable {
    /// `focus.wav`: the first code located after scanning started.
    case focus
    /// `start.wav`: scanning started.
    case start
    /// `stop.wav`: scanning stopped or was aborted.
    case stop
    /// `too-close.wav`: a code is too close (it fills too much of the frame).
    case tooClose = "too-close"
    /// `too-far.wav`: a code is too far (it is too small in the frame).
    case tooFar = "too-far"
    /// `result.wav`: a recognizer reported a COMPLETED_RESULT.
    case result

    /// The sound's file name in the folder, such as `too-close.wav`.
    public var fileName: String { "\(rawValue).wav" }
}
