// The HTML report in a real browser: the real podbench binary fills a
// database (reproduce, ablations, labelled functional runs) and writes the
// report; headless Chromium renders it, and the test checks through the DOM
// that every expected plot and table is there, drawn, with data, at desktop
// width, in a phone-width window and in print; screenshots are decoded and
// must not be blank. Everything it makes stays in the build folder
// (PODBENCH_TEST_OUTPUT_DIR) for a person to look at. A browser that cannot
// start fails the test, with the reason.
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/chromium.h"
#include "tests/testing/png.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;

// What the page says about itself: every plot, table, figure and empty
// section, the layout width, and anything it loaded.
constexpr const char* kProbe = R"js(JSON.stringify((() => {
  const box = e => { const r = e.getBoundingClientRect(); return {width: r.width, height: r.height}; };
  const out = {plots: [], tables: [], figures: [], sections: [], empties: []};
  for (const svg of document.querySelectorAll('svg[data-plot]')) {
    out.plots.push(Object.assign({id: svg.dataset.plot, declared: Number(svg.dataset.marks),
      marks: svg.querySelectorAll('.mark').length,
      visible_marks: [...svg.querySelectorAll('.mark')].filter(m => box(m).width > 0 && box(m).height > 0).length,
      texts: svg.querySelectorAll('text').length, legend: svg.querySelectorAll('.legend text').length,
      title: (svg.querySelector('title') || {}).textContent || ''}, box(svg)));
  }
  for (const t of document.querySelectorAll('table[data-table]')) {
    const cells = [...t.querySelectorAll('tbody td')];
    out.tables.push(Object.assign({id: t.dataset.table, rows: t.querySelectorAll('tbody tr').length,
      headers: t.querySelectorAll('thead th').length, cells: cells.length,
      empty_cells: cells.filter(c => c.textContent.trim() === '').length}, box(t)));
  }
  for (const f of document.querySelectorAll('figure[data-figure]')) {
    out.figures.push({id: f.dataset.figure, plots: f.querySelectorAll('svg[data-plot]').length,
      tables: f.querySelectorAll('table[data-table]').length});
  }
  out.sections = [...document.querySelectorAll('section[data-workload]')].map(s => s.dataset.workload);
  out.empties = [...document.querySelectorAll('[data-empty]')].map(e => e.dataset.empty);
  out.scripts = document.scripts.length;
  out.resources = performance.getEntriesByType('resource').map(e => e.name);
  out.scroll_width = document.documentElement.scrollWidth;
  out.inner_width = window.innerWidth;
  const nav = document.querySelector('nav');
  out.nav_display = nav ? getComputedStyle(nav).display : '';
  return out;
})()))js";

std::string Podbench(const std::string& args, const fs::path& cwd) {
  std::string out;
  const int rc = RunCommand("cd " + cwd.string() + " && " + PodbenchBinary().string() + " " + args + " 2>&1", &out);
  EXPECT_EQ(rc, 0) << "podbench " << args << "\n" << out;
  return out;
}

void WriteFile(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Decodes a screenshot, saves it, and asserts it shows something.
void CheckScreenshot(const std::string& png, const fs::path& path) {
  WriteFile(path, png);
  std::string error;
  auto img = DecodePng(png, &error);
  ASSERT_TRUE(img.has_value()) << path << ": " << error;
  EXPECT_GT(img->width, 300) << path;
  EXPECT_GT(img->height, 300) << path;
  const PixelStats s = Stats(*img);
  EXPECT_GT(s.luma_variance, 100) << path << ": the screenshot is (nearly) blank";
  EXPECT_GT(s.non_background_fraction, 0.02) << path << ": the screenshot is (nearly) blank";
}

const nlohmann::json* Find(const nlohmann::json& list, const std::string& id) {
  for (const auto& e : list) {
    if (e["id"] == id) return &e;
  }
  return nullptr;
}

class ReportBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = fs::path(PODBENCH_TEST_OUTPUT_DIR);
    std::error_code ec;
    fs::remove_all(out_, ec);
    fs::create_directories(out_);
  }
  fs::path out_;
};

