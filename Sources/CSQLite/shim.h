#ifndef CADMIUM_CSQLITE_SHIM_H
#define CADMIUM_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
