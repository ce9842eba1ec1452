// SQLite's C API for the benchmark's raw-SQLite peer (Debian's libsqlite3-dev).
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline void (*cadmium_sqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
static inline void (*cadmium_sqlite_static(void))(void *) { return SQLITE_STATIC; }
