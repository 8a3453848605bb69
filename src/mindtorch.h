/* mindtorch.h: the public C API of mindtorch, for programs that embed Lua.
 *
 * Link with -lmindtorch -llua5.4. Every function returns 0 (or a valid pointer) on success
 * and -1 (or NULL) on failure, with a message available from mt_error_msg(); nothing here
 * aborts the process.
 */
#ifndef MINDTORCH_H
#define MINDTORCH_H

#include <lua.h>

#include "mt_common.h"

#define MT_VERSION "0.1.0"

/* Open the binding in L and leave the core module table on the stack (luaopen style).
 * Most programs instead run `require "mindtorch"` with the paths set up. */
MT_API int mt_lua_open(lua_State *L);

#endif
