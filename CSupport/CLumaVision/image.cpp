// Imaging behind lv_image.h: image files through codecs.hpp (libpng, TurboJPEG, libwebp, libtiff, giflib, our PNM and
// BMP readers), the
// operations through OpenCV's imgproc. Every cv::Mat wraps the caller's memory (no copy) unless a result is owned.
#include "lv_image.h"
#include "lv_shim.hpp"

#include "codecs.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <vector>

struct lv_image {
    cv::Mat mat;  // CV_8UC1, continuous
};

namespace {

using lv::guarded;  // lv_shim.hpp: the one exception guard of every extern "C" entry point

using lv::valid;

/// Decodes `bytes` into a new image in `*out`.
int decode(const uint8_t *bytes, size_t length, uint64_t max_pixels, lv_image **out) {
    cv::Mat grey;
    if (int status = lv::codecs::decode_grey(bytes, length, grey, max_pixels); status != 0) return status;
    if (grey.empty() || grey.type() != CV_8UC1 || !grey.isContinuous()) return -EBADMSG;
    auto *image = new lv_image();
    image->mat = std::move(grey);
    *out = image;
    return 0;
}

/// Reads the whole content of the open file `fd` (of `size` bytes when it was opened) into `bytes`: 0, or -EIO when
/// reading fails. A file that shrank meanwhile gives the bytes it still has (and decodes as truncated).
int read_all(int fd, off_t size, std::vector<uint8_t> &bytes) {
    bytes.resize(size_t(size > 0 ? size : 0));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t count = read(fd, bytes.data() + done, bytes.size() - done);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) return -EIO;
        if (count == 0) break;
        done += size_t(count);
    }
    bytes.resize(done);
    return 0;
}

/// The code a failed stat or open of a file to read maps to (lv_image.h lists them).
int open_failure(int error) {
    switch (error) {
        case ENOENT: case ENOTDIR: return -ENOENT;  // ENOTDIR: a path component is a file, so no such file
        case EACCES: case EPERM: return -EACCES;
        default: return -error;
    }
}

/// Closes a descriptor on every path out of the scope.
struct FileDescriptor {
    int fd;
    ~FileDescriptor() {
        if (fd >= 0) close(fd);
    }
};

}  // namespace

extern "C" int lv_image_read_grey_within(const char *path, uint64_t max_pixels, lv_image **out) {
    return guarded([&] {
        if (!path || !out) return -EINVAL;
        *out = nullptr;
        // stat before open, so a folder (-EISDIR) or a device or FIFO (-EINVAL) is refused without opening it:
        // opening a FIFO would block, and opening a device may act on it.
        struct stat info;
        if (stat(path, &info) != 0) return open_failure(errno);
        if (S_ISDIR(info.st_mode)) return -EISDIR;
        if (!S_ISREG(info.st_mode)) return -EINVAL;
        FileDescriptor file{open(path, O_RDONLY | O_CLOEXEC)};
        if (file.fd < 0) return open_failure(errno);
        std::vector<uint8_t> bytes;
        if (int status = read_all(file.fd, info.st_size, bytes); status != 0) return status;
        return decode(bytes.data(), bytes.size(), max_pixels, out);
    });
}

extern "C" int lv_image_decode_grey_within(const void *bytes, size_t length, uint64_t max_pixels, lv_image **out) {
    return guarded([&] {
        if (!bytes || !out || length == 0) return -EINVAL;
        *out = nullptr;
        return decode(static_cast<const uint8_t *>(bytes), length, max_pixels, out);
    });
}

extern "C" int lv_image_read_grey(const char *path, lv_image **out) { return lv_image_read_grey_within(path, 0, out); }

extern "C" int lv_image_decode_grey(const void *bytes, size_t length, lv_image **out) {
    return lv_image_decode_grey_within(bytes, length, 0, out);
}

extern "C" int lv_image_width(const lv_image *image) { return image ? image->mat.cols : 0; }

extern "C" int lv_image_height(const lv_image *image) { return image ? image->mat.rows : 0; }

extern "C" const uint8_t *lv_image_pixels(const lv_image *image) { return image ? image->mat.ptr<uint8_t>() : nullptr; }

extern "C" void lv_image_destroy(lv_image *image) {
    try {
        delete image;
    } catch (...) {
    }
}

extern "C" int lv_image_write_png(const char *path, const uint8_t *luma, int width, int height, size_t stride) {
    return guarded([&] {
        if (!path || !valid(luma, width, height, stride)) return -EINVAL;
        return lv::codecs::write_png(path, luma, width, height, stride);
    });
}

namespace {

/// Both PNG entry points: the PNG into `out`, or its size when it does not fit.
int encodeInto(const uint8_t *luma, int width, int height, size_t stride, uint8_t *out, size_t capacity,
               size_t *length, lv::codecs::PNGEffort effort) {
    return guarded([&] {
        if (!valid(luma, width, height, stride) || !length || (!out && capacity > 0)) return -EINVAL;
        std::vector<uint8_t> png;
        const int status = lv::codecs::encode_png(luma, width, height, stride, png, effort);
        if (status != 0) return status;
        *length = png.size();
        if (png.size() > capacity) return -ENOSPC;
        std::memcpy(out, png.data(), png.size());
        return 0;
    });
}

}  // namespace

extern "C" int lv_image_encode_png(const uint8_t *luma, int width, int height, size_t stride, uint8_t *out,
                                   size_t capacity, size_t *length) {
    return encodeInto(luma, width, height, stride, out, capacity, length, lv::codecs::PNGEffort::balanced);
}

extern "C" int lv_image_encode_png_fast(const uint8_t *luma, int width, int height, size_t stride, uint8_t *out,
                                        size_t capacity, size_t *length) {
    return encodeInto(luma, width, height, stride, out, capacity, length, lv::codecs::PNGEffort::fastest);
}
