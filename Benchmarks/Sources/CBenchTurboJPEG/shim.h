// TurboJPEG's C API, for the benchmarks only: it encodes the MJPEG frames the Pixels suite decodes (4:2:2, as UVC
// cameras send them). LumaScan's own decoder lives in CLumaCapture, which is not part of its public products.
#include <turbojpeg.h>
