// Writes the fuzz targets' seed corpora (Fuzz/corpus/<target>/): small images made here, in every variant each
// decoder reads, with our own encoders (libpng through lv_image_write_png, TurboJPEG, and the test codecs' libwebp,
// libtiff and giflib writers); BMP and PGM/PPM/PBM are written byte by byte. Built and run by Fuzz/make-seeds.sh;
// the output is committed, so CI does not run this.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <turbojpeg.h>

#include "lt_codecs.h"
#include "lv_image.h"

namespace {

std::string root;

void save(const std::string &target, const std::string &name, const std::vector<uint8_t> &bytes) {
    const std::string path = root + "/" + target + "/" + name;
    FILE *file = std::fopen(path.c_str(), "wb");
    if (!file || std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size()) std::perror(path.c_str());
    if (file) std::fclose(file);
}

std::vector<uint8_t> load(const std::string &path) {
    std::vector<uint8_t> bytes;
    if (FILE *file = std::fopen(path.c_str(), "rb")) {
        int c;
        while ((c = std::fgetc(file)) != EOF) bytes.push_back(uint8_t(c));
        std::fclose(file);
    }
    std::remove(path.c_str());
    return bytes;
}

constexpr int W = 16, H = 12;

std::vector<uint8_t> grey() {
    std::vector<uint8_t> pixels(W * H);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) pixels[y * W + x] = uint8_t((x * 16 + y * 5) & 255);
    return pixels;
}

std::vector<uint8_t> rgb() {
    std::vector<uint8_t> pixels(W * H * 3);
    for (int i = 0; i < W * H; ++i) {
        pixels[i * 3] = uint8_t(i * 7);
        pixels[i * 3 + 1] = uint8_t(255 - i * 3);
        pixels[i * 3 + 2] = uint8_t(i * 11);
    }
    return pixels;
}

std::vector<uint8_t> jpeg(const uint8_t *pixels, int format, int subsampling, int flags) {
    tjhandle handle = tjInitCompress();
    unsigned char *out = nullptr;
    unsigned long size = 0;
    tjCompress2(handle, pixels, W, 0, H, format, &out, &size, subsampling, 85, flags);
    std::vector<uint8_t> bytes(out, out + size);
    tjFree(out);
    tjDestroy(handle);
    return bytes;
}

void le(std::vector<uint8_t> &bytes, uint32_t value, int count) {
    for (int i = 0; i < count; ++i) bytes.push_back(uint8_t(value >> (8 * i)));
}

/// An uncompressed bottom-up BMP (BITMAPINFOHEADER) of `bits` 8 (grey palette) or 24.
std::vector<uint8_t> bmp(int bits) {
    const int row = (W * bits / 8 + 3) / 4 * 4, palette = bits == 8 ? 256 * 4 : 0;
    std::vector<uint8_t> bytes = {'B', 'M'};
    le(bytes, 54 + palette + row * H, 4);
    le(bytes, 0, 4);
    le(bytes, 54 + palette, 4);
    le(bytes, 40, 4);
    le(bytes, W, 4);
    le(bytes, H, 4);
    le(bytes, 1, 2);
    le(bytes, bits, 2);
    for (int i = 0; i < 6; ++i) le(bytes, i == 4 && bits == 8 ? 256 : 0, 4);
    for (int i = 0; i < palette / 4; ++i) le(bytes, uint32_t(i) * 0x010101, 4);
    const auto pixels = bits == 8 ? grey() : rgb();
    for (int y = H - 1; y >= 0; --y) {
        for (int x = 0; x < W * bits / 8; ++x) bytes.push_back(pixels[y * W * bits / 8 + x]);
        for (int pad = W * bits / 8; pad < row; ++pad) bytes.push_back(0);
    }
    return bytes;
}

std::vector<uint8_t> text(const std::string &header, const std::vector<uint8_t> &body) {
    std::vector<uint8_t> bytes(header.begin(), header.end());
    bytes.insert(bytes.end(), body.begin(), body.end());
    return bytes;
}

