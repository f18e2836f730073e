// Raw zbar behind lv_baseline.h: zbar_scan_image with zbar's default configuration, for benchmarks.
#include "lv_baseline.h"
#include "lv_shim.hpp"

#include <zbar.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

// zbar.h declares its C API inside namespace zbar when compiled as C++.
using namespace zbar;

struct lv_zbar_baseline {
    zbar_image_scanner_t *scanner = nullptr;
    zbar_image_t *image = nullptr;
    std::vector<uint8_t> tight;  // padded frames only; grown, never shrunk

    ~lv_zbar_baseline() {
        if (image) zbar_image_destroy(image);
        if (scanner) zbar_image_scanner_destroy(scanner);
    }
};

extern "C" int lv_zbar_baseline_create(lv_zbar_baseline **out) {
    if (!out) return -EINVAL;
    *out = nullptr;
    return lv::guarded([&] {
        auto b = std::make_unique<lv_zbar_baseline>();
        b->scanner = zbar_image_scanner_create();
        b->image = zbar_image_create();
        if (!b->scanner || !b->image) return -ENOMEM;
        zbar_image_set_format(b->image, zbar_fourcc('Y', '8', '0', '0'));
        // What zbarimg does before scanning: every symbology and feature on; nothing else changed.
        zbar_image_scanner_set_config(b->scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 1);
        *out = b.release();
        return 0;
    });
}

extern "C" void lv_zbar_baseline_destroy(lv_zbar_baseline *baseline) { delete baseline; }

extern "C" int lv_zbar_baseline_restrict(lv_zbar_baseline *b, const int *symbologies, int count) {
    return lv::guarded([&] {
        if (!b || count < 0 || (count > 0 && !symbologies)) return -EINVAL;
        zbar_image_scanner_set_config(b->scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
        for (int i = 0; i < count; ++i) {
            if (symbologies[i] <= 0) return -EINVAL;
            if (zbar_image_scanner_set_config(b->scanner, zbar_symbol_type_t(symbologies[i]), ZBAR_CFG_ENABLE, 1) != 0)
                return -EINVAL;
        }
        return 0;
    });
}

extern "C" int lv_zbar_baseline_scan(lv_zbar_baseline *b, const uint8_t *luma, int width, int height, size_t stride,
                                     lv_barcode_result *results, int max_results, uint8_t *data,
                                     size_t data_capacity) {
    return lv::guarded([&] {
        if (!b || !luma || width <= 0 || height <= 0 || stride < size_t(width) || max_results < 0 ||
            (max_results > 0 && (!results || !data)))
            return -EINVAL;
        const uint8_t *pixels = luma;
        size_t tight_size = size_t(width) * size_t(height);
        if (stride != size_t(width)) {
            if (b->tight.size() < tight_size) b->tight.resize(tight_size);
            for (int row = 0; row < height; ++row)
                std::memcpy(b->tight.data() + size_t(row) * size_t(width), luma + size_t(row) * stride, size_t(width));
            pixels = b->tight.data();
        }
        zbar_image_set_size(b->image, unsigned(width), unsigned(height));
        // NULL cleanup handler: zbar borrows the memory for the duration of the scan and never frees it.
        zbar_image_set_data(b->image, pixels, tight_size, nullptr);
        int found = zbar_scan_image(b->scanner, b->image);
        if (found < 0) return -EIO;

        int written = 0;
        size_t used = 0;
        for (const zbar_symbol_t *sym = zbar_image_first_symbol(b->image); sym && written < max_results;
             sym = zbar_symbol_next(sym)) {
            unsigned length = zbar_symbol_get_data_length(sym);
            if (used + length + 1 > data_capacity) continue;
            lv_barcode_result &r = results[written++];
            std::memset(&r, 0, sizeof r);
            r.symbology = int32_t(zbar_symbol_get_type(sym));
            r.quality = zbar_symbol_get_quality(sym);
            r.orientation = int32_t(zbar_symbol_get_orientation(sym));
            r.data_offset = uint32_t(used);
            r.data_length = length;
            std::memcpy(data + used, zbar_symbol_get_data(sym), length);
            data[used + length] = 0;
            used += length + 1;
        }
        return found;
    });
}
