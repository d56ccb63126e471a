#include "rules/checker.h"

#include <algorithm>
#include <cassert>
#include <deque>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "rules/mllog/reader.h"
#include "rules/py/interp.h"

namespace podbench::rules {

std::string DefaultConfig(const std::string& usage, const std::string& ruleset) {
  return usage + "_" + ruleset + "/common.yaml";
}

mllog::Format FormatForRuleset(const std::string& ruleset) {
  return ruleset == "0.6.0" ? mllog::Format::kMll : mllog::Format::kMllog;
}

namespace {

using py::Val;

// The official checker's message book: keyed messages (one per key, the
// last one wins, insertion order kept as in a Python dict), others, warnings.
class Messages {
 public:
  // The text is rendered only if the message survives (most failures are
  // overwritten by a later failure of the same key).
  using Render = std::function<std::string()>;

  // `line`: the 1-based log line the message comes from, 0 for none.
  void Put(const std::string& key, std::string text, int64_t line = 0) {
    PutLazy(key, [t = std::move(text)] { return t; }, line);
  }
  void PutLazy(const std::string& key, Render render, int64_t line = 0) {
    if (key.empty()) {
      other_.push_back({"", std::move(render), line});
      return;
    }
    for (auto& m : keyed_) {
      if (m.key == key) {
        m.render = std::move(render);
        m.line = line;
        return;
      }
    }
    keyed_.push_back({key, std::move(render), line});
  }
  void Warn(const std::string& key, std::string text, bool werror, int64_t line = 0) {
    if (werror) {
      Put(key, std::move(text), line);
      return;
    }
    for (auto& m : warnings_) {
      if (m.key == key) {
        m.text = std::move(text);
        m.line = line;
        return;
      }
    }
    warnings_.push_back({key, std::move(text), line});
  }
  void Drop(const std::string& key) {
    keyed_.erase(std::remove_if(keyed_.begin(), keyed_.end(), [&](const Entry& m) { return m.key == key; }),
                 keyed_.end());
  }
  void Fill(CheckResult* r) const {
    r->pass = keyed_.empty() && other_.empty();
    for (const auto& m : keyed_) r->errors.push_back({m.key, m.render(), m.line});
    for (const auto& m : other_) r->errors.push_back({"", m.render(), m.line});
    for (const auto& m : keyed_) r->error_keys.push_back(m.key);
    std::sort(r->error_keys.begin(), r->error_keys.end());
    r->warnings = warnings_;
    for (const auto& m : warnings_) r->warning_keys.push_back(m.key);
    std::sort(r->warning_keys.begin(), r->warning_keys.end());
  }

 private:
  struct Entry {
    std::string key;
    Render render;
    int64_t line = 0;
  };
  std::vector<Entry> keyed_, other_;
  std::vector<CheckMessage> warnings_;
};

std::string FullString(const py::LineObj& l, mllog::Format format) {
  std::string ts = l.timestamp.is_number() ? py::Str(l.timestamp) : py::Repr(l.timestamp);
  std::string key = l.key.kind() == py::Kind::kStr ? l.key.str() : py::Repr(l.key);
  if (format == mllog::Format::kMll) return ":::MLL " + ts + " " + key + ": " + py::Repr(l.value);
  return ":::MLLOG time_ms=" + ts + " key=" + key + " " + py::Repr(l.value);
}

std::string Truncate(std::string s, size_t max = 2000) {
  if (s.size() > max) {
    s.resize(max);
    s += " ...";
  }
  return s;
}

// The lines of one log as the checker keeps them: keys interned (an id per
// distinct key), each value kept as the reader's JSON text, or as the
// caller's mllog::Value, until rule code needs it as an interpreter value.
class LogData {
 public:
  // Lines of records already parsed; `records` must outlive this object.
  explicit LogData(const std::vector<mllog::Record>& records) : records_(&records) {
    lines_.reserve(records.size());
    for (const auto& r : records) {
      Line l;
      l.timestamp = r.timestamp;
      l.key = KeyId(r.key);
      l.index = r.index;
      l.file_line = r.file_line;
      lines_.push_back(l);
    }
  }
  // Lines of a log being read in `format`.
  explicit LogData(mllog::Format format) : format_(format) {}