TEST_F(ReportBrowserTest, EveryPlotAndTableRendersWithData) {
  // A database with every kind of data the report draws.
  Podbench("reproduce --workloads resnet --claims resnet-2d-gradient-summation,resnet-distributed-bn-cost "
           "--out reproduce --format json",
           out_);
  const std::string db = "reproduce/podbench.db";
  for (const char* change : {"allreduce=ring", "distributed_bn=false", "weight_update_sharding=true"}) {
    Podbench(std::string("run resnet --mode projected --slice tpu-v3-2048 --preset google-v0.6 --runs 3 --seed 1 "
                    "--set ") + change + " --db " + db, out_);
  }
  Podbench("run toy --runs 4 --seed 1 --label base --db " + db, out_);
  Podbench("run toy --runs 4 --seed 1 --label slow --set opt_base_learning_rate=0.01 --db " + db, out_);
  Podbench("report --html report.html --db " + db, out_);
  ASSERT_TRUE(fs::exists(out_ / "report.html"));
  ASSERT_TRUE(fs::exists(out_ / "reproduce" / "report.html"));

  std::string error;
  auto browser = HeadlessChromium::Start(out_, &error);
  ASSERT_NE(browser, nullptr) << "Chromium cannot start, so the report cannot be checked: " << error;
  const std::string url = "file://" + fs::absolute(out_ / "report.html").string();

  // Desktop width.
  ASSERT_TRUE(browser->Load(url, 1280, 900, &error)) << error;
  auto probe = browser->Evaluate(kProbe, &error);
  ASSERT_TRUE(probe.has_value()) << error;
  const nlohmann::json page = nlohmann::json::parse(probe->get<std::string>());
  WriteFile(out_ / "dom-desktop.json", page.dump(2));
  EXPECT_EQ(page["sections"], nlohmann::json({"resnet", "toy"}));
  EXPECT_EQ(page["scripts"], 0);
  EXPECT_TRUE(page["resources"].empty()) << page["resources"].dump();
  // Plot id -> the marks it must show (0: at least one).
  const std::map<std::string, int> expected = {
      {"resnet-scaling-score", 12},  {"resnet-scaling-block", 12},  // 6 slices, predicted + published
      {"resnet-breakdown", 0},       {"resnet-ablation-step", 6},   // 3 ablations x (preset, ablation)
      {"resnet-ablation-score", 6},  {"toy-accuracy-accuracy", 0},
      {"toy-compare", 0},            {"toy-breakdown", 0}};
  for (const auto& [id, marks] : expected) {
    const nlohmann::json* p = Find(page["plots"], id);
    ASSERT_NE(p, nullptr) << "no plot " << id;
    if (marks > 0) {
      EXPECT_EQ((*p)["marks"], marks) << id;
    }
    EXPECT_GT((*p)["marks"].get<int>(), 0) << id;
    EXPECT_EQ((*p)["marks"], (*p)["declared"]) << id;
    EXPECT_EQ((*p)["visible_marks"], (*p)["marks"]) << id << ": marks with no area";
    EXPECT_GT((*p)["width"].get<double>(), 300) << id;
    EXPECT_GT((*p)["height"].get<double>(), 150) << id;
    EXPECT_GT((*p)["legend"].get<int>(), 0) << id << ": no legend";
    EXPECT_GT((*p)["texts"].get<int>(), 6) << id << ": no axis labels";
    EXPECT_FALSE((*p)["title"].get<std::string>().empty()) << id;
    const nlohmann::json* t = Find(page["tables"], id);
    ASSERT_NE(t, nullptr) << "no table beside " << id;
    EXPECT_GT((*t)["rows"].get<int>(), 0) << id;
    EXPECT_GE((*t)["headers"].get<int>(), 2) << id;
    EXPECT_EQ((*t)["empty_cells"], 0) << id;
    EXPECT_GT((*t)["width"].get<double>(), 0) << id;
  }
  EXPECT_EQ((*Find(page["tables"], "resnet-scaling-score"))["rows"], 6);
  EXPECT_EQ((*Find(page["tables"], "resnet-ablation-step"))["rows"], 3);
  for (const auto& f : page["figures"]) {
    EXPECT_EQ(f["plots"], 1) << f["id"];
    EXPECT_EQ(f["tables"], 1) << f["id"];
  }
  EXPECT_EQ(page["plots"].size(), page["figures"].size());
  EXPECT_THAT(page["empties"], Contains("resnet-accuracy"));
  EXPECT_LE(page["scroll_width"].get<int>(), page["inner_width"].get<int>());
  auto wide = browser->ScreenshotPng(&error);
  ASSERT_TRUE(wide.has_value()) << error;
  CheckScreenshot(*wide, out_ / "report-desktop.png");

  // A phone-width window: nothing sticks out sideways; tables scroll in their box.
  ASSERT_TRUE(browser->Load(url, 390, 844, &error)) << error;
  probe = browser->Evaluate(kProbe, &error);
  ASSERT_TRUE(probe.has_value()) << error;
  const nlohmann::json narrow = nlohmann::json::parse(probe->get<std::string>());
  WriteFile(out_ / "dom-narrow.json", narrow.dump(2));
  EXPECT_LE(narrow["scroll_width"].get<int>(), narrow["inner_width"].get<int>())
      << "the page is wider than a 390 px window";
  for (const auto& p : narrow["plots"]) {
    EXPECT_LE(p["width"].get<double>(), 390) << p["id"];
    EXPECT_GT(p["width"].get<double>(), 250) << p["id"];
    EXPECT_EQ(p["visible_marks"], p["marks"]) << p["id"];
  }
  auto phone = browser->ScreenshotPng(&error);
  ASSERT_TRUE(phone.has_value()) << error;
  CheckScreenshot(*phone, out_ / "report-narrow.png");

  // Print: the navigation is hidden, the plots still drawn, and it makes a PDF.
  ASSERT_TRUE(browser->Load(url, 1280, 900, &error)) << error;
  ASSERT_TRUE(browser->Call("Emulation.setEmulatedMedia", {{"media", "print"}}, &error)) << error;
  probe = browser->Evaluate(kProbe, &error);
  ASSERT_TRUE(probe.has_value()) << error;
  const nlohmann::json print = nlohmann::json::parse(probe->get<std::string>());
  EXPECT_EQ(print["nav_display"], "none");
  for (const auto& p : print["plots"]) EXPECT_GT(p["width"].get<double>(), 200) << p["id"];
  auto pdf = browser->Call("Page.printToPDF", {{"printBackground", false}}, &error);
  ASSERT_TRUE(pdf.has_value()) << error;
  const std::string bytes = DecodeBase64((*pdf)["data"].get<std::string>());
  WriteFile(out_ / "report-print.pdf", bytes);
  EXPECT_EQ(bytes.substr(0, 5), "%PDF-");
  EXPECT_GT(bytes.size(), 10000u);

  // reproduce's own report draws the claims it tested: the two arms of each
  // as bars, the paper's level as a line where the paper gives one.
  ASSERT_TRUE(browser->Load("file://" + fs::absolute(out_ / "reproduce" / "report.html").string(), 1280, 900,
                            &error))
      << error;
  ASSERT_TRUE(browser->Call("Emulation.setEmulatedMedia", {{"media", "screen"}}, &error)) << error;
  probe = browser->Evaluate(kProbe, &error);
  ASSERT_TRUE(probe.has_value()) << error;
  const nlohmann::json claims = nlohmann::json::parse(probe->get<std::string>());
  for (const char* id : {"claim-resnet-2d-gradient-summation", "claim-resnet-distributed-bn-cost"}) {
    const nlohmann::json* p = Find(claims["plots"], id);
    ASSERT_NE(p, nullptr) << "no plot " << id;
    EXPECT_EQ((*p)["marks"], 2) << id;
    EXPECT_EQ((*p)["visible_marks"], 2) << id;
    EXPECT_GT((*p)["legend"].get<int>(), 0) << id;
  }
  EXPECT_NE(Find(claims["tables"], "claims"), nullptr);
}

