/// Scores readings against ground truth the way the accuracy tests and benchmarks report them.
///
/// Digit accuracy is 1 − (edit distance between the digit strings) / (digits in the truth), so a missed or extra
/// digit counts once; a reading is right only when its text (decimal point included) equals the truth.
public struct MeterScore: Sendable, CustomStringConvertible {
    /// Readings scored.
    public private(set) var readings = 0
    /// Readings whose text equals the truth.
    public private(set) var correctReadings = 0
    /// Digits in the truths.
    public private(set) var digits = 0
    /// Digit edits (substitutions, misses, extras) needed to turn the readings into the truths.
    public private(set) var digitErrors = 0
    /// Readings at or above the confidence threshold given to ``add(truth:read:confidence:threshold:)``.
    public private(set) var confidentReadings = 0
    /// Of those, readings that are wrong.
    public private(set) var confidentMisreads = 0
    /// Confusions, truth digit → read digit ("-" for a missed or extra digit), with counts.
    public private(set) var confusions: [String: Int] = [:]

    /// An empty score.
    public init() {}

    /// Whole-reading accuracy, 0–1.
    public var readingAccuracy: Double { readings == 0 ? 0 : Double(correctReadings) / Double(readings) }
    /// Digit accuracy, 0–1.
    public var digitAccuracy: Double { digits == 0 ? 0 : 1 - Double(digitErrors) / Double(digits) }

    /// Scores one reading.
    public mutating func add(truth: String, read: String, confidence: Double = 100, threshold: Double = 0) {
        readings += 1
        if truth == read { correctReadings += 1 }
        if confidence >= threshold {
            confidentReadings += 1
            if truth != read { confidentMisreads += 1 }
        }
        let expected = Array(truth.filter(\.isNumber))
        let actual = Array(read.filter(\.isNumber))
        digits += expected.count
        let edits = Self.alignment(expected, actual)
        digitErrors += edits.count
        for (from, to) in edits { confusions["\(from)→\(to)", default: 0] += 1 }
    }

    /// The edits of a minimal alignment: (truth character or "-", read character or "-") for each difference.
    static func alignment(_ a: [Character], _ b: [Character]) -> [(String, String)] {
        var cost = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { cost[i][0] = i }
        for j in 0...b.count { cost[0][j] = j }
        if !a.isEmpty && !b.isEmpty {
            for i in 1...a.count {
                for j in 1...b.count {
                    cost[i][j] = min(
                        cost[i - 1][j] + 1, cost[i][j - 1] + 1, cost[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                }
            }
        }
        var edits: [(String, String)] = []
        var i = a.count
        var j = b.count
        while i > 0 || j > 0 {
            if i > 0, j > 0, cost[i][j] == cost[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1) {
                if a[i - 1] != b[j - 1] { edits.append((String(a[i - 1]), String(b[j - 1]))) }
                i -= 1
                j -= 1
            } else if i > 0, cost[i][j] == cost[i - 1][j] + 1 {
                edits.append((String(a[i - 1]), "-"))
                i -= 1
            } else {
                edits.append(("-", String(b[j - 1])))
                j -= 1
            }
        }
        return edits
    }

    /// For example `"500 readings: 96.2% right, digits 98.9%, confident misreads 2/480; confusions 8→0 ×3, …"`.
    public var description: String {
        let top = confusions.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        let reading = (readingAccuracy * 1000).rounded() / 10
        let digit = (digitAccuracy * 1000).rounded() / 10
        return "\(readings) readings: \(reading)% right, digits \(digit)%, confident misreads "
            + "\(confidentMisreads)/\(confidentReadings); confusions \(top.isEmpty ? "none" : top)"
    }
}
