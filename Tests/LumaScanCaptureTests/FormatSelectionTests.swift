import LumaScanCore
import Testing

@testable import LumaScanCapture

@Suite("FormatSelection")
struct FormatSelectionTests {
    let webcam = FrameSizes.discrete([
        Size(width: 160, height: 120), Size(width: 320, height: 240), Size(width: 640, height: 480),
        Size(width: 800, height: 600), Size(width: 1280, height: 720), Size(width: 1280, height: 960),
        Size(width: 1920, height: 1080),
    ])

    @Test("a discrete size that exists is chosen exactly")
    func exactDiscrete() {
        for size in [Size(width: 640, height: 480), Size(width: 1920, height: 1080), Size(width: 160, height: 120)] {
            #expect(FormatSelection.nearestSize(to: size, in: webcam) == size)
        }
    }

    @Test("the nearest discrete size wins, by the sum of width and height differences")
    func nearestDiscrete() {
        // 1280x800: 1280x720 is 80 away, 1280x960 is 160 away.
        #expect(
            FormatSelection.nearestSize(to: Size(width: 1280, height: 800), in: webcam)
                == Size(width: 1280, height: 720))
        // 1024x768: 800x600 is 392 away, 1280x720 is 304 away.
        #expect(
            FormatSelection.nearestSize(to: Size(width: 1024, height: 768), in: webcam)
                == Size(width: 1280, height: 720))
        // Beyond the largest and below the smallest.
        #expect(
            FormatSelection.nearestSize(to: Size(width: 4000, height: 3000), in: webcam)
                == Size(width: 1920, height: 1080))
        #expect(FormatSelection.nearestSize(to: Size(width: 1, height: 1), in: webcam) == Size(width: 160, height: 120))
    }

    @Test("ties go to the larger size")
    func ties() {
        let sizes = [Size(width: 100, height: 100), Size(width: 140, height: 140)]
        #expect(
            FormatSelection.nearest(to: Size(width: 120, height: 120), among: sizes) == Size(width: 140, height: 140))
        #expect(
            FormatSelection.nearest(to: Size(width: 120, height: 120), among: sizes.reversed())
                == Size(width: 140, height: 140))
        #expect(FormatSelection.nearest(to: Size(width: 120, height: 120), among: []) == nil)
    }

    @Test("stepwise sizes snap to the nearest step inside the range")
    func stepwise() {
        let range = StepwiseSizes(
            minimum: Size(width: 48, height: 32), maximum: Size(width: 4096, height: 2160), stepWidth: 16, stepHeight: 8
        )
        let sizes = FrameSizes.stepwise(range)
        #expect(
            FormatSelection.nearestSize(to: Size(width: 1920, height: 1080), in: sizes)
                == Size(width: 1920, height: 1080))
        // 1000 = 48 + 59.5 * 16 → rounds to 48 + 60 * 16 = 1008; 701 = 32 + 83.6 * 8 → 32 + 84 * 8 = 704.
        #expect(
            FormatSelection.nearestSize(to: Size(width: 1000, height: 701), in: sizes) == Size(width: 1008, height: 704)
        )
        #expect(FormatSelection.nearestSize(to: Size(width: 10, height: 10), in: sizes) == Size(width: 48, height: 32))
        #expect(
            FormatSelection.nearestSize(to: Size(width: 9000, height: 9000), in: sizes)
                == Size(width: 4096, height: 2160))
        // A maximum off the steps: the last step inside the range.
        let ragged = StepwiseSizes(
            minimum: Size(width: 10, height: 10), maximum: Size(width: 105, height: 105), stepWidth: 20, stepHeight: 20)
        #expect(
            FormatSelection.nearestSize(to: Size(width: 200, height: 104), in: .stepwise(ragged))
                == Size(width: 90, height: 90))
        // Continuous ranges have steps of 1.
        let continuous = StepwiseSizes(
            minimum: Size(width: 1, height: 1), maximum: Size(width: 3840, height: 2160), stepWidth: 1, stepHeight: 1)
        #expect(
            FormatSelection.nearestSize(to: Size(width: 777, height: 555), in: .stepwise(continuous))
                == Size(width: 777, height: 555))
    }

    @Test("snap clamps and rounds to the nearest step")
    func snap() {
        #expect(FormatSelection.snap(7, minimum: 0, maximum: 100, step: 4) == 8)
        #expect(FormatSelection.snap(5, minimum: 0, maximum: 100, step: 4) == 4)
        #expect(FormatSelection.snap(-3, minimum: 0, maximum: 100, step: 4) == 0)
        #expect(FormatSelection.snap(150, minimum: 0, maximum: 100, step: 4) == 100)
        #expect(FormatSelection.snap(99, minimum: 0, maximum: 99, step: 4) == 96)
        #expect(FormatSelection.snap(50, minimum: 0, maximum: 100, step: 0) == 50)
    }

    @Test("a range lists its ends and the standard sizes on its steps")
    func listedSizes() {
        let range = StepwiseSizes(
            minimum: Size(width: 16, height: 16), maximum: Size(width: 1920, height: 1200), stepWidth: 16, stepHeight: 8
        )
        // 1920x1080: 1080 - 16 = 1064 = 133 * 8, on the steps; 640x480 and 1280x720 too.
        #expect(
            FormatSelection.listedSizes(range) == [
                Size(width: 16, height: 16), Size(width: 640, height: 480), Size(width: 1280, height: 720),
                Size(width: 1920, height: 1080), Size(width: 1920, height: 1200),
            ])
        let coarse = StepwiseSizes(
            minimum: Size(width: 100, height: 100), maximum: Size(width: 1300, height: 1000), stepWidth: 100,
            stepHeight: 100)
        // 640x480 is off the 100-pixel steps; 1920x1080 is outside.
        #expect(
            FormatSelection.listedSizes(coarse) == [Size(width: 100, height: 100), Size(width: 1300, height: 1000)])
    }

    @Test("the requested format must be readable and offered natively")
    func choosePixelFormat() throws {
        let offered = [
            FormatDescription(pixelFormat: .mjpeg, description: "MJPEG", flags: V4L2Constant.formatCompressed),
            FormatDescription(pixelFormat: .yuyv, description: "YUYV", flags: 0),
            FormatDescription(pixelFormat: .yu12, description: "YU12 (emulated)", flags: V4L2Constant.formatEmulated),
        ]
        #expect(try FormatSelection.choosePixelFormat(requested: nil, offered: offered, device: "d") == .yuyv)
        #expect(try FormatSelection.choosePixelFormat(requested: .mjpeg, offered: offered, device: "d") == .mjpeg)
        let emulated = try #require(
            #expect(throws: CaptureError.self) {
                try FormatSelection.choosePixelFormat(requested: .yu12, offered: offered, device: "d")
            })
        #expect(emulated.message == "d: the camera does not offer YU12; it offers MJPG, YUYV")
        let none = try #require(
            #expect(throws: CaptureError.self) {
                try FormatSelection.choosePixelFormat(
                    requested: nil,
                    offered: [FormatDescription(pixelFormat: PixelFormat("RGB3")!, description: "", flags: 0)],
                    device: "d")
            })
        #expect(none.code == .unsupportedFormat)
        #expect(
            none.message
                == "d: the camera offers no format LumaScan can read "
                + "(it offers RGB3; LumaScan reads GREY, NV12, YU12, YUYV, UYVY, MJPG, JPEG)")
    }

    @Test("the driver's format is checked and its zero fields filled in")
    func validate() throws {
        func check(_ format: FrameFormat, field: UInt32 = V4L2Constant.fieldNone) throws(CaptureError) -> FrameFormat {
            try FormatSelection.validate(
                NegotiatedFormat(format: format, field: field), requested: format.pixelFormat, device: "d")
        }
        let padded = FrameFormat(pixelFormat: .yuyv, width: 8, height: 4, bytesPerLine: 32, sizeImage: 128)
        #expect(try check(padded) == padded)
        #expect(
            try check(FrameFormat(pixelFormat: .grey, width: 8, height: 4, bytesPerLine: 0, sizeImage: 0))
                == FrameFormat(pixelFormat: .grey, width: 8, height: 4, bytesPerLine: 8, sizeImage: 32))
        #expect(
            try check(FrameFormat(pixelFormat: .mjpeg, width: 8, height: 4, bytesPerLine: 0, sizeImage: 0)).sizeImage
                == 64)
        #expect(throws: CaptureError.self) {
            try check(FrameFormat(pixelFormat: .yuyv, width: 8, height: 4, bytesPerLine: 8, sizeImage: 64))
        }
        #expect(throws: CaptureError.self) {
            try check(FrameFormat(pixelFormat: .grey, width: 8, height: 4, bytesPerLine: 8, sizeImage: 20))
        }
        #expect(throws: CaptureError.self) { try check(FrameFormat(pixelFormat: .grey, width: 0, height: 4)) }
        let field = try #require(
            #expect(throws: CaptureError.self) {
                try check(
                    FrameFormat(pixelFormat: .grey, width: 8, height: 4),
                    field: V4L2Constant.singleFieldOrders.first ?? 0)
            })
        #expect(field.message.contains("single fields"))
        let switched = try #require(
            #expect(throws: CaptureError.self) {
                try FormatSelection.validate(
                    NegotiatedFormat(format: FrameFormat(pixelFormat: .mjpeg, width: 8, height: 4), field: 1),
                    requested: .yuyv, device: "/dev/video0")
            })
        #expect(switched.message == "/dev/video0: asked for YUYV, but the driver set MJPG")
    }
}
