# __ENVHOOK_HEADER__
#
# fish, sourced by conda's and mamba's fish integration. Undoes the matching
# activate.d hook with the same rules as deactivate.sh: untouched values come
# back exactly, changes made while active are kept minus our directories,
# and nothing happens if we did not activate. Builtins only; status 0.

set -l _envhook_ours (string split -- : __ENVHOOK_DIRS__)

if set -q ENVHOOK_STATE___ENVHOOK_ID__; and test -n "$ENVHOOK_STATE___ENVHOOK_ID__"
    if set -q LD_LIBRARY_PATH; and test "$LD_LIBRARY_PATH" = "$ENVHOOK_APPLIED___ENVHOOK_ID__"
        if test "$ENVHOOK_STATE___ENVHOOK_ID__" = set
            set -gx LD_LIBRARY_PATH "$ENVHOOK_SAVED___ENVHOOK_ID__"
        else
            set -e LD_LIBRARY_PATH
        end
    else if set -q LD_LIBRARY_PATH
        # Minus our directories and empty elements, in linear time; see
        # activate.fish.
        set -l _envhook_ours (string split -- : __ENVHOOK_DIRS__)
        # __ENVHOOK_STRIP__
        if test (count $_envhook_rest_PATH) -gt 0; or test "$ENVHOOK_STATE___ENVHOOK_ID__" = set
            set -gx LD_LIBRARY_PATH $_envhook_rest_PATH
        else
            set -e LD_LIBRARY_PATH
        end
    end
    set -e ENVHOOK_STATE___ENVHOOK_ID__ ENVHOOK_SAVED___ENVHOOK_ID__ ENVHOOK_APPLIED___ENVHOOK_ID__
end

set -e _envhook_el _envhook_i
true
