# __ENVHOOK_HEADER__
#
# tcsh and csh: undoes activate.csh. If LD_LIBRARY_PATH is what activation
# left, the saved value comes back exactly (set, empty or unset); if it was
# changed while active, the change is kept, minus our directories and empty
# elements. Builtins only; see activate.csh for how csh is handled.

set _envhook_dirs = __ENVHOOK_DIRS__
set _envhook_active = 0
if ( $?ENVHOOK_STATE___ENVHOOK_ID__ ) then
    if ( ${ENVHOOK_STATE___ENVHOOK_ID__:q} != "" ) set _envhook_active = 1
endif
if ( $_envhook_active ) then
    set _envhook_same = 0
    if ( $?LD_LIBRARY_PATH && $?ENVHOOK_APPLIED___ENVHOOK_ID__ ) then
        if ( ${LD_LIBRARY_PATH:q} == ${ENVHOOK_APPLIED___ENVHOOK_ID__:q} ) set _envhook_same = 1
    endif
    set _envhook_set = 0
    if ( ${ENVHOOK_STATE___ENVHOOK_ID__:q} == set ) set _envhook_set = 1
    if ( $_envhook_same ) then
        if ( $_envhook_set && $?ENVHOOK_SAVED___ENVHOOK_ID__ ) then
            setenv LD_LIBRARY_PATH ${ENVHOOK_SAVED___ENVHOOK_ID__:q}
        else if ( $_envhook_set ) then
            setenv LD_LIBRARY_PATH ""
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
    unsetenv ENVHOOK_STATE___ENVHOOK_ID__
    unsetenv ENVHOOK_SAVED___ENVHOOK_ID__
    unsetenv ENVHOOK_APPLIED___ENVHOOK_ID__
endif

unset _envhook_dirs _envhook_active _envhook_same _envhook_set _envhook_odd _envhook_rest
unset _envhook_prev _envhook_kept
