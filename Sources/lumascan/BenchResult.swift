// What `lumascan bench` measured and how it prints it: the summary for people and the JSON document for scripts.
import Foundation
import LumaScan
import LumaScanBenchKit

/// What the baseline pass measured.
struct BenchComparison {
    var frames = 0
    var lumascanNanoseconds: UInt64 = 0
    var zbarNanoseconds: UInt64 = 0
    var lumascanCodes = 0
    var zbarCodes = 0
    var zxingNanoseconds: UInt64 = 0
    var zxingCodes = 0
    /// Frames on which ZXing-C++ failed one of its own assertions (where ZXingReader would abort).
    var zxingAssertionFailures = 0

    var lumascanMilliseconds: Double { Double(lumascanNanoseconds) / 1e6 / Double(max(1, frames)) }
    var zbarMilliseconds: Double { Double(zbarNanoseconds) / 1e6 / Double(max(1, frames)) }
    /// How many times faster than zbar the recognizer is.
    var ratio: Double { Double(zbarNanoseconds) / Double(max(1, lumascanNanoseconds)) }
    var zxingMilliseconds: Double { Double(zxingNanoseconds) / 1e6 / Double(max(1, frames)) }
    /// How many times faster than raw ZXing-C++ the recognizer is.
    var zxingRatio: Double { Double(zxingNanoseconds) / Double(max(1, lumascanNanoseconds)) }
}

/// Everything `lumascan bench` reports.
struct BenchResult {
    var recognizer: BenchRecognizer
    /// The configuration file whose plugin's recognizer was measured (`--config`), instead of `recognizer`.
    var configuration: String?
    var source: String
    var format: FrameFormat
    var symbologies: [Symbology]
    var framesRequested: Int
    var statistics: ScanStatistics
    var wallSeconds: Double
    var paced: Double?
    var recognizerNanoseconds: [UInt64]
    var steadyOverheadNanoseconds: Double?
    var latencies: [UInt64]
    var usage: ResourceUsage
    var preview: PreviewViewers.Outcome
    var comparison: BenchComparison?

    var framesPerSecond: Double { Double(statistics.framesProcessed) / max(wallSeconds, 1e-9) }
    var drops: UInt64 { statistics.framesDroppedByRing + statistics.framesDroppedByDriver }
    var cpuPercent: Double { 100 * usage.cpuSeconds / max(wallSeconds, 1e-9) }

    func milliseconds(_ values: [UInt64], _ fraction: Double) -> Double { Double(percentile(values, fraction)) / 1e6 }

