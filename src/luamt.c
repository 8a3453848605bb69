/* luamt.c: the mindtorch shell and script runner.
 *
 *   luamt [options] [script [args]]      (luamt --help lists the options)
 *
 * The interactive loop is here (readline, history, multi-line chunks, Ctrl-C); how results
 * print, what <TAB> offers and what help() says is lua/mindtorch/repl.lua and help.lua.
 *
 * It behaves like lua5.4 (arg, exit status, os.exit, Ctrl-C interrupting a running chunk with
 * an "interrupted!" error) with mindtorch on the module path (found next to the executable,
 * in the build tree or an installed prefix) and the global `torch` preloaded.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <errno.h>
#include <limits.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <signal.h>
#include <sys/select.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mindtorch.h"

static const char *progname = "luamt";
enum { HISTORY_LINES = 1000 };

static void message(const char *msg) {
    fprintf(stderr, "%s: %s\n", progname, msg);
    fflush(stderr);
}

static int report(lua_State *L, int status) {
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        message(msg ? msg : "(error object is not a string)");
        lua_pop(L, 1);
    }
    return status;
}

static int traceback(lua_State *L) {
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* ---- Ctrl-C while Lua runs --------------------------------------------------------------------
 * As lua5.4 does: while a chunk runs, SIGINT's handler sets a hook on the running state, and
 * the hook (called by Lua at its next instruction, where raising an error is safe) raises
 * "interrupted!". A C function already running (a long tensor op) finishes first. In a script
 * a second Ctrl-C before the hook runs ends the process (SIGINT's default action, as lua5.4).
 * The interactive shell keeps its handler, so Ctrl-C does not end it; only when Ctrl-C has
 * gone unanswered UNANSWERED_LIMIT times (a long C call, a loop inside a coroutine: the hook
 * is on the main thread) does the next one end luamt, after a warning. */
static lua_State *running_L;
static bool keep_handler; /* the interactive shell: Ctrl-C interrupts, does not exit */
static volatile sig_atomic_t unanswered;
enum { UNANSWERED_LIMIT = 3 };

static void interrupt_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    unanswered = 0;
    luaL_error(L, "interrupted!");
}

static void on_sigint(int sig) {
    if (!keep_handler) {
        signal(sig, SIG_DFL); /* the next one ends the process */
    } else if (lua_gethook(running_L) == interrupt_hook && ++unanswered >= UNANSWERED_LIMIT) {
        static const char note[] = "\n(still running: C code or a coroutine does not see Ctrl-C; "
                                   "one more Ctrl-C ends luamt)\n";
        ssize_t w = write(STDERR_FILENO, note, sizeof note - 1);
        (void)w;
        signal(sig, SIG_DFL);
    }
    lua_sethook(running_L, interrupt_hook,
                LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

static int docall(lua_State *L, int narg, int nres) {
    int base = lua_gettop(L) - narg;
    lua_pushcfunction(L, traceback);
    lua_insert(L, base);
    running_L = L;
    struct sigaction sa, prev;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &prev);
    unanswered = 0;
    int status = lua_pcall(L, narg, nres, base);
    sigaction(SIGINT, &prev, NULL);
    /* a Ctrl-C that came as the chunk ended leaves its hook: it must not fire later */
    if (lua_gethook(L) == interrupt_hook) lua_sethook(L, NULL, 0, 0);
    lua_remove(L, base);
    return status;
}

/* package.path/cpath: the mindtorch tree next to this executable comes first */
static void set_paths(lua_State *L) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return;
    *slash = 0;
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    lua_pushfstring(L,
                    "%s/share/lua/5.4/?.lua;%s/share/lua/5.4/?/init.lua;"
                    "%s/../share/lua/5.4/?.lua;%s/../share/lua/5.4/?/init.lua;%s",
                    exe, exe, exe, exe, lua_tostring(L, -1));
    lua_setfield(L, -3, "path");
    lua_pop(L, 1);
    lua_getfield(L, -1, "cpath");
    lua_pushfstring(L, "%s/lib/lua/5.4/?.so;%s/../lib/lua/5.4/?.so;%s", exe, exe,
                    lua_tostring(L, -1));
    lua_setfield(L, -3, "cpath");
    lua_pop(L, 2);
}

