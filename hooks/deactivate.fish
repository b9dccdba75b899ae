# __ENVHOOK_HEADER__
#
# fish, sourced by conda's and mamba's fish integration. Undoes the matching
# activate.d hook with the same rules as deactivate.sh: untouched values come
# back exactly, changes made while active are kept minus our directories,
# and nothing happens if we did not activate. Builtins only; status 0.

# __ENVHOOK_KEY__

if test -n "$_envhook_state"; and test "$_envhook_state" != foreign
    if set -q LD_LIBRARY_PATH; and test "$LD_LIBRARY_PATH" = "$$_envhook_va"
        if test "$_envhook_state" = set
            set -gx LD_LIBRARY_PATH "$$_envhook_vv"
        else
            set -e LD_LIBRARY_PATH
        end
    else if set -q LD_LIBRARY_PATH
        # Minus our directories and empty elements, in linear time; see
        # activate.fish.
        # __ENVHOOK_STRIP__
        if test (count $_envhook_rest_PATH) -gt 0; or test "$_envhook_state" = set
            set -gx LD_LIBRARY_PATH $_envhook_rest_PATH
        else
            set -e LD_LIBRARY_PATH
        end
    end
    set -e $_envhook_vs $_envhook_vv $_envhook_va
end

set -e _envhook_el _envhook_i
true
# __ENVHOOK_DETAILS__
