// OpenCV is C++ and used only from CLumaVision. This target exists to hand pkg-config's include path and
// libraries to it; the header is kept C-clean (version macros only) so the module map stays importable.
#include <opencv2/core/version.hpp>