  // Appends a line read by LogReader::NextRaw.
  void Add(const mllog::RawRecord& r) {
    Line l;
    l.timestamp = r.timestamp;
    l.key = KeyId(r.key);
    l.index = r.index;
    l.file_line = r.file_line;
    l.text = text_.size();
    l.value_len = r.value_json.size();
    l.metadata_len = r.metadata_json.size();
    text_.append(r.value_json);
    text_.append(r.metadata_json);
    lines_.push_back(l);
  }

  size_t size() const { return lines_.size(); }
  size_t num_keys() const { return key_names_.size(); }
  uint32_t key_id(size_t i) const { return lines_[i].key; }
  const std::string& key_name(uint32_t id) const { return key_names_[id]; }
  double timestamp(size_t i) const { return lines_[i].timestamp; }
  int64_t index(size_t i) const { return lines_[i].index; }
  int64_t file_line(size_t i) const { return lines_[i].file_line; }

  // `v` of line i, fresh (rule code may mutate it), as the official parser makes it.
  py::Val Value(size_t i, py::JsonToVal* json) const {
    if (records_ != nullptr) return py::FromJson((*records_)[i].value);
    const Line& l = lines_[i];
    std::string_view value_json(text_.data() + l.text, l.value_len);
    if (format_ == mllog::Format::kMll) return Parse(value_json, json);
    std::string_view metadata_json(text_.data() + l.text + l.value_len, l.metadata_len);
    py::Val v = py::Val::NewDict();
    v.dict().Set(json->Intern("value"), Parse(value_json, json));
    v.dict().Set(json->Intern("metadata"), Parse(metadata_json, json));
    return v;
  }

 private:
  struct Line {
    double timestamp = 0;
    uint32_t key = 0;
    int64_t index = 0;
    int64_t file_line = 0;
    size_t text = 0;  // offset of the value's JSON text in text_, then the metadata's
    size_t value_len = 0;
    size_t metadata_len = 0;
  };

  uint32_t KeyId(std::string_view key) {
    auto it = key_ids_.find(key);
    if (it != key_ids_.end()) return it->second;
    auto id = static_cast<uint32_t>(key_names_.size());
    key_names_.emplace_back(key);
    key_ids_.emplace(key_names_.back(), id);
    return id;
  }

  // REQUIRES: `text` was validated by the reader.
  static py::Val Parse(std::string_view text, py::JsonToVal* json) {
    py::Val v;
    std::string error;
    bool ok = json->Parse(text, &v, &error);
    assert(ok && "the log reader validated this JSON text");
    (void)ok;
    return v;
  }

  const std::vector<mllog::Record>* records_ = nullptr;
  mllog::Format format_ = mllog::Format::kMll;
  std::vector<Line> lines_;
  std::string text_;
  std::deque<std::string> key_names_;  // stable: key_ids_ views them
  std::unordered_map<std::string_view, uint32_t> key_ids_;
};

// One log against the rule files: the state of one CheckRecords call.
class LogRun {
 public:
  LogRun(RuleSet* rules, const CheckOptions& opt, const LogData& lines, std::string name)
      : rules_(rules), opt_(opt), lines_(lines), name_(std::move(name)), cache_(lines.size()),
        key_vals_(lines.num_keys()), empty_str_(py::Val::Str("")) {}
  LogRun(const LogRun&) = delete;
  LogRun& operator=(const LogRun&) = delete;
  // Every value of this log dies here, so cycles made by rule code are broken.
  ~LogRun() {
    if (!may_have_cycles_) return;
    roots_.insert(roots_.end(), cache_.begin(), cache_.end());
    roots_.push_back(loglines_);
    py::BreakCycles(roots_);
  }

