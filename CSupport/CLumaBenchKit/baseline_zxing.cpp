// Raw ZXing-C++ behind lv_baseline.h: ReadBarcodes with default hints, for benchmarks.
#define ZX_USE_UTF8 1
#include "lv_baseline.h"
#include "barcode_internal.hpp"
#include "lv_shim.hpp"

#include <ZXing/ReadBarcode.h>

#include <cstring>

struct lv_zxing_baseline {
    ZXing::DecodeHints hints;
    ZXing::Results results;  // outside the assertion guard's frame (lv_shim.hpp)
};

extern "C" int lv_zxing_baseline_create(lv_zxing_baseline **out) {
    if (!out) return -EINVAL;
    *out = nullptr;
    return lv::guarded([&] {
        *out = new lv_zxing_baseline();
        return 0;
    });
}

extern "C" void lv_zxing_baseline_destroy(lv_zxing_baseline *baseline) { delete baseline; }

extern "C" int lv_zxing_baseline_restrict(lv_zxing_baseline *b, const int *symbologies, int count) {
    return lv::guarded([&] {
        if (!b || count < 0 || (count > 0 && !symbologies)) return -EINVAL;
        ZXing::BarcodeFormats formats;
        for (int i = 0; i < count; ++i) {
            uint32_t format = lv::barcode::zxing_format_of(symbologies[i]);
            if (format == 0) return -EINVAL;
            formats |= ZXing::BarcodeFormat(format);
        }
        b->hints.setFormats(formats);
        return 0;
    });
}

extern "C" int lv_zxing_baseline_scan(lv_zxing_baseline *b, const uint8_t *luma, int width, int height,
                                      size_t stride, lv_barcode_result *results, int max_results, uint8_t *data,
                                      size_t data_capacity) {
    return lv::guarded([&] {
        if (!b || !luma || width <= 0 || height <= 0 || stride < size_t(width) || max_results < 0 ||
            (max_results > 0 && (!results || !data)))
            return -EINVAL;
        ZXing::ImageView view(luma, width, height, ZXing::ImageFormat::Lum, int(stride));
        b->results.clear();
        if (!lv::assertion_guarded([&] { b->results = ZXing::ReadBarcodes(view, b->hints); })) {
            b->results.clear();
            return -EFAULT;
        }
        int valid = 0, written = 0;
        size_t used = 0;
        for (const ZXing::Result &r : b->results) {
            if (!r.isValid()) continue;
            ++valid;
            const ZXing::ByteArray &bytes = r.bytes();
            if (written >= max_results || used + bytes.size() + 1 > data_capacity) continue;
            lv_barcode_result &out = results[written++];
            std::memset(&out, 0, sizeof out);
            out.symbology = lv::barcode::symbology_of_zxing_format(uint32_t(r.format()));
            out.quality = r.lineCount();
            out.decoders = LV_DECODER_ZXING;
            out.data_offset = uint32_t(used);
            out.data_length = uint32_t(bytes.size());
            if (!bytes.empty()) std::memcpy(data + used, bytes.data(), bytes.size());
            data[used + bytes.size()] = 0;
            used += bytes.size() + 1;
        }
        return valid;
    });
}
