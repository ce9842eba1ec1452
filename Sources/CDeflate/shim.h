#ifndef CADMIUM_CDEFLATE_SHIM_H
#define CADMIUM_CDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
