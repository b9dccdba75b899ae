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

# __ENVHOOK_KEY__
set _envhook_active = 0
if ( ${_envhook_state:q} != "" ) set _envhook_active = 1
set _envhook_same = 0
if ( $_envhook_active && $?LD_LIBRARY_PATH ) then
    if ( ${LD_LIBRARY_PATH:q} == ${_envhook_applied:q} ) set _envhook_same = 1
endif
# A value holding the strip's sentinel is left exactly as it is.
set _envhook_odd = 0
if ( $?LD_LIBRARY_PATH ) then
    if ( ${LD_LIBRARY_PATH:s#@envhook@end@##:q} != ${LD_LIBRARY_PATH:q} ) set _envhook_odd = 1
endif

if ( ! $_envhook_foreign && ! $_envhook_hold && ! $_envhook_same && ! $_envhook_odd ) then
    # __ENVHOOK_STRIP__
    if ( $_envhook_active ) then
        # Active already, but changed meanwhile: the change is kept.
        if ( $?LD_LIBRARY_PATH ) then
            set _envhook_state = set
            set _envhook_saved = ${_envhook_kept:q}
        else
            set _envhook_state = unset
            set _envhook_saved = ""
        endif
    else if ( $?LD_LIBRARY_PATH ) then
        set _envhook_state = set
        set _envhook_saved = ${LD_LIBRARY_PATH:q}
    else
        set _envhook_state = unset
        set _envhook_saved = ""
    endif
    if ( ${_envhook_kept:q} == "" ) then
        setenv LD_LIBRARY_PATH ${_envhook_dirs:q}
    else
        setenv LD_LIBRARY_PATH ${_envhook_dirs:q}:${_envhook_kept:q}
    endif
    eval 'setenv ENVHOOK_STATE_'"$_envhook_key"' ${_envhook_state:q}'
    eval 'setenv ENVHOOK_SAVED_'"$_envhook_key"' ${_envhook_saved:q}'
    eval 'setenv ENVHOOK_APPLIED_'"$_envhook_key"' ${LD_LIBRARY_PATH:q}'
endif

# Staleness, the rule `envhook check` and `audit` apply too: conda, mamba
# and pixi add a record to conda-meta/ for each package they install or
# upgrade, and remove the record of each they remove (the watched paths
# include the records the hook was made from), and pip removes the dist-info directories this hook was made from when it
# upgrades or uninstalls them. tcsh's -M is a file's modification time in
# whole seconds (a builtin test), so a change in the second the hook was
# written counts (>=): `envhook install` writes the hook so that its time,
# as stat reads it, is in a later second than the last change of
# conda-meta/ and of every record, so only a change made after it lands
# there. A moved or copied environment says that instead. (Blocks, not
# one-line ifs: `tcsh -n` mishandles a redirection there, and the tests
# parse the hooks with it.)
set _envhook_quiet = 0
if ( $?ENVHOOK_QUIET ) then
    if ( ${ENVHOOK_QUIET:q} != "" ) set _envhook_quiet = 1
endif
set _envhook_msgs = ( )
if ( ! $_envhook_quiet ) then
    if ( ${_envhook_prefix:q} != ${_envhook_origin:q} ) then
        # The prefix quoted for pasting ('\'' for each '), made here: a
        # copy's prefix is known only now.
        set _envhook_paste = ${_envhook_prefix:as#\'#\'\\\'\'#:q}
        set _envhook_msgs = ( ${_envhook_msgs:q} __ENVHOOK_MOVED_PREFIX__${_envhook_prefix:q}__ENVHOOK_MOVED_MIDDLE__${_envhook_origin:q}__ENVHOOK_MOVED_SUFFIX__"'"${_envhook_paste:q}"'" )
    else
        set _envhook_stale = 0
        if ( -e __ENVHOOK_CONDA_META__ && -e __ENVHOOK_SELF__ ) then
            if ( -M __ENVHOOK_CONDA_META__ >= -M __ENVHOOK_SELF__ ) then
                # A record added or replaced since the hook: a *.json as
                # new (conda-meta/ also changes for conda-meta/state, which
                # `conda env config vars set` writes). Globbing whatever the
                # user set: noglob lifted, no error on no match. tcsh 6.24
                # under a UTF-8 locale globs nothing under a quoted path
                # with non-ASCII characters: for such a prefix (GLOBBABLE
                # is 0) a change of conda-meta/ itself counts.
                if ( __ENVHOOK_GLOBBABLE__ ) then
                    set _envhook_ng = $?noglob
                    set _envhook_nm = $?nonomatch
                    unset noglob
                    set nonomatch
                    foreach _envhook_r ( __ENVHOOK_CONDA_META__/*.json )
                        if ( -e ${_envhook_r:q} ) then
                            if ( -M ${_envhook_r:q} >= -M __ENVHOOK_SELF__ ) set _envhook_stale = 1
                        endif
                    end
                    if ( $_envhook_ng ) set noglob
                    if ( ! $_envhook_nm ) unset nonomatch
                    unset _envhook_ng _envhook_nm _envhook_r
                else
                    set _envhook_stale = 1
                endif
            endif
        endif
        __ENVHOOK_WATCH_TESTS__
        if ( $_envhook_stale ) then
            set _envhook_msgs = ( ${_envhook_msgs:q} __ENVHOOK_STALE_MESSAGE__ )
        endif
    endif
    if ( $_envhook_foreign ) then
        set _envhook_msgs = ( ${_envhook_msgs:q} __ENVHOOK_FOREIGN_MESSAGE__ )
    endif
endif
# On stderr. `> /dev/stderr` opens the file stderr is anew: for a terminal
# or a pipe that is the same thing, but a log file (`tcsh job.csh >&
# job.log`, how csh batch jobs log) would be truncated, and the job's next
# line written over the warning. csh cannot send a builtin's output to
# stderr otherwise, so there (only when warning) sh writes it to the file
# descriptor it inherits.
foreach _envhook_m ( ${_envhook_msgs:q} )
    if ( -c /dev/stderr || -p /dev/stderr ) then
        echo ${_envhook_m:q} > /dev/stderr
    else
        /bin/sh -c 'printf "%s\n" "$1" >&2' envhook ${_envhook_m:q}
    endif
end

unset _envhook_dirs _envhook_active _envhook_same _envhook_odd _envhook_rest _envhook_prev
unset _envhook_kept _envhook_quiet _envhook_stale _envhook_prefix _envhook_origin _envhook_key
unset _envhook_msgs _envhook_m
unset _envhook_state _envhook_saved _envhook_applied _envhook_has _envhook_foreign _envhook_probe
unset _envhook_copy _envhook_hold _envhook_esc _envhook_cut _envhook_paste
# __ENVHOOK_DETAILS__
