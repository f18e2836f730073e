// The conventions every CLumaVision shim follows, in one place (internal to the target; the public C API is in
// include/):
// - Every extern "C" function returns 0 or a count on success and a negative errno code on failure; each header says
//   which codes it returns and what they mean.
// - Handles are opaque structs made by `lv_<area>_create` (or a reading function) and freed by `lv_<area>_destroy`,
//   which ignores NULL.
// - Pixels are passed as a pointer plus width, height and stride (bytes from one row to the next).
// - Nothing throws across extern "C": every entry point runs its body inside `lv::guarded`.
#ifndef LV_SHIM_HPP
#define LV_SHIM_HPP

#include <cerrno>
#include <new>

namespace lv {

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