static int dorequire(lua_State *L, const char *name, const char *global) {
    lua_getglobal(L, "require");
    lua_pushstring(L, name);
    int status = docall(L, 1, 1);
    if (status == LUA_OK) lua_setglobal(L, global);
    return report(L, status);
}

static void create_arg_table(lua_State *L, char **argv, int argc, int script) {
    int narg = argc - (script + 1);
    lua_createtable(L, narg, script + 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - script);
    }
    lua_setglobal(L, "arg");
}

static int run_script(lua_State *L, const char *fname, char **argv, int argc, int script) {
    if (fname && strcmp(fname, "-") == 0) fname = NULL;
    int status = luaL_loadfile(L, fname);
    if (status == LUA_OK) {
        int n = argc - script - 1;
        luaL_checkstack(L, n + 3, "too many arguments to script");
        for (int i = 1; i <= n; i++) lua_pushstring(L, argv[script + i]);
        status = docall(L, n, LUA_MULTRET);
    }
    return report(L, status);
}

/* ---- the interactive loop ------------------------------------------------------------------- */

static bool incomplete(lua_State *L, int status) {
    if (status == LUA_ERRSYNTAX) {
        size_t len;
        const char *msg = lua_tolstring(L, -1, &len);
        if (len >= 5 && strcmp(msg + len - 5, "<eof>") == 0) {
            lua_pop(L, 1);
            return true;
        }
    }
    return false;
}

/* The Lua half of the shell (lua/mindtorch/repl.lua): its table sits in the registry under
 * REPL_KEY while the loop runs; without it the shell falls back to print and no completion. */
static const char *REPL_KEY = "luamt.repl";

static bool push_repl_field(lua_State *L, const char *name) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, REPL_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        return false;
    }
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    if (lua_isfunction(L, -1)) return true;
    lua_pop(L, 1);
    return false;
}

static void print_results(lua_State *L, int n) {
    if (n == 0) return;
    if (!push_repl_field(L, "print")) lua_getglobal(L, "print");
    lua_insert(L, -(n + 1));
    report(L, docall(L, n, 0));
}

/* readline's completion: the word (dots and colons included) goes to repl.complete, with the
 * chunk's text before it (so that nothing is offered inside a string or a comment) */
static lua_State *completion_L;
static char **completion_words;
static size_t completion_count, completion_next;
static char *pending_chunk; /* the lines of an unfinished chunk, or NULL */

static void free_completions(void) {
    for (size_t i = completion_next; i < completion_count; i++) free(completion_words[i]);
    free(completion_words);
    completion_words = NULL;
    completion_count = completion_next = 0;
}

static char *completion_generator(const char *text, int state) {
    (void)text;
    if (state == 0) completion_next = 0;
    if (completion_next < completion_count) return completion_words[completion_next++];
    return NULL;
}

static int collect_completions(lua_State *L) {
    const char *word = lua_tostring(L, 1);
    if (!push_repl_field(L, "complete")) return 0;
    lua_pushstring(L, word);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    if (!lua_istable(L, -1)) return 0;
    size_t n = lua_rawlen(L, -1);
    completion_words = calloc(n ? n : 1, sizeof *completion_words);
    if (!completion_words) return 0;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        const char *s = lua_tostring(L, -1);
        if (s && (completion_words[completion_count] = strdup(s))) completion_count++;
        lua_pop(L, 1);
    }
    return 0;
}

static char **complete(const char *text, int start, int end) {
    (void)end;
    rl_attempted_completion_over = 1; /* never fall back to file names */
    free_completions();
    lua_State *L = completion_L;
    int top = lua_gettop(L);
    lua_pushcfunction(L, collect_completions);
    lua_pushstring(L, text);
    if (pending_chunk)
        lua_pushfstring(L, "%s\n", pending_chunk);
    else
        lua_pushliteral(L, "");
    lua_pushlstring(L, rl_line_buffer, start > 0 ? (size_t)start : 0);
    lua_concat(L, 2); /* the chunk up to the word */
    if (lua_pcall(L, 2, 0, 0) != LUA_OK)
        completion_count = 0; /* a failing completer offers nothing */
    lua_settop(L, top);
    if (completion_count == 0) return NULL;
    rl_completion_append_character = '\0'; /* "torch.zeros" may go on with "(" or "_like" */
    char **matches = rl_completion_matches(text, completion_generator);
    free_completions();
    return matches;
}

