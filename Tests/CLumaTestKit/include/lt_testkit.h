#ifndef LT_TESTKIT_H
#define LT_TESTKIT_H
// CLumaTestKit: what the barcode corpus needs from C and C++ and the library must not carry: codes of every
// symbology rendered by libzint, a print-and-photograph camera model (OpenCV, TurboJPEG) and ZXing-C++ as a peer
// reader. Test support only: the library's own shims are CLumaVision and CLumaCapture.
//
// The convention is CLumaVision's (lv_common.h, lv_image.h): pixels are passed as a pointer plus width, height and
// stride (bytes from one row to the next, at least the width; a buffer holds `stride * (height - 1) + width` bytes);
// every function returns 0 or a count on success and a negative errno-style code on failure: -EINVAL for bad
// arguments (and data zint refuses to encode), -ENOSPC when a caller's buffer is too small, -ENOMEM when memory ran
// out, -EIO for any other failure inside a library. Each extern "C" function catches every exception; nothing throws.
// Random choices take a seed and are the same for the same seed on every machine (SplitMix64, no <random>).
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: Codes (libzint)

/// Symbologies, numbered as zint's `BARCODE_*` (the shim checks this with static_asserts).
enum {
    LT_CODE_ITF = 3,             ///< Interleaved 2 of 5 (`BARCODE_C25INTER`), an even number of digits
    LT_CODE_CODE39 = 8,          ///< Code 39, no check character
    LT_CODE_EAN = 13,            ///< EAN-13 (12 digits), EAN-8 (7 digits), with `+NN` / `+NNNNN` for an add-on
    LT_CODE_CODABAR = 18,        ///< Codabar, start and stop characters included in the data (`A40156B`)
    LT_CODE_CODE128 = 20,        ///< Code 128, code sets chosen by zint
    LT_CODE_CODE93 = 25,         ///< Code 93 (zint adds the two check characters)
    LT_CODE_DATABAR = 29,        ///< GS1 DataBar Omnidirectional, 13 digits (zint adds the check digit)
    LT_CODE_DATABAR_EXP = 31,    ///< GS1 DataBar Expanded, GS1 data with AIs in brackets (`[01]...[3103]...`)
    LT_CODE_UPCA = 34,           ///< UPC-A, 11 digits (zint adds the check digit)
    LT_CODE_UPCE = 37,           ///< UPC-E, 7 digits: number system 0 or 1 and six data digits
    LT_CODE_PDF417 = 55,         ///< PDF417
    LT_CODE_MAXICODE = 57,       ///< MaxiCode (`option_1` is the mode, 4 by default here)
    LT_CODE_QR = 58,             ///< QR Code
    LT_CODE_DATAMATRIX = 71,     ///< Data Matrix ECC 200
    LT_CODE_AZTEC = 92,          ///< Aztec Code
    LT_CODE_MICROQR = 97,        ///< Micro QR Code
};

/// How a code is drawn.
typedef struct lt_code_style {
    /// Pixels per module (zint's X-dimension), at least 1. MaxiCode's hexagons come out about this size too.
    int module_px;
    /// Light modules of quiet zone on each side (zint's whitespace); negative for zint's default (none for most
    /// symbologies: zint draws EAN/UPC's own).
    int quiet_modules;
    /// Bar height of linear codes, in modules; 0 for zint's default.
    float bar_height;
    /// Non-zero to draw the human-readable text under linear codes, as printed labels do.
    int show_text;
    /// Non-zero when the data is UTF-8 text (zint's UNICODE_MODE): QR and Micro QR then encode text outside
    /// ISO 8859-1 as Shift JIS (Kanji mode), without an ECI. Zero passes the bytes as they are (binary).
    int unicode;
    /// Non-zero when the data is GS1 with AIs in brackets (zint's GS1_MODE); DataBar Expanded always is.
    int gs1;
    /// zint's symbol options (error correction level, size, mode, shape); 0 leaves zint's default.
    int option_1;
    /// See option_1.
    int option_2;
    /// See option_1.
    int option_3;
} lt_code_style;

/// An 8-bit grey image owned by the kit, rows of exactly `width` bytes: 0 is ink, 255 paper.
typedef struct lt_bitmap lt_bitmap;

/// Encodes `length` bytes of `data` as `symbology` (`LT_CODE_*`) with libzint and renders it as `style` says.
/// On success stores a new bitmap in `*out` (free it with `lt_bitmap_destroy`). -EINVAL when zint refuses the data
/// (zint's message is not kept: the corpus chooses valid data).
int lt_code_render(int symbology, const uint8_t *data, size_t length, const lt_code_style *style, lt_bitmap **out);

/// The bitmap's width in pixels.
int lt_bitmap_width(const lt_bitmap *bitmap);
/// The bitmap's height in pixels.
int lt_bitmap_height(const lt_bitmap *bitmap);
/// The bitmap's pixels, `height` rows of `width` bytes, valid until `lt_bitmap_destroy`.
const uint8_t *lt_bitmap_pixels(const lt_bitmap *bitmap);
/// Frees a bitmap; NULL is ignored.
void lt_bitmap_destroy(lt_bitmap *bitmap);

// MARK: The camera model (OpenCV, TurboJPEG)

/// Prints `code` (0 ink, 255 paper) onto `frame` so that its corners (top left, top right, bottom right, bottom
/// left) land on `quad` (x0 y0 ... x3 y3, frame pixels), with ink exposed at `dark` and paper at `light` (grey
/// levels; `dark > light` prints light on dark, an inverted code). Bilinear; the frame keeps its pixels outside.
///
/// `wrap_degrees` above 0 wraps the code around a cylinder whose axis runs along the code's vertical (a bottle or a
/// can): its left and right edges lie `wrap_degrees` around the cylinder from the middle, so modules narrow towards
/// the edges, and paper turned away from the camera gets darker (Lambert shading). `quad` then frames the
/// cylinder's silhouette of the code. At most 80.
int lt_place_code(const uint8_t *code, int code_width, int code_height, size_t code_stride, uint8_t *frame,
                  int width, int height, size_t stride, const double *quad, double dark, double light,
                  double wrap_degrees);

