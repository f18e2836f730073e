// Synthetic meters for tests and benchmarks: seven-segment displays drawn as polygons and roller counters drawn with
// DejaVu Sans Mono glyphs, placed in a frame where the cutout expects them, then degraded (perspective, glare, blur,
// noise). The ground truth is the text the sampler chose; nothing here reads images.
#include "lv_meter_synth.h"
#include "lv_shim.hpp"

#include <opencv2/core.hpp>
#include <opencv2/freetype.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace {

/// SplitMix64: a small, fully specified generator, so the same seed gives the same meter on every platform (the
/// standard library's distributions are implementation-defined).
struct Random {
    uint64_t state;
    explicit Random(uint64_t seed) : state(seed) {}
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1).
    double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
    double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
    int integer(int lo, int hi) { return lo + int(next() % uint64_t(hi - lo + 1)); }  // inclusive
    bool chance(double p) { return unit() < p; }
};

// Segment bits: a b c d e f g (a top, b upper right, c lower right, d bottom, e lower left, f upper left, g middle).
constexpr int kA = 1, kB = 2, kC = 4, kD = 8, kE = 16, kF = 32, kG = 64;

int segmentsFor(int digit, int variants) {
    switch (digit) {
    case 0: return kA | kB | kC | kD | kE | kF;
    case 1: return kB | kC;
    case 2: return kA | kB | kD | kE | kG;
    case 3: return kA | kB | kC | kD | kG;
    case 4: return kB | kC | kF | kG;
    case 5: return kA | kC | kD | kF | kG;
    case 6: return ((variants & 1) ? kA : 0) | kC | kD | kE | kF | kG;
    case 7: return kA | kB | kC | ((variants & 2) ? kF : 0);
    case 8: return kA | kB | kC | kD | kE | kF | kG;
    default: return kA | kB | kC | kF | kG | ((variants & 4) ? kD : 0);
    }
}

}  // namespace

struct lv_meter_synth {
    /// Glyph ink maps (255 ink on 0) of '0'...'9' for each font, all in one box: the union of the ten glyphs' bounds
    /// at a common origin, so digits keep their relative placement.
    cv::Mat glyphs[2][10];
    cv::Mat canvas, roi, noise, drum;
};

