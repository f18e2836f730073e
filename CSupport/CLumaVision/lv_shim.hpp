// The exception guards every CLumaVision shim uses (internal to the target). The conventions themselves (errors,
// handles, pixels, exceptions) are written down once, in include/lv_common.h.
#ifndef LV_SHIM_HPP
#define LV_SHIM_HPP

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <csetjmp>
#include <new>

namespace lv {

/// The jump target of the innermost `assertion_guarded` call running on this thread, or nullptr outside one
/// (assertion_guard.cpp).
extern thread_local std::jmp_buf *assertion_target;

/// Runs `body` and returns true, or returns false when a C `assert` failed inside it.
///
/// Debian builds its C and C++ libraries with assertions kept, and ZXing-C++ 1.4 fails some of its own on real
/// input (`lineCount() == 1` in Result::operator== for DataBar and EAN codes, zxing-cpp issues 516 and 740, fixed
/// after 1.4): glibc's `__assert_fail` would abort the process, a kiosk's scanner included. CLumaVision defines
/// `__assert_fail` itself (assertion_guard.cpp): inside `assertion_guarded` it jumps back here and the library call
/// counts as having found nothing; elsewhere it prints glibc's message and aborts, as before. The jump skips the
/// destructors of the library's frames, so whatever that one call had allocated leaks (a few kilobytes, once per
/// failed assertion); `body` must not own anything with a destructor itself.
template <typename F>
bool assertion_guarded(F &&body) {
    std::jmp_buf target;
    std::jmp_buf *volatile previous = assertion_target;
    if (setjmp(target) != 0) {
        assertion_target = previous;
        return false;
    }
    assertion_target = &target;
    body();
    assertion_target = previous;
    return true;
}

/// Whether a grey plane's arguments are usable: a pixel pointer, a positive size, a stride of at least the width.
inline bool valid(const uint8_t *luma, int width, int height, size_t stride) {
    return luma && width > 0 && height > 0 && stride >= size_t(width);
}

/// Runs `body` (which returns the entry point's int result) and maps an exception escaping it to an error code:
/// std::bad_alloc to -ENOMEM, anything else (cv::Exception, a library's own) to -EIO.
template <typename F>
int guarded(F &&body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return -ENOMEM;
    } catch (...) {
        return -EIO;
    }
}

}  // namespace lv

#endif
