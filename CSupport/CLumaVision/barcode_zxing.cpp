// ZXing-C++ (Debian's libzxing-dev, 1.4) as the barcode scanner's second backend: the reads, the mapping of its
// formats and conventions onto LumaScan's (zbar's), and the cheap search that tells a camera frame's live path where
// a 2D code is likely.
#define ZX_USE_UTF8 1  // Result::text() as UTF-8 std::string (1.4 otherwise warns and returns std::wstring)
#include "barcode_internal.hpp"
#include "lv_shim.hpp"

#if !__has_include(<ZXing/ReadBarcode.h>)
#error "ZXing-C++'s headers are missing from /usr/include/ZXing: install libzxing-dev (scripts/deps.sh does)"
#endif
#include <ZXing/ReadBarcode.h>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>

struct lv_zxing_state {
    /// The last read's results (kept outside the assertion guard's frame, see lv_shim.hpp).
    ZXing::Results results;
    /// How many reads ended in a failed assertion inside ZXing-C++.
    uint64_t assertions = 0;
};

namespace lv::barcode {
namespace {

using ZXing::BarcodeFormat;
using lv::assertion_guarded;

struct FormatMapping {
    BarcodeFormat format;
    int symbology;
};

constexpr FormatMapping kFormats[] = {
    {BarcodeFormat::Aztec, LV_SYM_AZTEC},
    {BarcodeFormat::Codabar, LV_SYM_CODABAR},
    {BarcodeFormat::Code39, LV_SYM_CODE39},
    {BarcodeFormat::Code93, LV_SYM_CODE93},
    {BarcodeFormat::Code128, LV_SYM_CODE128},
    {BarcodeFormat::DataBar, LV_SYM_DATABAR},
    {BarcodeFormat::DataBarExpanded, LV_SYM_DATABAR_EXP},
    {BarcodeFormat::DataMatrix, LV_SYM_DATAMATRIX},
    {BarcodeFormat::EAN8, LV_SYM_EAN8},
    {BarcodeFormat::EAN13, LV_SYM_EAN13},
    {BarcodeFormat::ITF, LV_SYM_I25},
    {BarcodeFormat::MaxiCode, LV_SYM_MAXICODE},
    {BarcodeFormat::PDF417, LV_SYM_PDF417},
    {BarcodeFormat::QRCode, LV_SYM_QRCODE},
    {BarcodeFormat::UPCA, LV_SYM_UPCA},
    {BarcodeFormat::UPCE, LV_SYM_UPCE},
    {BarcodeFormat::MicroQRCode, LV_SYM_MICROQR},
};

int symbology_of(BarcodeFormat format) {
    for (const auto &m : kFormats)
        if (m.format == format) return m.symbology;
    return 0;
}

bool ean_family(int sym) {
    return sym == LV_SYM_EAN13 || sym == LV_SYM_UPCA || sym == LV_SYM_ISBN10 || sym == LV_SYM_ISBN13;
}

/// The ZXing-C++ formats `kind` looks for among the enabled symbologies.
ZXing::BarcodeFormats formats_for(const lv_barcode_scanner *s, ZXingKind kind) {
    ZXing::BarcodeFormats formats;
    for (const auto &m : kFormats) {
        bool wanted = s->enabled[m.symbology];
        // ZXing-C++ reads UPC-A and ISBNs through EAN-13, as zbar does.
        if (m.symbology == LV_SYM_EAN13) wanted = wanted || s->enabled[LV_SYM_ISBN10] || s->enabled[LV_SYM_ISBN13];
        if (!wanted) continue;
        // DataBar stays zbar's: ZXing-C++ 1.4 fails an assertion on most DataBar codes (4 of 5 clean ones in the
        // generated corpus), and a failed assertion loses everything else that read would have found.
        if (m.symbology == LV_SYM_DATABAR || m.symbology == LV_SYM_DATABAR_EXP) continue;
        bool matrix = zxing_only(m.symbology) || m.symbology == LV_SYM_QRCODE;
        if (kind == ZXingKind::kLinearFast && matrix) continue;
        if (kind == ZXingKind::kMatrix && !zxing_only(m.symbology)) continue;
        if (kind == ZXingKind::kQR && m.symbology != LV_SYM_QRCODE && m.symbology != LV_SYM_MICROQR) continue;
        formats |= m.format;
    }
    // UPC-A codes come back as UPC-A only when asked for; as EAN-13 otherwise.
    if (formats.testFlag(BarcodeFormat::EAN13) && s->enabled[LV_SYM_UPCA]) formats |= BarcodeFormat::UPCA;
    return formats;
}

/// The ISBN-10 of a 978-prefixed EAN-13 (its 9 digits after 978 and their mod-11 check character).
std::string isbn10_of(const std::string &ean) {
    std::string isbn = ean.substr(3, 9);
    int sum = 0;
    for (int i = 0; i < 9; ++i) sum += (10 - i) * (isbn[size_t(i)] - '0');
    int check = (11 - sum % 11) % 11;
    isbn.push_back(check == 10 ? 'X' : char('0' + check));
    return isbn;
}

/// Rewrites a ZXing-C++ reading into zbar's conventions, which LumaScan reports (see BarcodeConfiguration): UPC-A
/// as 12 digits when UPC-A is enabled, else EAN-13 with a leading 0; Bookland EAN-13 as ISBN-13 or ISBN-10; DataBar
/// with its "01" application identifier; DataBar Expanded as the raw element string. Returns false when the
/// reading is of a symbology not enabled in any of its forms.
bool to_lumascan(const lv_barcode_scanner *s, int &sym, std::string &bytes) {
    if (sym == LV_SYM_UPCA && !s->enabled[LV_SYM_UPCA]) {
        sym = LV_SYM_EAN13;
        bytes.insert(bytes.begin(), '0');
    }
    if (sym == LV_SYM_EAN13 && bytes.size() == 13) {
        bool bookland = bytes.compare(0, 3, "978") == 0 || bytes.compare(0, 3, "979") == 0;
        if (bytes[0] == '0' && s->enabled[LV_SYM_UPCA]) {
            sym = LV_SYM_UPCA;
            bytes.erase(0, 1);
        } else if (bookland && s->enabled[LV_SYM_ISBN13]) {
            sym = LV_SYM_ISBN13;
        } else if (bytes.compare(0, 3, "978") == 0 && s->enabled[LV_SYM_ISBN10]) {
            sym = LV_SYM_ISBN10;
            bytes = isbn10_of(bytes);
        }
    }
    if (sym == LV_SYM_DATABAR) bytes.insert(0, "01");
    if (sym == LV_SYM_DATABAR_EXP) {
        std::string raw;
        if (!gs1_hri_to_raw(bytes, raw)) return false;
        bytes = std::move(raw);
    }
    return s->enabled[sym];
}

int orientation_of(int degrees) {
    int d = ((degrees % 360) + 360) % 360;
    if (d < 45 || d >= 315) return LV_ORIENT_UP;
    if (d < 135) return LV_ORIENT_RIGHT;
    if (d < 225) return LV_ORIENT_DOWN;
    return LV_ORIENT_LEFT;
}

}  // namespace

uint32_t zxing_format_of(int symbology) {
    if (symbology == LV_SYM_ISBN10 || symbology == LV_SYM_ISBN13) symbology = LV_SYM_EAN13;
    for (const auto &m : kFormats)
        if (m.symbology == symbology) return uint32_t(m.format);
    return 0;
}

int symbology_of_zxing_format(uint32_t format) { return symbology_of(BarcodeFormat(format)); }

bool zxing_only(int symbology) {
    return symbology == LV_SYM_DATAMATRIX || symbology == LV_SYM_AZTEC || symbology == LV_SYM_PDF417 ||
           symbology == LV_SYM_MICROQR || symbology == LV_SYM_MAXICODE;
}

lv_zxing_state *zxing_create() { return new lv_zxing_state(); }

void zxing_destroy(lv_zxing_state *state) { delete state; }

int zxing_read(lv_barcode_scanner *s, const uint8_t *pixels, int w, int h, size_t stride, ZXingKind kind, bool global,
               Mapping map, cv::Rect roi, Pass pass) {
    zxing_decode(s, pixels, w, h, stride, kind, global);
    return zxing_collect(s, map, roi, pass);
}

void zxing_decode(lv_barcode_scanner *s, const uint8_t *pixels, int w, int h, size_t stride, ZXingKind kind,
                  bool global) {
    ZXing::Results &results = s->zxing->results;
    results.clear();
    ZXing::BarcodeFormats formats = formats_for(s, kind);
    if (formats.empty() || w <= 0 || h <= 0) return;
    ZXing::DecodeHints hints;
    hints.setFormats(formats);
    hints.setTryHarder(kind != ZXingKind::kLinearFast);
    hints.setTryRotate(kind == ZXingKind::kHard);
    // Never ZXing-C++'s own downscaling: Debian's 1.4 is built with assertions, and a linear code found on two
    // pyramid layers fails `lineCount() == 1` in Result::operator== and aborts the process (zxing-cpp issues 516,
    // 740, fixed after 1.4). Still images get a downscaled pass of our own instead (barcode.cpp).
    hints.setTryDownscale(false);
    hints.setBinarizer(global ? ZXing::Binarizer::GlobalHistogram : ZXing::Binarizer::LocalAverage);
    hints.setEanAddOnSymbol(ZXing::EanAddOnSymbol::Read);
    hints.setReturnCodabarStartEnd(true);  // zbar's convention: Codabar with its start and stop characters
    ZXing::ImageView view(pixels, w, h, ZXing::ImageFormat::Lum, int(stride));
    if (!assertion_guarded([&] { results = ZXing::ReadBarcodes(view, hints); })) {
        // A failed assertion inside ZXing-C++ (see lv_shim.hpp): this read found nothing.
        s->zxing->assertions += 1;
        results.clear();
    }
}

int zxing_collect(lv_barcode_scanner *s, Mapping map, cv::Rect roi, Pass pass) {
    const ZXing::Results &results = s->zxing->results;
    int added = 0;
    std::string &bytes = s->collector.scratch;
    for (const ZXing::Result &r : results) {
        if (!r.isValid()) continue;
        int sym = symbology_of(r.format());
        if (sym == 0) continue;
        const ZXing::ByteArray &raw = r.bytes();
        bytes.assign(raw.begin(), raw.end());
        std::string addon;
        if ((ean_family(sym) || sym == LV_SYM_EAN8 || sym == LV_SYM_UPCE) && bytes.find(' ') != std::string::npos) {
            // An EAN-2/EAN-5 add-on comes after a space.
            size_t space = bytes.find(' ');
            addon = bytes.substr(space + 1);
            bytes.resize(space);
        }
        if (!to_lumascan(s, sym, bytes)) continue;
        const ZXing::Position &p = r.position();
        float points[2 * LV_BARCODE_MAX_POINTS] = {
            map.x(p.topLeft().x),     map.y(p.topLeft().y),     map.x(p.topRight().x),   map.y(p.topRight().y),
            map.x(p.bottomRight().x), map.y(p.bottomRight().y), map.x(p.bottomLeft().x), map.y(p.bottomLeft().y)};
        Found *slot = nullptr;
        int quality = r.lineCount() > 0 ? r.lineCount() : 1;
        added += collect(s, sym, bytes, points, 4, roi, pass, LV_DECODER_ZXING, quality, orientation_of(r.orientation()),
                         &slot);
        if (!slot) continue;
        // ZXing-C++'s text, character set, add-on and sequence win over zbar's (zbar reports none of them).
        if (!zxing_only(sym) && sym != LV_SYM_QRCODE) {
            slot->text = slot->bytes;
            slot->charset = "ISO-8859-1";
        } else {
            slot->text = r.text();
            slot->eci = r.hasECI();
            if (slot->eci) {
                slot->charset = "ECI";
            } else {
                std::string ignored;
                decode_text(slot->bytes, true, ignored, slot->charset);
            }
        }
        if (!addon.empty()) slot->addon = addon;
        if (r.isPartOfSequence()) {
            slot->sequence_index = r.sequenceIndex();
            slot->sequence_count = r.sequenceSize();
            slot->sequence_id = r.sequenceId();
        }
    }
    return added;
}

int zxing_read_likely_regions(lv_barcode_scanner *s, const uint8_t *luma, int width, int height, size_t stride,
                              cv::Rect roi) {
    (void)width;
    (void)height;
    find_likely_regions(s, luma, stride, roi, false);
    // The largest regions first, at most 4 and a quarter of the ROI's area: a busy frame (text, foliage) costs a
    // bounded amount, and a frame where nothing looks like a 2D code costs only the search.
    double budget = 0.25 * double(roi.area());
    int read = 0, tried = 0;
    // A region around a code an earlier pass of this frame already read (a QR code, say) is that code.
    auto already_read = [&](const cv::Rect &box) {
        for (size_t i = 0; i < s->collector.count; ++i) {
            const Found &f = s->collector.slots[i];
            if (f.point_count == 0) continue;
            float cx = 0, cy = 0;
            for (int k = 0; k < f.point_count; ++k) cx += f.points[2 * k], cy += f.points[2 * k + 1];
            cv::Point2f centre(cx / float(f.point_count) - float(roi.x), cy / float(f.point_count) - float(roi.y));
            if (cv::Rect2f(box).contains(centre)) return true;
        }
        return false;
    };
    for (const cv::Rect &box : s->regions) {
        if (tried == 4 || double(box.area()) > budget) break;
        if (already_read(box)) continue;
        budget -= double(box.area());
        ++tried;
        const uint8_t *origin = luma + size_t(roi.y + box.y) * stride + size_t(roi.x + box.x);
        int n = zxing_read(s, origin, box.width, box.height, stride, ZXingKind::kMatrix, false,
                           Mapping{1, 1, double(roi.x + box.x), double(roi.y + box.y), 0}, roi, kZXing);
        if (n == 0 && box.width >= 64 && box.height >= 32) {
            // ZXing-C++ 1.4's local-average binarizer loses codes with large modules (a PDF417 at 5 px per module
            // reads at half size and not at full size): the region again at half size.
            cv::Mat region(box.height, box.width, CV_8UC1, const_cast<uint8_t *>(origin), stride);
            size_t half_size = size_t(box.width / 2) * size_t(box.height / 2);
            if (s->region_plane.empty() || s->region_plane.total() < half_size)
                s->region_plane.create(1, int(half_size), CV_8UC1);
            cv::Mat half(box.height / 2, box.width / 2, CV_8UC1, s->region_plane.data);
            cv::resize(region(cv::Rect(0, 0, half.cols * 2, half.rows * 2)), half, half.size(), 0, 0, cv::INTER_AREA);
            n = zxing_read(s, half.data, half.cols, half.rows, half.step[0], ZXingKind::kMatrix, false,
                           Mapping{2, 2, double(roi.x + box.x), double(roi.y + box.y), 0}, roi, kZXing);
        }
        if (n < 0) return n;
        read += n;
    }
    return read;
}

}  // namespace lv::barcode
