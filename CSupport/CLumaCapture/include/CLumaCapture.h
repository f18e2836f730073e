#ifndef CLUMACAPTURE_H
#define CLUMACAPTURE_H
// CLumaCapture: what Swift cannot do itself for V4L2 capture, and the per-pixel loops of luma extraction.
//
// - libv4l2's v4l2_open / v4l2_ioctl are variadic, which Swift refuses to call; the lc_ wrappers are not.
// - The VIDIOC_* request codes are function-like macros (_IOR/_IOWR), which Swift does not import; they are exported
//   here as constants.
// - Every wrapper returns 0 (or a count, descriptor or bit mask) on success and -errno on failure, and retries EINTR
//   itself, so Swift never reads errno after other code may have changed it; handles are made by
//   `int lc_<name>_create(lc_<name> **out)` and freed by `lc_<name>_destroy` (the one convention of every shim,
//   written down in CLumaVision's lv_common.h).
// - Pixel work (packed 4:2:2 luma extraction, JPEG decoding to grey) lives here because it is the hot loop.
//
// The kernel's structures (struct v4l2_buffer and friends) come from <linux/videodev2.h> through the CV4L2 module;
// this header needs none of them.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - System calls

/// Opens a V4L2 device node through libv4l2 (`open(2)`, `VIDIOC_QUERYCAP`, `v4l2_fd_open`). Returns the descriptor,
/// or -errno: -ENOTTY, without a word from libv4l2 on stderr, when the node is not a V4L2 device.
int lc_open(const char *path, int flags);

/// Closes a descriptor opened with `lc_open` (`v4l2_close`). Returns 0 or -errno.
///
/// EINTR is not retried: on Linux the descriptor is released even when close reports EINTR, and closing it again
/// could close a descriptor another thread has just been given.
int lc_close(int fd);

/// Performs a V4L2 ioctl through libv4l2 (`v4l2_ioctl`), retrying EINTR. Returns the ioctl's (non-negative) result,
/// or -errno.
int lc_ioctl(int fd, unsigned long request, void *arg);

/// The signature of `v4l2_ioctl` without its variadic tail; see `lc_ioctl_retrying`.
typedef int (*lc_ioctl_function)(int fd, unsigned long request, void *arg);

/// `lc_ioctl`'s retry loop over an arbitrary ioctl function: calls `function` until it does not fail with EINTR.
/// Returns its result, or -errno. Exported so tests can drive the EINTR retry with a scripted function.
int lc_ioctl_retrying(lc_ioctl_function function, int fd, unsigned long request, void *arg);

/// Maps `length` bytes of a device buffer at `offset` (from VIDIOC_QUERYBUF) shared and read-write, through
/// libv4l2 (`v4l2_mmap`). On success stores the address in `*address` and returns 0; otherwise returns -errno.
int lc_mmap(int fd, size_t length, int64_t offset, void **address);

/// Unmaps a buffer mapped with `lc_mmap` (`v4l2_munmap`). Returns 0 or -errno.
int lc_munmap(void *address, size_t length);

/// Waits up to `timeout_ms` milliseconds (negative: forever) for `fd` to have a frame to dequeue (POLLIN).
///
/// Returns the `revents` bits (POLLIN, POLLERR, POLLHUP, POLLNVAL, ...), 0 on timeout, or -errno. EINTR is retried
/// with the time that remains, so a signal neither ends the wait early nor extends it.
int lc_poll(int fd, int timeout_ms);

/// Names the calling thread `name` as the kernel shows it (`/proc/self/task/*/comm`, `top -H`, gdb): the first 15
/// bytes are kept, as Linux allows. Returns 0 or a negative errno value. (Swift's Glibc module does not export
/// pthread_setname_np, which needs _GNU_SOURCE.)
int lc_thread_set_name(const char *name);

// MARK: - Request codes and flags

// VIDIOC_* request codes (function-like macros in <linux/videodev2.h>, which Swift cannot import).
extern const unsigned long LC_VIDIOC_QUERYCAP;
extern const unsigned long LC_VIDIOC_ENUM_FMT;
extern const unsigned long LC_VIDIOC_ENUM_FRAMESIZES;
extern const unsigned long LC_VIDIOC_ENUM_FRAMEINTERVALS;
extern const unsigned long LC_VIDIOC_G_FMT;
extern const unsigned long LC_VIDIOC_S_FMT;
extern const unsigned long LC_VIDIOC_TRY_FMT;
extern const unsigned long LC_VIDIOC_G_PARM;
extern const unsigned long LC_VIDIOC_S_PARM;
extern const unsigned long LC_VIDIOC_REQBUFS;
extern const unsigned long LC_VIDIOC_QUERYBUF;
extern const unsigned long LC_VIDIOC_QBUF;
extern const unsigned long LC_VIDIOC_DQBUF;
extern const unsigned long LC_VIDIOC_STREAMON;
extern const unsigned long LC_VIDIOC_STREAMOFF;
extern const unsigned long LC_VIDIOC_QUERYCTRL;
extern const unsigned long LC_VIDIOC_QUERY_EXT_CTRL;
extern const unsigned long LC_VIDIOC_QUERYMENU;
extern const unsigned long LC_VIDIOC_G_CTRL;
extern const unsigned long LC_VIDIOC_S_CTRL;
extern const unsigned long LC_VIDIOC_G_EXT_CTRLS;
extern const unsigned long LC_VIDIOC_S_EXT_CTRLS;
extern const unsigned long LC_VIDIOC_ENUMINPUT;
extern const unsigned long LC_VIDIOC_S_INPUT;
extern const unsigned long LC_VIDIOC_G_INPUT;

