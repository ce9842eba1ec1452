#ifndef CADMIUM_CZLIB_SHIM_H
#define CADMIUM_CZLIB_SHIM_H
#include <zlib.h>
#endif