static void start_repl_module(lua_State *L, bool tty_out) {
    lua_getglobal(L, "require");
    lua_pushliteral(L, "mindtorch.repl");
    if (docall(L, 1, 1) != LUA_OK) {
        report(L, LUA_ERRRUN);
        return;
    }
    /* colours only for a terminal, and never when NO_COLOR is set (no-color.org) */
    const char *no_color = getenv("NO_COLOR");
    lua_pushboolean(L, tty_out && !(no_color && no_color[0]));
    lua_setfield(L, -2, "color");
    /* help(x) at the prompt (torch.help everywhere) */
    lua_getfield(L, -1, "help");
    lua_setglobal(L, "help");
    lua_setfield(L, LUA_REGISTRYINDEX, REPL_KEY);
    completion_L = L;
    rl_attempted_completion_function = complete;
    rl_completer_word_break_characters = " \t\n\"\\'`@$><=;|&{(,+-*/%^~#[]!)}";
    rl_readline_name = "luamt";
}

/* ---- reading lines ---------------------------------------------------------------------------
 * At the prompt, SIGINT only sets a flag. The terminal is read through readline's callback
 * interface, one key at a time, with SIGINT blocked except inside pselect: a Ctrl-C is seen
 * between keys, where dropping the line is safe (readline's own handler is off). */
enum { READ_LINE, READ_EOF, READ_INTERRUPTED };
static volatile sig_atomic_t prompt_interrupted;
static char *accepted_line;
static bool line_accepted;

static void on_prompt_sigint(int sig) {
    (void)sig;
    prompt_interrupted = 1;
}

static void catch_sigint_at_prompt(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prompt_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocking read returns with EINTR */
    sigaction(SIGINT, &sa, NULL);
}

static void on_line(char *line) {
    accepted_line = line;
    line_accepted = true;
    rl_callback_handler_remove();
}

static int tty_read_line(const char *prompt, char **out) {
    sigset_t block, unblocked;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &unblocked);
    sigdelset(&unblocked, SIGINT);
    prompt_interrupted = 0;
    accepted_line = NULL;
    line_accepted = false;
    int fd = fileno(rl_instream ? rl_instream : stdin);
    rl_callback_handler_install(prompt, on_line);
    int result = READ_LINE;
    while (!line_accepted) {
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        int r = pselect(fd + 1, &fds, NULL, NULL, NULL, &unblocked);
        if (prompt_interrupted) {
            /* show "^C" after what was typed, drop it, leave the terminal as it was (which
             * may return to the line's start), go on to a fresh prompt */
            rl_point = rl_end;
            rl_redisplay();
            fputs("^C", rl_outstream ? rl_outstream : stdout);
            fflush(rl_outstream ? rl_outstream : stdout);
            rl_free_line_state();
            rl_callback_sigcleanup();
            rl_callback_handler_remove();
            fputc('\n', stdout);
            fflush(stdout);
            result = READ_INTERRUPTED;
            break;
        }
        if (r < 0) {
            if (errno == EINTR) continue;
            rl_callback_handler_remove();
            result = READ_EOF;
            break;
        }
        rl_callback_read_char();
    }
    sigprocmask(SIG_UNBLOCK, &block, NULL);
    if (result == READ_LINE && !accepted_line) result = READ_EOF; /* Ctrl-D */
    *out = accepted_line;
    return result;
}

static int read_line(const char *prompt, bool tty, char **out) {
    *out = NULL;
    if (tty) return tty_read_line(prompt, out);
    static char buf[65536];
    prompt_interrupted = 0;
    if (!fgets(buf, sizeof buf, stdin)) {
        if (ferror(stdin) && errno == EINTR) {
            clearerr(stdin);
            return READ_INTERRUPTED;
        }
        return READ_EOF;
    }
    size_t l = strlen(buf);
    if (l && buf[l - 1] == '\n') buf[l - 1] = 0;
    *out = strdup(buf);
    return *out ? READ_LINE : READ_EOF;
}

