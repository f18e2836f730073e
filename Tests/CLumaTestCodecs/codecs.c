// Test-only encoders behind lt_codecs.h, each a thin use of its library's own writer.
#include "lt_codecs.h"

#include <errno.h>
#include <gif_lib.h>
#include <stdio.h>
#include <tiffio.h>
#include <webp/encode.h>

static int write_file(const char *path, const uint8_t *bytes, size_t length) {
    FILE *file = fopen(path, "wb");
    if (!file) return -EIO;
    const size_t written = fwrite(bytes, 1, length, file);
    return fclose(file) == 0 && written == length ? 0 : -EIO;
}

int lt_write_webp_rgb(const char *path, const uint8_t *rgb, int width, int height, int stride, float quality) {
    if (!path || !rgb || width <= 0 || height <= 0 || stride < 3 * width) return -EINVAL;
    uint8_t *webp = NULL;
    const size_t length = quality < 0 ? WebPEncodeLosslessRGB(rgb, width, height, stride, &webp)
                                      : WebPEncodeRGB(rgb, width, height, stride, quality, &webp);
    if (length == 0) return -EIO;
    const int status = write_file(path, webp, length);
    WebPFree(webp);
    return status;
}

int lt_write_webp_rgba(const char *path, const uint8_t *rgba, int width, int height, int stride) {
    if (!path || !rgba || width <= 0 || height <= 0 || stride < 4 * width) return -EINVAL;
    uint8_t *webp = NULL;
    const size_t length = WebPEncodeLosslessRGBA(rgba, width, height, stride, &webp);
    if (length == 0) return -EIO;
    const int status = write_file(path, webp, length);
    WebPFree(webp);
    return status;
}

int lt_write_tiff(const char *path, const void *samples, int width, int height, size_t stride, int channels, int bits,
                  int compression, int rows_per_strip) {
    if (!path || !samples || width <= 0 || height <= 0 || (channels != 1 && channels != 3) ||
        (bits != 8 && bits != 16) || rows_per_strip <= 0)
        return -EINVAL;
    TIFF *tiff = TIFFOpen(path, "w");
    if (!tiff) return -EIO;
    int ok = TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, (uint32_t)width) &&
             TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, (uint32_t)height) &&
             TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)channels) &&
             TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, (uint16_t)bits) &&
             TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
             TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, channels == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB) &&
             TIFFSetField(tiff, TIFFTAG_COMPRESSION, (uint16_t)compression) &&
             TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, (uint32_t)rows_per_strip);
    for (int y = 0; ok && y < height; ++y)
        ok = TIFFWriteScanline(tiff, (uint8_t *)samples + (size_t)y * stride, (uint32_t)y, 0) == 1;
    TIFFClose(tiff);
    if (!ok) remove(path);
    return ok ? 0 : -EIO;
}

int lt_write_gif(const char *path, const uint8_t *indices, int width, int height, int stride, const uint8_t *rgb,
                 int colours, int interlace) {
    if (!path || !indices || !rgb || width <= 0 || height <= 0 || width > 65535 || height > 65535 || stride < width ||
        colours < 2 || colours > 256)
        return -EINVAL;
    int size = 2;
    while (size < colours) size *= 2;
    ColorMapObject *map = GifMakeMapObject(size, NULL);
    if (!map) return -ENOMEM;
    for (int i = 0; i < colours; ++i) {
        map->Colors[i].Red = rgb[3 * i];
        map->Colors[i].Green = rgb[3 * i + 1];
        map->Colors[i].Blue = rgb[3 * i + 2];
    }
    int error = 0;
    GifFileType *gif = EGifOpenFileName(path, false, &error);
    if (!gif) {
        GifFreeMapObject(map);
        return -EIO;
    }
    EGifSetGifVersion(gif, true);
    int ok = EGifPutScreenDesc(gif, width, height, 8, 0, map) == GIF_OK &&
             EGifPutImageDesc(gif, 0, 0, width, height, interlace != 0, NULL) == GIF_OK;
    // An interlaced image's lines go in the GIF specification's order: every 8th row from 0, every 8th from 4,
    // every 4th from 2, every 2nd from 1.
    static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    for (int pass = 0; ok && pass < (interlace ? 4 : 1); ++pass)
        for (int y = interlace ? starts[pass] : 0; ok && y < height; y += interlace ? steps[pass] : 1)
            ok = EGifPutLine(gif, (GifPixelType *)(indices + (size_t)y * (size_t)stride), width) == GIF_OK;
    ok = EGifCloseFile(gif, &error) == GIF_OK && ok;
    GifFreeMapObject(map);
    if (!ok) remove(path);
    return ok ? 0 : -EIO;
}
