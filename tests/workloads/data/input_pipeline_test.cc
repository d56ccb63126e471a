#include "workloads/data/input_pipeline.h"

#include <fstream>
#include <mutex>
#include <set>

#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"
#include "workloads/data/augment.h"

namespace podbench::data {
namespace {

PipelineOptions SmallOptions() {
  PipelineOptions o;
  o.batch_size = 8;
  o.out_height = 24;
  o.out_width = 24;
  o.prefetch = 3;
  o.seed = 7;
  return o;
}

std::vector<Batch> Take(std::shared_ptr<const ImageSource> src, const PipelineOptions& o, int n) {
  auto p = InputPipeline::Create(src, o);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  std::vector<Batch> out;
  for (int i = 0; i < n; ++i) {
    auto b = (*p)->Next();
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    out.push_back(std::move(b).value());
  }
  return out;
}

TEST(InputPipelineTest, SameBatchesWhateverTheThreadCount) {
  SyntheticImageSpec spec;
  auto src = MakeSyntheticSource(spec, 100);
  PipelineOptions o = SmallOptions();
  o.threads = 1;
  auto one = Take(src, o, 15);
  o.threads = 3;
  auto three = Take(src, o, 15);
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].labels, three[i].labels) << i;
    EXPECT_EQ(one[i].images, three[i].images) << i;
  }
}

TEST(InputPipelineTest, EpochsCoverTheShardOnceInANewOrder) {
  SyntheticImageSpec spec;
  spec.num_classes = 12;
  auto src = MakeSyntheticSource(spec, 96);
  PipelineOptions o = SmallOptions();
  auto batches = Take(src, o, 24);  // 12 batches an epoch
  ASSERT_EQ(batches[11].epoch, 0);
  ASSERT_EQ(batches[12].epoch, 1);
  EXPECT_EQ(batches[12].index, 0);
  std::multiset<int> labels0, labels1;
  for (int i = 0; i < 12; ++i) {
    labels0.insert(batches[static_cast<size_t>(i)].labels.begin(), batches[static_cast<size_t>(i)].labels.end());
    labels1.insert(batches[static_cast<size_t>(12 + i)].labels.begin(), batches[static_cast<size_t>(12 + i)].labels.end());
  }
  EXPECT_EQ(labels0, labels1);  // 8 of each class both times
  EXPECT_EQ(labels0.count(5), 8u);
  EXPECT_NE(batches[0].labels, batches[12].labels);  // reshuffled
}

TEST(InputPipelineTest, ShardsAreDisjointAndCoverTheData) {
  SyntheticImageSpec spec;
  auto src = MakeSyntheticSource(spec, 64);
  PipelineOptions o = SmallOptions();
  o.shuffle = false;
  o.train = false;
  std::set<std::vector<float>> seen;
  for (int shard = 0; shard < 4; ++shard) {
    o.num_shards = 4;
    o.shard_index = shard;
    for (const Batch& b : Take(src, o, 2)) {
      for (int i = 0; i < b.size; ++i) {
        size_t per = 24u * 24u * 3u;
        seen.insert(std::vector<float>(b.images.begin() + static_cast<long>(per * i),
                                       b.images.begin() + static_cast<long>(per * (i + 1))));
      }
    }
  }
  EXPECT_EQ(seen.size(), 64u);
}

// A source that records every image it is asked for (from any worker).
class RecordingSource : public ImageSource {
 public:
  explicit RecordingSource(std::shared_ptr<const ImageSource> inner) : inner_(std::move(inner)) {}
  size_t size() const override { return inner_->size(); }
  int num_classes() const override { return inner_->num_classes(); }
  Result<LabeledImage> Get(size_t index) const override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      read_.insert(index);
    }
    return inner_->Get(index);
  }
  std::set<size_t> read() const {
    std::lock_guard<std::mutex> lock(mu_);
    return read_;
  }

 private:
  std::shared_ptr<const ImageSource> inner_;
  mutable std::mutex mu_;
  mutable std::set<size_t> read_;
};

