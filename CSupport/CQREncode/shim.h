// libqrencode's C API. CLumaVision's secure-QR generator encodes QR codes with it (secureqr_generate.cpp); Swift does
// not call it directly.
#include <qrencode.h>
