#include "workloads/translation/subword.h"

#include <limits>
#include <set>

namespace podbench::translation {
namespace {

// Marks the last symbol of a word. Words never contain it (bytes <= 0x20
// separate words).
constexpr char kEndOfWord = '\x1f';

bool IsSpace(unsigned char c) { return c <= 0x20; }
bool IsPunct(unsigned char c) {
  return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
}
bool IsClosingPunct(std::string_view w) {
  return w.size() == 1 && std::string_view(".,!?;:").find(w[0]) != std::string_view::npos;
}

std::vector<std::string> ByteSymbols(std::string_view word) {
  std::vector<std::string> s;
  for (char c : word) s.emplace_back(1, c);
  if (!s.empty()) s.back().push_back(kEndOfWord);
  return s;
}

}  // namespace

std::vector<std::string_view> SplitSubwordWords(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (IsSpace(c)) {
      ++i;
    } else if (IsPunct(c)) {
      out.push_back(text.substr(i, 1));
      ++i;
    } else {
      size_t j = i;
      while (j < text.size() && !IsSpace(static_cast<unsigned char>(text[j])) &&
             !IsPunct(static_cast<unsigned char>(text[j]))) {
        ++j;
      }
      out.push_back(text.substr(i, j - i));
      i = j;
    }
  }
  return out;
}

Result<SubwordVocabulary> SubwordVocabulary::Learn(const std::vector<std::string>& corpus, int32_t target_size) {
  std::map<std::string, int64_t, std::less<>> word_counts;
  for (const std::string& line : corpus) {
    for (std::string_view w : SplitSubwordWords(line)) ++word_counts[std::string(w)];
  }
  if (word_counts.empty()) return Status::InvalidArgument("subword vocabulary: the corpus has no words");
  std::set<unsigned char> bytes;
  for (const auto& [w, n] : word_counts) {
    for (char c : w) bytes.insert(static_cast<unsigned char>(c));
  }
  const int32_t minimum = kReservedIds + 2 * static_cast<int32_t>(bytes.size());
  if (target_size < minimum) {
    return Status::InvalidArgument("subword vocabulary size " + std::to_string(target_size) +
                                   " is below the corpus's minimum of " + std::to_string(minimum) +
                                   " (reserved ids and every byte, inside and at the end of a word)");
  }
  SubwordVocabulary v;
  v.pieces_ = {"<pad>", "<eos>", "<unk>"};
  auto add = [&](const std::string& piece) {
    if (v.ids_.emplace(piece, static_cast<int32_t>(v.pieces_.size())).second) v.pieces_.push_back(piece);
  };
  for (unsigned char b : bytes) {
    add(std::string(1, static_cast<char>(b)));
    add(std::string(1, static_cast<char>(b)) + kEndOfWord);
  }
  std::vector<std::vector<std::string>> words;
  std::vector<int64_t> counts;
  for (const auto& [w, n] : word_counts) {
    words.push_back(ByteSymbols(w));
    counts.push_back(n);
  }
  while (v.size() < target_size) {
    std::map<std::pair<std::string, std::string>, int64_t> pairs;
    for (size_t k = 0; k < words.size(); ++k) {
      for (size_t i = 0; i + 1 < words[k].size(); ++i) pairs[{words[k][i], words[k][i + 1]}] += counts[k];
    }
    const std::pair<std::string, std::string>* best = nullptr;
    int64_t best_count = 1;  // a merge must occur at least twice
    for (const auto& [p, n] : pairs) {
      if (n > best_count) {
        best = &p;
        best_count = n;
      }
    }
    if (best == nullptr) break;
    const std::string left = best->first, right = best->second, merged = left + right;
    v.merge_rank_.emplace(std::make_pair(left, right), static_cast<int32_t>(v.merge_rank_.size()));
    add(merged);
    for (auto& w : words) {
      std::vector<std::string> out;
      for (size_t i = 0; i < w.size(); ++i) {
        if (i + 1 < w.size() && w[i] == left && w[i + 1] == right) {
          out.push_back(merged);
          ++i;
        } else {
          out.push_back(std::move(w[i]));
        }
      }
      w = std::move(out);
    }
  }
  return v;
}

std::vector<std::string> SubwordVocabulary::Segment(std::string_view word) const {
  std::vector<std::string> s = ByteSymbols(word);
  for (;;) {
    int32_t best_rank = std::numeric_limits<int32_t>::max();
    size_t best_at = 0;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      auto it = merge_rank_.find({s[i], s[i + 1]});
      if (it != merge_rank_.end() && it->second < best_rank) {
        best_rank = it->second;
        best_at = i;
      }
    }
    if (best_rank == std::numeric_limits<int32_t>::max()) return s;
    // Merge every occurrence of that pair, left to right.
    const std::string left = s[best_at], right = s[best_at + 1];
    std::vector<std::string> out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (i + 1 < s.size() && s[i] == left && s[i + 1] == right) {
        out.push_back(left + right);
        ++i;
      } else {
        out.push_back(std::move(s[i]));
      }
    }
    s = std::move(out);
  }
}

std::vector<int32_t> SubwordVocabulary::Encode(std::string_view text) const {
  std::vector<int32_t> ids;
  for (std::string_view w : SplitSubwordWords(text)) {
    for (const std::string& piece : Segment(w)) {
      auto it = ids_.find(piece);
      ids.push_back(it == ids_.end() ? kUnknownId : it->second);
    }
  }
  return ids;
}

std::string SubwordVocabulary::Decode(std::span<const int32_t> ids) const {
  std::string text, word;
  auto flush = [&] {
    if (word.empty()) return;
    if (!text.empty() && !IsClosingPunct(word)) text.push_back(' ');
    text += word;
    word.clear();
  };
  for (int32_t id : ids) {
    if (id == kEosId) break;
    if (id == kPadId) continue;
    if (id < kReservedIds || id >= size()) {
      word.push_back('?');
      continue;
    }
    const std::string& p = pieces_[static_cast<size_t>(id)];
    if (!p.empty() && p.back() == kEndOfWord) {
      word.append(p, 0, p.size() - 1);
      flush();
    } else {
      word += p;
    }
  }
  flush();
  return text;
}

std::string SubwordVocabulary::Piece(int32_t id) const {
  std::string p = pieces_[static_cast<size_t>(id)];
  if (id >= kReservedIds && !p.empty() && p.back() == kEndOfWord) p.back() = '_';
  return p;
}

}  // namespace podbench::translation