    func summary() -> String {
        let symbologyText =
            Set(symbologies) == Set(Symbology.allCases)
            ? "every symbology" : symbologies.map(\.rawValue).joined(separator: ",")
        func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
        var lines = [
            "lumascan bench: "
                + (configuration.map { "the recognizer of \($0)" }
                    ?? "\(recognizer.rawValue) recognizer\(recognizer == .barcode ? " (\(symbologyText))" : "")")
                + " on "
                + "\(source), \(format.width)x\(format.height)"
                + " \(format.pixelFormat), \(statistics.framesProcessed) frames"
                + (paced.map { String(format: ", paced at %.1f fps", $0) } ?? ", full speed"),
            String(format: "  throughput       %.1f frames/s", framesPerSecond),
            "  recognizer       p50 \(ms(milliseconds(recognizerNanoseconds, 0.5)))   "
                + "p90 \(ms(milliseconds(recognizerNanoseconds, 0.9)))   "
                + "p99 \(ms(milliseconds(recognizerNanoseconds, 0.99))) per frame",
            "  capture-report   p50 \(ms(milliseconds(latencies, 0.5)))   p90 \(ms(milliseconds(latencies, 0.9)))   "
                + "p99 \(ms(milliseconds(latencies, 0.99)))",
        ]
        if let steadyOverheadNanoseconds {
            lines.append("  engine overhead  \(ms(steadyOverheadNanoseconds / 1e6)) per frame (recognition thread)")
        }
        lines += [
            String(
                format: "  CPU              %.0f %% (%.2f s user, %.2f s system)", cpuPercent, usage.userSeconds,
                usage.systemSeconds),
            String(format: "  peak memory      %.1f MiB", Double(usage.peakResidentBytes) / 1_048_576),
            "  drops            \(drops) (ring \(statistics.framesDroppedByRing), driver "
                + "\(statistics.framesDroppedByDriver)), corrupt \(statistics.framesCorrupt)",
            "  preview          \(preview.viewers) viewers, \(preview.framesEncoded) JPEGs encoded, "
                + "\(preview.framesReceived) received",
        ]
        if let comparison {
            lines.append(
                String(format: "  vs raw zbar      %.1fx faster", comparison.ratio)
                    + (recognizer == .barcode ? ": " : " (zbar reading \(symbologyText)): ")
                    + "\(ms(comparison.lumascanMilliseconds)) vs \(ms(comparison.zbarMilliseconds)) per frame on the "
                    + "same \(comparison.frames) frames; codes read \(comparison.lumascanCodes) vs "
                    + "\(comparison.zbarCodes)"
            )
            lines.append(
                String(format: "  vs raw ZXing-C++ %.1fx faster: ", comparison.zxingRatio)
                    + "\(ms(comparison.lumascanMilliseconds)) vs \(ms(comparison.zxingMilliseconds)) per frame on the "
                    + "same frames; codes read \(comparison.lumascanCodes) vs \(comparison.zxingCodes)"
                    + (comparison.zxingAssertionFailures > 0
                        ? " (ZXing-C++ failed an assertion on \(comparison.zxingAssertionFailures) frames)" : "")
            )
        }
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        func percentiles(_ values: [UInt64]) -> [String: Any] {
            ["p50": milliseconds(values, 0.5), "p90": milliseconds(values, 0.9), "p99": milliseconds(values, 0.99)]
        }
        var object: [String: Any] = [
            "schemaVersion": 1,
            "recognizer": configuration == nil ? recognizer.rawValue : "configuration",
            "symbologies": symbologies.map(\.rawValue),
            "source": source,
            "pixelFormat": format.pixelFormat.description,
            "width": format.width,
            "height": format.height,
            "framesRequested": framesRequested,
            "framesCaptured": Int(statistics.framesCaptured),
            "framesProcessed": Int(statistics.framesProcessed),
            "seconds": wallSeconds,
            "framesPerSecond": framesPerSecond,
            "msPerFrame": percentiles(recognizerNanoseconds),
            "captureToReportMs": percentiles(latencies),
            "cpuPercent": cpuPercent,
            "cpuUserSeconds": usage.userSeconds,
            "cpuSystemSeconds": usage.systemSeconds,
            "peakMemoryBytes": usage.peakResidentBytes,
            "drops": Int(drops),
            "droppedByRing": Int(statistics.framesDroppedByRing),
            "droppedByDriver": Int(statistics.framesDroppedByDriver),
            "corrupt": Int(statistics.framesCorrupt),
            "previewViewers": preview.viewers,
            "previewFramesEncoded": Int(preview.framesEncoded),
            "previewFramesReceived": preview.framesReceived,
        ]
        if let configuration { object["configuration"] = configuration }
        if let paced { object["fps"] = paced }
        if let steadyOverheadNanoseconds { object["engineOverheadMs"] = steadyOverheadNanoseconds / 1e6 }
        if let comparison {
            object["zbar"] = [
                "frames": comparison.frames,
                "ratio": comparison.ratio,
                "lumascanMsPerFrame": comparison.lumascanMilliseconds,
                "zbarMsPerFrame": comparison.zbarMilliseconds,
                "lumascanCodesRead": comparison.lumascanCodes,
                "zbarCodesRead": comparison.zbarCodes,
            ]
            object["zxing"] = [
                "frames": comparison.frames,
                "ratio": comparison.zxingRatio,
                "lumascanMsPerFrame": comparison.lumascanMilliseconds,
                "zxingMsPerFrame": comparison.zxingMilliseconds,
                "lumascanCodesRead": comparison.lumascanCodes,
                "zxingCodesRead": comparison.zxingCodes,
                "zxingAssertionFailures": comparison.zxingAssertionFailures,
            ]
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
