# __ENVHOOK_HEADER__
#
# tcsh and csh, sourced by conda's conda.csh (which runs only
# activate.d/*.csh there). The same rules as activate.sh: this environment's
# CUDA libraries go first on LD_LIBRARY_PATH; the value before activation
# is saved once (ENVHOOK_STATE_<id>, ENVHOOK_SAVED_<id>) and never
# overwritten by a reactivation; our directories and empty elements are
# removed before prepending, so reactivation never duplicates them; a change
# made while active is kept and becomes what deactivation returns to.
#
# csh expands every variable on a line before it evaluates the line, so a
# variable that may be unset is only expanded inside an `if ( $?var )`
# block of its own. Values are expanded with :q (one word, never globbed or
# expanded again, newlines kept). Builtins only: no process is started.

set _envhook_dirs = __ENVHOOK_DIRS__
set _envhook_active = 0
if ( $?ENVHOOK_STATE___ENVHOOK_ID__ ) then
    if ( ${ENVHOOK_STATE___ENVHOOK_ID__:q} != "" ) set _envhook_active = 1
endif
set _envhook_same = 0
if ( $_envhook_active && $?LD_LIBRARY_PATH && $?ENVHOOK_APPLIED___ENVHOOK_ID__ ) then
    if ( ${LD_LIBRARY_PATH:q} == ${ENVHOOK_APPLIED___ENVHOOK_ID__:q} ) set _envhook_same = 1
endif
# A value holding the strip's sentinel is left exactly as it is.
set _envhook_odd = 0
if ( $?LD_LIBRARY_PATH ) then
    if ( ${LD_LIBRARY_PATH:s#@envhook@end@##:q} != ${LD_LIBRARY_PATH:q} ) set _envhook_odd = 1
endif

if ( ! $_envhook_same && ! $_envhook_odd ) then
    # __ENVHOOK_STRIP__
    if ( $_envhook_active ) then
        # Active already, but changed meanwhile: the change is kept.
        if ( $?LD_LIBRARY_PATH ) then
            setenv ENVHOOK_STATE___ENVHOOK_ID__ set
            setenv ENVHOOK_SAVED___ENVHOOK_ID__ ${_envhook_kept:q}
        else
            setenv ENVHOOK_STATE___ENVHOOK_ID__ unset
            setenv ENVHOOK_SAVED___ENVHOOK_ID__ ""
        endif
    else if ( $?LD_LIBRARY_PATH ) then
        setenv ENVHOOK_STATE___ENVHOOK_ID__ set
        setenv ENVHOOK_SAVED___ENVHOOK_ID__ ${LD_LIBRARY_PATH:q}
    else
        setenv ENVHOOK_STATE___ENVHOOK_ID__ unset
        setenv ENVHOOK_SAVED___ENVHOOK_ID__ ""
    endif
    if ( ${_envhook_kept:q} == "" ) then
        setenv LD_LIBRARY_PATH ${_envhook_dirs:q}
    else
        setenv LD_LIBRARY_PATH ${_envhook_dirs:q}:${_envhook_kept:q}
    endif
    setenv ENVHOOK_APPLIED___ENVHOOK_ID__ ${LD_LIBRARY_PATH:q}
endif

# Staleness: conda and mamba append to conda-meta/history on every
# transaction, and upgrades remove the records this hook was made from.
# tcsh's -M is a file's modification time (a builtin test).
set _envhook_quiet = 0
if ( $?ENVHOOK_QUIET ) then
    if ( ${ENVHOOK_QUIET:q} != "" ) set _envhook_quiet = 1
endif
if ( ! $_envhook_quiet ) then
    set _envhook_stale = 0
    if ( -e __ENVHOOK_HISTORY__ && -e __ENVHOOK_SELF__ ) then
        if ( -M __ENVHOOK_HISTORY__ > -M __ENVHOOK_SELF__ ) set _envhook_stale = 1
    endif
    __ENVHOOK_WATCH_TESTS__
    # (A block, not a one-line `if`: `tcsh -n` mishandles a redirection
    # there, and the tests parse the hooks with it.)
    if ( $_envhook_stale ) then
        echo __ENVHOOK_STALE_MESSAGE__ > /dev/stderr
    endif
endif

unset _envhook_dirs _envhook_active _envhook_same _envhook_odd _envhook_rest _envhook_prev
unset _envhook_kept _envhook_quiet _envhook_stale
