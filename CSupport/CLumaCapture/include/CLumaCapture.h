#ifndef CLUMACAPTURE_H
#define CLUMACAPTURE_H
// Placeholder until the capture shim lands.
int lc_version(void);
#endif
