#include "workloads/translation/language_pair.h"

#include <algorithm>
#include <set>

namespace podbench::translation {
namespace {

struct SourceNoun {
  const char* singular;
  const char* plural;
};
struct SourceVerb {
  const char* base;  // present, plural subject
  const char* third;  // present, singular subject
  const char* past;
};

constexpr SourceNoun kNouns[] = {
    {"dog", "dogs"},         {"cat", "cats"},         {"bird", "birds"},         {"horse", "horses"},
    {"farmer", "farmers"},   {"teacher", "teachers"}, {"child", "children"},     {"king", "kings"},
    {"queen", "queens"},     {"girl", "girls"},       {"boy", "boys"},           {"doctor", "doctors"},
    {"baker", "bakers"},     {"sailor", "sailors"},   {"fox", "foxes"},          {"wolf", "wolves"},
    {"mouse", "mice"},       {"house", "houses"},     {"tree", "trees"},         {"garden", "gardens"},
    {"boat", "boats"},       {"table", "tables"},     {"book", "books"},         {"letter", "letters"},
    {"bridge", "bridges"},   {"village", "villages"}, {"city", "cities"},        {"mountain", "mountains"},
    {"river", "rivers"},     {"window", "windows"},   {"door", "doors"},         {"owl", "owls"},
};
constexpr const char* kAdjectives[] = {"big",  "small", "old",   "young", "red",     "green",  "happy",  "sad",
                                       "quick", "slow", "tall",  "brave", "quiet",   "strange", "clever", "poor"};
constexpr SourceVerb kVerbs[] = {
    {"see", "sees", "saw"},           {"like", "likes", "liked"},       {"follow", "follows", "followed"},
    {"help", "helps", "helped"},      {"visit", "visits", "visited"},   {"watch", "watches", "watched"},
    {"find", "finds", "found"},       {"call", "calls", "called"},      {"paint", "paints", "painted"},
    {"push", "pushes", "pushed"},     {"carry", "carries", "carried"},  {"chase", "chases", "chased"},
    {"greet", "greets", "greeted"},   {"draw", "draws", "drew"},        {"build", "builds", "built"},
    {"love", "loves", "loved"},       {"meet", "meets", "met"},         {"know", "knows", "knew"},
};
constexpr const char* kPrepositions[] = {"near", "behind", "under", "with", "from", "beside", "above"};
constexpr const char* kAdverbs[] = {"often", "slowly", "quickly", "again", "quietly", "early"};

constexpr size_t kNumNouns = std::size(kNouns);
constexpr size_t kNumAdjectives = std::size(kAdjectives);
constexpr size_t kNumVerbs = std::size(kVerbs);
constexpr size_t kNumPrepositions = std::size(kPrepositions);
constexpr size_t kNumAdverbs = std::size(kAdverbs);

// Target morphology (agglutinative; stems end in a consonant):
// noun plural suffix per gender, case suffixes, adjective agreement per
// gender x number, verb tense and plural-subject suffixes.
constexpr const char* kPluralSuffix[2] = {"ok", "ir"};          // masculine, feminine
constexpr const char* kCaseSuffix[3] = {"", "um", "es"};        // nominative, accusative, oblique
constexpr const char* kAdjectiveSuffix[2][2] = {{"o", "oi"}, {"a", "ai"}};  // [gender][plural]
constexpr const char* kTenseSuffix[2] = {"et", "ut"};           // present, past
constexpr const char* kPluralSubjectSuffix = "en";

// SplitMix64: a deterministic generator that does not depend on the
// standard library's distributions (which differ between implementations).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n). REQUIRES: n > 0.
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }
  bool Chance(double p) { return static_cast<double>(Next() >> 11) * 0x1.0p-53 < p; }

 private:
  uint64_t state_;
};

// A pseudo-word of `syllables` consonant-vowel syllables, ending in a
// consonant when `closed`.
std::string PseudoWord(Rng& rng, int syllables, bool closed) {
  static constexpr char kConsonants[] = "bdfgklmnprstvz";
  static constexpr char kVowels[] = "aeiou";
  std::string w;
  for (int s = 0; s < syllables; ++s) {
    w.push_back(kConsonants[rng.Below(sizeof(kConsonants) - 1)]);
    w.push_back(kVowels[rng.Below(sizeof(kVowels) - 1)]);
  }
  if (closed) w.push_back(kConsonants[rng.Below(sizeof(kConsonants) - 1)]);
  return w;
}

bool StartsWithVowel(const std::string& w) {
  return !w.empty() && std::string_view("aeiou").find(w[0]) != std::string_view::npos;
}

// A sentence as words; punctuation marks are words of their own.
using Words = std::vector<std::string>;

std::string Join(const Words& words) {
  std::string s;
  for (const std::string& w : words) {
    const bool punct = w == "." || w == ",";
    if (!s.empty() && !punct) s.push_back(' ');
    s += w;
  }
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

struct NounPhrase {
  size_t noun = 0;
  bool plural = false, definite = true;
  std::vector<size_t> adjectives;  // source order
};

struct Clause {
  NounPhrase subject, object;
  size_t verb = 0;
  bool past = false;
  bool has_pp = false, has_adverb = false;
  size_t preposition = 0, adverb = 0;
  NounPhrase pp;
};

}  // namespace

