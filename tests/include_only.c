/* A unit that includes tk and calls nothing, compiled at -O0 (tests/CMakeLists.txt): check_o0.sh
 * finds none of tk's functions or objects in it. gcc at -O0 emits every static function and object
 * of a unit, used or not; tk's out-of-line functions are static inline there (TKI_STATIC,
 * tk/internal.h) and its objects statics of inline functions, so that none is emitted where nothing
 * calls it (before:
 * 17 MB of code and a 4 MB workspace for spr, 34 s of compile). */
#include "tk/gemm.h"
int tkt_include_only(void);
int tkt_include_only(void) { return TK_OK; }