// ------------------------------------------------------------- the PNG decoder

// A PNG of `rows` (RGB, 8 bit), each row written with the filter given.
std::string EncodePng(int width, const std::vector<std::vector<uint8_t>>& rows, const std::vector<int>& filters) {
  std::string raw;
  const size_t stride = static_cast<size_t>(width) * 3;
  for (size_t y = 0; y < rows.size(); ++y) {
    raw.push_back(static_cast<char>(filters[y]));
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= 3 ? rows[y][x - 3] : 0, b = y > 0 ? rows[y - 1][x] : 0,
                c = x >= 3 && y > 0 ? rows[y - 1][x - 3] : 0;
      int pred = 0;
      switch (filters[y]) {
        case 1: pred = a; break;
        case 2: pred = b; break;
        case 3: pred = (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: break;
      }
      raw.push_back(static_cast<char>((rows[y][x] - pred) & 0xff));
    }
  }
  uLongf len = compressBound(static_cast<uLong>(raw.size()));
  std::string z(len, '\0');
  compress(reinterpret_cast<Bytef*>(z.data()), &len, reinterpret_cast<const Bytef*>(raw.data()),
           static_cast<uLong>(raw.size()));
  z.resize(len);
  auto be32 = [](uint32_t v) {
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
  };
  auto chunk = [&](const std::string& type, const std::string& data) {
    return be32(static_cast<uint32_t>(data.size())) + type + data + be32(0);  // CRC not checked
  };
  std::string ihdr = be32(static_cast<uint32_t>(width)) + be32(static_cast<uint32_t>(rows.size())) +
                     std::string{8, 2, 0, 0, 0};
  return std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", ihdr) + chunk("IDAT", z) + chunk("IEND", "");
}