// Issue 37 item 3 for input=jpeg: an MPI rank that needs only some rows of
// each batch (its cores') reads no other image, and the rows it needs are
// bitwise the unfiltered pipeline's (crops and flips included).
TEST(InputPipelineTest, RowFilterReadsOnlyTheNeededRowsAndKeepsThemBitwise) {
  SyntheticImageSpec spec;
  auto plain = MakeSyntheticSource(spec, 64);
  PipelineOptions o = SmallOptions();
  o.threads = 2;
  auto all_src = std::make_shared<RecordingSource>(plain);
  const std::vector<Batch> all = Take(all_src, o, 12);  // 1.5 epochs of 8 batches
  auto rank_src = std::make_shared<RecordingSource>(plain);
  o.row_needed = [](int64_t row) { return row >= 2 && row < 5; };  // rows 2-4 of each batch of 8
  const std::vector<Batch> mine = Take(rank_src, o, 12);
  const size_t per = 24u * 24u * 3u;
  ASSERT_EQ(all.size(), mine.size());
  for (size_t b = 0; b < all.size(); ++b) {
    for (int i = 0; i < o.batch_size; ++i) {
      const auto from = static_cast<long>(per * static_cast<size_t>(i)), to = from + static_cast<long>(per);
      const std::vector<float> want(all[b].images.begin() + from, all[b].images.begin() + to);
      const std::vector<float> got(mine[b].images.begin() + from, mine[b].images.begin() + to);
      if (i >= 2 && i < 5) {
        EXPECT_EQ(got, want) << "batch " << b << " row " << i;
        EXPECT_EQ(mine[b].labels[static_cast<size_t>(i)], all[b].labels[static_cast<size_t>(i)]);
      } else {
        EXPECT_EQ(got, std::vector<float>(per, 0.f)) << "batch " << b << " row " << i;
        EXPECT_EQ(mine[b].labels[static_cast<size_t>(i)], 0);
      }
    }
  }
  EXPECT_LT(rank_src->read().size(), all_src->read().size());
  // Unshuffled, row i of batch k is image 8 (k mod 8) + i, so the images
  // read must be exactly rows 2-4's, whatever the workers prefetch.
  o.shuffle = false;
  auto ordered_src = std::make_shared<RecordingSource>(plain);
  (void)Take(ordered_src, o, 12);
  std::set<size_t> want_reads;
  for (size_t k = 0; k < 8; ++k) {
    for (size_t i = 2; i < 5; ++i) want_reads.insert(8 * k + i);
  }
  EXPECT_EQ(ordered_src->read(), want_reads);
}

TEST(InputPipelineTest, FlipMirrorsAndNormalises) {
  Image img;
  img.height = 1;
  img.width = 2;
  img.pixels = {0, 0, 0, 255, 255, 255};
  float mean[3] = {0.5f, 0.5f, 0.5f}, sd[3] = {0.5f, 0.5f, 0.5f};
  float out[6];
  ResizeNormalize(img, CropWindow{0, 0, 1, 2}, 1, 2, /*flip=*/false, mean, sd, out);
  EXPECT_FLOAT_EQ(out[0], -1.0f);
  EXPECT_FLOAT_EQ(out[3], 1.0f);
  ResizeNormalize(img, CropWindow{0, 0, 1, 2}, 1, 2, /*flip=*/true, mean, sd, out);
  EXPECT_FLOAT_EQ(out[0], 1.0f);
  EXPECT_FLOAT_EQ(out[3], -1.0f);
}

TEST(InputPipelineTest, RandomCropsStayInsideTheImage) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    CropWindow w = SampleRandomResizedCrop(37, 53, 0.08, 1.0, 0.75, 4.0 / 3, rng);
    ASSERT_GE(w.y, 0);
    ASSERT_GE(w.x, 0);
    ASSERT_GE(w.height, 1);
    ASSERT_LE(w.y + w.height, 37);
    ASSERT_LE(w.x + w.width, 53);
  }
}

