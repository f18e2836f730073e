#include "CLumaVision.h"
extern "C" int lv_version(void) { return 1; }