  void Run(const std::vector<mllog::LineError>& parse_errors, CheckResult* result) {
    if (!parse_errors.empty()) {
      const mllog::LineError& first = parse_errors.front();
      messages_.Put("",
                    "Log lines had parsing errors.\n  " + std::to_string(parse_errors.size()) +
                        " line(s) with the log token could not be parsed; the first, line " +
                        std::to_string(first.file_line) + ": " + first.message,
                    first.file_line);
    }
    if (lines_.size() == 0) messages_.Put("", "No log lines detected");
    queue_.push_back(opt_.config);
    while (!queue_.empty() && !crashed_) {
      std::string path = queue_.front();
      queue_.pop_front();
      RunFile(path);
    }
    messages_.Fill(result);
    result->printed = std::move(printed_);
  }

 private:
  // The line object of record i, made once per log (rule code may mutate it,
  // and later files see the mutation, as in the official checker).
  Val LineAt(size_t i) {
    if (cache_[i].is_none()) {
      auto l = std::make_shared<py::LineObj>();
      l->full_string = empty_str_;
      l->timestamp = Val::Float(lines_.timestamp(i));
      l->key = KeyVal(lines_.key_id(i));
      l->value = lines_.Value(i, &json_);
      l->lineno = Val::Int(lines_.index(i));
      l->file_line = lines_.file_line(i);
      cache_[i] = Val::FromObject(py::Kind::kLine, std::move(l));
    }
    return cache_[i];
  }

  // The str value of a key, shared by the lines of that key.
  const Val& KeyVal(uint32_t id) {
    if (key_vals_[id].is_none()) key_vals_[id] = json_.Intern(lines_.key_name(id));
    return key_vals_[id];
  }

  Val LogLines() {
    if (loglines_.is_none()) {
      std::vector<Val> items;
      items.reserve(lines_.size());
      for (size_t i = 0; i < lines_.size(); ++i) items.push_back(LineAt(i));
      loglines_ = Val::NewList(std::move(items));
    }
    return loglines_;
  }

  void Crash(std::string text, int64_t line = 0) {
    messages_.Put("", std::move(text), line);
    crashed_ = true;
  }

  std::string Where(const RuleFile& f, const Code& c) const { return rules_->source().Describe(f.path) + ":" + std::to_string(c.line); }

  std::string LineDetails(const py::LineObj& l) const {
    return "\n  log: " + name_ + ":" + std::to_string(l.file_line) + ": " + Truncate(FullString(l, opt_.format));
  }

