import LumaScanCapture
import LumaScanRecognizers

extension DeviceInfo {
    /// The camera as the secure-QR capability check describes it: its LumaScan-readable formats' sizes and frame
    /// rates, and its controls.
    public var secureQRDescription: SecureQRCameraDescription {
        SecureQRCameraDescription(
            name: card,
            modes: formats.filter(\.supported).flatMap { format in
                format.sizes.map {
                    SecureQRCameraDescription.Mode(
                        pixelFormat: format.fourcc, width: $0.width, height: $0.height, frameRates: $0.frameRates)
                }
            },
            controls: controls.map { SecureQRCameraDescription.Control(id: $0.id, name: $0.name) })
    }

    /// Whether the camera can resolve secure graphics, with the default requirements (the ScanTrust SDK's
    /// `isPhoneSupported`): at least 1280×720 at 15 fps or more, and a focus control.
    public func secureQRSupport(
        requirements: SecureQRCameraRequirements = SecureQRCameraRequirements()
    ) -> SecureQRCameraSupport {
        requirements.check(secureQRDescription)
    }
}
