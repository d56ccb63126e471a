// A thin RAII wrapper over the SQLite C API for the results store (private to
// results/). Every error becomes a Status that names the database file and
// the SQLite error, e.g. "IOError: runs.db: database or disk is full
// (SQLITE_FULL) while inserting a run".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <sqlite3.h>

#include "base/status.h"

namespace podbench::results::internal {

class Db;

// One prepared statement. Bind indices are 1-based, as in SQLite.
class Stmt {
 public:
  Stmt(Stmt&& other) noexcept;
  Stmt& operator=(Stmt&&) = delete;
  Stmt(const Stmt&) = delete;
  ~Stmt();

  Stmt& Bind(int i, int64_t v);
  Stmt& Bind(int i, double v);
  Stmt& Bind(int i, std::string_view v);
  Stmt& Bind(int i, const std::optional<double>& v);
  Stmt& BindNull(int i);

  // Advances. Returns true when a row is available, false when done.
  Result<bool> Step();
  // Runs to completion, ignoring rows.
  Status Run();
  // Makes the statement runnable again; bindings are kept until rebound.
  Status Reset();

  int64_t Int(int col) const;
  double Real(int col) const;
  std::optional<double> OptReal(int col) const;
  bool IsNull(int col) const;
  std::string Text(int col) const;
  // The result columns of the statement: how many, and their names.
  int ColumnCount() const;
  std::string ColumnName(int col) const;

 private:
  friend class Db;
  Stmt(Db* db, sqlite3_stmt* s, std::string what) : db_(db), stmt_(s), what_(std::move(what)) {}
  Db* db_;
  sqlite3_stmt* stmt_;
  std::string what_;
};

class Db {
 public:
  // Opens (creating if needed) `path`. `vfs` empty means SQLite's default VFS.
  static Result<std::unique_ptr<Db>> Open(const std::string& path, const std::string& vfs,
                                          int busy_timeout_ms);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // `what` describes the operation for error messages ("inserting a run").
  Result<Stmt> Prepare(std::string_view sql, std::string what);
  Status Exec(std::string_view sql, std::string_view what);

  // BEGIN IMMEDIATE (takes the write lock up front, so two writers never
  // deadlock upgrading read locks), COMMIT, and a ROLLBACK that is a no-op
  // when SQLite already rolled back.
  Status Begin(std::string_view what);
  Status Commit(std::string_view what);
  void RollbackQuietly();

  int64_t LastInsertId() const;
  const std::string& path() const { return path_; }
  sqlite3* raw() { return db_; }

  // A Status of the right code for SQLite result `rc`, naming the file.
  Status Error(int rc, std::string_view what) const;

 private:
  Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// Runs `body` inside BEGIN IMMEDIATE ... COMMIT; rolls back when it fails.
template <typename F>
Status InTransaction(Db& db, std::string_view what, F&& body) {
  PODBENCH_RETURN_IF_ERROR(db.Begin(what));
  Status st = body();
  if (st.ok()) st = db.Commit(what);
  if (!st.ok()) db.RollbackQuietly();
  return st;
}

}  // namespace podbench::results::internal