  void RunFile(const std::string& path) {
    auto loaded = rules_->Load(path);
    if (!loaded.ok()) {
      const Status& st = loaded.status();
      if (st.code() == Status::Code::kNotFound) {
        Crash(st.message().rfind("Could not find config file", 0) == 0 ? st.message()
                                                                      : "Could not find config file: " + st.message());
      } else {
        Crash("Could not load rule file " + path + ": " + st.message());
      }
      return;
    }
    const RuleFile& file = **loaded;
    py::Interpreter interp(py::Host{
        [this](const std::string& p) { queue_.push_back(p); },
        [this](const std::string& s) {
          if (printed_.size() < (1u << 20)) printed_ += s;
        }});
    struct KeepGlobals {
      py::Interpreter& in;
      std::vector<Val>& roots;
      bool& cycles;
      ~KeepGlobals() {
        if (!in.may_have_cycles()) return;
        cycles = true;
        auto g = in.Globals();
        roots.insert(roots.end(), g.begin(), g.end());
      }
    } keep{interp, roots_, may_have_cycles_};
    Val s = Val::NewDict();
    interp.SetGlobal("s", s);
    interp.SetGlobal("enqueue_config", Val::Of(py::Builtin::kEnqueueConfig));
    interp.SetGlobal("is_integer", Val::Of(py::Builtin::kIsInteger));
    interp.SetGlobal("math", Val::Of(py::Module::kMath));
    if (file.uses_loglines) interp.SetGlobal("loglines", LogLines());

    if (file.begin) {
      Status st = interp.Exec(*file.begin->program);
      if (!st.ok()) {
        Crash("Failed executing BEGIN code of " + Where(file, *file.begin) + ": " + st.message());
        return;
      }
    }
    for (const auto& k : file.keys) messages_.Drop(k.name);

    const size_t nkeys = file.keys.size();
    std::vector<std::vector<Val>> reported(nkeys);
    std::vector<int64_t> second_line(nkeys, 0);  // the file line of a key's second occurrence
    std::vector<int64_t> atleast_hits(nkeys, -1);  // -1: key never seen with an ATLEAST_ONE_CHECK

    Val* v_slot = nullptr;   // the globals v and ll
    Val* ll_slot = nullptr;
    // `known_ki`: the rule index of the line's key when the caller knows it, else -1.
    auto process = [&](const Val& line_val, int64_t known_ki) {
      if (line_val.kind() != py::Kind::kLine) return;
      py::LineObj& line = line_val.line();
      if (line.key.kind() != py::Kind::kStr) return;
      size_t ki = 0;
      if (known_ki >= 0) {
        ki = static_cast<size_t>(known_ki);
      } else {
        auto it = file.by_name.find(line.key.str());
        if (it == file.by_name.end()) return;
        ki = it->second;
      }
      if (line.value.kind() != py::Kind::kDict) return;
      Val* payload = line.value.dict().FindStr("value");
      if (payload == nullptr) return;
      const KeyRule& rule = file.keys[ki];
      bool first = reported[ki].empty();
      reported[ki].push_back(*payload);
      if (reported[ki].size() == 2) second_line[ki] = line.file_line;
      if (!first && rule.name.find("submission_") != std::string::npos) return;

      if (v_slot == nullptr) {  // made at the first line, as SetGlobal would
        v_slot = interp.GlobalSlot("v");
        ll_slot = interp.GlobalSlot("ll");
      }
      *v_slot = line.value;
      *ll_slot = line_val;
      const std::string& key = rule.name;
      if (rule.pre) RunExec(interp, file, *rule.pre, "PRE", line_val);
      if (first && rule.first_check) RunCheck(interp, file, *rule.first_check, line_val, key);
      for (const auto& c : rule.checks) RunCheck(interp, file, c, line_val, key);
      if (rule.post) RunExec(interp, file, *rule.post, "POST", line_val);
      if (rule.atleast_one_check) {
        if (atleast_hits[ki] < 0) atleast_hits[ki] = 0;
        auto ok = interp.EvalTruth(*rule.atleast_one_check->program);
        if (!ok.ok()) {
          Crash("Failed executing ATLEAST_ONE_CHECK for '" + key + "' in line " + py::Str(line.lineno) +
                    ": " + ok.status().message() + "\n  rule: " + Where(file, *rule.atleast_one_check) + ": " +
                    rule.atleast_one_check->source + LineDetails(line),
                line.file_line);
          return;
        }
        if (*ok) ++atleast_hits[ki];
      }
    };

    if (!loglines_.is_none()) {
      for (size_t i = 0; i < loglines_.list().size() && !crashed_; ++i) process(loglines_.list()[i], -1);
    } else {
      // This file's rule index of each key of the log (-1: no KEY record).
      std::vector<int64_t> rule_of_key(lines_.num_keys(), -1);
      for (uint32_t id = 0; id < lines_.num_keys(); ++id) {
        auto it = file.by_name.find(lines_.key_name(id));
        if (it != file.by_name.end()) rule_of_key[id] = static_cast<int64_t>(it->second);
      }
      for (size_t i = 0; i < lines_.size() && !crashed_; ++i) {
        // Lines of keys this file has no record for are skipped without building a line object.
        const uint32_t id = lines_.key_id(i);
        if (rule_of_key[id] < 0) continue;
        Val line = LineAt(i);
        // Rule code of an earlier file may have changed ll.key: then look the key up again.
        bool same_key = line.line().key.identity() == key_vals_[id].identity();
        process(line, same_key ? rule_of_key[id] : -1);
      }
    }
    if (crashed_) return;

    for (size_t ki = 0; ki < nkeys; ++ki) {
      if (atleast_hits[ki] == 0) {
        messages_.Put("", "Failed checks for " + file.keys[ki].name + " : " + file.keys[ki].atleast_one_check->source +
                              "\n  rule: " + Where(file, *file.keys[ki].atleast_one_check) +
                              "\n  no line of this key satisfied it");
      }
    }

    std::vector<std::vector<std::string>> alternatives;
    for (size_t ki = 0; ki < nkeys; ++ki) {
      const KeyRule& rule = file.keys[ki];
      const auto& values = reported[ki];
      const std::string count = std::to_string(values.size());
      switch (rule.req) {
        case Req::kExactlyOne:
          if (values.size() != 1) {
            bool all_same = !values.empty();
            try {
              for (size_t i = 1; i < values.size() && all_same; ++i) {
                all_same = (values[i].identity() != nullptr && values[i].identity() == values[0].identity()) ||
                           py::Equal(values[i], values[0]);
              }
            } catch (const py::PyError&) {
              all_same = false;  // values made recursive by rule code: Python would raise here too
            }
            std::string msg = "Required EXACTLY_ONE occurrence of '" + rule.name + "' but found " + count;
            if (all_same) {
              messages_.Warn(rule.name, msg, opt_.werror, second_line[ki]);
            } else {
              if (!values.empty()) msg += " with values " + Truncate(py::Repr(Val::NewList(values)));
              messages_.Put(rule.name, msg, second_line[ki]);
            }
          }
          break;
        case Req::kAtLeastOne:
          if (values.empty()) messages_.Put(rule.name, "Required AT_LEAST_ONE occurrence of '" + rule.name + "' but found 0");
          break;
        case Req::kAtLeastN:
          if (static_cast<int64_t>(values.size()) < rule.at_least_n) {
            messages_.Put(rule.name, "Required AT_LEAST(" + std::to_string(rule.at_least_n) + ") occurrence of '" +
                                         rule.name + "' but found " + count);
          }
          break;
        case Req::kAtLeastOneOr: {
          std::vector<std::string> alts = rule.alternatives;
          alts.push_back(rule.name);
          std::sort(alts.begin(), alts.end());
          alts.erase(std::unique(alts.begin(), alts.end()), alts.end());
          if (std::find(alternatives.begin(), alternatives.end(), alts) == alternatives.end()) alternatives.push_back(alts);
          break;
        }
        default: break;
      }
    }
    for (const auto& alts : alternatives) {
      bool any = false;
      std::string names;
      for (const auto& a : alts) {
        auto it = file.by_name.find(a);
        if (it == file.by_name.end()) {
          Crash("REQ AT_LEAST_ONE_OR names '" + a + "', which has no KEY record in " + Where(file, Code{}) +
                " (the official checker fails with KeyError here)");
          return;
        }
        any |= !reported[it->second].empty();
        names += (names.empty() ? "'" : ", '") + a + "'";
      }
      if (!any) messages_.Put("", "Required AT_LEAST_ONE occurrence of (" + names + ")");
    }

    if (file.has_end) {
      if (file.end_pre) {
        Status st = interp.Exec(*file.end_pre->program);
        if (!st.ok()) {
          Crash("Failed executing END PRE code of " + Where(file, *file.end_pre) + ": " + st.message());
          return;
        }
      }
      for (const auto& c : file.end_checks) {
        auto ok = interp.EvalTruth(*c.program);
        if (!ok.ok()) {
          Crash("Failed executing END CHECK code of " + Where(file, c) + ": " + ok.status().message());
          return;
        }
        if (!*ok) {
          messages_.Put("", "Failed executing END CHECK with \n s=" + Truncate(py::Repr(s)) + "\n  rule: " +
                                Where(file, c) + ": " + c.source);
        }
      }
    }
  }

