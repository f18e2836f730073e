// Image file codecs behind codecs.hpp: PNG (libpng's simplified API), JPEG (TurboJPEG), WebP (libwebp), TIFF
// (libtiff), GIF (giflib), PGM/PPM/PBM and BMP (parsed here), each decoded to 8-bit grey. Every length read from a
// file is checked against the bytes there before use, and every image's size against the pixel budget (`check_size`)
// before its pixels are allocated.
#include "codecs_internal.hpp"

#include <png.h>
#include <turbojpeg.h>
#include <zlib.h>


#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>

namespace lv::codecs {
namespace {

using namespace detail;

// ---- PNG ---------------------------------------------------------------------------------------------------------

/// Frees the png_image's libpng state on every path (png_image_free is idempotent).
struct PNGImage {
    png_image image;
    PNGImage() {
        std::memset(&image, 0, sizeof image);
        image.version = PNG_IMAGE_VERSION;
    }
    ~PNGImage() { png_image_free(&image); }
    PNGImage(const PNGImage &) = delete;
    PNGImage &operator=(const PNGImage &) = delete;
};

int decode_png(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t budget) {
    PNGImage png;
    if (!png_image_begin_read_from_memory(&png.image, bytes, length)) {
        // libpng refuses sides over its own limit (a million pixels) as an error like any other: read the size from
        // IHDR (always the first chunk, its width and height at bytes 16 and 20) to say "too large" rather than
        // "corrupt".
        auto be32 = [&](size_t at) {
            return uint32_t(bytes[at]) << 24 | uint32_t(bytes[at + 1]) << 16 | uint32_t(bytes[at + 2]) << 8 |
                   bytes[at + 3];
        };
        if (length >= 24 && std::memcmp(bytes + 12, "IHDR", 4) == 0 && check_size(be32(16), be32(20), budget) == -EFBIG)
            return -EFBIG;
        return -EBADMSG;
    }
    // A 16-bit file without gAMA or sRGB is taken as sRGB-encoded and scaled to 8 bits, as OpenCV did; the default
    // would read it as linear light and brighten it.
    png.image.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    const bool colour = png.image.format & PNG_FORMAT_FLAG_COLOR;
    const bool alpha = png.image.format & PNG_FORMAT_FLAG_ALPHA;
    // Keep the alpha channel when there is one and drop it below: without it libpng would composite onto black,
    // while OpenCV ignored alpha.
    png.image.format = colour ? PNG_FORMAT_RGBA : alpha ? PNG_FORMAT_GA : PNG_FORMAT_GRAY;
    const int channels = int(PNG_IMAGE_SAMPLE_CHANNELS(png.image.format));
    if (int status = check_size(png.image.width, png.image.height, budget); status != 0) return status;
    if (png.image.width > uint32_t(INT_MAX / channels)) return -EFBIG;  // libpng takes the row stride as an int
    cv::Mat decoded(int(png.image.height), int(png.image.width), CV_8UC(channels));
    if (!png_image_finish_read(&png.image, nullptr, decoded.data, png_int_32(decoded.step[0]), nullptr))
        return -EBADMSG;
    if (channels == 1) {
        out = std::move(decoded);
        return 0;
    }
    out.create(decoded.rows, decoded.cols, CV_8UC1);
    for (int y = 0; y < decoded.rows; ++y) {
        const uint8_t *source = decoded.ptr<uint8_t>(y);
        uint8_t *target = out.ptr<uint8_t>(y);
        for (int x = 0; x < decoded.cols; ++x, source += channels)
            target[x] = colour ? png_grey(source[0], source[1], source[2]) : source[0];
    }
    return 0;
}

bool describe_grey(PNGImage &png, int width, int height, size_t stride) {
    if (width <= 0 || height <= 0 || stride < size_t(width) || stride > size_t(INT32_MAX)) return false;
    png.image.width = png_uint_32(width);
    png.image.height = png_uint_32(height);
    png.image.format = PNG_FORMAT_GRAY;
    // zlib's fastest setting, as OpenCV's default PNG compression level 1 was: these PNGs are test fixtures and
    // crops read back by programs, and encoding time matters more than size.
    png.image.flags = PNG_IMAGE_FLAG_FAST;
    return true;
}

// ---- JPEG --------------------------------------------------------------------------------------------------------

/// The orientation (1...8) in a JPEG's EXIF block (APP1 "Exif"), or 1 when there is none or it cannot be read.
int jpeg_orientation(const uint8_t *bytes, size_t length) {
    size_t at = 2;  // after SOI
    while (at + 4 <= length) {
        if (bytes[at] != 0xFF) return 1;
        const uint8_t marker = bytes[at + 1];
        if (marker == 0xFF) {  // fill byte
            ++at;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {  // markers without a length
            at += 2;
            continue;
        }
        if (marker == 0xDA || marker == 0xD9) return 1;  // scan data or the end: EXIF comes before
        const size_t segment = size_t(bytes[at + 2]) << 8 | bytes[at + 3];
        if (segment < 2 || at + 2 + segment > length) return 1;
        if (marker == 0xE1 && segment >= 2 + 6 + 8 && std::memcmp(bytes + at + 4, "Exif\0\0", 6) == 0) {
            // A TIFF structure: byte order, 42, the offset of IFD0, then IFD0's 12-byte entries.
            const uint8_t *tiff = bytes + at + 10;
            const size_t size = segment - 8;
            bool little;
            if (tiff[0] == 'I' && tiff[1] == 'I')
                little = true;
            else if (tiff[0] == 'M' && tiff[1] == 'M')
                little = false;
            else
                return 1;
            auto u16 = [&](size_t offset) -> uint32_t {
                return little ? uint32_t(tiff[offset]) | uint32_t(tiff[offset + 1]) << 8
                              : uint32_t(tiff[offset]) << 8 | uint32_t(tiff[offset + 1]);
            };
            auto u32 = [&](size_t offset) -> uint32_t {
                return little ? u16(offset) | u16(offset + 2) << 16 : u16(offset) << 16 | u16(offset + 2);
            };
            if (u16(2) != 42) return 1;
            const size_t ifd = u32(4);
            if (ifd > size || size - ifd < 2) return 1;
            const size_t entries = u16(ifd);
            for (size_t entry = 0; entry < entries; ++entry) {
                const size_t offset = ifd + 2 + 12 * entry;
                if (offset + 12 > size) break;
                if (u16(offset) == 0x0112) {  // Orientation, a SHORT held in the value field
                    const uint32_t orientation = u16(offset + 2) == 3 ? u16(offset + 8) : 0;
                    return orientation >= 1 && orientation <= 8 ? int(orientation) : 1;
                }
            }
            return 1;
        }
        at += 2 + segment;
    }
    return 1;
}

/// Turns `image` as the EXIF orientation says (the same flips and transposes as OpenCV's ApplyExifOrientation).
void apply_orientation(cv::Mat &image, int orientation) {
    if (orientation >= 5) {
        cv::Mat transposed;
        cv::transpose(image, transposed);
        image = std::move(transposed);
    }
    switch (orientation) {
        case 2: case 6: cv::flip(image, image, 1); break;
        case 3: case 7: cv::flip(image, image, -1); break;
        case 4: case 8: cv::flip(image, image, 0); break;
        default: break;
    }
}

struct TurboJPEG {
    tjhandle handle = tjInitDecompress();
    ~TurboJPEG() {
        if (handle) tjDestroy(handle);
    }
    TurboJPEG() = default;
    TurboJPEG(const TurboJPEG &) = delete;
    TurboJPEG &operator=(const TurboJPEG &) = delete;
};

int decode_jpeg(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t budget) {
    TurboJPEG jpeg;
    if (!jpeg.handle) return -ENOMEM;
    int width = 0, height = 0, subsampling = 0, colourspace = 0;
    if (tjDecompressHeader3(jpeg.handle, bytes, (unsigned long)length, &width, &height, &subsampling, &colourspace) !=
            0 ||
        width < 0 || height < 0)
        return -EBADMSG;
    if (int status = check_size(uint64_t(width), uint64_t(height), budget); status != 0) return status;
    // TurboJPEG converts YCbCr and grey JPEGs to grey itself (the luma plane, as libjpeg's JCS_GRAYSCALE output that
    // OpenCV asked for), but not CMYK: those are decoded as CMYK and converted here.
    const bool cmyk = colourspace == TJCS_CMYK || colourspace == TJCS_YCCK;
    cv::Mat decoded(height, width, cmyk ? CV_8UC4 : CV_8UC1);
    // A warning (a truncated file, say) still leaves a whole image, as libjpeg's did for OpenCV; errors do not.
    if (tjDecompress2(jpeg.handle, bytes, (unsigned long)length, decoded.data, width, int(decoded.step[0]), height,
                      cmyk ? TJPF_CMYK : TJPF_GRAY, 0) != 0 &&
        tjGetErrorCode(jpeg.handle) != TJERR_WARNING)
        return -EBADMSG;
    if (cmyk) {
        // OpenCV's CMYK-to-grey: each ink scaled by black, then the BT.601 weights.
        out.create(height, width, CV_8UC1);
        for (int y = 0; y < height; ++y) {
            const uint8_t *source = decoded.ptr<uint8_t>(y);
            uint8_t *target = out.ptr<uint8_t>(y);
            for (int x = 0; x < width; ++x, source += 4) {
                const uint32_t k = source[3];
                target[x] = grey(k - ((255 - source[0]) * k >> 8), k - ((255 - source[1]) * k >> 8),
                                 k - ((255 - source[2]) * k >> 8));
            }
        }
    } else {
        out = std::move(decoded);
    }
    apply_orientation(out, jpeg_orientation(bytes, length));
    return 0;
}

// ---- PGM / PPM / PBM -----------------------------------------------------------------------------------------------

/// Reads the netpbm formats P1...P6: bitmaps, grey and colour maps, ASCII or binary, 8 or 16 bits per sample.
class NetPBM {
public:
    NetPBM(const uint8_t *bytes, size_t length, uint64_t budget) : at_(bytes), end_(bytes + length), budget_(budget) {}

    int decode(cv::Mat &out) {
        if (end_ - at_ < 3 || at_[0] != 'P' || at_[1] < '1' || at_[1] > '6') return -EMEDIUMTYPE;
        const int kind = at_[1] - '0';
        at_ += 2;
        const bool bitmap = kind == 1 || kind == 4, colour = kind == 3 || kind == 6, ascii = kind <= 3;
        uint32_t width, height, maxval = 1;
        if (!number(width) || !number(height) || (!bitmap && !number(maxval))) return -EBADMSG;
        if (maxval == 0 || maxval > 65535) return -EBADMSG;
        if (int status = check_size(width, height, budget_); status != 0) return status;
        const uint64_t samples = uint64_t(width) * height * (colour ? 3 : 1);
        if (!ascii) {
            // Exactly one whitespace character separates the header from binary data.
            if (at_ == end_ || !space(*at_)) return -EBADMSG;
            ++at_;
            const uint64_t needed = kind == 4 ? uint64_t((width + 7) / 8) * height : samples * (maxval > 255 ? 2 : 1);
            if (uint64_t(end_ - at_) < needed) return -EBADMSG;
        } else if (uint64_t(end_ - at_) < samples) {
            return -EBADMSG;  // every ASCII sample takes at least one character
        }
        out.create(int(height), int(width), CV_8UC1);
        for (uint32_t y = 0; y < height; ++y) {
            uint8_t *row = out.ptr<uint8_t>(int(y));
            for (uint32_t x = 0; x < width; ++x) {
                if (kind == 4) {
                    const uint8_t bits = at_[size_t(y) * ((width + 7) / 8) + x / 8];
                    row[x] = (bits >> (7 - x % 8)) & 1 ? 0 : 255;  // 1 is black
                    continue;
                }
                uint32_t value[3];
                for (int c = 0; c < (colour ? 3 : 1); ++c)
                    if (!sample(kind, maxval, value[c])) return -EBADMSG;
                if (bitmap)
                    row[x] = value[0] ? 0 : 255;
                else if (colour)
                    row[x] = grey(scale(value[0], maxval), scale(value[1], maxval), scale(value[2], maxval));
                else
                    row[x] = scale(value[0], maxval);
            }
        }
        return 0;
    }

private:
    const uint8_t *at_;
    const uint8_t *end_;
    uint64_t budget_;

    static bool space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

    /// Skips whitespace and `#` comments (to the end of the line).
    void skip() {
        while (at_ < end_) {
            if (space(*at_)) {
                ++at_;
            } else if (*at_ == '#') {
                while (at_ < end_ && *at_ != '\n' && *at_ != '\r') ++at_;
            } else {
                break;
            }
        }
    }

    /// A decimal number after optional whitespace; false when there is none or it exceeds 2^24.
    bool number(uint32_t &value) {
        skip();
        if (at_ == end_ || *at_ < '0' || *at_ > '9') return false;
        value = 0;
        while (at_ < end_ && *at_ >= '0' && *at_ <= '9') {
            value = value * 10 + uint32_t(*at_++ - '0');
            if (value > (1u << 24)) return false;
        }
        return true;
    }

    /// The next sample of a P1, P2, P3, P5 or P6 body.
    bool sample(int kind, uint32_t maxval, uint32_t &value) {
        if (kind == 1) {  // P1 digits need no separators
            skip();
            if (at_ == end_ || (*at_ != '0' && *at_ != '1')) return false;
            value = uint32_t(*at_++ - '0');
            return true;
        }
        if (kind <= 3) return number(value);
        // Binary sizes were checked against the data before the first sample.
        if (maxval > 255) {
            value = uint32_t(at_[0]) << 8 | at_[1];
            at_ += 2;
        } else {
            value = *at_++;
        }
        return true;
    }
};

// ---- BMP ---------------------------------------------------------------------------------------------------------

/// Reads uncompressed Windows and OS/2 bitmaps: 1, 4 and 8 bits through a palette, 16 and 32 bits with default or
/// BITFIELDS masks, 24 bits. RLE-compressed bitmaps are refused.
int decode_bmp(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t budget) {
    auto u16 = [&](size_t offset) -> uint32_t { return uint32_t(bytes[offset]) | uint32_t(bytes[offset + 1]) << 8; };
    auto u32 = [&](size_t offset) -> uint32_t { return u16(offset) | u16(offset + 2) << 16; };
    if (length < 26) return -EBADMSG;
    const size_t data = u32(10), header = u32(14);
    int64_t width, height;
    uint32_t bpp, compression = 0, used = 0;
    size_t paletteEntry = 4;
    if (header == 12) {  // OS/2 BITMAPCOREHEADER
        width = u16(18);
        height = u16(20);
        bpp = u16(24);
        paletteEntry = 3;
    } else if (header >= 40 && 14 + header <= length) {
        width = int32_t(u32(18));
        height = int32_t(u32(22));
        bpp = u16(28);
        compression = u32(30);
        used = u32(46);
    } else {
        return -EBADMSG;
    }
    const bool topDown = height < 0;
    if (topDown) height = -height;
    if (width < 0) return -EBADMSG;
    if (int status = check_size(uint64_t(width), uint64_t(height), budget); status != 0) return status;

    // Channel masks for 16 and 32 bits: the defaults (5-5-5, 8-8-8), or BITFIELDS after (or in) the header.
    uint32_t masks[3] = {0, 0, 0};
    if (bpp == 16) {
        masks[0] = 0x7C00, masks[1] = 0x03E0, masks[2] = 0x001F;
    } else if (bpp == 32) {
        masks[0] = 0x00FF0000, masks[1] = 0x0000FF00, masks[2] = 0x000000FF;
    }
    if (compression == 3 || compression == 6) {  // BI_BITFIELDS, BI_ALPHABITFIELDS
        if ((bpp != 16 && bpp != 32) || 14 + 40 + 12 > length) return -EBADMSG;
        for (int c = 0; c < 3; ++c) masks[c] = u32(14 + 40 + 4 * size_t(c));
    } else if (compression != 0) {
        return -ENOTSUP;  // RLE, JPEG or PNG inside a BMP
    }

    uint8_t palette[256] = {};
    if (bpp <= 8) {
        if (bpp != 1 && bpp != 4 && bpp != 8) return -ENOTSUP;  // 2 bits (Windows CE), or nonsense
        const size_t entries = used && used < (1u << bpp) ? used : (1u << bpp);
        const size_t start = 14 + header;
        if (start + entries * paletteEntry > length) return -EBADMSG;
        for (size_t i = 0; i < entries; ++i) {
            const uint8_t *bgr = bytes + start + i * paletteEntry;
            palette[i] = grey(bgr[2], bgr[1], bgr[0]);
        }
    } else if (bpp != 16 && bpp != 24 && bpp != 32) {
        return -ENOTSUP;  // 64 bits, or nonsense
    }
    int shifts[3];
    uint32_t maxima[3];
    for (int c = 0; c < 3; ++c) {
        if (bpp != 16 && bpp != 32) break;
        if (masks[c] == 0) return -EBADMSG;
        shifts[c] = __builtin_ctz(masks[c]);
        maxima[c] = masks[c] >> shifts[c];
    }

    const uint64_t rowBytes = (uint64_t(width) * bpp + 31) / 32 * 4;
    if (data > length || rowBytes * uint64_t(height) > length - data) return -EBADMSG;
    out.create(int(height), int(width), CV_8UC1);
    for (int64_t row = 0; row < height; ++row) {
        const uint8_t *source = bytes + data + size_t(row) * rowBytes;
        uint8_t *target = out.ptr<uint8_t>(int(topDown ? row : height - 1 - row));
        for (int64_t x = 0; x < width; ++x) {
            switch (bpp) {
                case 1: target[x] = palette[(source[x / 8] >> (7 - x % 8)) & 1]; break;
                case 4: target[x] = palette[(source[x / 2] >> (x % 2 ? 0 : 4)) & 15]; break;
                case 8: target[x] = palette[source[x]]; break;
                case 24: target[x] = grey(source[3 * x + 2], source[3 * x + 1], source[3 * x]); break;
                default: {
                    const uint32_t pixel = bpp == 16 ? u16(size_t(source - bytes) + 2 * size_t(x))
                                                     : u32(size_t(source - bytes) + 4 * size_t(x));
                    uint32_t rgb[3];
                    for (int c = 0; c < 3; ++c)
                        rgb[c] = scale((pixel & masks[c]) >> shifts[c], maxima[c]);
                    target[x] = grey(rgb[0], rgb[1], rgb[2]);
                }
            }
        }
    }
    return 0;
}

}  // namespace

int decode_grey(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t max_pixels) {
    if (!bytes || length == 0) return -EMEDIUMTYPE;
    const uint64_t budget = max_pixels == 0 ? LV_IMAGE_DEFAULT_MAX_PIXELS
                                            : std::min<uint64_t>(max_pixels, LV_IMAGE_MAX_PIXELS_LIMIT);
    int status;
    if (starts_with(bytes, length, "\x89PNG\r\n\x1a\n", 8))
        status = decode_png(bytes, length, out, budget);
    else if (starts_with(bytes, length, "\xFF\xD8\xFF", 3))
        status = decode_jpeg(bytes, length, out, budget);
    else if (length >= 12 && starts_with(bytes, length, "RIFF", 4) && std::memcmp(bytes + 8, "WEBP", 4) == 0)
        status = decode_webp(bytes, length, out, budget);
    else if (starts_with(bytes, length, "II*\0", 4) || starts_with(bytes, length, "MM\0*", 4) ||
             starts_with(bytes, length, "II+\0", 4) || starts_with(bytes, length, "MM\0+", 4))  // classic, BigTIFF
        status = decode_tiff(bytes, length, out, budget);
    else if (starts_with(bytes, length, "GIF87a", 6) || starts_with(bytes, length, "GIF89a", 6))
        status = decode_gif(bytes, length, out, budget);
    else if (starts_with(bytes, length, "BM", 2))
        status = decode_bmp(bytes, length, out, budget);
    else if (length >= 3 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '6')
        status = NetPBM(bytes, length, budget).decode(out);
    else
        status = -EMEDIUMTYPE;
    if (status == 0 && !out.isContinuous()) out = out.clone();
    return status;
}

/// Where `encode_png`'s libpng writes: a buffer sized up front for the worst case, so the write callback never
/// allocates (and never throws through libpng's C frames).
struct PNGSink {
    uint8_t *bytes;
    size_t capacity;
    size_t used;
};

void sink_write(png_structp png, png_bytep data, png_size_t length) {
    auto *sink = static_cast<PNGSink *>(png_get_io_ptr(png));
    if (length > sink->capacity - sink->used) png_error(png, "PNG larger than its worst-case bound");
    std::memcpy(sink->bytes + sink->used, data, length);
    sink->used += length;
}

void sink_flush(png_structp) {}

int encode_png(const uint8_t *luma, int width, int height, size_t stride, std::vector<uint8_t> &png,
               PNGEffort effort) {
    PNGImage image;
    if (!luma || !describe_grey(image, width, height, stride)) return -EIO;
    // The worst case of the simplified API's encoder bounds ours too: the same rows, deflated at least as well as
    // stored blocks.
    png.resize(PNG_IMAGE_PNG_SIZE_MAX(image.image));
    PNGSink sink{png.data(), png.size(), 0};
    // libpng's full write API rather than png_image_write_to_memory, whose fastest setting (PNG_IMAGE_FLAG_FAST) is
    // zlib level 3: level 1 without row filters takes half the time on a camera's noisy crop (17 ms against 34-39 ms
    // for a 1400x620 crop, 5 % larger; measured with libpng 1.6.39).
    png_structp writer = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    if (!writer) return -ENOMEM;
    png_infop info = png_create_info_struct(writer);
    // libpng reports errors by longjmp to here; no object with a destructor lives between here and its frames.
    if (!info || setjmp(png_jmpbuf(writer))) {
        png_destroy_write_struct(&writer, info ? &info : nullptr);
        png.clear();
        return -EIO;
    }
    png_set_write_fn(writer, &sink, sink_write, sink_flush);
    png_set_IHDR(writer, info, png_uint_32(width), png_uint_32(height), 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(writer, 1);
    // Huffman coding only skips deflate's search for repeats, which finds few in a camera's noisy crop: a noisy
    // 1400x620 crop (a gradient with noise of sigma 4) in 5.3 ms instead of 16.5 ms at level 1, 15 % larger; a 944x272
    // crop of a replayed camera frame in 1.6 ms instead of 3.7 ms, 8 % larger (best of 15 each, one core,
    // 2026-12-02).
    if (effort == PNGEffort::fastest) png_set_compression_strategy(writer, Z_HUFFMAN_ONLY);
    png_set_filter(writer, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_write_info(writer, info);
    for (int y = 0; y < height; ++y) png_write_row(writer, luma + size_t(y) * stride);
    png_write_end(writer, info);
    png_destroy_write_struct(&writer, &info);
    png.resize(sink.used);
    return 0;
}

int write_png(const char *path, const uint8_t *luma, int width, int height, size_t stride) {
    PNGImage image;
    if (!path || !luma || !describe_grey(image, width, height, stride)) return -EIO;
    // libpng removes a partly written file itself when writing fails.
    return png_image_write_to_file(&image.image, path, 0, luma, png_int_32(stride), nullptr) ? 0 : -EIO;
}

}  // namespace lv::codecs
