import Foundation
import Testing

@Suite("V4L2 against vivid in a VM: scanning fed images end to end", .vivid)
struct VividScanTests {
    @Test("a QR code and an EAN-13 fed through the output loop are decoded with their exact payloads")
    func exactPayloads() async throws {
        try await checkScenario("switch") { check in
            let events = try check.scenario.events("scan")
            try checkStream(events, in: check)
            let results = events.results
            let qr = results.filter { $0.symbology == "qr" }
            let ean = results.filter { $0.symbology == "ean13" }
            check.expect(
                qr.first?.text == VividInputs.qrText,
                "QR: wanted '\(VividInputs.qrText)', got \(qr.map { $0.text ?? "" })")
            check.expect(
                qr.first?.bytesBase64.flatMap { Data(base64Encoded: $0) } == Data(VividInputs.qrText.utf8),
                "QR bytes \(qr.first?.bytesBase64 ?? "none") are not the payload's UTF-8")
            check.expect(
                ean.first?.text == VividInputs.ean13Text,
                "EAN-13: wanted '\(VividInputs.ean13Text)', got \(ean.map { $0.text ?? "" })")
            check.expect(
                results.allSatisfy { $0.text == VividInputs.qrText || $0.text == VividInputs.ean13Text },
                "misreads: \(results.map { "\($0.symbology ?? "?") '\($0.text ?? "")'" })")
            check.expect(
                results.allSatisfy { $0.state == "OK" && $0.recognizer == "barcode" },
                "results are COMPLETED_RESULT/OK from the barcode recognizer")
        }
    }

    @Test("switching from image A to image B mid-stream reports A, then B, each once while it stays in view")
    func switchImages() async throws {
        try await checkScenario("switch") { check in
            let events = try check.scenario.events("scan")
            let results = events.results
            let qr = results.filter { $0.symbology == "qr" }
            let ean = results.filter { $0.symbology == "ean13" }
            try check.require(
                qr.count == 1 && ean.count == 1,
                "wanted one QR result and one EAN-13 result, got \(qr.count) and \(ean.count): the duplicate filter "
                    + "should hold the repeats while a code stays in view")
            let a = qr[0]
            let b = ean[0]
            check.expect(
                (a.frame ?? 0) < (b.frame ?? 0) && (a.reportTime ?? 0) < (b.reportTime ?? 0),
                "A (frame \(a.frame ?? -1)) should be reported before B (frame \(b.frame ?? -1))")
            // A stayed in view for 2.5 s after its result was printed (the guest script waits that long before it
            // switches), B likewise: frames recognised meanwhile must not report either again. Capture times are on
            // the guest's monotonic clock, which the window's marks (/proc/uptime) follow.
            let reports = events.reports
            let betweenAB = reports.filter { ($0.frame ?? 0) > (a.frame ?? 0) && ($0.frame ?? 0) < (b.frame ?? 0) }
            let afterB = reports.filter { ($0.frame ?? 0) > (b.frame ?? 0) }
            check.expect(!betweenAB.isEmpty, "no frame was recognised between A's result and B's")
            check.expect(!afterB.isEmpty, "no frame was recognised after B's result")
            if let switched = check.scenario.mark("switch"), let aTime = a.captureTime, let bTime = b.captureTime {
                check.expect(aTime < switched && bTime > switched, "A was captured before the switch, B after it")
                check.expect(
                    betweenAB.contains {
                        ($0.captureTime ?? 0) > aTime + 1 && ($0.captureTime ?? .infinity) < switched
                    },
                    "no frame captured more than the duplicate interval (1 s) after A, with A still in view, was "
                        + "recognised: the duplicate filter went untested")
            }
            check.expect(
                events.named("stopped").first?.reason == "requested",
                "stopped because \(events.named("stopped").first?.reason ?? "?"), not SIGTERM")
            check.expect(
                check.scenario.status("scan") == 0,
                "lumascan exited \(check.scenario.status("scan").map(String.init) ?? "?")")
        }
    }
}