namespace {

/// Renders the ten digits of one font at a large size into a common box.
bool renderGlyphs(const std::string &path, cv::Mat (&out)[10]) {
    auto ft = cv::freetype::createFreeType2();
    ft->loadFontData(path, 0);
    const int height = 160;
    cv::Mat colour(height * 2, height * 2, CV_8UC3);
    cv::Mat grey[10];
    cv::Rect box;
    for (int d = 0; d < 10; ++d) {
        colour.setTo(cv::Scalar::all(0));
        const char text[2] = {char('0' + d), 0};
        // FreeType2::putText draws only into 3-channel images.
        ft->putText(colour, text, cv::Point(height / 2, height * 3 / 2), height, cv::Scalar::all(255), -1,
                    cv::LINE_AA, true);
        cv::cvtColor(colour, grey[d], cv::COLOR_BGR2GRAY);
        cv::Rect ink = cv::boundingRect(grey[d] > 40);
        if (ink.area() == 0) return false;
        box = d == 0 ? ink : (box | ink);
    }
    for (int d = 0; d < 10; ++d) out[d] = grey[d](box).clone();
    return true;
}

struct Quad {
    cv::Point2f p[4];
};

/// Moves a polygon by the italic slant around the digit's baseline.
void slantPoints(std::vector<cv::Point2f> &points, float slant, float baseline) {
    for (auto &p : points) p.x += slant * (baseline - p.y);
}

/// One seven-segment digit's segment polygons (hexagons with pointed ends), in canvas coordinates.
void segmentPolygons(float x, float y, float w, float h, float t, float gap, float slant,
                     std::vector<std::vector<cv::Point2f>> &out) {
    out.clear();
    const float half = t / 2;
    const float ymid = y + h / 2;
    auto horizontal = [&](float cy) {
        float x0 = x + half + gap, x1 = x + w - half - gap;
        return std::vector<cv::Point2f>{{x0, cy}, {x0 + half, cy - half}, {x1 - half, cy - half},
                                        {x1, cy}, {x1 - half, cy + half}, {x0 + half, cy + half}};
    };
    auto vertical = [&](float cx, float y0, float y1) {
        y0 += gap;
        y1 -= gap;
        return std::vector<cv::Point2f>{{cx, y0}, {cx + half, y0 + half}, {cx + half, y1 - half},
                                        {cx, y1}, {cx - half, y1 - half}, {cx - half, y0 + half}};
    };
    out.push_back(horizontal(y + half));          // a
    out.push_back(vertical(x + w - half, y + half, ymid));    // b
    out.push_back(vertical(x + w - half, ymid, y + h - half));  // c
    out.push_back(horizontal(y + h - half));      // d
    out.push_back(vertical(x + half, ymid, y + h - half));      // e
    out.push_back(vertical(x + half, y + half, ymid));          // f
    out.push_back(horizontal(ymid));              // g
    for (auto &poly : out) slantPoints(poly, slant, y + h);
}

void fillPolygon(cv::Mat &canvas, const std::vector<cv::Point2f> &poly, double value) {
    // fillPoly takes fixed-point coordinates; 4 fractional bits keep the anti-aliased edges in place.
    std::vector<cv::Point> fixed;
    fixed.reserve(poly.size());
    for (auto &p : poly) fixed.emplace_back(int(std::lround(p.x * 16)), int(std::lround(p.y * 16)));
    const cv::Point *pts = fixed.data();
    int n = int(fixed.size());
    cv::fillPoly(canvas, &pts, &n, 1, cv::Scalar(value), cv::LINE_AA, 4);
}

/// Where the display (digit row and its panel) goes in the canvas, and how large the digits are.
struct Layout {
    cv::Rect2f panel;   // the display panel or the counter's window row, canvas coordinates
    float digitHeight;
    float digitWidth;
    float pitch;
    float rowX, rowY;  // left and top of the digit row
};

void drawDigital(const lv_meter_synth_params &p, cv::Mat &canvas, const Layout &lay, Random &rng) {
    const int length = int(std::strlen(p.text));
    const double sign = p.light_on_dark ? 1.0 : -1.0;
    const double lit = p.ground + sign * p.contrast;
    const double unlit = p.ground + sign * p.contrast * p.unlit;
    const float h = lay.digitHeight, w = lay.digitWidth, t = p.stroke * h, gap = p.gap * h;
    std::vector<std::vector<cv::Point2f>> segs;
    int position = 0;
    const int total = p.blank_leading + int(std::count_if(p.text, p.text + length, [](char c) { return c != '.'; }));
    auto drawDot = [&](float cellRight, double value) {
        // The point sits in the gap between two digits and is no wider than most of it.
        float r = std::max(0.8f, std::min(0.55f * t, 0.4f * (lay.pitch - w)));
        float cx = cellRight + (lay.pitch - w) / 2, cy = lay.rowY + h - r;
        std::vector<cv::Point2f> circle;
        for (int k = 0; k < 12; ++k) {
            double a = k * CV_PI / 6;
            circle.emplace_back(float(cx + r * std::cos(a)), float(cy + r * std::sin(a)));
        }
        slantPoints(circle, p.slant, lay.rowY + h);
        fillPolygon(canvas, circle, value);
    };
    // Character index into text for each digit position (blank positions have none).
    std::vector<int> digitAt(total, -1);
    std::vector<bool> dotAfter(total, false);
    {
        int pos = p.blank_leading;
        for (int i = 0; i < length; ++i) {
            if (p.text[i] == '.') {
                if (pos > 0) dotAfter[pos - 1] = true;
            } else {
                digitAt[pos++] = p.text[i] - '0';
            }
        }
    }
    for (position = 0; position < total; ++position) {
        const float x = lay.rowX + position * lay.pitch;
        segmentPolygons(x, lay.rowY, w, h, t, gap, p.slant, segs);
        const int on = digitAt[position] >= 0 ? segmentsFor(digitAt[position], p.variants) : 0;
        for (int s = 0; s < 7; ++s) {
            // Lit segments vary a little in darkness, as LCD cells do.
            double value = (on & (1 << s)) ? lit + sign * rng.uniform(-0.06, 0.0) * p.contrast : unlit;
            fillPolygon(canvas, segs[s], value);
        }
        if (position + 1 < total) drawDot(x + w, dotAfter[position] ? lit : unlit);
    }
}

void drawCounter(lv_meter_synth &synth, const lv_meter_synth_params &p, cv::Mat &canvas, const Layout &lay) {
    const int digits = int(std::strlen(p.text));
    const cv::Mat *glyphs = synth.glyphs[p.font ? 1 : 0];
    const float h = lay.digitHeight;
    const int glyphHeight = std::max(4, int(std::lround(h)));
    const int glyphWidth = std::max(2, int(std::lround(h * glyphs[0].cols / float(glyphs[0].rows))));
    cv::Mat scaled[10];
    for (int d = 0; d < 10; ++d)
        cv::resize(glyphs[d], scaled[d], cv::Size(glyphWidth, glyphHeight), 0, 0, cv::INTER_AREA);
    const float windowHeight = p.window * h;
    const float pitchY = p.drum_pitch * h;
    const float drumWidth = lay.pitch * 0.86f;
    const double sign = p.light_on_dark ? 1.0 : -1.0;
    for (int i = 0; i < digits; ++i) {
        const bool decimal = i >= digits - p.decimal_drums;
        const double ground = decimal ? p.decimal_ground : p.ground;
        const float x0 = lay.rowX + i * lay.pitch + (lay.pitch - drumWidth) / 2;
        const float y0 = lay.rowY + (h - windowHeight) / 2;
        cv::Rect window(int(std::lround(x0)), int(std::lround(y0)), int(std::lround(drumWidth)),
                        int(std::lround(windowHeight)));
        window &= cv::Rect(0, 0, canvas.cols, canvas.rows);
        if (window.empty()) continue;
        // The drum's content: strip coordinate s (in pixels along the drum) under window row y. Digit k sits centred
        // at s = k * pitchY; the value grows as the drum turns, bringing the next digit up from below.
        const double position = (p.text[i] - '0') + p.roll[i];
        const double centreY = window.y + window.height / 2.0;
        const int gx = int(std::lround(window.x + (window.width - glyphWidth) / 2.0));
        for (int y = window.y; y < window.y + window.height; ++y) {
            const double s = position * pitchY + (y + 0.5 - centreY);
            const int k = int(std::floor(s / pitchY + 0.5));
            const double within = s - k * pitchY + glyphHeight / 2.0;  // row inside glyph k
            const int gy = int(std::floor(within));
            const uint8_t *ink = nullptr;
            if (gy >= 0 && gy < glyphHeight) ink = scaled[((k % 10) + 10) % 10].ptr<uint8_t>(gy);
            // Cylinder shading: the drum darkens towards the window's top and bottom edges.
            const double v = (y + 0.5 - centreY) / (window.height / 2.0);
            const double shade = 1.0 - p.shading * v * v;
            uint8_t *row = canvas.ptr<uint8_t>(y);
            for (int x = window.x; x < window.x + window.width; ++x) {
                double value = ground;
                const int ix = x - gx;
                if (ink && ix >= 0 && ix < glyphWidth) value += sign * p.contrast * (ink[ix] / 255.0);
                row[x] = cv::saturate_cast<uint8_t>(value * shade);
            }
        }
    }
}

}  // namespace