/* ?name: the help for name (help.lua), as help(name) */
static bool help_command(lua_State *L, const char *code) {
    while (*code == ' ' || *code == '\t') code++;
    if (*code != '?') return false;
    code++;
    while (*code == ' ' || *code == '\t') code++;
    size_t len = strlen(code);
    while (len > 0 && (code[len - 1] == ' ' || code[len - 1] == '\t' || code[len - 1] == ';'))
        len--;
    if (!push_repl_field(L, "help")) return false;
    if (len)
        lua_pushlstring(L, code, len);
    else
        lua_pushnil(L);
    report(L, docall(L, 1, 0));
    return true;
}

/* History: a multi-line chunk is one entry. In the file, each entry follows a "#<time>" line
 * (readline's timestamps), which is how readline keeps an entry's lines together. */
static void start_history(const char *histpath) {
    history_comment_char = '#';
    history_write_timestamps = 1;
    history_multiline_entries = 1;
    /* entries are appended as they are entered, so a session ended by os.exit keeps them
     * too; the file keeps the last HISTORY_LINES lines */
    history_truncate_file(histpath, HISTORY_LINES);
    if (read_history(histpath) != 0) write_history(histpath); /* create it */
}

static void set_pending(const char *chunk) {
    free(pending_chunk);
    pending_chunk = chunk ? strdup(chunk) : NULL;
}

static void repl(lua_State *L) {
    bool tty = isatty(0);
    char *line;
    const char *history = getenv("LUAMT_HISTORY");
    char histpath[PATH_MAX] = "";
    if (tty) {
        if (history)
            snprintf(histpath, sizeof histpath, "%s", history);
        else if (getenv("HOME"))
            snprintf(histpath, sizeof histpath, "%s/.luamt_history", getenv("HOME"));
        if (histpath[0]) start_history(histpath);
        rl_catch_signals = 0; /* SIGINT is handled here (tty_read_line) */
    }
    start_repl_module(L, isatty(1));
    struct sigaction saved_sigint;
    sigaction(SIGINT, NULL, &saved_sigint);
    catch_sigint_at_prompt();
    keep_handler = true;
    for (;;) {
        int got = read_line("> ", tty, &line);
        if (got == READ_INTERRUPTED) continue;
        if (got == READ_EOF) break;
        if (help_command(L, line)) {
            if (tty && line[0]) {
                add_history(line);
                if (histpath[0]) append_history(1, histpath);
            }
            free(line);
            continue;
        }
        lua_pushstring(L, line);
        int top = lua_gettop(L);
        for (;;) {
            const char *code = lua_tostring(L, -1);
            size_t len = strlen(code);
            /* a trailing ';' evaluates but does not print */
            bool quiet = len > 0 && code[len - 1] == ';';
            /* an expression first (so "x" prints x), then a statement */
            lua_pushliteral(L, "return ");
            lua_pushlstring(L, code, quiet ? len - 1 : len);
            lua_concat(L, 2);
            const char *ret = lua_tostring(L, -1);
            int status = luaL_loadbuffer(L, ret, strlen(ret), "=stdin");
            lua_remove(L, -2); /* the "return" string */
            if (status != LUA_OK) {
                lua_pop(L, 1);
                status = luaL_loadbuffer(L, code, len, "=stdin");
            }
            if (incomplete(L, status)) {
                free(line);
                set_pending(code);
                got = read_line(">> ", tty, &line);
                set_pending(NULL);
                if (got != READ_LINE) break; /* Ctrl-C or Ctrl-D drops the unfinished chunk */
                lua_pushfstring(L, "%s\n%s", lua_tostring(L, -1), line);
                lua_remove(L, -2);
                continue;
            }
            if (tty && code[0]) {
                add_history(code);
                if (histpath[0]) append_history(1, histpath);
            }
            if (status == LUA_OK) {
                int base = lua_gettop(L);
                status = docall(L, 0, LUA_MULTRET);
                if (status == LUA_OK) {
                    int nres = lua_gettop(L) - base + 1;
                    /* `_`: the last non-nil result, as in Python's shell */
                    if (nres > 0 && !lua_isnil(L, base)) {
                        lua_pushvalue(L, base);
                        lua_setglobal(L, "_");
                    }
                    if (!quiet)
                        print_results(L, nres);
                    else
                        lua_settop(L, base - 1);
                }
            }
            report(L, status);
            break;
        }
        free(line);
        lua_settop(L, top - 1);
    }
    keep_handler = false;
    sigaction(SIGINT, &saved_sigint, NULL);
    if (tty) fputc('\n', stdout);
}

