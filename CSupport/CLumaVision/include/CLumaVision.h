#ifndef CLUMAVISION_H
#define CLUMAVISION_H
#ifdef __cplusplus
extern "C" {
#endif
// Placeholder until the vision shim lands.
int lv_version(void);
#ifdef __cplusplus
}
#endif
#endif
