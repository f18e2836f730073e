#ifndef LV_COMMON_H
#define LV_COMMON_H
// CLumaVision: C++ (zbar, ZXing-C++, OpenCV) behind extern "C" headers. SwiftPM treats include/ as an umbrella
// directory: each area has its own header (lv_barcode.h, lv_image.h, lv_meter.h, ...), all pure C.
//
// The one convention of LumaScan's C shims (CLumaVision here, CLumaCapture and the test kit follow it too):
// - Errors: a function returns 0, or a count, on success and a negative errno code on failure (-EINVAL for a bad
//   argument, -ENOMEM, -EIO for a library's unexpected failure, others as each header says). Named codes, where a
//   header has them (LC_JPEG_E*), are those errno values spelled as numbers for Swift.
// - Handles: opaque structs made by `int <prefix>_create(..., <prefix> **out)`, which stores the handle in `*out` and
//   returns 0 or a negative errno code (leaving `*out` NULL), and freed by `void <prefix>_destroy(<prefix> *)`,
//   which ignores NULL.
// - Pixels: an 8-bit grey plane is `const uint8_t *luma, int width, int height, size_t stride` (bytes from one row
//   to the next), borrowed for the call and never copied unless the header says so. Buffers of other kinds (JPEG
//   data, packed YUV) are `const void *` with their size in bytes.
// - Exceptions: nothing throws across extern "C": every C++ entry point runs its body in `lv::guarded`
//   (lv_shim.hpp), which maps std::bad_alloc to -ENOMEM and any other exception to -EIO.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Reports the vision shim's ABI version (bumped when a header changes incompatibly).
int lv_abi_version(void);

#ifdef __cplusplus
}
#endif
#endif