extern "C" int lv_meter_synth_create(const char *font_directory, lv_meter_synth **out) {
    if (!font_directory || !out) return -EINVAL;
    *out = nullptr;
    return lv::guarded([&] {
        auto synth = std::make_unique<lv_meter_synth>();
        const std::string dir(font_directory);
        const char *names[2] = {"/DejaVuSansMono.ttf", "/DejaVuSansMono-Bold.ttf"};
        for (int f = 0; f < 2; ++f) {
            bool ok = false;
            try {
                ok = renderGlyphs(dir + names[f], synth->glyphs[f]);
            } catch (const cv::Exception &) {
                ok = false;  // FreeType could not open or parse the font.
            }
            if (!ok) return -ENOENT;
        }
        *out = synth.release();
        return 0;
    });
}

extern "C" void lv_meter_synth_destroy(lv_meter_synth *synth) { delete synth; }

extern "C" int lv_meter_synth_sample(uint64_t seed, int kind, int frame_width, int frame_height, int target_x,
                                     int target_y, int target_width, int target_height,
                                     lv_meter_synth_params *params) {
    if (!params || frame_width <= 0 || frame_height <= 0 || target_width <= 0 || target_height <= 0)
        return -EINVAL;
    if (kind != LV_METER_SYNTH_DIGITAL && kind != LV_METER_SYNTH_COUNTER) return -EINVAL;
    return lv::guarded([&] {
        Random rng(seed * 0x2545F4914F6CDD1Dull + uint64_t(kind));
        lv_meter_synth_params p;
        std::memset(&p, 0, sizeof p);
        p.kind = kind;
        p.frame_width = frame_width;
        p.frame_height = frame_height;
        p.target_x = target_x;
        p.target_y = target_y;
        p.target_width = target_width;
        p.target_height = target_height;
        p.light_on_dark = rng.chance(0.5);
        p.fill = float(rng.uniform(0.72, 0.95));
        p.shift_x = float(rng.uniform(-0.03, 0.03));
        p.shift_y = float(rng.uniform(-0.04, 0.04));
        if (p.light_on_dark) {
            p.ground = float(rng.uniform(8, 60));
            p.contrast = float(rng.uniform(90, 245 - p.ground));
        } else {
            p.ground = float(rng.uniform(150, 228));
            p.contrast = float(rng.uniform(70, std::min(170.0, p.ground - 15.0)));
        }
        do {
            p.body = float(rng.uniform(30, 215));
        } while (std::fabs(p.body - p.ground) < 25);
        p.background = float(rng.uniform(15, 240));
        if (rng.chance(0.4)) {
            p.glare = float(rng.uniform(20, 90));
            p.glare_x = float(rng.uniform(0.1, 0.9));
            p.glare_y = float(rng.uniform(0.2, 0.8));
            p.glare_radius = float(rng.uniform(0.3, 1.0));
        }
        const double scale = target_height / 150.0;  // blur grows with the resolution, as defocus does
        p.blur = float(rng.unit() * rng.unit() * 1.6 * std::max(1.0, scale));
        p.noise = float(rng.uniform(1, 8));
        p.perspective = float(rng.uniform(0, 0.035));
        p.rotation = float(rng.uniform(-2.5, 2.5));
        p.label = rng.chance(0.4);
        p.layout_seed = rng.next();
        p.noise_seed = rng.next();
        if (kind == LV_METER_SYNTH_DIGITAL) {
            const int positions = rng.integer(4, 8);
            p.blank_leading = rng.chance(0.3) ? rng.integer(1, std::min(2, positions - 2)) : 0;
            const int count = positions - p.blank_leading;
            const int dotAfter = rng.chance(0.5) ? rng.integer(1, count - 1) : 0;
            int n = 0;
            for (int i = 0; i < count; ++i) {
                int d = rng.integer(0, 9);
                if (i == 0 && p.blank_leading > 0 && d == 0) d = rng.integer(1, 9);  // blanked leading zeros
                p.text[n++] = char('0' + d);
                if (dotAfter && i + 1 == dotAfter) p.text[n++] = '.';
            }
            p.text[n] = 0;
            p.digit_aspect = float(rng.uniform(0.45, 0.62));
            p.spacing = float(rng.uniform(1.25, 1.55));
            p.stroke = float(rng.uniform(0.10, 0.17));
            p.gap = float(rng.uniform(0.01, 0.035));
            p.slant = 0;
            p.variants = rng.integer(0, 7);
            p.unlit = float(rng.uniform(0, 0.22));
        } else {
            const int count = rng.integer(5, 8);
            for (int i = 0; i < count; ++i) p.text[i] = char('0' + rng.integer(0, 9));
            p.text[count] = 0;
            for (int i = 0; i < count; ++i) p.roll[i] = float(rng.uniform(-0.06, 0.06));
            if (rng.chance(0.5)) {
                // The last drum is caught mid-roll; when it passes 9 it carries into the drums to its left.
                if (rng.chance(0.3)) p.text[count - 1] = '9';
                const float roll = float(rng.uniform(0.15, 0.7));
                p.roll[count - 1] = roll;
                for (int i = count - 2; i >= 0 && p.text[i + 1] == '9'; --i) p.roll[i] = roll;
            }
            p.digit_aspect = 0;
            p.spacing = float(rng.uniform(1.15, 1.4));
            p.drum_pitch = float(rng.uniform(1.25, 1.6));
            p.shading = float(rng.uniform(0.1, 0.45));
            p.window = float(rng.uniform(1.15, 1.45));
            p.font = rng.chance(0.3);
            if (p.light_on_dark && rng.chance(0.4)) {
                p.decimal_drums = rng.integer(1, 3);
                p.decimal_ground = float(std::min(120.0, p.ground + rng.uniform(30, 70)));
            }
            p.unlit = 0;
        }
        *params = p;
        return 0;
    });
}

