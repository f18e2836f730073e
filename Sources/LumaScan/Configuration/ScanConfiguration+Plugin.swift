import Logging
import LumaScanCore
import LumaScanRecognizers

extension ScanConfiguration {
    /// Validates the configuration and builds the plugin it describes: its recognizer (a ``CompositeRecognizer``
    /// of the members' recognizers for a composite) and its scanning rules.
    ///
    /// - Barcode: a ``BarcodeRecognizer`` with the plugin's id; a `cutoutConfig`'s crop becomes its region of
    ///   interest, as percentages of the frame computed at ``CameraConfig/captureResolution`` (exact at that size
    ///   and at any size of the same aspect ratio).
    /// - Meter: a ``MeterRecognizer`` with the plugin's id and the view plugin's cutout.
    /// - Secure QR: a ``SecureQRRecognizer`` with the plugin's id (it reads the whole frame).
    ///
    /// The rules come from `pluginConfig` and `scanFeedbackConfig` (for a composite, from its first member, with
    /// which the others agree): ``ScanPlugin/cancelOnResult``, ``ScanPlugin/startScanDelay``,
    /// ``ScanPlugin/scanTimeout`` (`nil` for 0), ``ScanPlugin/beepOnResult`` and ``ScanPlugin/distanceBounds``.
    ///
    /// - Throws: ``LumaScanError``: ``LumaScanError/Code/invalidConfiguration`` naming the JSON path when the
    ///   configuration does not validate, ``LumaScanError/Code/unsupported`` when a recognizer cannot be set up
    ///   (zbar or the meter reader refusing it).
    public func makePlugin(logger: Logger) throws -> ScanPlugin {
        try validate()
        let frameSize = cameraConfig.captureResolution.size
        if let composite = viewPluginCompositeConfig {
            let check = ConfigurationCheck(path: "viewPluginCompositeConfig")
            guard let first = composite.viewPlugins.first else {
                throw check.fail("viewPlugins", "list at least one view plugin")
            }
            var members: [any Recognizer] = []
            for member in composite.viewPlugins {
                members.append(try Self.makeRecognizer(member, frameSize: frameSize, logger: logger))
            }
            let recognizer = CompositeRecognizer(id: composite.id, mode: composite.processingMode, members: members)
            return Self.plugin(id: composite.id, recognizer: recognizer, rules: first)
        }
        guard let single = viewPluginConfig else { throw Self.noPluginError }
        let recognizer = try Self.makeRecognizer(single, frameSize: frameSize, logger: logger)
        return Self.plugin(id: single.pluginConfig.id, recognizer: recognizer, rules: single)
    }

    private static func plugin(id: String, recognizer: any Recognizer, rules: ViewPluginConfig) -> ScanPlugin {
        ScanPlugin(
            id: id, recognizer: recognizer, cancelOnResult: rules.pluginConfig.cancelOnResult,
            startScanDelay: rules.pluginConfig.startScanDelayDuration,
            scanTimeout: rules.pluginConfig.scanTimeoutDuration,
            beepOnResult: rules.scanFeedbackConfig.beepOnResult,
            distanceBounds: rules.scanFeedbackConfig.distanceBounds)
    }

    /// The recognizer of a view plugin.
    private static func makeRecognizer(
        _ view: ViewPluginConfig, frameSize: Size, logger: Logger
    ) throws -> any Recognizer {
        let plugin = view.pluginConfig
        // The configuration was validated (makePlugin calls validate()), each part at its own JSON path.
        switch plugin.recognizer {
        case .barcode(var configuration):
            configuration.id = plugin.id
            if let cutout = view.cutoutConfig {
                configuration.regionOfInterest = regionOfInterest(of: cutout, frameSize: frameSize)
            }
            return try BarcodeRecognizer(configuration: configuration, logger: logger)
        case .meter(let configuration):
            return try MeterRecognizer(
                configuration: configuration, cutout: view.cutoutConfig ?? CutoutConfiguration(), id: plugin.id,
                logger: logger)
        case .secureQR(var configuration):
            configuration.id = plugin.id
            return try SecureQRRecognizer(configuration: configuration, logger: logger)
        }
    }

    /// The region of interest a barcode recognizer reads for `cutout`: its crop in a frame of `frameSize`, as
    /// percentages of the frame, so the region scales with the size the camera grants.
    static func regionOfInterest(of cutout: CutoutConfiguration, frameSize: Size) -> RegionOfInterest {
        let crop = cutout.geometry(frameSize: frameSize).crop
        let width = Double(max(1, frameSize.width))
        let height = Double(max(1, frameSize.height))
        let x = Double(crop.x) / width * 100
        let y = Double(crop.y) / height * 100
        // Rounding must not push x + width past 100%, which the region's validation refuses.
        return .percent(
            x: x, y: y, width: min(Double(crop.width) / width * 100, 100 - x),
            height: min(Double(crop.height) / height * 100, 100 - y))
    }
}
