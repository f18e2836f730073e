import LumaScanCore

/// `audioFeedback`: sounds played as scanning goes, as the TireTread SDK plays them (LumaScanAudio's
/// `AudioFeedback` plays them; the engine itself makes no sound).
///
/// ```json
/// "audioFeedback": {"folder": "/usr/share/lumascan/sounds", "device": "default"}
/// ```
///
/// The folder holds one WAV file (or any format libsndfile reads) per event: `start.wav` (scanning started),
/// `focus.wav` (the first code located after scanning started), `too-close.wav` and `too-far.wav` (a code's distance
/// status), `result.wav` (a COMPLETED_RESULT report) and `stop.wav` (scanning stopped or was aborted). A missing file
/// is no sound.
public struct AudioFeedbackConfig: Hashable, Sendable, Codable {
    /// The folder of the sound files.
    ///
    /// Default: none; the key is required.
    public let folder: String
    /// The ALSA PCM to play on, as `aplay -D` names it: `default`, `plughw:1,0`, or a PCM the ALSA configuration
    /// defines.
    ///
    /// Default: `"default"`.
    public let device: String

    /// Creates an audio feedback configuration; `device` has the default its property documents.
    public init(folder: String, device: String = "default") {
        self.folder = folder
        self.device = device
    }

    /// Checks the values; errors start with the JSON path under `check` (`audioFeedback.folder: must not be empty`).
    public func validate(_ check: ConfigurationCheck) throws(LumaScanError) {
        for (key, value) in [("folder", folder), ("device", device)] {
            if value.isEmpty { throw check.fail(key, "must not be empty") }
            // C strings end at a NUL: the file or PCM opened would not be the one named.
            if value.utf8.contains(0) { throw check.fail(key, "must not hold a NUL character") }
        }
    }

    // MARK: Codable

    private static let keys = ["folder", "device"]

    /// Decodes `audioFeedback`: `folder` is required, an absent or null `device` is `"default"`; unknown keys and
    /// wrong types are errors naming their JSON path.
    public init(from decoder: any Decoder) throws {
        try ConfigurationKeys.reject(unknownKeysIn: decoder, known: Self.keys)
        let container = try decoder.container(keyedBy: ConfigKey.self)
        guard let folder: String = try container.optional("folder") else {
            throw ConfigurationPath.error(container.path("folder"), "missing required key (the folder of the sounds)")
        }
        self.folder = folder
        device = try container.value("device", default: "default")
    }

    /// Encodes `{"device": …, "folder": …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ConfigKey.self)
        try container.encode(folder, forKey: ConfigKey(stringValue: "folder"))
        try container.encode(device, forKey: ConfigKey(stringValue: "device"))
    }
}
