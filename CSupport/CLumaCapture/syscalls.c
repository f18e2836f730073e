// Non-variadic, EINTR-retrying wrappers over libv4l2, and the VIDIOC_* request codes as constants.
#define _GNU_SOURCE  // pthread_setname_np
#include "CLumaCapture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <libv4l2.h>
#include <linux/videodev2.h>

int lc_open(const char *path, int flags) {
    if (path == NULL) return -EINVAL;
    int fd;
    for (;;) {
        // Opening a character device can be interrupted before a descriptor exists, so retrying is safe.
        fd = open(path, flags);
        if (fd >= 0) break;
        if (errno != EINTR) return -errno;
    }
    // libv4l2 prints two lines of its own on stderr when the node is not a V4L2 device; asking the kernel first
    // lets LumaScan's one message ("not a V4L2 device") be the only one.
    struct v4l2_capability capability;
    int result;
    do {
        result = ioctl(fd, VIDIOC_QUERYCAP, &capability);
    } while (result < 0 && errno == EINTR);
    if (result < 0 && errno == ENOTTY) {
        close(fd);
        return -ENOTTY;
    }
    // v4l2_fd_open (what v4l2_open does after open(2)) takes the descriptor over; it is not variadic either.
    if (v4l2_fd_open(fd, 0) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

int lc_close(int fd) {
    // Deliberately not retried on EINTR: Linux releases the descriptor before reporting EINTR from close.
    if (v4l2_close(fd) == 0) return 0;
    return errno == EINTR ? 0 : -errno;
}

// v4l2_ioctl is variadic; this fixes its third argument to a pointer, which every V4L2 request takes.
static int lc_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }

int lc_ioctl_retrying(lc_ioctl_function function, int fd, unsigned long request, void *arg) {
    if (function == NULL) return -EINVAL;
    for (;;) {
        int result = function(fd, request, arg);
        if (result >= 0) return result;
        // A signal can interrupt a blocking ioctl before it did anything (V4L2 ioctls are restartable); retry here
        // so Swift never has to read errno, which the Swift runtime may have changed in between.
        int error = errno;
        if (error != EINTR) return error > 0 ? -error : -EIO;
    }
}

int lc_ioctl(int fd, unsigned long request, void *arg) { return lc_ioctl_retrying(lc_v4l2_ioctl, fd, request, arg); }

int lc_mmap(int fd, size_t length, int64_t offset, void **address) {
    if (address == NULL || length == 0) return -EINVAL;
    // Swift cannot compare with MAP_FAILED (a cast macro), so the address comes back through an out parameter.
    void *mapped = v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
    if (mapped == MAP_FAILED) return -errno;
    *address = mapped;
    return 0;
}

int lc_munmap(void *address, size_t length) {
    if (v4l2_munmap(address, length) == 0) return 0;
    return -errno;
}

static int64_t lc_monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int lc_poll(int fd, int timeout_ms) {
    struct pollfd entry = {.fd = fd, .events = POLLIN, .revents = 0};
    const int64_t deadline = timeout_ms >= 0 ? lc_monotonic_ms() + timeout_ms : 0;
    int remaining = timeout_ms;
    for (;;) {
        entry.revents = 0;
        int ready = poll(&entry, 1, remaining);
        if (ready > 0) return entry.revents;
        if (ready == 0) return 0;
        if (errno != EINTR) return -errno;
        // poll(2) is never restarted after a signal handler, whatever SA_RESTART says; wait for what is left of
        // the caller's timeout so signals (profilers, timers) neither cut the wait short nor extend it.
        if (timeout_ms >= 0) {
            int64_t left = deadline - lc_monotonic_ms();
            if (left <= 0) return 0;
            remaining = (int)left;
        }
    }
}

// The request codes are _IOR/_IOW/_IOWR expressions, which Swift's importer skips.
const unsigned long LC_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
const unsigned long LC_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
const unsigned long LC_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
const unsigned long LC_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
const unsigned long LC_VIDIOC_G_FMT = VIDIOC_G_FMT;
const unsigned long LC_VIDIOC_S_FMT = VIDIOC_S_FMT;
const unsigned long LC_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
const unsigned long LC_VIDIOC_G_PARM = VIDIOC_G_PARM;
const unsigned long LC_VIDIOC_S_PARM = VIDIOC_S_PARM;
const unsigned long LC_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
const unsigned long LC_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
const unsigned long LC_VIDIOC_QBUF = VIDIOC_QBUF;
const unsigned long LC_VIDIOC_DQBUF = VIDIOC_DQBUF;
const unsigned long LC_VIDIOC_STREAMON = VIDIOC_STREAMON;
const unsigned long LC_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
const unsigned long LC_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
const unsigned long LC_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
const unsigned long LC_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
const unsigned long LC_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
const unsigned long LC_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
const unsigned long LC_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
const unsigned long LC_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
const unsigned long LC_VIDIOC_ENUMINPUT = VIDIOC_ENUMINPUT;
const unsigned long LC_VIDIOC_S_INPUT = VIDIOC_S_INPUT;
const unsigned long LC_VIDIOC_G_INPUT = VIDIOC_G_INPUT;

int lc_thread_set_name(const char *name) {
    if (name == NULL) return -EINVAL;
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = '\0';
    int result = pthread_setname_np(pthread_self(), truncated);
    return result == 0 ? 0 : -result;
}
