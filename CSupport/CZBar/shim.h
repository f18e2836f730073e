// zbar's C API. LumaScan calls it from CLumaVision; Swift sees it only for the symbology constants.
#include <zbar.h>