/// Defocus: convolves the image in place with a disk of `radius` pixels (0 leaves it unchanged).
int lt_defocus(uint8_t *luma, int width, int height, size_t stride, double radius);

/// Fits an image into a `width` x `height` frame as a photo shown full screen: scaled by the largest factor that
/// keeps it inside (bicubic), centred, the rest filled by replicating its edges. `out` holds `height` rows of
/// `out_stride` bytes.
int lt_fit_frame(const uint8_t *luma, int image_width, int image_height, size_t stride, uint8_t *out, int width,
                 int height, size_t out_stride);

/// Motion blur: convolves the image in place with a line `length` pixels long at `degrees` (counter-clockwise from
/// the x axis, as displayed).
int lt_motion_blur(uint8_t *luma, int width, int height, size_t stride, double length, double degrees);

/// Uneven lighting and glare, in place: brightness falls off linearly by `falloff` (0...1, the fraction lost from
/// the brightest to the darkest corner) along `degrees`; then a glare spot at `glare_x`, `glare_y` with a Gaussian
/// profile of `glare_radius` pixels washes pixels towards white by `glare_strength` (0...1) at its centre.
int lt_lighting(uint8_t *luma, int width, int height, size_t stride, double falloff, double degrees, double glare_x,
                double glare_y, double glare_radius, double glare_strength);

/// Exposure, in place: maps grey 0...255 onto `black`...`white` through `gamma` (1 is linear).
int lt_levels(uint8_t *luma, int width, int height, size_t stride, double black, double white, double gamma);

/// Damage to a printed code, in place (before `lt_place_code`): `scratches` straight scratches (paper showing
/// through, or a dark pen stroke for a third of them) 1 to 2 modules wide, and `blots` square blots of 1 to 3
/// modules where ink is missing or smeared, placed at random for `seed`. `module_px` is the code's module size.
int lt_damage(uint8_t *luma, int width, int height, size_t stride, int module_px, int scratches, int blots,
              uint64_t seed);

/// Backgrounds a code is photographed on.
enum {
    LT_TEXTURE_PAPER = 0,    ///< paper or cardboard: fibres and mottle around a light grey
    LT_TEXTURE_WOOD = 1,     ///< a wood grain (stripes that are not a barcode)
    LT_TEXTURE_FABRIC = 2,   ///< a woven, crosshatched fabric
    LT_TEXTURE_PRODUCT = 3,  ///< product art: colour fields, circles, logo lettering, stripes, a halftone patch
    LT_TEXTURE_TEXT = 4,     ///< a printed page: lines of words in several fonts and sizes
};

/// Fills the image with a texture (`LT_TEXTURE_*`), the same for the same `seed`.
int lt_texture(uint8_t *luma, int width, int height, size_t stride, int kind, uint64_t seed);

/// Encodes the image as a baseline grey JPEG of `quality` (1...100) into `out` (capacity `capacity`) and stores its
/// size in `*length`; -ENOSPC when it does not fit (then `*length` is the size needed).
int lt_jpeg_encode(const uint8_t *luma, int width, int height, size_t stride, int quality, uint8_t *out,
                   size_t capacity, size_t *length);

// MARK: The ZXing-C++ peer

/// One code a peer read.
typedef struct lt_peer_read {
    /// The LumaScan symbology name (`Symbology`'s raw value: "ean13", "upca", "qr", "datamatrix", ...), or the
    /// reader's own format name for a format LumaScan does not name; NUL-terminated.
    char symbology[24];
    /// Where the payload (UTF-8 text as the reader converts it, NUL-terminated) starts in the caller's data buffer.
    uint32_t data_offset;
    /// The payload's length in bytes, without the NUL.
    uint32_t data_length;
} lt_peer_read;

/// Raw ZXing-C++ as its README shows it: `ZXing::ReadBarcodes(ImageView(luma, width, height, ImageFormat::Lum,
/// stride), DecodeHints())`, default hints (every format, tryHarder, tryRotate, tryDownscale, EAN add-ons ignored).
/// Writes up to `max_reads` reads and their payloads (`data`, capacity `data_capacity`) and returns how many codes
/// ZXing read, which may be more (reads left out are zeroed).
///
/// ZXing-C++ 1.4 aborts on an assertion in `Result::operator==` when ReadBarcodes compares a result with a multi-line
/// linear one (every GS1 DataBar photo): the read runs in a forked child, and when that child aborts `*aborted` is
/// set to 1 and the image is read again for one symbol at most (maxNumberOfSymbols 1), which compares nothing.
int lt_zxing_read(const uint8_t *luma, int width, int height, size_t stride, lt_peer_read *reads, int max_reads,
                  uint8_t *data, size_t data_capacity, int *aborted);

// MARK: The heap

/// The bytes the C heap has handed out and not taken back (glibc's `mallinfo2().uordblks`, every arena), for tools
/// that measure memory held from one call to the next in a process of their own.
size_t lt_heap_in_use(void);

// MARK: CPUs

/// Pins the calling thread to the first CPU it may run on, remembering its CPUs for `lt_unpin`. Returns how many CPUs
/// it could run on before, or a negative errno.
int lt_pin_to_one_cpu(void);

/// Lets the calling thread run on the CPUs it had before `lt_pin_to_one_cpu` again. Returns 0 or a negative errno.
int lt_unpin(void);

#ifdef __cplusplus
}
#endif
#endif
