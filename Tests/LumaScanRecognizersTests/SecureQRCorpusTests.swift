import Foundation
import Logging
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// The rendered corpus (``SecureQRCorpus``): over 1,000 generated frames, each classified by a fresh recognizer, with
/// per-state accuracy, report types, pattern positions and the unsupported mode checked against how each frame was
/// made.
@Suite("SecureQR corpus")
struct SecureQRCorpusTests {
    struct Outcome: Sendable {
        var recipe: SecureQRCorpus.Recipe
        var state: ScanState
        var reportType: ReportType
        var unsupported: (ReportType, ScanState)?
        /// Largest distance from a located pattern centre to the truth, in modules.
        var centreError: Double?
    }

    static let states: [ScanState] = [
        .ok, .blurry, .tooSmall, .fingerprintNotInFrame, .noAuth, .notProprietary, .unreadable,
    ]

    @Test("over 1,000 frames, every state is recognised at least 98 % of the time")
    func accuracy() throws {
        let recipes = SecureQRCorpus.recipes()
        #expect(recipes.count >= 1000)
        let workers = 2
        let collected = Lock<(outcomes: [Outcome], failure: (any Error)?)>(([], nil))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            do {
                let logger = Logger(label: "test.secure-qr")
                let secure = try [false, true].map {
                    try SecureQRRecognizer(configuration: SecureQRCorpus.configuration(hybrid: $0), logger: logger)
                }
                let unsupported = try SecureQRRecognizer(
                    configuration: SecureQRCorpus.configuration(hybrid: false, mode: .unsupported), logger: logger)
                var mine: [Outcome] = []
                var reports: [ScanReport] = []
                for recipe in recipes where recipe.index % workers == worker {
                    let scene = try SecureQRCorpus.render(recipe)
                    let recognizer = secure[recipe.hybrid ? 1 : 0]
                    recognizer.reset()
                    reports.removeAll()
                    let metadata = FrameMetadata.test(
                        index: UInt64(recipe.index), width: scene.image.width, height: scene.image.height)
                    scene.image.withView { recognizer.process($0, metadata: metadata, into: &reports) }
                    guard reports.count == 1, let report = reports.first else {
                        Issue.record("\(recipe): \(reports.count) reports")
                        continue
                    }
                    var outcome = Outcome(recipe: recipe, state: report.state, reportType: report.reportType)
                    if let truth = scene.centres, [.ok, .blurry, .noAuth].contains(report.state),
                        let geometry = recognizer.lastFrameAnalysis?.geometry
                    {
                        let found = geometry.patternCentres
                        let located = [found.topLeft, found.topRight, found.bottomLeft, found.alignment]
                        outcome.centreError =
                            zip(located, truth).map { hypot($0.x - $1.x, $0.y - $1.y) }.max().map {
                                $0 / scene.modulePixels
                            }
                    }
                    if recipe.index % 4 == 0, recipe.content != .occludedAlignment, !recipe.hybrid {
                        unsupported.reset()
                        reports.removeAll()
                        scene.image.withView { unsupported.process($0, metadata: metadata, into: &reports) }
                        if let report = reports.first { outcome.unsupported = (report.reportType, report.state) }
                    }
                    mine.append(outcome)
                }
                collected.withLock { $0.outcomes += mine }
            } catch {
                collected.withLock { $0.failure = error }
            }
        }
        let (outcomes, failure) = collected.withLock { $0 }
        if let failure { throw failure }
        #expect(outcomes.count == recipes.count)

        // Confusion matrix: rows are the expected states, columns what the recognizer said.
        var matrix: [ScanState: [ScanState: Int]] = [:]
        for outcome in outcomes { matrix[outcome.recipe.expected, default: [:]][outcome.state, default: 0] += 1 }
        let names = Self.states.map { String($0.rawValue.prefix(9)) }
        var table = "expected \\ got".padding(toLength: 16, withPad: " ", startingAt: 0)
        table += names.map { $0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined() + "accuracy\n"
        for expected in Self.states {
            let row = matrix[expected, default: [:]]
            let total = row.values.reduce(0, +)
            let right = row[expected, default: 0]
            table += String(expected.rawValue.prefix(15)).padding(toLength: 16, withPad: " ", startingAt: 0)
            table += Self.states.map { String(row[$0, default: 0]).padding(toLength: 10, withPad: " ", startingAt: 0) }
                .joined()
            table += String(format: "%.1f %% of %d\n", 100 * Double(right) / Double(max(1, total)), total)
        }
        print("Secure QR corpus confusion matrix (\(outcomes.count) frames):\n" + table)
        for expected in Self.states {
            let row = matrix[expected, default: [:]]
            let total = row.values.reduce(0, +)
            #expect(total >= 50, "too few \(expected.rawValue) scenes")
            let accuracy = Double(row[expected, default: 0]) / Double(max(1, total))
            #expect(accuracy >= 0.98, "\(expected.rawValue): \(accuracy)\n\(table)")
        }
        let wrong = outcomes.filter { $0.state != $0.recipe.expected }
        for outcome in wrong.prefix(30) { print("misclassified as \(outcome.state.rawValue): \(outcome.recipe)") }

        // Report types: the first frame of each state in a fresh recognizer.
        for outcome in outcomes where outcome.state == outcome.recipe.expected {
            #expect(
                outcome.reportType == SecureQRCorpus.reportType(firstFrameIn: outcome.state),
                "\(outcome.recipe): \(outcome.reportType.rawValue)")
        }

        // Pattern centres within 0.2 module of the truth.
        let errors = outcomes.compactMap(\.centreError)
        #expect(errors.count >= 300)
        let far = errors.filter { $0 > 0.2 }
        #expect(far.count <= errors.count / 100, "\(far.count) of \(errors.count) beyond 0.2 module: \(far.prefix(10))")
        print(String(format: "pattern centres: %d located, worst %.3f module", errors.count, errors.max() ?? 0))

        // Unsupported mode: a plain QR reader, whatever the secure graphic shows.
        var unsupportedChecked = 0
        var unsupportedWrong: [String] = []
        for outcome in outcomes {
            guard let (type, state) = outcome.unsupported else { continue }
            let recipe = outcome.recipe
            let expected: ScanState
            switch recipe.content {
            case .empty, .linear, .cut: expected = .unreadable
            case .foreign, .foreignSecure: expected = .notProprietary
            default: expected = .ok
            }
            unsupportedChecked += 1
            if type != .unsupportedResult || state != expected {
                unsupportedWrong.append("\(type.rawValue)/\(state.rawValue): \(recipe)")
            }
        }
        print("unsupported mode: \(unsupportedChecked - unsupportedWrong.count) of \(unsupportedChecked) right")
        #expect(
            unsupportedWrong.count * 50 <= unsupportedChecked, "\(unsupportedWrong.joined(separator: "\n"))")
        #expect(unsupportedChecked >= 150)
    }
}
