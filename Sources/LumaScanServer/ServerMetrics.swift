import LumaScan
import LumaScanCore
import Metrics
import Synchronization

/// The engine's figures as metrics, through the `MetricsFactory` the server was given (the CLI bootstraps Prometheus).
///
/// The counters that mirror ``ScanStatistics`` and the gauges are brought up to date from the engine's statistics when
/// ``refresh()`` is called (on each scrape), so the engine pays nothing per frame for them; the report counters and the
/// capture-to-report histogram are recorded from the events the server already receives.
final class ServerMetrics: Sendable {
    private let factory: any MetricsFactory
    private let framesCaptured: Counter
    private let framesProcessed: Counter
    private let droppedByRing: Counter
    private let droppedByDriver: Counter
    private let corrupt: Counter
    private let sourceFailures: Counter
    private let sourceRecoveries: Counter
    private let previewEncoded: Counter
    private let eventsDroppedBySSE: Counter
    private let deliveryQueueDepth: Gauge
    private let previewViewers: Gauge
    private let eventClients: Gauge
    private let captureToReport: Timer
    private let reportCounters = Lock<[String: Counter]>([:])
    /// The figures last pushed into the counters, so that each refresh adds only what changed.
    private let last = Lock<[UInt64]>(Array(repeating: 0, count: 8))

    /// Creates the metric handles once.
    init(factory: any MetricsFactory) {
        self.factory = factory
        framesCaptured = Counter(label: "lumascan_frames_captured_total", factory: factory)
        framesProcessed = Counter(label: "lumascan_frames_processed_total", factory: factory)
        droppedByRing = Counter(
            label: "lumascan_frames_dropped_total", dimensions: [("reason", "ring")], factory: factory)
        droppedByDriver = Counter(
            label: "lumascan_frames_dropped_total", dimensions: [("reason", "driver")], factory: factory)
        corrupt = Counter(label: "lumascan_frames_corrupt_total", factory: factory)
        sourceFailures = Counter(label: "lumascan_source_failures_total", factory: factory)
        sourceRecoveries = Counter(label: "lumascan_source_recoveries_total", factory: factory)
        previewEncoded = Counter(label: "lumascan_preview_frames_encoded_total", factory: factory)
        eventsDroppedBySSE = Counter(label: "lumascan_sse_events_dropped_total", factory: factory)
        deliveryQueueDepth = Gauge(label: "lumascan_delivery_queue_depth", factory: factory)
        previewViewers = Gauge(label: "lumascan_preview_viewers", factory: factory)
        eventClients = Gauge(label: "lumascan_event_clients", factory: factory)
        captureToReport = Timer(
            label: "lumascan_capture_to_report_seconds", dimensions: [],
            handler: factory.makeTimer(label: "lumascan_capture_to_report_seconds", dimensions: []), factory: factory)
    }

    /// Brings the statistics-derived counters and the gauges up to date.
    func refresh(engine: ScanEngine, eventsDroppedBySSE sseDropped: UInt64, eventClients clients: Int) {
        let statistics = engine.statistics
        let now: [UInt64] = [
            statistics.framesCaptured, statistics.framesProcessed, statistics.framesDroppedByRing,
            statistics.framesDroppedByDriver, statistics.framesCorrupt, statistics.sourceFailures,
            engine.preview.previewFramesEncoded, sseDropped,
        ]
        let counters = [
            framesCaptured, framesProcessed, droppedByRing, droppedByDriver, corrupt, sourceFailures, previewEncoded,
            eventsDroppedBySSE,
        ]
        let deltas: [UInt64] = last.withLock { last in
            defer { last = zip(last, now).map { max($0, $1) } }
            return zip(last, now).map { $1 > $0 ? $1 - $0 : 0 }
        }
        for (counter, delta) in zip(counters, deltas) where delta > 0 { counter.increment(by: delta) }
        deliveryQueueDepth.record(engine.deliveryQueueDepth)
        previewViewers.record(engine.preview.viewerCountNow)
        eventClients.record(clients)
    }

    /// Records what an event says: a report's counter and capture-to-report time, a source recovery.
    func record(_ event: ScanEvent) {
        switch event {
        case .report(let report):
            let symbology = report.symbology?.rawValue ?? ""
            let key =
                "\(report.recognizerID)\u{0}\(report.reportType.rawValue)\u{0}\(report.state.rawValue)\u{0}\(symbology)"
            let counter = reportCounters.withLock { counters in
                if let counter = counters[key] { return counter }
                let counter = Counter(
                    label: "lumascan_reports_total",
                    dimensions: [
                        ("recognizer", report.recognizerID), ("type", report.reportType.rawValue),
                        ("state", report.state.rawValue), ("symbology", symbology),
                    ], factory: factory)
                counters[key] = counter
                return counter
            }
            counter.increment()
            captureToReport.recordNanoseconds(
                Int64(clamping: report.reportTime.since(report.captureTime).nanosecondsClamped))
        case .sourceRecovered:
            sourceRecoveries.increment()
        default:
            break
        }
    }
}
