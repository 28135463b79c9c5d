// libedit (Debian: libedit-dev), through its readline interface: line editing,
// history and completion for tactus jack's prompt on a terminal.
#include <stdio.h>
#include <editline/readline.h>

// Swift 6 cannot assign C globals (shared mutable state); these do it in C.
static inline void tactus_editline_configure(const char *name, rl_completion_func_t *complete) {
    rl_readline_name = name;
    rl_attempted_completion_function = complete;
}
