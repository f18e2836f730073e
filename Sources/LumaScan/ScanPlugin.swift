import LumaScanCore

/// What the engine scans with: recognizers plus the scanning rules of Anyline's `pluginConfig`.
///
/// A plugin is immutable; ``ScanEngine/setPlugin(_:)`` swaps one for another between two frames while the camera
/// keeps streaming (Anyline's `setScanViewPlugin`). Build one from JSON with
/// ``ScanConfiguration/makePlugin(logger:)``, or directly.
public struct ScanPlugin: Sendable {
    /// The plugin's id, for logs and events.
    public var id: String
    /// The recognizer the plugin runs on every frame (a composite runs several).
    public var recognizer: any Recognizer
    /// Stop scanning after the first COMPLETED_RESULT report (for a parallel composite: once every member has
    /// completed). Default: `false`.
    public var cancelOnResult: Bool
    /// How long after scanning starts the first frame is recognised. Default: zero.
    public var startScanDelay: Duration
    /// Scanning stops by itself after this long without a completed result; `nil` never. Default: 10 s.
    public var scanTimeout: Duration?
    /// Ring the terminal bell on each COMPLETED_RESULT (honoured by the CLI). Default: `false`.
    public var beepOnResult: Bool
    /// The bounds that turn a detected code's size into a ``DistanceStatus``. Default: ``DistanceBounds/init()``.
    public var distanceBounds: DistanceBounds

    /// Creates a plugin.
    public init(
        id: String, recognizer: any Recognizer, cancelOnResult: Bool = false, startScanDelay: Duration = .zero,
        scanTimeout: Duration? = .seconds(10), beepOnResult: Bool = false, distanceBounds: DistanceBounds = .init()
    ) {
        self.id = id
        self.recognizer = recognizer
        self.cancelOnResult = cancelOnResult
        self.startScanDelay = startScanDelay
        self.scanTimeout = scanTimeout
        self.beepOnResult = beepOnResult
        self.distanceBounds = distanceBounds
    }
}

/// How far a detected code is, judged from its size in the frame (TireTread's `onDistanceChanged`).
public enum DistanceStatus: String, Hashable, Sendable, Codable {
    /// The code is small in the frame: move the camera closer.
    case tooFar
    /// The code's size is within bounds.
    case ok
    /// The code fills too much of the frame: move the camera away.
    case tooClose
}

/// The code sizes, as a fraction of the frame's width covered by the code's bounding box, that separate
/// ``DistanceStatus/tooFar``, ``DistanceStatus/ok`` and ``DistanceStatus/tooClose``.
public struct DistanceBounds: Hashable, Sendable, Codable {
    /// Below this fraction of the frame width the code is too far. Default: `0.1`.
    public var tooFarBelow: Double
    /// Above this fraction of the frame width the code is too close. Default: `0.8`.
    public var tooCloseAbove: Double

    /// Creates bounds; every parameter has the default its property documents.
    public init(tooFarBelow: Double = 0.1, tooCloseAbove: Double = 0.8) {
        self.tooFarBelow = tooFarBelow
        self.tooCloseAbove = tooCloseAbove
    }

    /// The status of a code whose polygon is `polygon` in a frame `frameWidth` pixels wide.
    public func status(of polygon: [Point], frameWidth: Int) -> DistanceStatus {
        // The bounding box in one pass, without arrays of the coordinates: the engine asks for every frame with a
        // polygon, and the recognition thread allocates nothing per frame of its own.
        guard let first = polygon.first, frameWidth > 0 else { return .ok }
        var (minX, maxX, minY, maxY) = (first.x, first.x, first.y, first.y)
        for point in polygon.dropFirst() {
            minX = min(minX, point.x)
            maxX = max(maxX, point.x)
            minY = min(minY, point.y)
            maxY = max(maxY, point.y)
        }
        let fraction = max(maxX - minX, maxY - minY) / Double(frameWidth)
        if fraction < tooFarBelow { return .tooFar }
        if fraction > tooCloseAbove { return .tooClose }
        return .ok
    }
}

/// Several recognizers as one, as Anyline's composite view plugins combine them.
///
/// - ``Mode/parallel``: every member reads every frame; the composite has completed once each member has reported a
///   COMPLETED_RESULT.
/// - ``Mode/sequential``: one member at a time; a member's COMPLETED_RESULT hands over to the next one (reset, from
///   the next frame on); the composite has completed when the last member completes.
///
/// - Important: Like every recognizer, it is called on the engine's recognition thread only.
public final class CompositeRecognizer: CompletingRecognizer, @unchecked Sendable {
    // SAFETY (Sendable): the engine calls process/reset on its recognition thread only.

    /// How the members share frames.
    public enum Mode: String, Hashable, Sendable, Codable {
        /// Every member reads every frame.
        case parallel
        /// One member at a time, handing over on a completed result.
        case sequential
    }

    /// The composite's id.
    public let id: String
    /// How the members share frames.
    public let mode: Mode
    /// The members, in order.
    public let members: [any Recognizer]
    private var completed: [Bool]
    private var current = 0

    /// Creates a composite of `members` (none makes a recognizer that reports nothing).
    public init(id: String, mode: Mode, members: [any Recognizer]) {
        self.id = id
        self.mode = mode
        self.members = members
        completed = Array(repeating: false, count: members.count)
    }

    /// Whether the composite has completed: every member (parallel) or the last member (sequential).
    public var hasCompleted: Bool { completed.allSatisfy { $0 } }

    /// The member reading frames now (sequential), or `nil` when every member reads (parallel) or all completed.
    public var activeMember: (any Recognizer)? {
        mode == .sequential && current < members.count ? members[current] : nil
    }

    /// Runs the members on the frame, as the mode says.
    public func process(_ luma: LumaView, metadata: FrameMetadata, into reports: inout [ScanReport]) {
        switch mode {
        case .parallel:
            for (index, member) in members.enumerated() {
                let start = reports.count
                member.process(luma, metadata: metadata, into: &reports)
                if reports[start...].contains(where: { $0.reportType == .completedResult }) { completed[index] = true }
            }
        case .sequential:
            guard current < members.count else { return }
            let start = reports.count
            members[current].process(luma, metadata: metadata, into: &reports)
            if reports[start...].contains(where: { $0.reportType == .completedResult }) {
                completed[current] = true
                current += 1
                if current < members.count { members[current].reset() }
            }
        }
    }

    /// Starts again with every member fresh (and, sequentially, with the first).
    public func reset() {
        for member in members { member.reset() }
        completed = Array(repeating: false, count: members.count)
        current = 0
    }
}
