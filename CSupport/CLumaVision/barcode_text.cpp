// Character sets of barcode payloads (see barcode_internal.hpp): the guess ZXing-C++ makes for a QR code without an
// ECI, converted with glibc's iconv, and GS1 element strings in zbar's raw form.
#include "barcode_internal.hpp"

#include <iconv.h>

#include <cerrno>

namespace lv::barcode {
namespace {

bool valid_utf8(const std::string &bytes) {
    size_t i = 0, n = bytes.size();
    while (i < n) {
        auto c = uint8_t(bytes[i]);
        size_t extra;
        if (c < 0x80)
            extra = 0;
        else if (c >= 0xC2 && c <= 0xDF)
            extra = 1;
        else if (c >= 0xE0 && c <= 0xEF)
            extra = 2;
        else if (c >= 0xF0 && c <= 0xF4)
            extra = 3;
        else
            return false;
        if (extra > n - i - 1) return false;
        for (size_t k = 1; k <= extra; ++k)
            if ((uint8_t(bytes[i + k]) & 0xC0) != 0x80) return false;
        i += extra + 1;
    }
    return true;
}

/// Converts `bytes` from `charset` to UTF-8 with iconv; false when they are not valid in that character set.
bool convert(const char *charset, const std::string &bytes, std::string &text) {
    iconv_t cd = iconv_open("UTF-8", charset);
    if (cd == iconv_t(-1)) return false;
    text.resize(bytes.size() * 4 + 4);
    char *in = const_cast<char *>(bytes.data());
    size_t in_left = bytes.size();
    char *out = text.data();
    size_t out_left = text.size();
    size_t status = iconv(cd, &in, &in_left, &out, &out_left);
    iconv_close(cd);
    if (status == size_t(-1) || in_left != 0) return false;
    text.resize(text.size() - out_left);
    return true;
}

/// Whether a GS1 application identifier starting with these two digits has a predefined length (GS1 General
/// Specifications, "predefined length" table), so that no separator follows its field.
bool predefined_length(const std::string &ai) {
    static const char *const kPrefixes[] = {"00", "01", "02", "03", "04", "11", "12", "13", "14", "15", "16",
                                            "17", "18", "19", "20", "31", "32", "33", "34", "35", "36", "41"};
    if (ai.size() < 2) return false;
    for (const char *prefix : kPrefixes)
        if (ai.compare(0, 2, prefix) == 0) return true;
    return false;
}

}  // namespace

void decode_text(const std::string &bytes, bool kanji_possible, std::string &text, std::string &charset) {
    if (valid_utf8(bytes)) {
        text = bytes;
        charset = "UTF-8";
        return;
    }
    if (kanji_possible && convert("SHIFT_JIS", bytes, text)) {
        charset = "Shift_JIS";
        return;
    }
    // ISO-8859-1: every byte is its own code point.
    text.clear();
    for (char c : bytes) {
        auto b = uint8_t(c);
        if (b < 0x80) {
            text.push_back(char(b));
        } else {
            text.push_back(char(0xC0 | (b >> 6)));
            text.push_back(char(0x80 | (b & 0x3F)));
        }
    }
    charset = "ISO-8859-1";
}

bool gs1_hri_to_raw(const std::string &hri, std::string &raw) {
    raw.clear();
    size_t at = 0;
    bool separator_due = false;
    while (at < hri.size()) {
        if (hri[at] != '(') return false;
        size_t close = hri.find(')', at);
        if (close == std::string::npos || close - at < 3) return false;
        std::string ai = hri.substr(at + 1, close - at - 1);
        size_t next = hri.find('(', close);
        if (next == std::string::npos) next = hri.size();
        if (separator_due) raw.push_back('\x1d');
        raw += ai;
        raw.append(hri, close + 1, next - close - 1);
        separator_due = !predefined_length(ai);
        at = next;
    }
    return !raw.empty();
}

}  // namespace lv::barcode
