#include "workloads/data/jpeg.h"

#include <cmath>

#include <gtest/gtest.h>

#include "workloads/data/synthetic_images.h"

namespace podbench::data {
namespace {

TEST(JpegTest, RoundTripKeepsTheImage) {
  SyntheticImageSpec spec;
  spec.height = 48;
  spec.width = 64;
  spec.noise_stddev = 0;
  Image img = MakeSyntheticImage(spec, 3).image;
  auto bytes = EncodeJpeg(img, 95);
  ASSERT_TRUE(bytes.ok());
  auto back = DecodeJpeg(*bytes, "x.JPEG");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->height, 48);
  ASSERT_EQ(back->width, 64);
  double se = 0;
  for (size_t i = 0; i < img.pixels.size(); ++i) se += std::pow(img.pixels[i] - back->pixels[i], 2);
  double psnr = 10 * std::log10(255.0 * 255.0 / (se / static_cast<double>(img.pixels.size())));
  EXPECT_GT(psnr, 28.0);
}

TEST(JpegTest, CorruptBytesNameTheFile) {
  std::vector<uint8_t> junk = {0xFF, 0xD8, 0x00, 0x11, 0x22};
  auto r = DecodeJpeg(junk, "train/c001/bad.JPEG");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kCorruption);
  EXPECT_NE(r.status().message().find("train/c001/bad.JPEG"), std::string::npos);
}

}  // namespace
}  // namespace podbench::data