TEST(InputPipelineTest, RejectsBadOptions) {
  auto src = MakeSyntheticSource(SyntheticImageSpec{}, 10);
  PipelineOptions o = SmallOptions();
  o.batch_size = 11;
  EXPECT_EQ(InputPipeline::Create(src, o).status().code(), Status::Code::kInvalidArgument);
  o = SmallOptions();
  o.shard_index = 2;
  o.num_shards = 2;
  EXPECT_EQ(InputPipeline::Create(src, o).status().code(), Status::Code::kInvalidArgument);
  o = SmallOptions();
  o.min_area = 0;
  EXPECT_EQ(InputPipeline::Create(src, o).status().code(), Status::Code::kInvalidArgument);
}

TEST(ImageFolderTest, GeneratedFolderReadsBackWithLabels) {
  podbench::testing::TempDir dir;
  SyntheticImageSpec spec;
  spec.num_classes = 4;
  spec.height = 40;
  spec.width = 56;
  ASSERT_TRUE(WriteSyntheticImageFolder(dir / "train", spec, 20).ok());
  auto src = ImageFolderSource::Open(dir / "train");
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  EXPECT_EQ((*src)->size(), 20u);
  EXPECT_EQ((*src)->num_classes(), 4);
  for (size_t i = 0; i < (*src)->size(); ++i) {
    auto li = (*src)->Get(i);
    ASSERT_TRUE(li.ok());
    EXPECT_EQ(li->image.height, 40);
    EXPECT_EQ(li->image.width, 56);
    EXPECT_EQ("c00" + std::to_string(li->label), (*src)->file(i).parent_path().filename().string());
  }
  PipelineOptions o = SmallOptions();
  o.batch_size = 4;
  auto batches = Take(*src, o, 6);  // five batches an epoch, into the second
  EXPECT_EQ(batches[5].epoch, 1);
}

// The cached copy: train/ holds images [0, train), val/ the next `val`
// (held out); a second call reuses the folder instead of writing it again.
TEST(ImageFolderTest, CachedCopyIsWrittenOnceWithHeldOutValidation) {
  podbench::testing::TempDir dir;
  SyntheticImageSpec spec;
  spec.num_classes = 3;
  spec.height = spec.width = 36;
  auto root = CachedSyntheticImageNet(dir.path(), spec, 12, 6);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  auto train = ImageFolderSource::Open(*root / "train");
  auto val = ImageFolderSource::Open(*root / "val");
  ASSERT_TRUE(train.ok() && val.ok());
  EXPECT_EQ((*train)->size(), 12u);
  EXPECT_EQ((*val)->size(), 6u);
  EXPECT_EQ((*val)->num_classes(), 3);
  EXPECT_EQ((*val)->file(0).filename().string(), "img_00000012.JPEG");
  // A marker the writer would not put there survives the second call.
  { std::ofstream(*root / "marker") << "x"; }
  auto again = CachedSyntheticImageNet(dir.path(), spec, 12, 6);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *root);
  EXPECT_TRUE(std::filesystem::exists(*root / "marker"));
  // Another size is another copy; no temporary folders are left behind.
  auto other = CachedSyntheticImageNet(dir.path(), spec, 12, 3);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*other, *root);
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
    ++entries;
  }
  EXPECT_EQ(entries, 2);
}

TEST(ImageFolderTest, CorruptFileIsReportedByName) {
  podbench::testing::TempDir dir;
  SyntheticImageSpec spec;
  spec.num_classes = 2;
  ASSERT_TRUE(WriteSyntheticImageFolder(dir / "train", spec, 8).ok());
  std::ofstream(dir / "train" / "c001" / "broken.JPEG") << "not a jpeg";
  auto src = ImageFolderSource::Open(dir / "train");
  ASSERT_TRUE(src.ok());
  PipelineOptions o = SmallOptions();
  o.batch_size = 9;
  o.shuffle = false;
  auto p = InputPipeline::Create(*src, o);
  ASSERT_TRUE(p.ok());
  auto b = (*p)->Next();
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("broken.JPEG"), std::string::npos) << b.status().ToString();
}

TEST(ImageFolderTest, MissingFolderIsNotFound) {
  auto src = ImageFolderSource::Open("/nonexistent/imagenet/train");
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.status().code(), Status::Code::kNotFound);
  EXPECT_NE(src.status().message().find("/nonexistent/imagenet/train"), std::string::npos);
}

}  // namespace
}  // namespace podbench::data
