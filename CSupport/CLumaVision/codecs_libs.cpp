// Image file codecs behind codecs.hpp whose libraries are linked by name: WebP (libwebp), TIFF (libtiff) and GIF
// (giflib), each decoded to 8-bit grey. Every length read from a file is checked against the bytes there before use,
// and every image's size against the pixel budget (`check_size`) before its pixels are allocated.
#include "codecs_internal.hpp"

// libwebp, libtiff and giflib are linked by name (Package.swift), not found through pkg-config, so SwiftPM cannot
// name a missing package itself.
#if !__has_include(<webp/decode.h>)
#error "libwebp's headers are missing: install libwebp-dev (scripts/deps.sh does)"
#endif
#if !__has_include(<tiffio.h>)
#error "libtiff's headers are missing: install libtiff-dev (scripts/deps.sh does)"
#endif
#if !__has_include(<gif_lib.h>)
#error "giflib's headers are missing: install libgif-dev (scripts/deps.sh does)"
#endif
#include <gif_lib.h>
#include <tiffio.h>
#include <webp/decode.h>

#include <algorithm>
#include <climits>
#include <mutex>

namespace lv::codecs::detail {
namespace {
// ---- WebP --------------------------------------------------------------------------------------------------------

int webp_status(VP8StatusCode status) {
    switch (status) {
        case VP8_STATUS_OK: return 0;
        case VP8_STATUS_OUT_OF_MEMORY: return -ENOMEM;
        case VP8_STATUS_UNSUPPORTED_FEATURE: return -ENOTSUP;  // an animation, say
        default: return -EBADMSG;                              // a bitstream error, or not enough data
    }
}

}  // namespace

/// Reads lossy and lossless WebP (still images; an animation is refused with -ENOTSUP), decoded to RGB and then to
/// BT.601 grey, so a WebP reads as the PNG it was made from; alpha is ignored (libwebp's RGB output drops it without
/// compositing).
int decode_webp(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t budget) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return -ENOTSUP;  // a libwebp of another ABI than the headers
    if (int status = webp_status(WebPGetFeatures(bytes, length, &config.input)); status != 0) return status;
    if (int status = check_size(uint64_t(config.input.width), uint64_t(config.input.height), budget); status != 0)
        return status;
    cv::Mat rgb(config.input.height, config.input.width, CV_8UC3);
    // libwebp writes into our buffer (external memory), so nothing of its own is left to free with WebPFreeDecBuffer.
    config.output.colorspace = MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = rgb.data;
    config.output.u.RGBA.stride = int(rgb.step[0]);
    config.output.u.RGBA.size = rgb.step[0] * size_t(rgb.rows);
    if (int status = webp_status(WebPDecode(bytes, length, &config)); status != 0) return status;
    out.create(rgb.rows, rgb.cols, CV_8UC1);
    for (int y = 0; y < rgb.rows; ++y) {
        const uint8_t *source = rgb.ptr<uint8_t>(y);
        uint8_t *target = out.ptr<uint8_t>(y);
        for (int x = 0; x < rgb.cols; ++x, source += 3) target[x] = grey(source[0], source[1], source[2]);
    }
    return 0;
}

