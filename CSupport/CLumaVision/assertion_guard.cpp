// glibc's __assert_fail, replaced so that a library's failed assertion inside lv::assertion_guarded returns to the
// caller instead of aborting the process (see lv_shim.hpp for why and what it costs).
#include "lv_shim.hpp"

#include <assert.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

thread_local std::jmp_buf *lv::assertion_target = nullptr;

// The executable's definition interposes glibc's for every shared library loaded (the dynamic linker looks in the
// executable first), ZXing-C++'s calls included.
extern "C" void __assert_fail(const char *assertion, const char *file, unsigned int line,
                              const char *function) noexcept {
    if (std::jmp_buf *target = lv::assertion_target) longjmp(*target, 1);
    std::fprintf(stderr, "%s: %s:%u: %s%sAssertion `%s' failed.\n", program_invocation_short_name, file, line,
                 function ? function : "", function ? ": " : "", assertion);
    std::fflush(stderr);
    std::abort();
}
