// Codes of every symbology through libzint: ZBarcode_Encode, then ZBarcode_Buffer's raster (`symbol->bitmap`, RGB)
// reduced to grey.
#include "lt_testkit.h"

#include "kit.hpp"

#include <zint.h>

#include <cstring>
#include <memory>
#include <vector>

static_assert(LT_CODE_ITF == BARCODE_C25INTER && LT_CODE_CODE39 == BARCODE_CODE39 && LT_CODE_EAN == BARCODE_EANX &&
              LT_CODE_CODABAR == BARCODE_CODABAR && LT_CODE_CODE128 == BARCODE_CODE128 &&
              LT_CODE_CODE93 == BARCODE_CODE93 && LT_CODE_DATABAR == BARCODE_DBAR_OMN &&
              LT_CODE_DATABAR_EXP == BARCODE_DBAR_EXP && LT_CODE_UPCA == BARCODE_UPCA &&
              LT_CODE_UPCE == BARCODE_UPCE && LT_CODE_PDF417 == BARCODE_PDF417 &&
              LT_CODE_MAXICODE == BARCODE_MAXICODE && LT_CODE_QR == BARCODE_QRCODE &&
              LT_CODE_DATAMATRIX == BARCODE_DATAMATRIX && LT_CODE_AZTEC == BARCODE_AZTEC &&
              LT_CODE_MICROQR == BARCODE_MICROQR,
              "LT_CODE_* are zint's BARCODE_* numbers");

struct lt_bitmap {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> pixels;
};

namespace {

struct SymbolDeleter {
    void operator()(zint_symbol *symbol) const { ZBarcode_Delete(symbol); }
};

bool known(int symbology) {
    switch (symbology) {
    case LT_CODE_ITF: case LT_CODE_CODE39: case LT_CODE_EAN: case LT_CODE_CODABAR: case LT_CODE_CODE128:
    case LT_CODE_CODE93: case LT_CODE_DATABAR: case LT_CODE_DATABAR_EXP: case LT_CODE_UPCA: case LT_CODE_UPCE:
    case LT_CODE_PDF417: case LT_CODE_MAXICODE: case LT_CODE_QR: case LT_CODE_DATAMATRIX: case LT_CODE_AZTEC:
    case LT_CODE_MICROQR:
        return true;
    default:
        return false;
    }
}

}  // namespace

extern "C" int lt_code_render(int symbology, const uint8_t *data, size_t length, const lt_code_style *style,
                              lt_bitmap **out) {
    return lt::guarded([&] {
        if (!data || length == 0 || length > 4096 || !style || !out || !known(symbology) || style->module_px < 1 ||
            style->module_px > 64)
            return -EINVAL;
        std::unique_ptr<zint_symbol, SymbolDeleter> symbol(ZBarcode_Create());
        if (!symbol) return -ENOMEM;
        symbol->symbology = symbology;
        // zint's raster X-dimension is 2 pixels at scale 1, and it takes scales in steps of 0.5.
        symbol->scale = float(style->module_px) / 2.0f;
        if (style->quiet_modules >= 0) {
            symbol->whitespace_width = style->quiet_modules;
            symbol->whitespace_height = style->quiet_modules;
        }
        if (style->bar_height > 0) symbol->height = style->bar_height;
        symbol->show_hrt = style->show_text ? 1 : 0;
        symbol->input_mode = style->gs1 || symbology == LT_CODE_DATABAR_EXP ? GS1_MODE
                             : style->unicode                                ? UNICODE_MODE
                                                                             : DATA_MODE;
        symbol->option_1 = style->option_1;
        symbol->option_2 = style->option_2;
        symbol->option_3 = style->option_3;
        if (symbology == LT_CODE_MAXICODE && style->option_1 == 0) symbol->option_1 = 4;
        int status = ZBarcode_Encode(symbol.get(), data, int(length));
        // Warnings (for example "converted to Shift JIS but no ECI specified") still produce the intended symbol.
        if (status >= ZINT_ERROR) return -EINVAL;
        status = ZBarcode_Buffer(symbol.get(), 0);
        if (status >= ZINT_ERROR || !symbol->bitmap || symbol->bitmap_width <= 0 || symbol->bitmap_height <= 0)
            return -EIO;
        auto bitmap = std::make_unique<lt_bitmap>();
        bitmap->width = symbol->bitmap_width;
        bitmap->height = symbol->bitmap_height;
        const size_t count = size_t(bitmap->width) * size_t(bitmap->height);
        bitmap->pixels.resize(count);
        const unsigned char *rgb = symbol->bitmap;
        for (size_t i = 0; i < count; ++i)
            bitmap->pixels[i] = uint8_t((int(rgb[3 * i]) + int(rgb[3 * i + 1]) + int(rgb[3 * i + 2])) / 3);
        *out = bitmap.release();
        return 0;
    });
}

extern "C" int lt_bitmap_width(const lt_bitmap *bitmap) { return bitmap ? bitmap->width : -EINVAL; }

extern "C" int lt_bitmap_height(const lt_bitmap *bitmap) { return bitmap ? bitmap->height : -EINVAL; }

extern "C" const uint8_t *lt_bitmap_pixels(const lt_bitmap *bitmap) {
    return bitmap && !bitmap->pixels.empty() ? bitmap->pixels.data() : nullptr;
}

extern "C" void lt_bitmap_destroy(lt_bitmap *bitmap) { delete bitmap; }
