// ZXing-C++ as a peer reader: ReadBarcodes over the whole image with default hints, formats mapped to LumaScan's
// symbology names.
//
// Workaround: ZXing-C++ 1.4 as Debian builds it (assertions on) aborts in Result::operator== (`assert(lineCount()
// == 1)`) when ReadBarcodes compares a new result with a multi-line linear one it already holds: every GS1 DataBar
// photo of the corpus, and now and then an EAN-13 (other hints, tryHarder or tryDownscale off, a DataBar-free
// format list, abort too). An abort would end the whole test run, so each read runs in a forked child that hands
// its results back through shared memory; when the child aborts, the image is read again for one symbol at most
// (maxNumberOfSymbols 1, ReadBarcode's setting: nothing to compare), and the caller is told.
#include "lt_testkit.h"

#include "kit.hpp"

// ZXing-C++ 1.4's text() returns UTF-16 (std::wstring) unless ZX_USE_UTF8 asks for the UTF-8 std::string it becomes
// in 2.0; both are the same conversion of the payload (bytes plus ECI or a guessed character set).
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <cstring>
#include <string>

namespace {

/// LumaScan's `Symbology` raw value for a ZXing format, or ZXing's own name for one LumaScan does not name.
std::string symbology_name(ZXing::BarcodeFormat format) {
    using ZXing::BarcodeFormat;
    switch (format) {
    case BarcodeFormat::EAN13: return "ean13";
    case BarcodeFormat::EAN8: return "ean8";
    case BarcodeFormat::UPCA: return "upca";
    case BarcodeFormat::UPCE: return "upce";
    case BarcodeFormat::Code39: return "code39";
    case BarcodeFormat::Code93: return "code93";
    case BarcodeFormat::Code128: return "code128";
    case BarcodeFormat::ITF: return "i25";
    case BarcodeFormat::DataBar: return "databar";
    case BarcodeFormat::DataBarExpanded: return "databar-exp";
    case BarcodeFormat::Codabar: return "codabar";
    case BarcodeFormat::QRCode: return "qr";
    case BarcodeFormat::MicroQRCode: return "micro-qr";
    case BarcodeFormat::DataMatrix: return "datamatrix";
    case BarcodeFormat::PDF417: return "pdf417";
    case BarcodeFormat::Aztec: return "aztec";
    case BarcodeFormat::MaxiCode: return "maxicode";
    default: return ZXing::ToString(format);
    }
}

/// Reads in this process; returns the count ZXing read (maybe more than written).
int read_here(const uint8_t *luma, int width, int height, size_t stride, bool single, lt_peer_read *reads,
              int max_reads, uint8_t *data, size_t data_capacity) {
    const ZXing::ImageView view(luma, width, height, ZXing::ImageFormat::Lum, int(stride));
    ZXing::DecodeHints hints;
    if (single) hints.setMaxNumberOfSymbols(1);
    const ZXing::Results results = ZXing::ReadBarcodes(view, hints);
    int written = 0;
    size_t used = 0;
    for (const ZXing::Result &result : results) {
        if (written >= max_reads) break;
        const std::string text = result.text();
        if (used + text.size() + 1 > data_capacity) break;
        lt_peer_read &read = reads[written++];
        std::memset(&read, 0, sizeof read);
        const std::string name = symbology_name(result.format());
        std::strncpy(read.symbology, name.c_str(), sizeof read.symbology - 1);
        read.data_offset = uint32_t(used);
        read.data_length = uint32_t(text.size());
        std::memcpy(data + used, text.data(), text.size());
        data[used + text.size()] = 0;
        used += text.size() + 1;
    }
    return int(results.size());
}

/// Memory shared with the forked reader.
struct Shared {
    void *memory = MAP_FAILED;
    size_t size = 0;
    ~Shared() {
        if (memory != MAP_FAILED) munmap(memory, size);
    }
};

/// Reads in a forked child: 1 and the count in `*count` when it finished, 0 when it died (an assertion's abort).
int read_forked(const uint8_t *luma, int width, int height, size_t stride, bool single, lt_peer_read *reads,
                int max_reads, uint8_t *data, size_t data_capacity, int *count) {
    Shared shared;
    shared.size = sizeof(int) + sizeof(lt_peer_read) * size_t(max_reads) + data_capacity;
    shared.memory = mmap(nullptr, shared.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared.memory == MAP_FAILED) return -errno;
    auto *child_count = static_cast<int *>(shared.memory);
    auto *child_reads = reinterpret_cast<lt_peer_read *>(child_count + 1);
    auto *child_data = reinterpret_cast<uint8_t *>(child_reads + max_reads);
    const pid_t pid = fork();
    if (pid < 0) return -errno;
    if (pid == 0) {
        // The child dies quietly: no assertion message on the test's output, and not through the Swift runtime's
        // crash handler (a backtrace of the whole test process for each abort).
        signal(SIGABRT, SIG_DFL);
        if (int null = open("/dev/null", O_WRONLY); null >= 0) dup2(null, STDERR_FILENO);
        int status = 0;
        try {
            *child_count = read_here(luma, width, height, stride, single, child_reads, max_reads, child_data,
                                     data_capacity);
        } catch (...) {
            status = 1;
        }
        _exit(status);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -errno;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 0;
    *count = *child_count;
    std::memcpy(reads, child_reads, sizeof(lt_peer_read) * size_t(max_reads));
    std::memcpy(data, child_data, data_capacity);
    return 1;
}

}  // namespace

extern "C" int lt_zxing_read(const uint8_t *luma, int width, int height, size_t stride, lt_peer_read *reads,
                             int max_reads, uint8_t *data, size_t data_capacity, int *aborted) {
    return lt::guarded([&] {
        if (!lt::valid(luma, width, height, stride) || max_reads < 0 || (max_reads > 0 && (!reads || !data)) ||
            !aborted)
            return -EINVAL;
        *aborted = 0;
        if (max_reads > 0) std::memset(reads, 0, sizeof(lt_peer_read) * size_t(max_reads));
        int count = 0;
        int finished = read_forked(luma, width, height, stride, false, reads, max_reads, data, data_capacity, &count);
        if (finished < 0) return finished;
        if (finished == 1) return count;
        *aborted = 1;
        finished = read_forked(luma, width, height, stride, true, reads, max_reads, data, data_capacity, &count);
        if (finished < 0) return finished;
        return finished == 1 ? count : 0;
    });
}
