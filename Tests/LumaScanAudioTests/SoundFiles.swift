import CSndFile
import Foundation
import LumaScanAudio

/// Sound files the tests write, and temporary folders for them.
enum SoundFiles {
    /// A sine of `frequency` Hz, `milliseconds` long, at `sampleRate`, on `channels` identical channels, interleaved.
    static func sine(
        frequency: Double = 440, milliseconds: Int = 20, sampleRate: Int = 8000, channels: Int = 1,
        amplitude: Double = 12_000
    ) -> [Int16] {
        let frames = sampleRate * milliseconds / 1000
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            let value = Int16((amplitude * sin(2 * .pi * frequency * Double(frame) / Double(sampleRate))).rounded())
            samples.append(contentsOf: repeatElement(value, count: channels))
        }
        return samples
    }

    /// Writes `samples` as a 16-bit PCM WAV file with libsndfile.
    static func writeWAV(_ samples: [Int16], to path: String, sampleRate: Int = 8000, channels: Int = 1) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw TestFailure("sf_open \(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        let frames = Int64(samples.count / channels)
        let written = samples.withUnsafeBufferPointer { sf_writef_short(file, $0.baseAddress, frames) }
        guard written == frames else { throw TestFailure("sf_writef_short \(path): wrote \(written) of \(frames)") }
    }

    /// A new empty folder under the temporary directory; the caller removes it.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lumascan-audio-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The 16-bit native-endian samples of a raw file.
    static func rawSamples(at path: String) throws -> [Int16] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