extern "C" int lv_meter_synth_render(lv_meter_synth *synth, const lv_meter_synth_params *params, uint8_t *pixels,
                                     size_t stride) {
    if (!synth || !params || !pixels) return -EINVAL;
    const lv_meter_synth_params &p = *params;
    if (p.frame_width <= 0 || p.frame_height <= 0 || stride < size_t(p.frame_width) || p.target_width <= 0 ||
        p.target_height <= 0)
        return -EINVAL;
    return lv::guarded([&] {
        Random rng(p.layout_seed ^ 0x5DEECE66Dull);
        cv::Mat frame(p.frame_height, p.frame_width, CV_8UC1, pixels, stride);

        // Background: a gradient and some clutter.
        {
            const double gx = rng.uniform(-60, 60) / p.frame_width, gy = rng.uniform(-60, 60) / p.frame_height;
            for (int y = 0; y < frame.rows; ++y) {
                uint8_t *row = frame.ptr<uint8_t>(y);
                for (int x = 0; x < frame.cols; ++x)
                    row[x] = cv::saturate_cast<uint8_t>(p.background + gx * (x - frame.cols / 2) +
                                                        gy * (y - frame.rows / 2));
            }
            const int clutter = rng.integer(2, 8);
            for (int i = 0; i < clutter; ++i) {
                cv::Point c(rng.integer(0, frame.cols - 1), rng.integer(0, frame.rows - 1));
                cv::Size axes(rng.integer(5, frame.cols / 4 + 5), rng.integer(5, frame.rows / 4 + 5));
                cv::ellipse(frame, c, axes, rng.uniform(0, 180), 0, 360, cv::Scalar(rng.uniform(0, 255)), -1,
                            cv::LINE_AA);
            }
        }

        // Layout in canvas coordinates: the display fills `fill` of the target's width, centred on the target plus
        // the shift; the meter body surrounds it.
        const int length = int(std::strlen(p.text));
        const int digitCount = int(std::count_if(p.text, p.text + length, [](char c) { return c != '.'; }));
        const int positions = digitCount + (p.kind == LV_METER_SYNTH_DIGITAL ? p.blank_leading : 0);
        if (positions <= 0) return -EINVAL;
        const double tw = p.target_width, th = p.target_height;
        Layout lay;
        double rowWidthPerHeight;  // width of the digit row per unit of digit height
        double panelMarginX, panelMarginY;
        if (p.kind == LV_METER_SYNTH_DIGITAL) {
            rowWidthPerHeight = p.digit_aspect * ((positions - 1) * p.spacing + 1);
            panelMarginX = 0.25;  // of digit height, each side
            panelMarginY = 0.22;
        } else {
            const cv::Mat &zero = synth->glyphs[p.font ? 1 : 0][0];
            const double aspect = zero.cols / double(zero.rows);
            rowWidthPerHeight = aspect * p.spacing * positions;
            panelMarginX = 0.12;
            panelMarginY = (p.window - 1) / 2 + 0.12;
        }
        double h = (p.fill * tw) / (rowWidthPerHeight + 2 * panelMarginX);
        h = std::min(h, 0.8 * th / (1 + 2 * panelMarginY));
        lay.digitHeight = float(h);
        if (p.kind == LV_METER_SYNTH_DIGITAL) {
            lay.digitWidth = float(p.digit_aspect * h);
            lay.pitch = float(lay.digitWidth * p.spacing);
        } else {
            const cv::Mat &zero = synth->glyphs[p.font ? 1 : 0][0];
            const double aspect = zero.cols / double(zero.rows);
            lay.digitWidth = float(aspect * h);
            lay.pitch = float(lay.digitWidth * p.spacing);
        }
        const double panelW = rowWidthPerHeight * h + 2 * panelMarginX * h;
        const double panelH = h * (1 + 2 * panelMarginY);
        const double bodyMarginX = h * rng.uniform(0.3, 1.2), bodyMarginY = h * rng.uniform(0.3, 1.0);
        const double canvasW = panelW + 2 * bodyMarginX, canvasH = panelH + 2 * bodyMarginY;
        lay.panel = cv::Rect2f(float(bodyMarginX), float(bodyMarginY), float(panelW), float(panelH));
        lay.rowX = float(bodyMarginX + panelMarginX * h);
        lay.rowY = float(bodyMarginY + panelMarginY * h);

        // Render the meter at twice the frame's scale where it is small, so that anti-aliasing and warping stay clean.
        const double ss = h < 60 ? 2.0 : 1.0;
        lv_meter_synth_params scaled = p;
        Layout sl = lay;
        sl.panel = cv::Rect2f(lay.panel.x * float(ss), lay.panel.y * float(ss), lay.panel.width * float(ss),
                              lay.panel.height * float(ss));
        sl.digitHeight *= float(ss);
        sl.digitWidth *= float(ss);
        sl.pitch *= float(ss);
        sl.rowX *= float(ss);
        sl.rowY *= float(ss);
        synth->canvas.create(int(std::ceil(canvasH * ss)), int(std::ceil(canvasW * ss)), CV_8UC1);
        cv::Mat &canvas = synth->canvas;
        canvas.setTo(cv::Scalar(p.body));
        if (p.kind == LV_METER_SYNTH_DIGITAL) {
            cv::rectangle(canvas, sl.panel, cv::Scalar(p.ground), -1, cv::LINE_AA);
            drawDigital(scaled, canvas, sl, rng);
        } else {
            // The counter's face around the drum windows is darker than the body, as printed faces are.
            cv::rectangle(canvas, sl.panel, cv::Scalar(std::max(0.0, p.body * 0.6)), -1, cv::LINE_AA);
            drawCounter(*synth, scaled, canvas, sl);
        }
        if (p.label) {
            const char *text = p.kind == LV_METER_SYNTH_DIGITAL ? "kWh" : "m3";
            const double labelScale = 0.012 * sl.digitHeight;
            const double labelValue = p.kind == LV_METER_SYNTH_DIGITAL
                                          ? p.ground + (p.light_on_dark ? 0.7 : -0.7) * p.contrast
                                          : (p.body > 128 ? p.body - 90 : p.body + 90);
            const cv::Point origin(int(sl.panel.x + sl.panel.width - 0.28 * sl.digitHeight * 3),
                                   int(sl.panel.y + sl.panel.height + 0.32 * sl.digitHeight));
            cv::putText(canvas, text, origin, cv::FONT_HERSHEY_SIMPLEX, labelScale, cv::Scalar(labelValue),
                        std::max(1, int(labelScale * 2)), cv::LINE_AA);
        }

        // Glare: a bright spot on the display.
        if (p.glare > 0) {
            const double cx = sl.panel.x + p.glare_x * sl.panel.width, cy = sl.panel.y + p.glare_y * sl.panel.height;
            const double radius = std::max(1.0, double(p.glare_radius) * sl.panel.height);
            for (int y = 0; y < canvas.rows; ++y) {
                uint8_t *row = canvas.ptr<uint8_t>(y);
                const double dy2 = (y - cy) * (y - cy);
                for (int x = 0; x < canvas.cols; ++x) {
                    const double r2 = ((x - cx) * (x - cx) + dy2) / (radius * radius);
                    if (r2 < 9) row[x] = cv::saturate_cast<uint8_t>(row[x] + p.glare * std::exp(-r2));
                }
            }
        }

        // Place the canvas in the frame: its display centred on the target (plus the shift), with perspective, yaw and
        // rotation, by one homography. Only the frame pixels the meter covers are written.
        const double panelCx = (bodyMarginX + panelW / 2) * ss, panelCy = (bodyMarginY + panelH / 2) * ss;
        const double destCx = p.target_x + tw / 2 + p.shift_x * tw, destCy = p.target_y + th / 2 + p.shift_y * th;
        const double angle = p.rotation * CV_PI / 180, ca = std::cos(angle), sa = std::sin(angle);
        const cv::Point2f src[4] = {{0, 0}, {float(canvas.cols), 0}, {float(canvas.cols), float(canvas.rows)},
                                    {0, float(canvas.rows)}};
        cv::Point2f dst[4];
        for (int i = 0; i < 4; ++i) {
            double x = (src[i].x - panelCx) / ss, y = (src[i].y - panelCy) / ss;
            x += rng.uniform(-p.perspective, p.perspective) * canvasW;
            y += rng.uniform(-p.perspective, p.perspective) * canvasH;
            y *= 1 + p.yaw * x / (canvasW / 2);  // the near edge taller than the far one
            dst[i] = cv::Point2f(float(destCx + ca * x - sa * y), float(destCy + sa * x + ca * y));
        }
        cv::Rect bounds = cv::boundingRect(std::vector<cv::Point2f>(dst, dst + 4));
        bounds &= cv::Rect(0, 0, frame.cols, frame.rows);
        if (!bounds.empty()) {
            cv::Point2f local[4];
            for (int i = 0; i < 4; ++i) local[i] = dst[i] - cv::Point2f(float(bounds.x), float(bounds.y));
            cv::Mat homography = cv::getPerspectiveTransform(src, local);
            cv::Mat target = frame(bounds);
            cv::warpPerspective(canvas, target, homography, bounds.size(), cv::INTER_LINEAR, cv::BORDER_TRANSPARENT);
        }

        // Camera: blur and sensor noise over the whole frame.
        if (p.blur > 0.05) cv::GaussianBlur(frame, frame, cv::Size(0, 0), p.blur);
        if (p.noise > 0) {
            synth->noise.create(frame.size(), CV_16SC1);
            cv::RNG noiseRng(p.noise_seed | 1);
            noiseRng.fill(synth->noise, cv::RNG::NORMAL, 0, p.noise);
            cv::add(frame, synth->noise, frame, cv::noArray(), CV_8U);
        }
        return 0;
    });
}

extern "C" int lv_meter_synth_templates(lv_meter_synth *synth, int font, uint8_t *pixels) {
    if (!synth || !pixels || font < 0 || font > 1) return -EINVAL;
    return lv::guarded([&] {
        for (int d = 0; d < 10; ++d) {
            cv::Mat out(LV_METER_TEMPLATE_HEIGHT, LV_METER_TEMPLATE_WIDTH, CV_8UC1,
                        pixels + size_t(d) * LV_METER_TEMPLATE_WIDTH * LV_METER_TEMPLATE_HEIGHT);
            cv::resize(synth->glyphs[font][d], out, out.size(), 0, 0, cv::INTER_AREA);
        }
        return 0;
    });
}
