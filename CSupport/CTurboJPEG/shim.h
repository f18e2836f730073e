// libjpeg-turbo's TurboJPEG API, used by CLumaCapture to decode MJPEG frames to luma only.
#include <turbojpeg.h>
