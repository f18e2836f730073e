import CLumaVision
import Logging
import LumaScanCore
import LumaScanRecognizers
import LumaScanTestSupport
import Testing

/// Every symbology read in a single frame (no consistency wait).
let singleFrame = Dictionary(uniqueKeysWithValues: Symbology.allCases.map { ($0, 1) })

/// Feeds one frame to a recognizer and returns its reports.
func process(
    _ recognizer: BarcodeRecognizer, _ image: LumaImage, index: UInt64 = 0, seconds: Double = 0
) -> [ScanReport] {
    var reports: [ScanReport] = []
    reports.reserveCapacity(8)
    image.withView { view in
        recognizer.process(
            view, metadata: .test(index: index, seconds: seconds, width: image.width, height: image.height),
            into: &reports)
    }
    return reports
}

/// The reports of `reports` that are results.
func results(_ reports: [ScanReport]) -> [ScanReport] { reports.filter { $0.reportType == .completedResult } }

/// Whether `reports` is exactly the one IN_PROGRESS / UNREADABLE report a frame without result gives.
func isUnreadable(_ reports: [ScanReport]) -> Bool {
    reports.count == 1 && reports[0].reportType == .inProgress && reports[0].state == .unreadable
        && reports[0].symbology == nil && reports[0].text == nil
}

/// A canvas of `width` x `height` on a plain light background with `code` placed at `centre`.
func scene(
    _ code: LumaImage, width: Int = 640, height: Int = 480, centre: Point? = nil, scale: Double = 1,
    degrees: Double = 0
) -> (LumaImage, [Point]) {
    let canvas = TestCanvas(width: width, height: height, fill: 210)
    let corners = canvas.place(
        code, centre: centre ?? Point(x: Double(width) / 2, y: Double(height) / 2), scale: scale, degrees: degrees)
    return (canvas.image, corners)
}

/// Checks that a reported polygon lies where the code was placed: every point inside the placed corners' bounding
/// box grown by `margin`, and the polygon's centre inside the box itself.
func expectPolygon(
    _ polygon: [Point], within corners: [Point], margin: Double = 6, _ context: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(polygon.count == 4, "\(context): \(polygon.count) points", sourceLocation: sourceLocation)
    guard !polygon.isEmpty else { return }
    let (minX, maxX) = (corners.map(\.x).min() ?? 0, corners.map(\.x).max() ?? 0)
    let (minY, maxY) = (corners.map(\.y).min() ?? 0, corners.map(\.y).max() ?? 0)
    for point in polygon {
        #expect(
            point.x >= minX - margin && point.x <= maxX + margin && point.y >= minY - margin
                && point.y <= maxY + margin, "\(context): \(point) outside \(corners)", sourceLocation: sourceLocation)
    }
    let centre = Point(
        x: polygon.map(\.x).reduce(0, +) / Double(polygon.count),
        y: polygon.map(\.y).reduce(0, +) / Double(polygon.count))
    #expect(
        centre.x >= minX && centre.x <= maxX && centre.y >= minY && centre.y <= maxY,
        "\(context): centre \(centre) outside \(corners)", sourceLocation: sourceLocation)
}

/// Reads the grey image file at `path` (a fixture crop, as the meter recognizer crops a frame) with a new meter reader
/// in `mode` (`LV_METER_MODE_DIGITAL`, `LV_METER_MODE_COUNTER`, `LV_METER_MODE_AUTO`): the reader's result and its
/// digit count.
func meterResult(imageAt path: String, mode: Int32) throws -> (result: lv_meter_result, count: Int32) {
    var created: OpaquePointer?
    try #require(lv_meter_create(mode, &created) == 0)
    let meter = try #require(created)
    defer { lv_meter_destroy(meter) }
    return try meterResult(imageAt: path, reader: meter)
}

/// Reads the grey image file at `path` as the next frame of the meter reader `reader` (which remembers what the
/// frames before it read): the reader's result and its digit count.
func meterResult(imageAt path: String, reader: OpaquePointer) throws -> (result: lv_meter_result, count: Int32) {
    var image: OpaquePointer?
    let status = lv_image_read_grey(path, &image)
    try #require(status == 0, "\(path): \(status)")
    defer { lv_image_destroy(image) }
    var result = lv_meter_result()
    let width = lv_image_width(image)
    let count = lv_meter_read(reader, lv_image_pixels(image), width, lv_image_height(image), Int(width), &result)
    try #require(count >= 0, "\(path): \(count)")
    return (result, count)
}
