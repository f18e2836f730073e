// What the passes over one frame read, merged, checked and written out (see barcode_internal.hpp).
#include "barcode_internal.hpp"

#include <algorithm>
#include <cstring>

namespace lv::barcode {
namespace {

/// Symbologies whose check is weak: a misread can pass it (one mod-10 digit for EAN/UPC and ITF, none for Codabar
/// and Code 39 as read here).
bool weak_check(int sym) {
    switch (sym) {
        case LV_SYM_EAN13: case LV_SYM_EAN8: case LV_SYM_UPCA: case LV_SYM_UPCE: case LV_SYM_ISBN10:
        case LV_SYM_ISBN13: case LV_SYM_I25: case LV_SYM_CODABAR: case LV_SYM_CODE39: return true;
        default: return false;
    }
}

/// EAN-13, EAN-8, UPC-A, UPC-E and the ISBNs.
bool ean_upc(int sym) {
    return sym == LV_SYM_EAN13 || sym == LV_SYM_UPCA || sym == LV_SYM_EAN8 || sym == LV_SYM_UPCE ||
           sym == LV_SYM_ISBN10 || sym == LV_SYM_ISBN13;
}

/// The axis-aligned bounding box of a reading's polygon.
cv::Rect2f bounds(const Found &f) {
    if (f.point_count == 0) return {};
    float x0 = f.points[0], x1 = f.points[0], y0 = f.points[1], y1 = f.points[1];
    for (int i = 1; i < f.point_count; ++i) {
        x0 = std::min(x0, f.points[2 * i]), x1 = std::max(x1, f.points[2 * i]);
        y0 = std::min(y0, f.points[2 * i + 1]), y1 = std::max(y1, f.points[2 * i + 1]);
    }
    return {x0, y0, x1 - x0, y1 - y0};
}

/// Whether two linear readings are of the same bars. Each decoder locates only the rows it decoded (zbar a band of
/// scan lines, ZXing-C++ a line or two), so two views of one code can lie side by side without overlapping: they are
/// one code when they overlap along the code's length by half the shorter one and lie less than half the longer
/// one's length apart across it.
bool same_bars(const cv::Rect2f &a, const cv::Rect2f &b) {
    bool horizontal = std::max(a.width, b.width) >= std::max(a.height, b.height);
    float a0 = horizontal ? a.x : a.y, a1 = a0 + (horizontal ? a.width : a.height);
    float b0 = horizontal ? b.x : b.y, b1 = b0 + (horizontal ? b.width : b.height);
    float c0 = horizontal ? a.y : a.x, c1 = c0 + (horizontal ? a.height : a.width);
    float d0 = horizontal ? b.y : b.x, d1 = d0 + (horizontal ? b.height : b.width);
    float along = std::min(a1, b1) - std::max(a0, b0);
    float gap = std::max(c0, d0) - std::min(c1, d1);  // negative when they overlap across
    return along >= 0.5f * std::min(a1 - a0, b1 - b0) && gap <= 0.5f * std::max(a1 - a0, b1 - b0);
}

/// Linear codes with a strong check (a misread rarely passes it). zbar decodes each scan line afresh, though, and a
/// single line through a Code 128 has been read with a payload that passed the check and was wrong (a clean label
/// photo scaled to 1080p, beside the right reading of the same bars).
bool strong_linear(int sym) {
    return sym == LV_SYM_CODE128 || sym == LV_SYM_CODE93 || sym == LV_SYM_DATABAR || sym == LV_SYM_DATABAR_EXP;
}

/// Whether a reading located by a point or a line (one scan line; ZXing-C++'s row) lies on the code boxed by `box`:
/// inside it, widened by a quarter of its smaller side (a decoder's row can lie just past the bars' ends that another
/// located).
bool on_code(const cv::Rect2f &line, const cv::Rect2f &box) {
    float margin = 0.25f * std::min(box.width, box.height);
    return line.x >= box.x - margin && line.x + line.width <= box.x + box.width + margin && line.y >= box.y - margin &&
           line.y + line.height <= box.y + box.height + margin;
}

/// Whether a reading's location is a point or a line rather than a box.
bool thin(const cv::Rect2f &r) { return r.width < 2 || r.height < 2; }

/// The passes that are zbar's.
constexpr uint32_t kZBarPasses = 1u << kZBar | 1u << kZBarUpscaled | 1u << kZBarEnhanced | 1u << kZBarInverted;

/// Whether zbar's reading stands on its own: on two scan lines or more, or in two of zbar's passes. zbar decodes
/// each scan line afresh, so this is independent confirmation; ZXing-C++ 1.4 misreads small EAN/UPC codes the same
/// way on several rows and with both binarizers (measured on the generated corpus), so its own agreement is not.
bool zbar_confirmed(const Found &f) {
    return (f.decoders & LV_DECODER_ZBAR) && (f.zbar_quality >= 2 || __builtin_popcount(f.passes & kZBarPasses) >= 2);
}

/// Whether a still image's reading can be trusted: a symbology with a strong check always; a weak-check one when two
/// passes read the same payload, or a plain pass read it with its own confirmation (ZXing-C++ decodes a linear code
/// on at least two rows; zbar's quality counts its scan lines, and one line is not enough).
bool trusted_still(const Found &f) {
    if (!weak_check(f.symbology)) return true;
    if (__builtin_popcount(f.passes) >= 2) return true;
    return f.plain && ((f.decoders & LV_DECODER_ZXING) || f.quality >= 2);
}

}  // namespace

bool settled_still(const Found &f) {
    // An EAN/UPC reading only ZXing-C++ made waits for zbar's passes, which confirm it or read the bars otherwise.
    if (ean_upc(f.symbology) && !(f.decoders & LV_DECODER_ZBAR)) return false;
    return trusted_still(f);
}

namespace {

/// Appends `text` and a NUL to the output's data buffer; false when it does not fit. An empty string takes no room
/// (offset and length 0).
bool put(Output &out, const std::string &text, uint32_t &offset, uint32_t &length) {
    offset = length = 0;
    if (text.empty()) return true;
    if (text.size() + 1 > out.data_capacity - out.data_used) return false;
    offset = uint32_t(out.data_used);
    length = uint32_t(text.size());
    std::memcpy(out.data + out.data_used, text.data(), text.size());
    out.data[out.data_used + text.size()] = 0;
    out.data_used += text.size() + 1;
    return true;
}

}  // namespace

Found &Collector::next() {
    if (count == slots.size()) slots.emplace_back();
    Found &f = slots[count++];
    f.bytes.clear();
    f.text.clear();
    f.charset.clear();
    f.addon.clear();
    f.sequence_id.clear();
    f.sequence_index = f.sequence_count = -1;
    f.point_count = 0;
    f.quality = 0;
    f.orientation = LV_ORIENT_UNKNOWN;
    f.decoders = 0;
    f.passes = 0;
    f.zbar_quality = 0;
    f.plain = f.eci = f.conflict = f.disputed = false;
    return f;
}

int collect(lv_barcode_scanner *s, int symbology, const std::string &bytes, const float *points, int point_count,
            cv::Rect roi, Pass pass, int decoder, int quality, int orientation, Found **slot) {
    if (slot) *slot = nullptr;
    if (point_count > 0) {
        float cx = 0, cy = 0;
        for (int i = 0; i < point_count; ++i) {
            cx += points[2 * i];
            cy += points[2 * i + 1];
        }
        cx /= float(point_count);
        cy /= float(point_count);
        // QR finder lines come from the cropped scan, but the decoder samples the whole plane zbar was given, so a
        // code straddling the ROI's edge can decode: keep only codes centred inside the ROI.
        if (cx < float(roi.x) - 0.5f || cy < float(roi.y) - 0.5f || cx > float(roi.x + roi.width) - 0.5f ||
            cy > float(roi.y + roi.height) - 0.5f)
            return 0;
    }
    Collector &c = s->collector;
    Found *f = nullptr;
    for (size_t i = 0; i < c.count && !f; ++i)
        if (c.slots[i].symbology == symbology && c.slots[i].bytes == bytes) f = &c.slots[i];
    if (!f) {
        f = &c.next();
        f->symbology = symbology;
        f->bytes = bytes;
        f->point_count = std::min(point_count, LV_BARCODE_MAX_POINTS);
        std::copy(points, points + 2 * f->point_count, f->points);
        f->orientation = orientation;
        bool qr_family = symbology == LV_SYM_QRCODE || symbology == LV_SYM_MICROQR;
        decode_text(bytes, qr_family, f->text, f->charset);
    }
    f->passes |= 1u << pass;
    f->decoders |= decoder;
    f->quality = std::max(f->quality, quality);
    if (decoder == LV_DECODER_ZBAR) f->zbar_quality = std::max(f->zbar_quality, quality);
    f->plain = f->plain || is_plain(pass);
    if (slot) *slot = f;
    return 1;
}

int finish(lv_barcode_scanner *s, const Policy &policy, Output &out) {
    Collector &c = s->collector;
    // Drop what the configuration excludes.
    size_t kept = 0;
    for (size_t i = 0; i < c.count; ++i) {
        Found &f = c.slots[i];
        int sym = f.symbology;
        int length = int(f.bytes.size());
        bool wanted = sym > 0 && sym < kSymbolSlots && s->enabled[sym] && length >= s->min_length[sym] &&
                      (s->max_length[sym] == 0 || length <= s->max_length[sym]);
        if (!wanted) continue;
        if (kept != i) std::swap(c.slots[kept], c.slots[i]);
        ++kept;
    }
    c.count = kept;
    // Disagreements: weak-check readings over the same bars with different payloads (two decoders, or a decoder at
    // two scales), trusted or not: a reading the misread guard would drop still casts doubt on its rivals; and two
    // readings of one strong-check linear symbology over the same bars. A reading located by a single scan line is
    // over the bars of a code whose box it lies on. A reading zbar confirmed on its own wins over rivals it does not
    // (it is reported, with the others as its disagreement); otherwise none can be trusted, and all are reported as a
    // disagreement.
    auto rival = [&](const Found &a, const Found &b) {
        if (&a == &b || a.point_count == 0 || b.point_count == 0) return false;
        bool weak = weak_check(a.symbology) && weak_check(b.symbology);
        if (!weak && !(a.symbology == b.symbology && strong_linear(a.symbology))) return false;
        cv::Rect2f ra = bounds(a), rb = bounds(b);
        if (thin(ra) && thin(rb)) return same_bars(ra, rb);
        if (thin(ra)) return on_code(ra, rb);
        if (thin(rb)) return on_code(rb, ra);
        return same_bars(ra, rb);
    };
    // A reading of the same symbology whose payload is a part of its rival's is that code read short (a scan line
    // that lost the ends of an ITF): it is dropped, and the whole one is not in doubt because of it.
    auto fragment = [&](const Found &a, const Found &b) {
        return a.symbology == b.symbology && a.bytes.size() < b.bytes.size() &&
               b.bytes.find(a.bytes) != std::string::npos && rival(a, b);
    };
    kept = 0;
    for (size_t i = 0; i < c.count; ++i) {
        bool part = false;
        for (size_t j = 0; j < c.count && !part; ++j) part = fragment(c.slots[i], c.slots[j]);
        if (part) continue;
        if (kept != i) std::swap(c.slots[kept], c.slots[i]);
        ++kept;
    }
    c.count = kept;
    for (size_t i = 0; i < c.count; ++i)
        for (size_t j = i + 1; j < c.count; ++j)
            if (rival(c.slots[i], c.slots[j])) c.slots[i].conflict = c.slots[j].conflict = true;
    for (size_t i = 0; i < c.count; ++i) {
        Found &f = c.slots[i];
        if (!f.conflict || !zbar_confirmed(f)) continue;
        bool contested = false;
        for (size_t j = 0; j < c.count && !contested; ++j)
            contested = rival(f, c.slots[j]) && zbar_confirmed(c.slots[j]);
        if (!contested) f.disputed = true;
    }
    // Drop what the misread guard does not trust and no disagreement involves: on still images see trusted_still;
    // in camera frames an EAN/UPC reading zbar did not make (ZXing-C++'s row pass reads small codes zbar's averaged
    // lines cannot, and misreads some of them the same way in every frame, which no consistency count catches).
    kept = 0;
    for (size_t i = 0; i < c.count; ++i) {
        Found &f = c.slots[i];
        if (f.disputed) f.conflict = false;
        bool trusted = policy.still ? trusted_still(f) : !(ean_upc(f.symbology) && !(f.decoders & LV_DECODER_ZBAR));
        if (!f.conflict && !f.disputed && !trusted) continue;
        if (kept != i) std::swap(c.slots[kept], c.slots[i]);
        ++kept;
    }
    c.count = kept;
    for (size_t i = 0; i < c.count && out.count < out.max_results; ++i) {
        const Found &f = c.slots[i];
        lv_barcode_result r{};
        size_t mark = out.data_used;
        if (!put(out, f.bytes, r.data_offset, r.data_length) || !put(out, f.text, r.text_offset, r.text_length) ||
            !put(out, f.addon, r.addon_offset, r.addon_length) ||
            !put(out, f.sequence_id, r.sequence_id_offset, r.sequence_id_length)) {
            out.data_used = mark;  // does not fit: dropped whole
            continue;
        }
        r.symbology = f.symbology;
        r.quality = f.quality;
        r.orientation = f.orientation;
        r.point_count = f.point_count;
        std::copy(f.points, f.points + 2 * f.point_count, r.points);
        std::strncpy(r.charset, f.charset.c_str(), sizeof r.charset - 1);
        r.decoders = f.decoders;
        r.passes = __builtin_popcount(f.passes);
        r.flags = (f.conflict ? LV_RESULT_CONFLICT : 0) | (r.passes >= 2 ? LV_RESULT_CONFIRMED : 0) |
                  (f.plain ? 0 : LV_RESULT_PREPROCESSED) | (f.eci ? LV_RESULT_ECI : 0) |
                  (f.disputed ? LV_RESULT_DISPUTED : 0);
        r.sequence_index = f.sequence_index;
        r.sequence_count = f.sequence_count;
        out.results[out.count++] = r;
    }
    return out.count;
}

}  // namespace lv::barcode
