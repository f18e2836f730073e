// The one exception guard of CLumaVision's extern "C" entry points, internal to the target.
//
// Every C function of the vision shim runs its body through `lv::guarded`, so nothing throws across extern "C": an
// allocation failure becomes -ENOMEM and any other exception -EIO (the codes every lv_*.h header documents).
#ifndef LV_GUARD_HPP
#define LV_GUARD_HPP

#include <cerrno>
#include <new>

namespace lv {

/// Runs `body` (which returns an int status) and maps exceptions to negative errno codes.
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
