#include "results/sqlite_db.h"

#include <memory>
#include <utility>

namespace podbench::results::internal {

namespace {
const char* CodeName(int rc) {
  switch (rc & 0xff) {
    case SQLITE_FULL: return "SQLITE_FULL";
    case SQLITE_IOERR: return "SQLITE_IOERR";
    case SQLITE_BUSY: return "SQLITE_BUSY";
    case SQLITE_LOCKED: return "SQLITE_LOCKED";
    case SQLITE_CORRUPT: return "SQLITE_CORRUPT";
    case SQLITE_NOTADB: return "SQLITE_NOTADB";
    case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN";
    case SQLITE_READONLY: return "SQLITE_READONLY";
    case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT";
    case SQLITE_PERM: return "SQLITE_PERM";
    default: return "SQLITE_ERROR";
  }
}
}  // namespace

Status Db::Error(int rc, std::string_view what) const {
  std::string detail = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  std::string msg = path_ + ": " + detail + " (" + CodeName(rc) + ") while " + std::string(what);
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return Status::Corruption(msg);
    case SQLITE_CONSTRAINT:
    case SQLITE_ERROR: return Status::Internal(msg);
    default: return Status::IOError(msg);
  }
}

Result<std::unique_ptr<Db>> Db::Open(const std::string& path, const std::string& vfs,
                                     int busy_timeout_ms) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           vfs.empty() ? nullptr : vfs.c_str());
  std::unique_ptr<Db> db(new Db(raw, path));
  if (rc != SQLITE_OK) return db->Error(rc, "opening the results database");
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  return db;
}

Db::~Db() { sqlite3_close_v2(db_); }

Result<Stmt> Db::Prepare(std::string_view sql, std::string what) {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr);
  if (rc != SQLITE_OK) return Error(rc, what);
  return Stmt(this, s, std::move(what));
}

Status Db::Exec(std::string_view sql, std::string_view what) {
  std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, what);
  return Status::Ok();
}

Status Db::Begin(std::string_view what) { return Exec("BEGIN IMMEDIATE", what); }
Status Db::Commit(std::string_view what) { return Exec("COMMIT", what); }
void Db::RollbackQuietly() {
  if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}
int64_t Db::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }

Stmt::Stmt(Stmt&& o) noexcept : db_(o.db_), stmt_(o.stmt_), what_(std::move(o.what_)) {
  o.stmt_ = nullptr;
}
Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt& Stmt::Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); return *this; }
Stmt& Stmt::Bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); return *this; }
Stmt& Stmt::Bind(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::Bind(int i, const std::optional<double>& v) {
  return v ? Bind(i, *v) : BindNull(i);
}
Stmt& Stmt::BindNull(int i) { sqlite3_bind_null(stmt_, i); return *this; }

Result<bool> Stmt::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, what_);
}

Status Stmt::Run() {
  for (;;) {
    PODBENCH_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::Ok();
  }
}

Status Stmt::Reset() {
  sqlite3_reset(stmt_);
  return Status::Ok();
}

int64_t Stmt::Int(int col) const { return sqlite3_column_int64(stmt_, col); }
double Stmt::Real(int col) const { return sqlite3_column_double(stmt_, col); }
bool Stmt::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
std::optional<double> Stmt::OptReal(int col) const {
  if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(stmt_, col);
}
std::string Stmt::Text(int col) const {
  const unsigned char* t = sqlite3_column_text(stmt_, col);
  if (t == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(t),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

int Stmt::ColumnCount() const { return sqlite3_column_count(stmt_); }
std::string Stmt::ColumnName(int col) const {
  const char* n = sqlite3_column_name(stmt_, col);
  return n == nullptr ? std::string() : std::string(n);
}

}  // namespace podbench::results::internal
