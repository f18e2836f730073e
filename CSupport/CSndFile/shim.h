// libsndfile's C API. LumaScanAudio decodes its feedback sounds (WAV and the other formats libsndfile reads) with
// sf_open, sf_readf_short and sf_close from Swift; the tests write WAV files with sf_writef_short.
#include <sndfile.h>
