// ALSA's PCM API (libasound). LumaScanAudio calls it from Swift directly: the calls it makes (snd_pcm_open,
// snd_pcm_set_params, snd_pcm_writei, snd_pcm_recover, snd_pcm_drain) are not variadic, and they already return 0 or
// a count on success and -errno on failure, the convention of LumaScan's own shims, so no C wrapper is needed.
#include <alsa/asoundlib.h>
