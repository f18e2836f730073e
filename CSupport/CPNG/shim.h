// libpng's simplified API (png_image_*). CLumaVision reads and writes PNG files with it (codecs.cpp); Swift does
// not call it directly.
#include <png.h>