TEST(PngTest, DecodesEveryFilterType) {
  std::vector<std::vector<uint8_t>> rows;
  for (int y = 0; y < 5; ++y) {
    std::vector<uint8_t> row;
    for (int x = 0; x < 4 * 3; ++x) row.push_back(static_cast<uint8_t>((x * 37 + y * 101) % 256));
    rows.push_back(row);
  }
  const std::string png = EncodePng(4, rows, {0, 1, 2, 3, 4});
  std::string error;
  auto img = DecodePng(png, &error);
  ASSERT_TRUE(img.has_value()) << error;
  EXPECT_EQ(img->width, 4);
  EXPECT_EQ(img->height, 5);
  EXPECT_EQ(img->channels, 3);
  for (size_t y = 0; y < rows.size(); ++y) {
    EXPECT_EQ(std::vector<uint8_t>(img->pixels.begin() + static_cast<long>(y * 12),
                                   img->pixels.begin() + static_cast<long>(y * 12 + 12)),
              rows[y])
        << "row " << y;
  }
  EXPECT_GT(Stats(*img).luma_variance, 100);
}

TEST(PngTest, BlankImageHasNoVarianceAndCorruptFilesAreErrors) {
  std::vector<std::vector<uint8_t>> white(8, std::vector<uint8_t>(8 * 3, 255));
  std::string error;
  auto img = DecodePng(EncodePng(8, white, std::vector<int>(8, 0)), &error);
  ASSERT_TRUE(img.has_value()) << error;
  EXPECT_EQ(Stats(*img).luma_variance, 0);
  EXPECT_EQ(Stats(*img).non_background_fraction, 0);
  EXPECT_FALSE(DecodePng("GIF89a", &error).has_value());
  EXPECT_THAT(error, ::testing::HasSubstr("signature"));
  std::string bad = EncodePng(8, white, std::vector<int>(8, 0));
  bad.resize(bad.size() - 20);
  EXPECT_FALSE(DecodePng(bad, &error).has_value());
}

}  // namespace
}  // namespace podbench::testing
