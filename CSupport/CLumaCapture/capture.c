#include "CLumaCapture.h"
int lc_version(void) { return 1; }
