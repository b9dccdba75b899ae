# __ENVHOOK_HEADER__
#
# tcsh and csh: undoes activate.csh. If LD_LIBRARY_PATH is what activation
# left, the saved value comes back exactly (set, empty or unset); if it was
# changed while active, the change is kept, minus our directories and empty
# elements. Builtins only; see activate.csh for how csh is handled.

# __ENVHOOK_KEY__
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
unset _envhook_copy _envhook_hold _envhook_esc _envhook_cut
# __ENVHOOK_DETAILS__