namespace {

// ---- TIFF --------------------------------------------------------------------------------------------------------

/// The encoded file libtiff reads through TIFFClientOpen's callbacks: memory, read-only.
struct TIFFMemory {
    const uint8_t *bytes;
    size_t length;
    uint64_t at;
};

tmsize_t tiff_read(thandle_t handle, void *buffer, tmsize_t size) {
    auto *file = static_cast<TIFFMemory *>(handle);
    if (size < 0) return -1;
    const uint64_t left = file->at < file->length ? file->length - file->at : 0;
    const size_t count = size_t(std::min<uint64_t>(uint64_t(size), left));
    if (count > 0) std::memcpy(buffer, file->bytes + file->at, count);
    file->at += count;
    return tmsize_t(count);
}

tmsize_t tiff_write(thandle_t, void *, tmsize_t) { return -1; }

toff_t tiff_seek(thandle_t handle, toff_t offset, int whence) {
    auto *file = static_cast<TIFFMemory *>(handle);
    // SEEK_CUR and SEEK_END move by a signed amount that libtiff passes as toff_t.
    const int64_t delta = int64_t(offset);
    int64_t position;
    switch (whence) {
        case SEEK_SET: position = delta; break;
        case SEEK_CUR: position = int64_t(file->at) + delta; break;
        case SEEK_END: position = int64_t(file->length) + delta; break;
        default: return toff_t(-1);
    }
    if (position < 0) return toff_t(-1);
    file->at = uint64_t(position);  // past the end is allowed; reads there return nothing
    return file->at;
}

int tiff_close(thandle_t) { return 0; }

toff_t tiff_size(thandle_t handle) { return static_cast<TIFFMemory *>(handle)->length; }

/// Hands libtiff the bytes as its "mapped file", so it reads strips in place instead of copying them through
/// tiff_read (the file is opened read-only, so it never writes there).
int tiff_map(thandle_t handle, void **base, toff_t *size) {
    auto *file = static_cast<TIFFMemory *>(handle);
    *base = const_cast<uint8_t *>(file->bytes);
    *size = file->length;
    return 1;
}

void tiff_unmap(thandle_t, void *, toff_t) {}

#if TIFFLIB_VERSION >= 20221213  // libtiff 4.5.0, Debian 12's, has per-handle message handlers
/// Swallows a message: libtiff's default handlers print every error and warning to stderr, and a corrupt file must
/// come back as an error code, not as noise in a daemon's output. Returning 1 stops the global handlers too.
int tiff_silent(TIFF *, void *, const char *, const char *, va_list) { return 1; }

/// Open options that route a handle's messages to `tiff_silent`.
struct TIFFOptions {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    TIFFOptions() {
        if (!options) return;
        TIFFOpenOptionsSetErrorHandlerExtR(options, tiff_silent, nullptr);
        TIFFOpenOptionsSetWarningHandlerExtR(options, tiff_silent, nullptr);
    }
    ~TIFFOptions() { TIFFOpenOptionsFree(options); }
    TIFFOptions(const TIFFOptions &) = delete;
    TIFFOptions &operator=(const TIFFOptions &) = delete;
};

TIFF *tiff_open(TIFFMemory &memory) {
    TIFFOptions options;
    if (!options.options) return nullptr;
    return TIFFClientOpenExt("memory", "r", &memory, tiff_read, tiff_write, tiff_seek, tiff_close, tiff_size,
                             tiff_map, tiff_unmap, options.options);
}
#else
/// An older libtiff has only the process-wide handlers: silence them once (see tiff_silent above for why).
TIFF *tiff_open(TIFFMemory &memory) {
    static std::once_flag silenced;
    std::call_once(silenced, [] {
        TIFFSetErrorHandler(nullptr);
        TIFFSetWarningHandler(nullptr);
    });
    return TIFFClientOpen("memory", "r", &memory, tiff_read, tiff_write, tiff_seek, tiff_close, tiff_size, tiff_map,
                          tiff_unmap);
}
#endif

/// Closes a TIFF handle on every path.
struct TIFFHandle {
    TIFF *tiff;
    ~TIFFHandle() {
        if (tiff) TIFFClose(tiff);
    }
    TIFFHandle(const TIFFHandle &) = delete;
    TIFFHandle &operator=(const TIFFHandle &) = delete;
};

}  // namespace

/// Reads a TIFF's first directory (page) through libtiff's RGBA interface, which converts every photometric
/// interpretation libtiff knows (grey, palette, RGB, YCbCr, CMYK, CIE L*a*b*, 1 to 16 bits a sample) to 8-bit RGBA
/// oriented top-left, then BT.601 grey: an 8-bit grey TIFF reads exactly. An image with unassociated alpha has its
/// colour multiplied by alpha (libtiff's conversion does so).
int decode_tiff(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t budget) {
    TIFFMemory memory{bytes, length, 0};
    TIFFHandle handle{tiff_open(memory)};
    TIFF *tiff = handle.tiff;
    if (!tiff) return -EBADMSG;
    uint32_t width = 0, height = 0;
    if (!TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height))
        return -EBADMSG;
    if (int status = check_size(width, height, budget); status != 0) return status;
    uint16_t compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_COMPRESSION, &compression);
    char reason[1024];
    if (!TIFFIsCODECConfigured(compression) || !TIFFRGBAImageOK(tiff, reason)) return -ENOTSUP;
    cv::Mat raster(int(height), int(width), CV_32SC1);
    // stop_on_error 1: a truncated or corrupt strip fails the read instead of leaving a partly blank image.
    if (!TIFFReadRGBAImageOriented(tiff, width, height, reinterpret_cast<uint32_t *>(raster.data), ORIENTATION_TOPLEFT,
                                   1))
        return -EBADMSG;
    out.create(raster.rows, raster.cols, CV_8UC1);
    for (int y = 0; y < raster.rows; ++y) {
        const uint32_t *source = raster.ptr<uint32_t>(y);
        uint8_t *target = out.ptr<uint8_t>(y);
        for (int x = 0; x < raster.cols; ++x)
            target[x] = grey(TIFFGetR(source[x]), TIFFGetG(source[x]), TIFFGetB(source[x]));
    }
    return 0;
}

