// Luma extraction from packed 4:2:2 frames: the per-pixel loop of YUYV and UYVY capture.
#include "CLumaCapture.h"

// One row: every second byte. Kept as a plain loop over restrict pointers because clang's loop vectoriser turns it
// into interleaved 16-byte vector loads and shuffles (checked with -Rpass=loop-vectorize: SSE2 on x86-64, NEON on
// arm64), as fast as hand-written intrinsics and portable. The pragma is a workaround: clang enables the vectoriser
// only from -O2 by default, and SwiftPM may build C targets at -O1 or -Os; with it the loop is vectorised at every
// optimisation level (debug builds at -O0 stay scalar).
static inline void lc_extract_row(const uint8_t *restrict src, uint8_t *restrict dst, size_t width) {
#if defined(__clang__)
#pragma clang loop vectorize(enable)
#endif
    for (size_t x = 0; x < width; x++) dst[x] = src[2 * x];
}

void lc_extract_luma_packed(const void *src, size_t src_stride, int width, int height, int offset, void *dst,
                            size_t dst_stride) {
    if (src == NULL || dst == NULL || width <= 0 || height <= 0) return;
    const uint8_t *source = (const uint8_t *)src + (offset != 0 ? 1 : 0);
    uint8_t *destination = dst;
    for (int row = 0; row < height; row++) {
        lc_extract_row(source + (size_t)row * src_stride, destination + (size_t)row * dst_stride, (size_t)width);
    }
}