// The V4L2 flag and type macros (V4L2_CTRL_FLAG_NEXT_CTRL, V4L2_BUF_FLAG_ERROR, V4L2_CID_*) are plain integer
// expressions, which Swift imports from <linux/videodev2.h> directly; they are not repeated here.

// MARK: - Luma extraction

/// Copies the luma bytes of a packed 4:2:2 image (every second byte) into a grey plane.
///
/// `offset` is 0 for YUYV (`Y0 U Y1 V`) and 1 for UYVY (`U Y0 V Y1`). Rows start every `src_stride` bytes in `src`
/// (which holds at least `src_stride * (height - 1) + 2 * width` bytes) and every `dst_stride` bytes in `dst`. The
/// regions must not overlap. Does nothing for a non-positive width or height.
void lc_extract_luma_packed(const void *src, size_t src_stride, int width, int height, int offset, void *dst,
                            size_t dst_stride);

// MARK: - JPEG

// The JPEG functions follow the shims' one error convention (0 or a count, else a negative errno code); each
// LC_JPEG_E* name is the negative errno code it equals (jpeg.c checks them against <errno.h>), spelled as a number
// because Swift imports only literal macros.
/// -EINVAL: invalid arguments (NULL pointer, non-positive size, stride below width, buffer too small).
#define LC_JPEG_EINVAL (-22)
/// -EBADMSG: the data is not a JPEG image (no SOI marker) or its header cannot be read.
#define LC_JPEG_EHEADER (-74)
/// -ERANGE: the image's size differs from the size the caller expects.
#define LC_JPEG_ESIZE (-34)
/// -ENODATA: the data is truncated (no EOI marker at the end).
#define LC_JPEG_ETRUNCATED (-61)
/// -EILSEQ: the decoder failed on corrupt data; the plane's content is unspecified.
#define LC_JPEG_ECORRUPT (-84)
/// -ENOMEM: the codec could not be set up (out of memory).
#define LC_JPEG_ENOMEM (-12)
/// -EPROTO: the decoder finished the image but warned about corrupt data (a bad Huffman code, extraneous bytes before
/// a marker). The plane holds the whole image, possibly with damaged blocks; callers decide whether to use it (some
/// UVC cameras add extraneous bytes to every frame).
#define LC_JPEG_EWARNING (-71)

/// A TurboJPEG decompressor; create one per thread that decodes, and reuse it for every frame.
typedef struct lc_jpeg_decoder lc_jpeg_decoder;

/// Creates a decoder: stores it in `*out` and returns 0, or returns LC_JPEG_EINVAL (NULL `out`) or LC_JPEG_ENOMEM,
/// leaving `*out` NULL. Free it with `lc_jpeg_decoder_destroy`.
int lc_jpeg_decoder_create(lc_jpeg_decoder **out);

/// Frees a decoder; NULL is allowed.
void lc_jpeg_decoder_destroy(lc_jpeg_decoder *decoder);

/// Decodes a JPEG image's luma only (TurboJPEG's TJPF_GRAY output: no chroma work) into a preallocated plane.
///
/// `dst` holds `height` rows of `width` bytes, `dst_stride` bytes apart. Returns 0, or one of the LC_JPEG_E*
/// codes: garbage, truncated or corrupt data and a size other than `width` x `height` are reported, never crash.
/// Trailing zero bytes after the EOI marker (padding some drivers count in bytesused) are ignored.
/// The caller's plane is written in place; libjpeg still takes its per-image working memory (a few rows of
/// coefficients and a row-pointer array) from its own allocator on every call, which TurboJPEG gives no way to reuse.
int lc_jpeg_decode_grey(lc_jpeg_decoder *decoder, const void *jpeg, size_t size, void *dst, size_t dst_stride,
                        int width, int height);

/// The decoder's message about its last failure (TurboJPEG's text), valid until the next call on the decoder.
const char *lc_jpeg_decoder_error(lc_jpeg_decoder *decoder);

/// A TurboJPEG compressor, for recordings and tests.
typedef struct lc_jpeg_encoder lc_jpeg_encoder;

/// Creates an encoder: stores it in `*out` and returns 0, or returns LC_JPEG_EINVAL (NULL `out`) or LC_JPEG_ENOMEM,
/// leaving `*out` NULL. Free it with `lc_jpeg_encoder_destroy`.
int lc_jpeg_encoder_create(lc_jpeg_encoder **out);

/// Frees an encoder; NULL is allowed.
void lc_jpeg_encoder_destroy(lc_jpeg_encoder *encoder);

/// The largest size a one-component (grey) JPEG of `width` x `height` can have: the capacity to give
/// `lc_jpeg_encode_grey`. 0 for a non-positive size.
size_t lc_jpeg_grey_capacity(int width, int height);

/// Encodes a grey plane (`height` rows of `width` bytes, `src_stride` bytes apart) as a one-component baseline JPEG
/// of `quality` (1-100) into `dst`, which holds `capacity` bytes (at least `lc_jpeg_grey_capacity(width, height)`).
///
/// Returns the JPEG's size in bytes, or a negative LC_JPEG_E* code. Never allocates the output.
long lc_jpeg_encode_grey(lc_jpeg_encoder *encoder, const void *src, size_t src_stride, int width, int height,
                         int quality, void *dst, size_t capacity);

/// The encoder's message about its last failure, valid until the next call on the encoder.
const char *lc_jpeg_encoder_error(lc_jpeg_encoder *encoder);

#ifdef __cplusplus
}
#endif
#endif
