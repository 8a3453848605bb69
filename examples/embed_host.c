/* embed_host.c: a C program that embeds Lua and mindtorch (the embedding API of mindtorch.h).
 *
 *   embed_host MODEL.lua [horizontal|vertical|cross]
 *
 * It draws a 28x28 8-bit image in its own buffer, runs the Lua model script (which returns a
 * table with predict(image)), hands the buffer to predict as a tensor without copying it,
 * and reads the prediction back: the class name and the probabilities, read from C through
 * mt_get_tensor_info. Exit status 0 when the model names the drawn shape, 2 when it does not,
 * 1 on any error (each reported with its message). Build: make examples.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mindtorch.h"

enum { SIZE = 28 };

/* a bar four pixels wide at row/column `at`, on a faint deterministic background */
static void draw(unsigned char *img, const char *shape, int at) {
    unsigned state = 12345;
    for (int i = 0; i < SIZE * SIZE; i++) {
        state = state * 1103515245u + 12345u;
        img[i] = (unsigned char)((state >> 16) % 70);
    }
    bool rows = strcmp(shape, "vertical") != 0, cols = strcmp(shape, "horizontal") != 0;
    for (int r = 0; r < SIZE; r++)
        for (int c = 0; c < SIZE; c++)
            if ((rows && r >= at && r < at + 4) || (cols && c >= at && c < at + 4))
                img[r * SIZE + c] = 255;
}

static int released;

/* called by mindtorch when the last tensor over the buffer is gone */
static void release_image(void *data, void *ctx) {
    (void)ctx;
    free(data);
    released++;
}

static int fail_lua(lua_State *L, const char *what) {
    fprintf(stderr, "embed_host: %s: %s\n", what, lua_tostring(L, -1));
    lua_close(L);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL.lua [horizontal|vertical|cross]\n", argv[0]);
        return 1;
    }
    const char *shape = argc > 2 ? argv[2] : "vertical";
    if (strcmp(shape, "horizontal") && strcmp(shape, "vertical") && strcmp(shape, "cross")) {
        fprintf(stderr, "embed_host: unknown shape '%s'\n", shape);
        return 1;
    }

    lua_State *L = luaL_newstate();
    if (!L) return 1;
    luaL_openlibs(L);
    if (mt_open(L) != 0) {
        fprintf(stderr, "embed_host: %s\n", mt_error_msg());
        lua_close(L);
        return 1;
    }
    /* the model script returns its table (training happens while it loads) */
    if (luaL_dofile(L, argv[1]) != LUA_OK) return fail_lua(L, "loading the model");
    if (!lua_istable(L, -1)) {
        lua_pushstring(L, "the script must return a table with predict(image)");
        return fail_lua(L, argv[1]);
    }
    lua_getfield(L, -1, "predict");

    unsigned char *pixels = malloc(SIZE * SIZE);
    if (!pixels) return 1;
    draw(pixels, shape, 11);
    int64_t sizes[2] = {SIZE, SIZE};
    if (mt_push_tensor_from_buffer(L, pixels, MT_UINT8, 2, sizes, NULL, release_image, NULL) != 0) {
        fprintf(stderr, "embed_host: %s\n", mt_error_msg());
        free(pixels); /* not handed over: still ours */
        lua_close(L);
        return 1;
    }
    if (lua_pcall(L, 1, 2, 0) != LUA_OK) return fail_lua(L, "predict");

    const char *label = lua_tostring(L, -2);
    mt_tensor_info probs;
    if (!label || mt_get_tensor_info(L, -1, &probs) != 0 || probs.dtype != MT_FLOAT32 ||
        probs.ndim != 1) {
        fprintf(stderr,
                "embed_host: predict must return a class name and a 1-D float32 tensor (%s)\n",
                mt_error_msg());
        lua_close(L);
        return 1;
    }
    printf("drawn: %s\npredicted: %s\nprobabilities:", shape, label);
    for (int64_t i = 0; i < probs.sizes[0]; i++)
        printf(" %.4f", (double)((const float *)probs.data)[i * probs.strides[0]]);
    printf("\n");
    int correct = strcmp(label, shape) == 0;
    lua_close(L); /* the image tensor goes, and with it our buffer */
    printf("buffer released: %s\n", released == 1 ? "yes" : "no");
    return released == 1 ? (correct ? 0 : 2) : 1;
}
