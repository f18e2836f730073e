// libFuzzer target for the barcode scanner (lv_barcode_* in CSupport/CLumaVision/include/lv_barcode.h) on arbitrary
// luma planes. The first 8 bytes choose the plane's width and height (1...160 each), the region of interest, the
// density, the QR downscale and the path (live or still); the rest are the pixels, repeated to fill the plane, which
// is allocated to its exact size so that a read past it is an AddressSanitizer report. The full-resolution QR reading
// is on for one input in two, and the unread QR codes it notes must be at most 2, with finite corners.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "lv_barcode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static lv_barcode_scanner *scanner = [] {
        lv_barcode_scanner *created = nullptr;
        return lv_barcode_scanner_create(&created) == 0 ? created : nullptr;
    }();
    if (size < 9 || scanner == nullptr) return -1;
    const int width = 1 + data[0] % 160, height = 1 + data[1] % 160;
    const int roi_x = data[2] % (width + 8) - 4, roi_y = data[3] % (height + 8) - 4;
    const int roi_w = data[4] % (width + 4), roi_h = data[5] % (height + 4);
    const bool still = data[6] & 1;
    lv_barcode_scanner_set_density(scanner, (data[6] >> 1) % 4, (data[6] >> 3) % 4);
    lv_barcode_scanner_set_qr_downscale(scanner, 1 + (data[7] & 3));
    lv_barcode_scanner_set_qr_prefilter(scanner, (data[7] >> 2) & 1);
    lv_barcode_scanner_set_qr_full_resolution(scanner, (data[7] >> 3) & 1);
    const uint8_t *pixels = data + 8;
    const size_t count = size - 8;
    std::vector<uint8_t> plane(size_t(width) * height);
    for (size_t i = 0; i < plane.size(); ++i) plane[i] = pixels[i % count];
    lv_barcode_result results[8];
    static std::vector<uint8_t> text(1 << 16);
    const int found = still ? lv_barcode_scan_still(scanner, plane.data(), width, height, size_t(width), roi_x, roi_y,
                                                    roi_w, roi_h, results, 8, text.data(), text.size())
                            : lv_barcode_scan(scanner, plane.data(), width, height, size_t(width), roi_x, roi_y, roi_w,
                                              roi_h, results, 8, text.data(), text.size());
    (void)found;
    float unread[2 * 9];
    const int codes = lv_barcode_scanner_unread_qr(scanner, unread, 2);
    if (codes < 0 || codes > 2) abort();
    for (int i = 0; i < codes * 9; ++i)
        if (!std::isfinite(unread[i])) abort();
    return 0;
}
