import LumaScanCore

/// How a camera's format is chosen from what the device offers, and how the driver's answer is checked.
enum FormatSelection {
    /// Sizes listed for stepwise and continuous ranges (besides the range's ends) when they lie on the range's steps.
    static let standardSizes = [
        Size(width: 640, height: 480), Size(width: 1280, height: 720), Size(width: 1920, height: 1080),
    ]

    /// The size asked for when the settings name none and the driver reports no current size.
    static let fallbackSize = Size(width: 640, height: 480)

    /// The pixel format to capture in: `requested` when the device offers it natively, otherwise the first of
    /// ``PixelFormat/supported`` the device offers natively.
    ///
    /// Formats libv4l2 emulates are ignored: they are converted in software on every dequeue (a copy, and for JPEG
    /// sources a full colour decode), which is exactly what LumaScan reads luma to avoid.
    static func choosePixelFormat(
        requested: PixelFormat?, offered: [FormatDescription], device: String
    ) throws(CaptureError) -> PixelFormat {
        let native = offered.filter { !$0.isEmulated }.map(\.pixelFormat)
        let offeredList = native.isEmpty ? "none" : native.map(\.description).joined(separator: ", ")
        let readable = PixelFormat.supported.map(\.description).joined(separator: ", ")
        if let requested {
            guard requested.isSupported else {
                throw CaptureError(
                    .unsupportedFormat, device: device,
                    message: "\(device): LumaScan cannot read luma from \(requested); it reads \(readable)")
            }
            guard native.contains(requested) else {
                throw CaptureError(
                    .unsupportedFormat, device: device,
                    message: "\(device): the camera does not offer \(requested); it offers \(offeredList)")
            }
            return requested
        }
        guard let best = PixelFormat.supported.first(where: native.contains) else {
            throw CaptureError(
                .unsupportedFormat, device: device,
                message: "\(device): the camera offers no format LumaScan can read (it offers \(offeredList); "
                    + "LumaScan reads \(readable))")
        }
        return best
    }

    /// The supported size nearest to `preferred`: the smallest sum of width and height differences, ties going to
    /// the larger size. Ranges are snapped to their steps, dimension by dimension.
    static func nearestSize(to preferred: Size, in sizes: FrameSizes) -> Size {
        switch sizes {
        case .discrete(let list):
            return nearest(to: preferred, among: list) ?? preferred
        case .stepwise(let range):
            return Size(
                width: snap(
                    preferred.width, minimum: range.minimum.width, maximum: range.maximum.width,
                    step: range.stepWidth),
                height: snap(
                    preferred.height, minimum: range.minimum.height, maximum: range.maximum.height,
                    step: range.stepHeight))
        }
    }

    /// The size in `sizes` nearest to `preferred`; `nil` when `sizes` is empty.
    static func nearest(to preferred: Size, among sizes: [Size]) -> Size? {
        func distance(_ size: Size) -> Int { abs(size.width - preferred.width) + abs(size.height - preferred.height) }
        return sizes.min { lhs, rhs in
            let (left, right) = (distance(lhs), distance(rhs))
            if left != right { return left < right }
            return lhs.width * lhs.height > rhs.width * rhs.height
        }
    }

    /// `value` clamped to `minimum...maximum` and rounded to the nearest `minimum + k * step` inside the range.
    static func snap(_ value: Int, minimum: Int, maximum: Int, step: Int) -> Int {
        let step = max(1, step)
        let clamped = min(max(value, minimum), maximum)
        var snapped = minimum + ((clamped - minimum + step / 2) / step) * step
        while snapped > maximum { snapped -= step }
        return max(snapped, minimum)
    }

    /// A handful of sizes to list for a range: its ends and the standard sizes on its steps, smallest first.
    static func listedSizes(_ range: StepwiseSizes) -> [Size] {
        var sizes = [range.minimum]
        for size in standardSizes where range.contains(size) && !sizes.contains(size) { sizes.append(size) }
        if !sizes.contains(range.maximum) { sizes.append(range.maximum) }
        return sizes.sorted { ($0.width * $0.height, $0.width) < ($1.width * $1.height, $1.width) }
    }

    /// Checks the format the driver set against what was asked for, and fills in a layout the driver left at 0.
    static func validate(
        _ granted: NegotiatedFormat, requested pixelFormat: PixelFormat, device: String
    ) throws(CaptureError) -> FrameFormat {
        var format = granted.format
        guard format.pixelFormat == pixelFormat else {
            throw CaptureError(
                .unsupportedFormat, device: device, call: "VIDIOC_S_FMT",
                message: "\(device): asked for \(pixelFormat), but the driver set \(format.pixelFormat)")
        }
        guard format.width > 0, format.height > 0 else {
            throw CaptureError(
                .unsupportedFormat, device: device, call: "VIDIOC_S_FMT",
                message: "\(device): the driver set an empty frame size \(format.width)x\(format.height)")
        }
        guard !V4L2Constant.singleFieldOrders.contains(granted.field) else {
            throw CaptureError(
                .unsupportedFormat, device: device, call: "VIDIOC_S_FMT",
                message: "\(device): the driver delivers single fields (field order \(granted.field)), not frames")
        }
        let tight = FrameFormat(pixelFormat: pixelFormat, width: format.width, height: format.height)
        if pixelFormat.isCompressed {
            if format.sizeImage <= 0 { format.sizeImage = tight.sizeImage }
            return format
        }
        if format.bytesPerLine == 0 { format.bytesPerLine = tight.bytesPerLine }
        if format.sizeImage == 0 { format.sizeImage = tight.sizeImage }
        guard format.bytesPerLine >= tight.bytesPerLine else {
            throw CaptureError(
                .unsupportedFormat, device: device, call: "VIDIOC_S_FMT",
                message: "\(device): the driver set \(format.bytesPerLine) bytes per line, fewer than a "
                    + "\(format) row needs (\(tight.bytesPerLine))")
        }
        let lumaBytes = format.bytesPerLine * (format.height - 1) + tight.bytesPerLine
        guard format.sizeImage >= lumaBytes else {
            throw CaptureError(
                .unsupportedFormat, device: device, call: "VIDIOC_S_FMT",
                message: "\(device): the driver set an image size of \(format.sizeImage) bytes, too small for "
                    + "\(format) (\(lumaBytes) bytes of rows)")
        }
        return format
    }
}
