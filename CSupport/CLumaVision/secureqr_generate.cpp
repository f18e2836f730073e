// Secure QR generator behind lv_secureqr.h: QR encoding (libqrencode), the copy-detection pattern from a seed, and
// rendering. The layout functions here are shared with the analyzer (secureqr_analyze.cpp), so the generator and the
// recognizer cannot disagree on where the secure graphic is.
#include "lv_secureqr.h"
#include "lv_shim.hpp"

#include <qrencode.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <new>
#include <string>

namespace {

using lv::guarded;  // lv_shim.hpp: the one exception guard of every extern "C" entry point

bool valid_design(const lv_sqr_design *d) {
    if (!d || d->cells_per_module < 1 || d->cells_per_module > 16) return false;
    if (d->centre_modules != 0 && (d->centre_modules < 3 || d->centre_modules % 2 == 0)) return false;
    const double values[] = {d->zone_x_per_n,     d->zone_x,     d->zone_y_per_n,      d->zone_y,
                             d->zone_width_per_n, d->zone_width, d->zone_height_per_n, d->zone_height};
    for (double v : values)
        if (!std::isfinite(v)) return false;
    return true;
}

/// The extent of a rendered code in module coordinates: the code, the fingerprint zone for hybrid designs, and the
/// quiet zone around both.
struct Extent {
    double min_x, min_y, max_x, max_y;
};

Extent extent(const lv_sqr_layout &layout, const lv_sqr_design &design, int quiet_zone) {
    double n = layout.modules;
    Extent e{0, 0, n, n};
    if (design.hybrid) {
        e.min_x = std::min(e.min_x, layout.region[0]);
        e.min_y = std::min(e.min_y, layout.region[1]);
        e.max_x = std::max(e.max_x, layout.region[0] + layout.region[2]);
        e.max_y = std::max(e.max_y, layout.region[1] + layout.region[3]);
    }
    e.min_x -= quiet_zone;
    e.min_y -= quiet_zone;
    e.max_x += quiet_zone;
    e.max_y += quiet_zone;
    return e;
}

/// SplitMix64 (Steele, Lea and Flood 2014): the CDP's documented generator.
struct SplitMix64 {
    uint64_t state;
    uint64_t next() {
        state += 0x9E3779B97F4A7C15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
};

}  // namespace

extern "C" void lv_sqr_design_default(lv_sqr_design *design) {
    if (!design) return;
    std::memset(design, 0, sizeof *design);
    design->cells_per_module = 4;
    design->hybrid = 0;
    design->centre_modules = 0;
    design->zone_x_per_n = 1;
    design->zone_x = 2;
    design->zone_width_per_n = 1;
    design->zone_height_per_n = 1;
}

extern "C" int lv_sqr_layout_for(int modules, const lv_sqr_design *design, lv_sqr_layout *out) {
    return guarded([&] {
        if (!out || !valid_design(design) || modules < 21 || modules > LV_SQR_MAX_MODULES || (modules - 17) % 4 != 0)
            return -EINVAL;
        lv_sqr_layout layout{};
        layout.modules = modules;
        layout.version = (modules - 17) / 4;
        double n = modules;
        int cpm = design->cells_per_module;
        if (design->hybrid) {
            double x = design->zone_x_per_n * n + design->zone_x;
            double y = design->zone_y_per_n * n + design->zone_y;
            double w = design->zone_width_per_n * n + design->zone_width;
            double h = design->zone_height_per_n * n + design->zone_height;
            if (!(w >= 1) || !(h >= 1)) return -EINVAL;
            // The zone must not overlap the code.
            if (x < n && x + w > 0 && y < n && y + h > 0) return -EINVAL;
            layout.cells_x = int(std::lround(w * cpm));
            layout.cells_y = int(std::lround(h * cpm));
            layout.region[0] = x;
            layout.region[1] = y;
            layout.region[2] = double(layout.cells_x) / cpm;
            layout.region[3] = double(layout.cells_y) / cpm;
        } else {
            int side = design->centre_modules;
            if (side == 0) side = 2 * int(std::lround((0.22 * n - 1) / 2)) + 1;
            if (side < 3) side = 3;
            // The centre square must stay clear of the finder patterns and their separators (8 modules each side).
            if (side > modules - 16) return -EINVAL;
            layout.cells_x = layout.cells_y = side * cpm;
            layout.region[0] = layout.region[1] = double(modules - side) / 2;
            layout.region[2] = layout.region[3] = side;
        }
        *out = layout;
        return 0;
    });
}

extern "C" int lv_sqr_encode(const uint8_t *payload, size_t length, int min_version, int ec_level, uint8_t *modules,
                             size_t capacity, int *version) {
    return guarded([&] {
        if (!payload || length == 0 || !modules || !version || min_version < 1 || min_version > 40 ||
            ec_level < LV_SQR_EC_L || ec_level > LV_SQR_EC_H)
            return -EINVAL;
        if (std::memchr(payload, 0, length)) return -EINVAL;
        std::string text(reinterpret_cast<const char *>(payload), length);
        static_assert(QR_ECLEVEL_L == LV_SQR_EC_L && QR_ECLEVEL_H == LV_SQR_EC_H, "EC levels follow libqrencode");
        QRcode *code = QRcode_encodeString(text.c_str(), min_version, QRecLevel(ec_level), QR_MODE_8, 1);
        if (!code) return errno == ERANGE ? -ENOSPC : (errno == ENOMEM ? -ENOMEM : -EIO);
        int n = code->width;
        int result = n;
        if (size_t(n) * size_t(n) > capacity) {
            result = -ENOSPC;
        } else {
            // libqrencode sets bit 0 of each byte for a dark module; the other bits describe the module's role.
            for (int i = 0; i < n * n; ++i) modules[i] = code->data[i] & 1;
            *version = code->version;
        }
        QRcode_free(code);
        return result;
    });
}

extern "C" int lv_sqr_cdp_cells(uint64_t seed, int cells_x, int cells_y, uint8_t *cells) {
    return guarded([&] {
        if (!cells || cells_x <= 0 || cells_y <= 0) return -EINVAL;
        SplitMix64 random{seed};
        size_t count = size_t(cells_x) * size_t(cells_y);
        for (size_t k = 0; k < count; ++k) cells[k] = uint8_t(random.next() >> 63);
        return int(count);
    });
}

extern "C" int lv_sqr_image_size(int modules, const lv_sqr_design *design, int module_px, int quiet_zone, int *width,
                                 int *height, int *origin_x, int *origin_y) {
    return guarded([&] {
        if (!width || !height || !origin_x || !origin_y || module_px < 1 || module_px > 1000 || quiet_zone < 0 ||
            quiet_zone > 100)
            return -EINVAL;
        lv_sqr_layout layout;
        int status = lv_sqr_layout_for(modules, design, &layout);
        if (status != 0) return status;
        Extent e = extent(layout, *design, quiet_zone);
        long left = long(std::floor(e.min_x * module_px));
        long top = long(std::floor(e.min_y * module_px));
        long right = long(std::ceil(e.max_x * module_px));
        long bottom = long(std::ceil(e.max_y * module_px));
        if (right - left > 100000 || bottom - top > 100000) return -EINVAL;
        *width = int(right - left);
        *height = int(bottom - top);
        *origin_x = int(-left);
        *origin_y = int(-top);
        return 0;
    });
}

extern "C" int lv_sqr_render(const uint8_t *modules, int n, const lv_sqr_design *design, uint64_t seed,
                             int module_px, int quiet_zone, int flags, uint8_t *out, int width, int height,
                             size_t stride) {
    return guarded([&] {
        int w = 0, h = 0, ox = 0, oy = 0;
        if (!modules || !out) return -EINVAL;
        int status = lv_sqr_image_size(n, design, module_px, quiet_zone, &w, &h, &ox, &oy);
        if (status != 0) return status;
        if (width != w || height != h || stride < size_t(width)) return -EINVAL;
        lv_sqr_layout layout;
        status = lv_sqr_layout_for(n, design, &layout);
        if (status != 0) return status;

        for (int y = 0; y < height; ++y) std::memset(out + size_t(y) * stride, 255, size_t(width));
        auto fill = [&](long x0, long y0, long x1, long y1, uint8_t value) {
            x0 = std::max(x0, 0L);
            y0 = std::max(y0, 0L);
            x1 = std::min(x1, long(width));
            y1 = std::min(y1, long(height));
            for (long y = y0; y < y1; ++y) std::memset(out + size_t(y) * stride + size_t(x0), value, size_t(x1 - x0));
        };
        for (int row = 0; row < n; ++row)
            for (int column = 0; column < n; ++column)
                if (modules[row * n + column])
                    fill(ox + long(column) * module_px, oy + long(row) * module_px, ox + long(column + 1) * module_px,
                         oy + long(row + 1) * module_px, 0);
        if (flags & LV_SQR_RENDER_NO_CDP) return 0;

        int cpm = design->cells_per_module;
        std::string cells(size_t(layout.cells_x) * size_t(layout.cells_y), '\0');
        lv_sqr_cdp_cells(seed, layout.cells_x, layout.cells_y, reinterpret_cast<uint8_t *>(&cells[0]));
        long rx = ox + std::lround(layout.region[0] * module_px);
        long ry = oy + std::lround(layout.region[1] * module_px);
        auto edge = [&](long origin, int k) { return origin + std::lround(double(k) * module_px / cpm); };
        for (int b = 0; b < layout.cells_y; ++b)
            for (int a = 0; a < layout.cells_x; ++a)
                fill(edge(rx, a), edge(ry, b), edge(rx, a + 1), edge(ry, b + 1),
                     cells[size_t(b) * size_t(layout.cells_x) + size_t(a)] ? 0 : 255);
        return 0;
    });
}