  void RunExec(py::Interpreter& interp, const RuleFile& file, const Code& code, const char* what, const Val& line_val) {
    Status st = interp.Exec(*code.program);
    if (st.ok()) return;
    messages_.PutLazy(
        line_val.line().key.str(),
        [this, &file, &code, what, line_val, error = st.message()] {
          return std::string("Failed executing ") + what + " code triggered by line :" + LineDetails(line_val.line()) +
                 "\n  rule: " + Where(file, code) + ": " + code.source + "\n  error: " + error;
        },
        line_val.line().file_line);
  }

  void RunCheck(py::Interpreter& interp, const RuleFile& file, const Code& code, const Val& line_val,
                const std::string& key) {
    auto ok = interp.EvalTruth(*code.program);
    if (ok.ok() && *ok) return;
    std::string error = ok.ok() ? "" : ok.status().message();
    messages_.PutLazy(key, [this, &file, &code, line_val, key, error] {
      const py::LineObj& line = line_val.line();
      std::string details = LineDetails(line) + "\n  rule: " + Where(file, code) + ": " + code.source +
                            "\n  v = " + Truncate(py::Repr(line.value));
      if (!error.empty()) return "Failed executing CHECK code:" + details + "\n  error: " + error;
      return "CHECK for '" + key + "' failed in line " + py::Str(line.lineno) + ":" + details;
    }, line_val.line().file_line);
  }

