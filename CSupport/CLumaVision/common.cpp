#include "lv_common.h"

extern "C" int lv_abi_version(void) { return 1; }
