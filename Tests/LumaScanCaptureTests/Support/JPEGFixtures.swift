import CLumaCapture
import CTurboJPEG
import LumaScanCore

/// JPEG images made by the tests, and a seeded random generator for fuzzing.
enum JPEGFixtures {
    /// A grey gradient: `(x * 255 / (width - 1) + y * 64 / height) % 256`, smooth enough for JPEG to keep it close.
    static func gradient(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width { pixels[y * width + x] = UInt8((x * 255 / max(1, width - 1) + y * 64 / height) % 256) }
        }
        return pixels
    }

    /// `pixels` (`width` x `height`, tight rows) as a one-component JPEG, through the shim's encoder.
    static func greyJPEG(_ pixels: [UInt8], width: Int, height: Int, quality: Int32 = 95) -> [UInt8] {
        var created: OpaquePointer?
        guard lc_jpeg_encoder_create(&created) == 0, let encoder = created else { return [] }
        defer { lc_jpeg_encoder_destroy(encoder) }
        var output = [UInt8](repeating: 0, count: lc_jpeg_grey_capacity(Int32(width), Int32(height)))
        let capacity = output.count
        let size = pixels.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                lc_jpeg_encode_grey(
                    encoder, source.baseAddress, width, Int32(width), Int32(height), quality, destination.baseAddress,
                    capacity)
            }
        }
        return size > 0 ? Array(output.prefix(size)) : []
    }

    /// `pixels` as grey RGB encoded to a three-component YCbCr 4:2:2 JPEG, as UVC cameras send, straight through
    /// TurboJPEG (independently of the shim). For R = G = B = v, JFIF's Y is exactly v.
    static func ycbcr422JPEG(_ pixels: [UInt8], width: Int, height: Int, quality: Int32 = 95) -> [UInt8] {
        guard let handle = tjInitCompress() else { return [] }
        defer { tjDestroy(handle) }
        let rgb = pixels.flatMap { [$0, $0, $0] }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = rgb.withUnsafeBufferPointer { source in
            tjCompress2(
                handle, source.baseAddress, Int32(width), Int32(width * 3), Int32(height), Int32(TJPF_RGB.rawValue),
                &buffer, &size, Int32(TJSAMP_422.rawValue), quality, 0)
        }
        defer { tjFree(buffer) }
        guard result == 0, let buffer else { return [] }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}

extension JPEGFixtures {
    /// `jpeg` without its Huffman tables (DHT segments), as many UVC cameras send MJPEG: decoders are expected to
    /// use the standard tables of the JPEG specification (annex K), which TurboJPEG's encoder also uses.
    static func removingHuffmanTables(_ jpeg: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0xFF, 0xD8]
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            if marker == 0xDA { break }  // start of scan: the rest is entropy-coded data
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            if marker != 0xC4 { output += jpeg[offset..<(offset + 2 + length)] }
            offset += 2 + length
        }
        return output + jpeg[offset...]
    }
}
