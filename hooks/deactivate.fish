# __ENVHOOK_HEADER__
#
# fish, sourced by conda's and mamba's fish integration. Undoes the matching
# activate.d hook with the same rules as deactivate.sh: untouched values come
# back exactly, changes made while active are kept minus our directories,
# and nothing happens if we did not activate. Builtins only; status 0.

set -l _envhook_ours (string split -- : __ENVHOOK_DIRS__)
set -l _envhook_prefix __ENVHOOK_PREFIX__
# The prefix this hook was written for, spelled so that conda's rewriting
# of the old prefix in a copy does not change it; a copy (clone, rename,
# conda-unpack) keys its state by its prefix's length too (see activate.sh).
set -l _envhook_origin __ENVHOOK_ORIGIN__
set -l _envhook_key __ENVHOOK_ID__
if test "$_envhook_prefix" != "$_envhook_origin"
    set _envhook_key __ENVHOOK_ID___(string length -- "$_envhook_prefix")
end
set -l _envhook_vs ENVHOOK_STATE_$_envhook_key
set -l _envhook_vv ENVHOOK_SAVED_$_envhook_key
set -l _envhook_va ENVHOOK_APPLIED_$_envhook_key
# State under our key is ours when the value it applied starts with our
# prefix (compared by length: the prefix may hold wildcard characters).
set -l _envhook_state
if set -q $_envhook_vs; and test -n "$$_envhook_vs"
    set -l _envhook_n (math (string length -- "$_envhook_prefix") + 1)
    if test (string sub -l $_envhook_n -- "$$_envhook_va") = "$_envhook_prefix/"
        set _envhook_state "$$_envhook_vs"
    else
        set _envhook_state foreign
    end
end

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
