// A preload library for scripts/alloc-origins.sh: counts every allocation (malloc, calloc, realloc, memalign,
// aligned_alloc, posix_memalign) by its origin, the shared object of the first caller outside the C, C++ and Swift
// runtimes: the executable itself (LumaScan's own code, Swift and C++ alike, which is linked into it) or a library
// (OpenCV, zbar, libpng ...). A template instance that the executable holds but a library called (OpenCV growing a
// std::vector<uchar> resolves to the executable's copy) counts as the library's. For the executable's own
// allocations it also counts the call sites (six return addresses, as offsets into the executable), for
// addr2line. At exit it writes the table to $ALLOC_ORIGINS_OUT (or stderr); $ALLOC_ORIGINS_EXE names the executable
// (its file name). Not thread-aware beyond a per-thread re-entry guard: the counts are totals over all threads.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

enum { kMaxOrigins = 64, kMaxSites = 4096, kDepth = 32, kSiteFrames = 6 };
static const char *const kViaTemplate = "(a library, through a template instance in the executable)";
static char origins[kMaxOrigins][256];
static long originCounts[kMaxOrigins];
static int originCount;
static uintptr_t sites[kMaxSites][kSiteFrames];
static long siteCounts[kMaxSites];
static int siteCount;
static const char *executable;
static __thread int inside;
static int ready;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int isRuntime(const char *file) {
    static const char *const runtimes[] = {"libc.so", "libstdc++", "libgcc", "libm.so", "libswiftCore",
                                           "libswift_Concurrency", "libdispatch", "libFoundation", "alloc_origins"};
    for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; ++i)
        if (strstr(file, runtimes[i])) return 1;
    return 0;
}

static void count(void) {
    if (inside || !ready) return;
    inside = 1;
    void *frames[kDepth];
    const int depth = backtrace(frames, kDepth);
    const char *origin = "(unknown)";
    uintptr_t site[kSiteFrames] = {0};
    int own = 0;
    for (int i = 1; i < depth; ++i) {
        Dl_info info;
        if (!dladdr(frames[i], &info) || !info.dli_fname || isRuntime(info.dli_fname)) continue;
        origin = info.dli_fname;
        if (executable && strstr(origin, executable)) {
            own = 1;
            for (int j = i + 1; j < depth; ++j) {
                Dl_info next;
                if (!dladdr(frames[j], &next) || !next.dli_fname) continue;
                if (strstr(next.dli_fname, executable)) break;
                if (isRuntime(next.dli_fname)) continue;
                origin = kViaTemplate;
                own = 0;
                break;
            }
            for (int k = 0; own && k < kSiteFrames && i + k < depth; ++k)
                site[k] = (uintptr_t)frames[i + k] - (uintptr_t)info.dli_fbase;
        }
        break;
    }
    pthread_mutex_lock(&lock);
    int o = 0;
    while (o < originCount && strcmp(origins[o], origin) != 0) ++o;
    if (o == originCount && originCount < kMaxOrigins) snprintf(origins[originCount++], 256, "%s", origin);
    if (o < kMaxOrigins) ++originCounts[o];
    if (own) {
        int s = 0;
        while (s < siteCount && memcmp(sites[s], site, sizeof site) != 0) ++s;
        if (s == siteCount && siteCount < kMaxSites) memcpy(sites[siteCount++], site, sizeof site);
        if (s < kMaxSites) ++siteCounts[s];
    }
    pthread_mutex_unlock(&lock);
    inside = 0;
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(); return __libc_realloc(p, size); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    count();
    *out = __libc_memalign(alignment, size);
    return *out ? 0 : 12;  // ENOMEM
}

__attribute__((constructor)) static void start(void) {
    inside = 1;
    void *frames[2];
    backtrace(frames, 2);  // loads libgcc's unwinder now, not inside malloc
    executable = getenv("ALLOC_ORIGINS_EXE");
    inside = 0;
    ready = 1;
}

__attribute__((destructor)) static void stop(void) {
    ready = 0;
    const char *path = getenv("ALLOC_ORIGINS_OUT");
    FILE *out = path ? fopen(path, "w") : stderr;
    if (!out) return;
    for (int o = 0; o < originCount; ++o) fprintf(out, "origin %ld %s\n", originCounts[o], origins[o]);
    for (int s = 0; s < siteCount; ++s)
    {
        fprintf(out, "site %ld", siteCounts[s]);
        for (int k = 0; k < kSiteFrames; ++k) fprintf(out, " %lx", (unsigned long)sites[s][k]);
        fprintf(out, "\n");
    }
    if (path) fclose(out);
}