namespace {

// ---- GIF ---------------------------------------------------------------------------------------------------------

/// The encoded file giflib reads through DGifOpen's callback.
struct GIFMemory {
    const uint8_t *bytes;
    size_t length;
    size_t at;
};

int gif_read(GifFileType *gif, GifByteType *buffer, int size) {
    auto *file = static_cast<GIFMemory *>(gif->UserData);
    const size_t count = size > 0 ? std::min(size_t(size), file->length - file->at) : 0;
    if (count > 0) std::memcpy(buffer, file->bytes + file->at, count);
    file->at += count;
    return int(count);
}

int gif_status(int error) { return error == D_GIF_ERR_NOT_ENOUGH_MEM ? -ENOMEM : -EBADMSG; }

/// Closes a giflib decoder on every path.
struct GIFDecoder {
    GifFileType *gif;
    ~GIFDecoder() {
        int error;
        if (gif) DGifCloseFile(gif, &error);
    }
    GIFDecoder(const GIFDecoder &) = delete;
    GIFDecoder &operator=(const GIFDecoder &) = delete;
};

}  // namespace

/// Reads a GIF's first frame, drawn where it belongs on the logical screen (grown to hold the frame, as browsers do
/// for a screen some encoders leave 0x0), the rest of the screen in the background colour; the palette is converted
/// to BT.601 grey and transparency is ignored. The frame is read line by line (never DGifSlurp, which would allocate
/// every frame first), after its size has passed `check_size`.
int decode_gif(const uint8_t *bytes, size_t length, cv::Mat &out, uint64_t budget) {
    GIFMemory memory{bytes, length, 0};
    int error = 0;
    GIFDecoder decoder{DGifOpen(&memory, gif_read, &error)};
    GifFileType *gif = decoder.gif;
    if (!gif) return gif_status(error);
    while (true) {
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) return gif_status(gif->Error);
        if (record == TERMINATE_RECORD_TYPE) return -EBADMSG;  // no image at all
        if (record == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *block = nullptr;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return gif_status(gif->Error);
            while (block)
                if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return gif_status(gif->Error);
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) == GIF_ERROR) return gif_status(gif->Error);
        const GifImageDesc frame = gif->Image;
        if (frame.Width <= 0 || frame.Height <= 0 || frame.Left < 0 || frame.Top < 0) return -EBADMSG;
        const uint64_t width = std::max<uint64_t>(uint64_t(gif->SWidth), uint64_t(frame.Left) + uint64_t(frame.Width));
        const uint64_t height =
            std::max<uint64_t>(uint64_t(gif->SHeight), uint64_t(frame.Top) + uint64_t(frame.Height));
        if (int status = check_size(width, height, budget); status != 0) return status;
        const ColorMapObject *colours = frame.ColorMap ? frame.ColorMap : gif->SColorMap;
        if (!colours) return -EBADMSG;  // neither a local nor a global colour table
        uint8_t palette[256] = {};
        for (int i = 0; i < std::min(colours->ColorCount, 256); ++i)
            palette[i] = grey(colours->Colors[i].Red, colours->Colors[i].Green, colours->Colors[i].Blue);
        uint8_t background = 0;
        if (gif->SColorMap && gif->SBackGroundColor >= 0 && gif->SBackGroundColor < gif->SColorMap->ColorCount) {
            const GifColorType &colour = gif->SColorMap->Colors[gif->SBackGroundColor];
            background = grey(colour.Red, colour.Green, colour.Blue);
        }
        out.create(int(height), int(width), CV_8UC1);
        out.setTo(cv::Scalar(background));
        std::vector<GifPixelType> line(size_t(frame.Width));
        // An interlaced frame stores every 8th row from 0, every 8th from 4, every 4th from 2, then every 2nd from 1.
        const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
        const int passes = frame.Interlace ? 4 : 1;
        for (int pass = 0; pass < passes; ++pass) {
            const int step = frame.Interlace ? steps[pass] : 1;
            for (int row = frame.Interlace ? starts[pass] : 0; row < frame.Height; row += step) {
                if (DGifGetLine(gif, line.data(), frame.Width) == GIF_ERROR) return gif_status(gif->Error);
                uint8_t *target = out.ptr<uint8_t>(frame.Top + row) + frame.Left;
                for (int x = 0; x < frame.Width; ++x) target[x] = palette[line[size_t(x)]];
            }
        }
        return 0;
    }
}

}  // namespace lv::codecs::detail
