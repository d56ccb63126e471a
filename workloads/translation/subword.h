// A subword vocabulary learned on a corpus: byte-pair encoding (Sennrich,
// Haddow and Birch 2016, "Neural Machine Translation of Rare Words with
// Subword Units"), learned on source and target text together so both
// languages share one vocabulary and one embedding, as the Transformer's
// WMT vocabulary does (tensor2tensor's shared ~32k subword vocabulary).
//
// Text -> words: maximal runs of bytes that are neither whitespace (bytes <=
// 0x20) nor ASCII punctuation, and every ASCII punctuation byte as a word of
// its own. Each word is a sequence of byte symbols, the last one marked as
// ending the word; learning merges the most frequent adjacent pair (counted
// over word occurrences; ties go to the lexicographically smallest pair)
// until the vocabulary has the requested size or no pair occurs twice.
// Encoding applies the merges in the order they were learned.
//
// Ids: 0 padding and 1 end of sentence (tensor2tensor's reserved ids), 2 an
// unknown byte (one the corpus never had), then the pieces.
//
// Decoding joins each word's pieces and the words with single spaces, with
// no space before closing punctuation (. , ! ? ; :): the exact inverse of
// Encode on text written that way, which is how the generated languages are
// written (language_pair.h).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace podbench::translation {

inline constexpr int32_t kPadId = 0;
inline constexpr int32_t kEosId = 1;
inline constexpr int32_t kUnknownId = 2;
inline constexpr int32_t kReservedIds = 3;

class SubwordVocabulary {
 public:
  // Learns merges on `corpus` until the vocabulary (reserved ids included)
  // has `target_size` entries. InvalidArgument for an empty corpus or a
  // target_size below the reserved ids plus the corpus's distinct bytes
  // (the message gives that minimum).
  static Result<SubwordVocabulary> Learn(const std::vector<std::string>& corpus, int32_t target_size);

  int32_t size() const { return static_cast<int32_t>(pieces_.size()); }
  // Ids of `text`, without an end-of-sentence id.
  std::vector<int32_t> Encode(std::string_view text) const;
  // Text of `ids` up to the first end-of-sentence id; padding is skipped,
  // an unknown id decodes as "?".
  std::string Decode(std::span<const int32_t> ids) const;
  // A readable piece: "_" marks the end of a word ("dog_"); "<pad>", "<eos>",
  // "<unk>" for the reserved ids. REQUIRES: 0 <= id < size().
  std::string Piece(int32_t id) const;
  int32_t merges() const { return static_cast<int32_t>(merge_rank_.size()); }

 private:
  SubwordVocabulary() = default;
  // Symbols of one word after the merges.
  std::vector<std::string> Segment(std::string_view word) const;

  // Pieces by id; a piece ending a word carries a trailing kEndOfWord byte.
  std::vector<std::string> pieces_;
  std::map<std::string, int32_t, std::less<>> ids_;
  std::map<std::pair<std::string, std::string>, int32_t> merge_rank_;
};

// The words of `text` as the vocabulary sees them (see above).
std::vector<std::string_view> SplitSubwordWords(std::string_view text);

}  // namespace podbench::translation
