// SQLite's C API (Debian's libsqlite3-dev), for the Core Data importer and the benchmarks'
// raw-SQLite peer.
#ifndef CADMIUM_CSQLITE_SHIM_H
#define CADMIUM_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline void (*cadmium_sqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
static inline void (*cadmium_sqlite_static(void))(void *) { return SQLITE_STATIC; }
#endif