  RuleSet* rules_;
  const CheckOptions& opt_;
  const LogData& lines_;
  std::string name_;
  std::vector<Val> cache_;
  py::JsonToVal json_;         // builds the values of this log's lines
  std::vector<Val> key_vals_;  // per key id: the shared str value of the key
  Val empty_str_;              // ll.full_string of every line
  Val loglines_;
  std::vector<Val> roots_;  // globals of finished files that may hold cycles
  bool may_have_cycles_ = false;
  std::deque<std::string> queue_;
  Messages messages_;
  bool crashed_ = false;
  std::string printed_;
};

}  // namespace

CheckResult Checker::CheckRecords(const std::vector<mllog::Record>& records,
                                  const std::vector<mllog::LineError>& parse_errors, std::string log_name) const {
  CheckResult result;
  result.log = log_name;
  result.lines = static_cast<int64_t>(records.size());
  LogData lines(records);
  LogRun run(rules_.get(), options_, lines, std::move(log_name));
  run.Run(parse_errors, &result);
  return result;
}

Result<CheckResult> Checker::CheckFile(const std::filesystem::path& path) const {
  PODBENCH_ASSIGN_OR_RETURN(auto reader, mllog::LogReader::Open(path, options_.format));
  LogData lines(options_.format);
  mllog::RawRecord raw;
  while (reader->NextRaw(&raw)) lines.Add(raw);
  PODBENCH_RETURN_IF_ERROR(reader->status());
  CheckResult result;
  result.log = path.string();
  result.lines = static_cast<int64_t>(lines.size());
  {
    LogRun run(rules_.get(), options_, lines, path.string());
    run.Run(reader->errors(), &result);
  }
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  result.bytes = ec ? 0 : static_cast<int64_t>(size);
  return result;
}

CheckResult Checker::CheckText(std::string text, std::string log_name) const {
  const auto bytes = static_cast<int64_t>(text.size());
  auto reader = mllog::LogReader::FromString(std::move(text), options_.format, log_name);
  LogData lines(options_.format);
  mllog::RawRecord raw;
  while (reader->NextRaw(&raw)) lines.Add(raw);
  CheckResult result;
  result.log = log_name;
  result.lines = static_cast<int64_t>(lines.size());
  {
    LogRun run(rules_.get(), options_, lines, log_name);
    run.Run(reader->errors(), &result);
  }
  result.bytes = bytes;
  return result;
}

}  // namespace podbench::rules