std::vector<uint8_t> with_header(std::vector<uint8_t> header, const std::vector<uint8_t> &body) {
    header.insert(header.end(), body.begin(), body.end());
    return header;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    root = argv[1];
    const auto g = grey(), c = rgb();
    const std::string tmp = root + "/.seed";

    lv_image_write_png((tmp + ".png").c_str(), g.data(), W, H, W);
    save("image-png", "grey.png", load(tmp + ".png"));

    const auto greyJPEG = jpeg(g.data(), TJPF_GRAY, TJSAMP_GRAY, 0);
    save("image-jpeg", "grey.jpg", greyJPEG);
    save("image-jpeg", "colour-420.jpg", jpeg(c.data(), TJPF_RGB, TJSAMP_420, 0));
    save("image-jpeg", "colour-444-progressive.jpg", jpeg(c.data(), TJPF_RGB, TJSAMP_444, TJFLAG_PROGRESSIVE));

    lt_write_webp_rgb((tmp + ".webp").c_str(), c.data(), W, H, W * 3, -1);
    save("image-webp", "lossless.webp", load(tmp + ".webp"));
    lt_write_webp_rgb((tmp + ".webp").c_str(), c.data(), W, H, W * 3, 60);
    save("image-webp", "lossy.webp", load(tmp + ".webp"));

    lt_write_tiff((tmp + ".tif").c_str(), g.data(), W, H, W, 1, 8, 1, H);
    save("image-tiff", "grey.tif", load(tmp + ".tif"));
    lt_write_tiff((tmp + ".tif").c_str(), c.data(), W, H, W * 3, 3, 8, 5, 4);
    save("image-tiff", "rgb-lzw.tif", load(tmp + ".tif"));

    std::vector<uint8_t> palette(16 * 3), indices(W * H);
    for (int i = 0; i < 16; ++i) palette[i * 3] = palette[i * 3 + 1] = palette[i * 3 + 2] = uint8_t(i * 17);
    for (int i = 0; i < W * H; ++i) indices[i] = uint8_t(g[i] >> 4);
    lt_write_gif((tmp + ".gif").c_str(), indices.data(), W, H, W, palette.data(), 16, 0);
    save("image-gif", "grey.gif", load(tmp + ".gif"));
    lt_write_gif((tmp + ".gif").c_str(), indices.data(), W, H, W, palette.data(), 16, 1);
    save("image-gif", "interlaced.gif", load(tmp + ".gif"));

    save("image-bmp", "grey-8.bmp", bmp(8));
    save("image-bmp", "rgb-24.bmp", bmp(24));

    save("image-pnm", "grey.pgm", text("P5\n16 12\n255\n", g));
    save("image-pnm", "rgb.ppm", text("P6\n16 12\n255\n", c));
    save("image-pnm", "ascii.pgm", text("P2\n# a comment\n4 2\n15\n0 3 6 9\n15 12 9 6\n", {}));
    save("image-pnm", "bitmap.pbm", text("P1\n8 2\n10101010\n01010101\n", {}));
    save("image-pnm", "bitmap.pbm4", text("P4\n8 2\n", {0xAA, 0x55}));

    // MJPEG frames: width - 1 and height - 1 (16 bits each, little-endian), then the frame.
    save("mjpeg", "grey-16x12", with_header({W - 1, 0, H - 1, 0}, greyJPEG));
    save("mjpeg", "colour-16x12", with_header({W - 1, 0, H - 1, 0}, jpeg(c.data(), TJPF_RGB, TJSAMP_422, 0)));
    save("mjpeg", "size-mismatch", with_header({31, 0, 23, 0}, greyJPEG));

    // Barcode planes: 8 bytes of settings (see Fuzz/targets/barcode.cpp), then the pixels.
    std::vector<uint8_t> bars(96);
    const char *pattern = "101100111010110011010011101101001110110111011010111000101";  // bar widths, repeated
    for (size_t i = 0; i < bars.size(); ++i) bars[i] = pattern[i % 57] == '1' ? 20 : 230;
    save("barcode", "bars-live", with_header({95, 39, 0, 0, 0, 0, 0, 0}, bars));
    save("barcode", "bars-still", with_header({95, 39, 0, 0, 0, 0, 1, 0}, bars));
    std::vector<uint8_t> finder(21 * 21);
    for (int y = 0; y < 21; ++y)
        for (int x = 0; x < 21; ++x) {
            const int ring = std::max(std::abs(x - 10), std::abs(y - 10));
            finder[y * 21 + x] = (ring == 10 || ring == 8 || ring <= 6) && ring != 7 ? 0 : 255;
        }
    save("barcode", "finder-live", with_header({20, 20, 0, 0, 0, 0, 2, 4}, finder));
    save("barcode", "finder-still", with_header({20, 20, 0, 0, 0, 0, 1, 0}, finder));

    // Meter crops: width - 16, height - 16, mode - 1 and stride padding (see Fuzz/targets/meter.cpp), then the pixels.
    auto meter = [](const cv::Mat &m, uint8_t mode) {
        std::vector<uint8_t> pixels(m.datastart, m.dataend);
        return with_header({uint8_t(m.cols - 16), uint8_t(m.rows - 16), uint8_t(mode - 1), 0}, pixels);
    };
    cv::Mat display(72, 240, CV_8UC1, cv::Scalar(205));
    cv::putText(display, "04719", {12, 58}, cv::FONT_HERSHEY_SIMPLEX, 1.9, cv::Scalar(30), 7, cv::LINE_AA);
    save("meter", "digital-dark-on-light", meter(display, 1));
    save("meter", "auto-light-on-dark", meter(255 - display, 3));
    cv::Mat counter(80, 256, CV_8UC1, cv::Scalar(40));
    const char *drums = "0571934";
    for (int i = 0; i < 7; ++i) {
        const int x = 8 + i * 34;
        cv::rectangle(counter, {x, 8}, {x + 28, 72}, cv::Scalar(225), cv::FILLED);
        cv::putText(counter, std::string(1, drums[i]), {x + 4, 58}, cv::FONT_HERSHEY_DUPLEX, 1.6, cv::Scalar(20), 3,
                    cv::LINE_AA);
    }
    cv::GaussianBlur(counter, counter, {0, 0}, 0.8);
    save("meter", "counter", meter(counter, 2));
    cv::Mat rolling = counter.clone();  // the last drum caught between 4 and 5
    cv::rectangle(rolling, {212, 8}, {240, 72}, cv::Scalar(225), cv::FILLED);
    cv::putText(rolling, "4", {216, 30}, cv::FONT_HERSHEY_DUPLEX, 1.6, cv::Scalar(20), 3, cv::LINE_AA);
    cv::putText(rolling, "5", {216, 86}, cv::FONT_HERSHEY_DUPLEX, 1.6, cv::Scalar(20), 3, cv::LINE_AA);
    save("meter", "counter-rolling", meter(rolling, 3));
    return 0;
}