static void print_version(lua_State *L) {
    lua_getglobal(L, "torch");
    lua_getfield(L, -1, "__version__");
    const char *v = lua_tostring(L, -1);
    printf("mindtorch %s, %s", v ? v : MT_VERSION, LUA_RELEASE);
    lua_pop(L, 1);
    lua_getfield(L, -1, "__config__");
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "blas");
        if (lua_isstring(L, -1)) printf(", %s", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    printf("\n");
}

static void print_usage(FILE *out) {
    fprintf(
        out,
        "usage: %s [options] [script [args]]\n"
        "Available options are:\n"
        "  -e stat   execute string 'stat'\n"
        "  -i        enter interactive mode after executing 'script'\n"
        "  -l mod    require library 'mod' into global 'mod'\n"
        "  -l g=mod  require library 'mod' into global 'g'\n"
        "  -v        show version information\n"
        "  -h        show this help (also --help)\n"
        "  --        stop handling options\n"
        "  -         stop handling options and execute stdin\n"
        "With no script and a terminal, %s starts the interactive shell (the global `torch` is\n"
        "mindtorch; help() at its prompt says more; Ctrl-C interrupts, Ctrl-D exits).\n",
        progname, progname);
}

static int usage(const char *bad) {
    fprintf(stderr, "%s: unrecognized option '%s'\n", progname, bad);
    print_usage(stderr);
    return 1;
}

/* -l mod or -l g=mod: require mod into global mod (g) */
static int require_option(lua_State *L, const char *v) {
    const char *eq = strchr(v, '=');
    if (!eq) return dorequire(L, v, v);
    lua_pushlstring(L, v, (size_t)(eq - v));
    int status = dorequire(L, eq + 1, lua_tostring(L, -1));
    lua_pop(L, 1);
    return status;
}

int main(int argc, char **argv) {
    if (argv[0] && argv[0][0]) progname = argv[0];
    lua_State *L = luaL_newstate();
    if (!L) {
        message("cannot create state: not enough memory");
        return 1;
    }
    luaL_openlibs(L);
    set_paths(L);
    if (dorequire(L, "mindtorch", "torch") != LUA_OK) {
        lua_close(L);
        return 1;
    }
    /* first pass over options: find the script */
    int script = 0, interactive = 0, version = 0, has_e = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            script = i;
            break;
        }
        if (strcmp(a, "--") == 0) {
            if (i + 1 < argc) script = i + 1;
            break;
        }
        if (strcmp(a, "-") == 0) {
            script = i;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_usage(stdout);
            lua_close(L);
            return 0;
        }
        if (strcmp(a, "-i") == 0)
            interactive = 1;
        else if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0)
            version = 1;
        else if (strcmp(a, "-e") == 0 || strcmp(a, "-l") == 0) {
            if (strcmp(a, "-e") == 0) has_e = 1;
            if (++i >= argc) {
                lua_close(L);
                return usage(a);
            }
        } else if ((strncmp(a, "-e", 2) == 0) || (strncmp(a, "-l", 2) == 0)) {
            if (a[1] == 'e') has_e = 1;
        } else {
            lua_close(L);
            return usage(a);
        }
    }
    create_arg_table(L, argv, argc, script);
    if (version) print_version(L);
    /* second pass: run -e and -l in order */
    int end = script ? script : argc;
    for (int i = 1; i < end; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && (a[1] == 'e' || a[1] == 'l')) {
            const char *v = a[2] ? a + 2 : argv[++i];
            int status;
            if (a[1] == 'e') {
                status = luaL_loadbuffer(L, v, strlen(v), "=(command line)");
                if (status == LUA_OK) status = docall(L, 0, 0);
                status = report(L, status);
            } else {
                status = require_option(L, v);
            }
            if (status != LUA_OK) {
                lua_close(L);
                return 1;
            }
        }
    }
    int status = LUA_OK;
    if (script) status = run_script(L, argv[script], argv, argc, script);
    if (status == LUA_OK && (interactive || (!script && !has_e && !version))) {
        if (!script && !interactive && !isatty(0))
            status = run_script(L, "-", argv, argc, 0);
        else
            repl(L);
    }
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}
