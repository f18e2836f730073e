// The one exception guard of CLumaVision's extern "C" entry points, internal to the target (the C headers under
// include/ are the public API). Nothing may throw across extern "C": every entry point runs its body through
// lv::guarded, which maps std::bad_alloc to -ENOMEM and any other exception (cv::Exception, the C++ runtime's) to
// `internal` (-EIO unless the caller's header documents another code, as lv_meter.h's LV_METER_EINTERNAL).
#ifndef LV_GUARD_HPP
#define LV_GUARD_HPP

#include <cerrno>
#include <new>

namespace lv {

template <typename F>
int guarded(F &&body, int internal = -EIO) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return -ENOMEM;
    } catch (...) {
        return internal;
    }
}

}  // namespace lv

#endif
