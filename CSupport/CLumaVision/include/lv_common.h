#ifndef LV_COMMON_H
#define LV_COMMON_H
// CLumaVision: C++ (zbar, OpenCV) behind extern "C" headers. SwiftPM treats include/ as an umbrella directory:
// each area has its own header (lv_barcode.h, lv_image.h, lv_meter.h, ...), all pure C.
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
