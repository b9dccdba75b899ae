# __ENVHOOK_HEADER__
#
# tcsh and csh: undoes activate.csh. If LD_LIBRARY_PATH is what activation
# left, the saved value comes back exactly (set, empty or unset); if it was
# changed while active, the change is kept, minus our directories and empty
# elements. Builtins only; see activate.csh for how csh is handled.

set _envhook_dirs = __ENVHOOK_DIRS__
set _envhook_prefix = __ENVHOOK_PREFIX__
# The prefix this hook was written for, spelled so that conda's rewriting
# of the old prefix in a copy does not change it; a copy (clone, rename,
# conda-unpack) keys its state by its prefix's length too (see activate.sh;
# $% is tcsh's length). The state is read through eval, as the key is only
# known now: the single-quoted parts keep their `$` for eval.
set _envhook_origin = __ENVHOOK_ORIGIN__
set _envhook_key = __ENVHOOK_ID__
if ( ${_envhook_prefix:q} != ${_envhook_origin:q} ) set _envhook_key = __ENVHOOK_ID___$%_envhook_prefix
set _envhook_state = ""
set _envhook_saved = ""
set _envhook_applied = ""
eval 'set _envhook_has = $?ENVHOOK_STATE_'"$_envhook_key"
if ( $_envhook_has ) eval 'set _envhook_state = ${ENVHOOK_STATE_'"$_envhook_key"':q}'
eval 'set _envhook_has = $?ENVHOOK_SAVED_'"$_envhook_key"
if ( $_envhook_has ) eval 'set _envhook_saved = ${ENVHOOK_SAVED_'"$_envhook_key"':q}'
eval 'set _envhook_has = $?ENVHOOK_APPLIED_'"$_envhook_key"
if ( $_envhook_has ) eval 'set _envhook_applied = ${ENVHOOK_APPLIED_'"$_envhook_key"':q}'
# State under our key is ours when the value it applied starts with our
# prefix and a '/' (the sentinel anchors the test at the start).
set _envhook_foreign = 0
if ( ${_envhook_state:q} != "" ) then
    set _envhook_probe = @envhook@end@${_envhook_applied:q}
    if ( ${_envhook_probe:s#@envhook@end@__ENVHOOK_PREFIX_EDIT__/##:q} == ${_envhook_probe:q} ) then
        set _envhook_foreign = 1
        set _envhook_state = ""
    endif
endif
if ( ${_envhook_state:q} != "" ) then
    set _envhook_same = 0
    if ( $?LD_LIBRARY_PATH ) then
        if ( ${LD_LIBRARY_PATH:q} == ${_envhook_applied:q} ) set _envhook_same = 1
    endif
    set _envhook_set = 0
    if ( ${_envhook_state:q} == set ) set _envhook_set = 1
    if ( $_envhook_same ) then
        if ( $_envhook_set ) then
            setenv LD_LIBRARY_PATH ${_envhook_saved:q}
        else
            unsetenv LD_LIBRARY_PATH
        endif
    else if ( $?LD_LIBRARY_PATH ) then
        # Changed while active: keep the change, minus our directories and
        # empty elements (unless it holds the strip's sentinel).
        set _envhook_odd = 0
        if ( ${LD_LIBRARY_PATH:s#@envhook@end@##:q} != ${LD_LIBRARY_PATH:q} ) set _envhook_odd = 1
        if ( ! $_envhook_odd ) then
            # __ENVHOOK_STRIP__
            if ( ${_envhook_kept:q} != "" || $_envhook_set ) then
                setenv LD_LIBRARY_PATH ${_envhook_kept:q}
            else
                unsetenv LD_LIBRARY_PATH
            endif
        endif
    endif
    eval 'unsetenv ENVHOOK_STATE_'"$_envhook_key"
    eval 'unsetenv ENVHOOK_SAVED_'"$_envhook_key"
    eval 'unsetenv ENVHOOK_APPLIED_'"$_envhook_key"
endif

unset _envhook_dirs _envhook_same _envhook_set _envhook_odd _envhook_rest _envhook_prev
unset _envhook_kept _envhook_prefix _envhook_origin _envhook_key _envhook_state _envhook_saved
unset _envhook_applied _envhook_has _envhook_foreign _envhook_probe