LanguagePair::LanguagePair(const LanguagePairSpec& spec) : spec_(spec) {
  Rng rng(spec.seed ^ 0x6c616e6775616765ull);
  std::set<std::string> used;
  // Distinct words; function words are short, content stems longer.
  auto fresh = [&](int syllables, bool closed) {
    for (;;) {
      std::string w = PseudoWord(rng, syllables, closed);
      if (used.insert(w).second) return w;
    }
  };
  for (auto& d : lex_.determiners) d = fresh(1, rng.Chance(0.5));
  lex_.conjunction = fresh(1, false);
  for (size_t i = 0; i < kNumNouns; ++i) {
    lex_.nouns.push_back(fresh(2, true));
    lex_.noun_gender.push_back(static_cast<int>(rng.Below(2)));
  }
  for (size_t i = 0; i < kNumAdjectives; ++i) lex_.adjectives.push_back(fresh(2, true));
  for (size_t i = 0; i < kNumVerbs; ++i) lex_.verbs.push_back(fresh(2, true));
  for (size_t i = 0; i < kNumPrepositions; ++i) lex_.postpositions.push_back(fresh(1, true));
  for (size_t i = 0; i < kNumAdverbs; ++i) lex_.adverbs.push_back(fresh(3, false));
}

SentencePair LanguagePair::Sentence(uint64_t index) const {
  Rng rng(spec_.seed * 0x9e3779b97f4a7c15ull + index * 0xd1b54a32d192ed03ull + 1);
  auto noun_phrase = [&] {
    NounPhrase np;
    np.noun = rng.Below(kNumNouns);
    np.plural = rng.Chance(spec_.plural);
    np.definite = rng.Chance(spec_.definite);
    const size_t r = rng.Below(20);
    const size_t n_adj = r < 10 ? 0 : r < 17 ? 1 : 2;  // 50% none, 35% one, 15% two
    while (np.adjectives.size() < n_adj) {
      size_t a = rng.Below(kNumAdjectives);
      if (std::find(np.adjectives.begin(), np.adjectives.end(), a) == np.adjectives.end()) np.adjectives.push_back(a);
    }
    return np;
  };
  auto clause = [&] {
    Clause c;
    c.subject = noun_phrase();
    c.verb = rng.Below(kNumVerbs);
    c.past = rng.Chance(0.5);
    c.object = noun_phrase();
    c.has_pp = rng.Chance(spec_.prepositional_phrase);
    if (c.has_pp) {
      c.preposition = rng.Below(kNumPrepositions);
      c.pp = noun_phrase();
    }
    c.has_adverb = rng.Chance(spec_.adverb);
    if (c.has_adverb) c.adverb = rng.Below(kNumAdverbs);
    return c;
  };
  std::vector<Clause> clauses = {clause()};
  if (rng.Chance(spec_.second_clause)) clauses.push_back(clause());

  // Source: Det Adj* N V Det Adj* N [Prep Det Adj* N] [Adv].
  auto src_np = [&](const NounPhrase& np, Words& out) {
    std::string first = np.adjectives.empty() ? kNouns[np.noun].singular : kAdjectives[np.adjectives[0]];
    out.push_back(np.definite ? "the" : np.plural ? "some" : StartsWithVowel(first) ? "an" : "a");
    for (size_t a : np.adjectives) out.push_back(kAdjectives[a]);
    out.push_back(np.plural ? kNouns[np.noun].plural : kNouns[np.noun].singular);
  };
  // Target: Det N(+plural+case) Adj*(mirrored, agreeing) [Postp].
  auto tgt_np = [&](const NounPhrase& np, int grammatical_case, Words& out) {
    const int g = lex_.noun_gender[np.noun];
    const int pl = np.plural ? 1 : 0;
    out.push_back(lex_.determiners[static_cast<size_t>((np.definite ? 4 : 0) + g * 2 + pl)]);
    out.push_back(lex_.nouns[np.noun] + (pl ? kPluralSuffix[g] : "") + kCaseSuffix[grammatical_case]);
    for (auto it = np.adjectives.rbegin(); it != np.adjectives.rend(); ++it) {
      out.push_back(lex_.adjectives[*it] + kAdjectiveSuffix[g][pl]);
    }
  };
  Words src, tgt;
  for (size_t k = 0; k < clauses.size(); ++k) {
    const Clause& c = clauses[k];
    if (k > 0) {
      src.insert(src.end(), {",", "and"});
      tgt.insert(tgt.end(), {",", lex_.conjunction});
    }
    src_np(c.subject, src);
    const SourceVerb& v = kVerbs[c.verb];
    src.push_back(c.past ? v.past : c.subject.plural ? v.base : v.third);
    src_np(c.object, src);
    if (c.has_pp) {
      src.push_back(kPrepositions[c.preposition]);
      src_np(c.pp, src);
    }
    if (c.has_adverb) src.push_back(kAdverbs[c.adverb]);

    tgt_np(c.subject, 0, tgt);
    if (c.has_adverb) tgt.push_back(lex_.adverbs[c.adverb]);
    tgt_np(c.object, 1, tgt);
    if (c.has_pp) {
      tgt_np(c.pp, 2, tgt);
      tgt.push_back(lex_.postpositions[c.preposition]);
    }
    tgt.push_back(lex_.verbs[c.verb] + kTenseSuffix[c.past ? 1 : 0] + (c.subject.plural ? kPluralSubjectSuffix : ""));
  }
  src.push_back(".");
  tgt.push_back(".");
  return {Join(src), Join(tgt)};
}

std::vector<SentencePair> LanguagePair::Sentences(uint64_t first, uint64_t count) const {
  std::vector<SentencePair> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) out.push_back(Sentence(first + i));
  return out;
}

}  // namespace podbench::translation
