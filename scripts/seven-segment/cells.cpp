// The cell dump of scripts/seven-segment/compare.sh: reads the frames of one meter (grey PNG crops of the recognizer's
// cutout, in order, one reader for them all as in a stream) with the meter reader in digital mode, and writes the
// cells of each reading it reports as 20 x 32 PNG crops (1.3 digit widths by 1.2 heights around the cell, strokes made
// light), one manifest line per cell on stdout:
//     <tag> <png> <frame> <cell> <cells in the reading> <reading> <probes' confidence 0-1> <probes' digit>
// Built with -DLV_METER_CELL_HOOK=lv_meter_cell_hook against the library's sources (meter_digital.cpp calls it).
#include "lv_meter.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {
struct Cell {
    cv::Mat crop;
    int digit;
    double confidence;
};
std::vector<Cell> cellsOf[2];  // the last reading of each polarity
}  // namespace

void lv_meter_cell_hook(const cv::Mat &image, bool lightOnDark, int index, int, double left, double top, double width,
                        double height, int digit, double confidence) {
    std::vector<Cell> &cells = cellsOf[lightOnDark ? 1 : 0];
    if (index == 0) cells.clear();
    const cv::Rect box(int(left - 0.15 * width), int(top - 0.1 * height), int(1.3 * width), int(1.2 * height));
    cv::Mat crop(std::max(1, box.height), std::max(1, box.width), CV_8U);
    for (int y = 0; y < crop.rows; ++y)
        for (int x = 0; x < crop.cols; ++x) {
            const uint8_t v = image.at<uint8_t>(std::clamp(box.y + y, 0, image.rows - 1),
                                                std::clamp(box.x + x, 0, image.cols - 1));
            crop.at<uint8_t>(y, x) = lightOnDark ? v : uint8_t(255 - v);
        }
    cv::Mat small;
    cv::resize(crop, small, cv::Size(20, 32), 0, 0, cv::INTER_AREA);
    cells.push_back({small, digit, confidence});
}

int main(int argc, char **argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: cells OUTDIR TAG FRAME.png...\n");
        return 2;
    }
    const std::string out = argv[1], tag = argv[2];
    lv_meter *meter = nullptr;
    if (lv_meter_create(LV_METER_MODE_DIGITAL, &meter) != 0) return 1;
    for (int frame = 0; frame + 3 < argc; ++frame) {
        const cv::Mat crop = cv::imread(argv[frame + 3], cv::IMREAD_GRAYSCALE);
        if (crop.empty()) continue;
        cellsOf[0].clear();
        cellsOf[1].clear();
        lv_meter_result result;
        const int n = lv_meter_read(meter, crop.data, crop.cols, crop.rows, crop.step, &result);
        const std::vector<Cell> &cells = cellsOf[result.light_on_dark ? 1 : 0];
        if (n <= 0 || int(cells.size()) != n) continue;  // a counter's reading, or none
        for (int i = 0; i < n; ++i) {
            const std::string name = out + "/" + tag + "_f" + std::to_string(frame) + "_c" + std::to_string(i) + ".png";
            cv::imwrite(name, cells[size_t(i)].crop);
            std::printf("%s %s %d %d %d %s %.3f %d\n", tag.c_str(), name.c_str(), frame, i, n, result.digits,
                        cells[size_t(i)].confidence, cells[size_t(i)].digit);
        }
    }
    lv_meter_destroy(meter);
    return 0;
}
