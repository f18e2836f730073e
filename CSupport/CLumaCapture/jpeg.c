// JPEG to luma (and grey to JPEG) with TurboJPEG.
#include "CLumaCapture.h"

#include <errno.h>
#include <stdlib.h>
#include <turbojpeg.h>

// The header spells the codes as numbers for Swift; they must stay the errno codes they name.
_Static_assert(LC_JPEG_EINVAL == -EINVAL, "LC_JPEG_EINVAL is -EINVAL");
_Static_assert(LC_JPEG_EHEADER == -EBADMSG, "LC_JPEG_EHEADER is -EBADMSG");
_Static_assert(LC_JPEG_ESIZE == -ERANGE, "LC_JPEG_ESIZE is -ERANGE");
_Static_assert(LC_JPEG_ETRUNCATED == -ENODATA, "LC_JPEG_ETRUNCATED is -ENODATA");
_Static_assert(LC_JPEG_ECORRUPT == -EILSEQ, "LC_JPEG_ECORRUPT is -EILSEQ");
_Static_assert(LC_JPEG_ENOMEM == -ENOMEM, "LC_JPEG_ENOMEM is -ENOMEM");
_Static_assert(LC_JPEG_EWARNING == -EPROTO, "LC_JPEG_EWARNING is -EPROTO");

struct lc_jpeg_decoder {
    tjhandle handle;
    // A message for failures detected before TurboJPEG is called (TurboJPEG's own text is per handle).
    const char *message;
};

struct lc_jpeg_encoder {
    tjhandle handle;
    const char *message;
};

int lc_jpeg_decoder_create(lc_jpeg_decoder **out) {
    if (out == NULL) return LC_JPEG_EINVAL;
    *out = NULL;
    lc_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return LC_JPEG_ENOMEM;
    decoder->handle = tjInitDecompress();
    if (decoder->handle == NULL) {
        free(decoder);
        return LC_JPEG_ENOMEM;
    }
    *out = decoder;
    return 0;
}

void lc_jpeg_decoder_destroy(lc_jpeg_decoder *decoder) {
    if (decoder == NULL) return;
    tjDestroy(decoder->handle);
    free(decoder);
}

const char *lc_jpeg_decoder_error(lc_jpeg_decoder *decoder) {
    if (decoder == NULL) return "no decoder";
    if (decoder->message != NULL) return decoder->message;
    return tjGetErrorStr2(decoder->handle);
}

int lc_jpeg_decode_grey(lc_jpeg_decoder *decoder, const void *jpeg, size_t size, void *dst, size_t dst_stride,
                        int width, int height) {
    if (decoder == NULL) return LC_JPEG_EINVAL;
    decoder->message = NULL;
    if (jpeg == NULL || dst == NULL || width <= 0 || height <= 0 || dst_stride < (size_t)width ||
        dst_stride > (size_t)INT32_MAX) {
        decoder->message = "invalid arguments";
        return LC_JPEG_EINVAL;
    }
    const uint8_t *bytes = jpeg;
    // Checked here rather than left to libjpeg: a frame of garbage is then rejected without setting up a decode.
    if (size < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8) {
        decoder->message = "no JPEG start-of-image marker";
        return LC_JPEG_EHEADER;
    }
    // libjpeg treats a missing end of data as a mere warning ("premature end of JPEG file") and fills the rest of the
    // image with grey; a truncated frame must be reported as such, so the EOI marker is required. Drivers may count
    // zero padding after it in bytesused.
    size_t end = size;
    while (end > 4 && bytes[end - 1] == 0x00) end--;
    if (bytes[end - 2] != 0xFF || bytes[end - 1] != 0xD9) {
        decoder->message = "truncated JPEG: no end-of-image marker";
        return LC_JPEG_ETRUNCATED;
    }
    int jpeg_width = 0, jpeg_height = 0, subsampling = 0, colorspace = 0;
    if (tjDecompressHeader3(decoder->handle, bytes, (unsigned long)end, &jpeg_width, &jpeg_height, &subsampling,
                            &colorspace) != 0) {
        return LC_JPEG_EHEADER;
    }
    if (jpeg_width != width || jpeg_height != height) {
        decoder->message = "JPEG size differs from the frame format's";
        return LC_JPEG_ESIZE;
    }
    // TJPF_GRAY makes libjpeg convert YCbCr to grey by taking Y only and skip the chroma IDCT and upsampling.
    // Warnings do not stop the decode, so the caller can choose to use an image with a benign warning.
    if (tjDecompress2(decoder->handle, bytes, (unsigned long)end, dst, width, (int)dst_stride, height, TJPF_GRAY,
                      0) != 0) {
        return tjGetErrorCode(decoder->handle) == TJERR_WARNING ? LC_JPEG_EWARNING : LC_JPEG_ECORRUPT;
    }
    return 0;
}

int lc_jpeg_encoder_create(lc_jpeg_encoder **out) {
    if (out == NULL) return LC_JPEG_EINVAL;
    *out = NULL;
    lc_jpeg_encoder *encoder = calloc(1, sizeof *encoder);
    if (encoder == NULL) return LC_JPEG_ENOMEM;
    encoder->handle = tjInitCompress();
    if (encoder->handle == NULL) {
        free(encoder);
        return LC_JPEG_ENOMEM;
    }
    *out = encoder;
    return 0;
}

void lc_jpeg_encoder_destroy(lc_jpeg_encoder *encoder) {
    if (encoder == NULL) return;
    tjDestroy(encoder->handle);
    free(encoder);
}

const char *lc_jpeg_encoder_error(lc_jpeg_encoder *encoder) {
    if (encoder == NULL) return "no encoder";
    if (encoder->message != NULL) return encoder->message;
    return tjGetErrorStr2(encoder->handle);
}

size_t lc_jpeg_grey_capacity(int width, int height) {
    if (width <= 0 || height <= 0) return 0;
    unsigned long capacity = tjBufSize(width, height, TJSAMP_GRAY);
    // tjBufSize returns (unsigned long)-1 when the size overflows.
    return capacity == (unsigned long)-1 ? 0 : (size_t)capacity;
}

long lc_jpeg_encode_grey(lc_jpeg_encoder *encoder, const void *src, size_t src_stride, int width, int height,
                         int quality, void *dst, size_t capacity) {
    if (encoder == NULL) return LC_JPEG_EINVAL;
    encoder->message = NULL;
    size_t needed = lc_jpeg_grey_capacity(width, height);
    if (src == NULL || dst == NULL || needed == 0 || capacity < needed || src_stride < (size_t)width ||
        src_stride > (size_t)INT32_MAX || quality < 1 || quality > 100) {
        encoder->message = "invalid arguments";
        return LC_JPEG_EINVAL;
    }
    unsigned char *output = dst;
    unsigned long size = (unsigned long)capacity;
    // TJFLAG_NOREALLOC: the caller's buffer is big enough (checked above), so TurboJPEG must never replace it.
    if (tjCompress2(encoder->handle, src, width, (int)src_stride, height, TJPF_GRAY, &output, &size, TJSAMP_GRAY,
                    quality, TJFLAG_NOREALLOC) != 0) {
        return LC_JPEG_ECORRUPT;
    }
    return (long)size;
}
