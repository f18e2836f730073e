// libv4l2 and the kernel's V4L2 definitions. Swift cannot call libv4l2's variadic functions or use the
// VIDIOC_* macros; CLumaCapture wraps those.
#include <linux/videodev2.h>
#include <libv4l2.h>
