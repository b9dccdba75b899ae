# __ENVHOOK_HEADER__
#
# fish, sourced by conda's and mamba's fish integration. The same rules as
# the POSIX hook (activate.sh): save the previous value once, prepend our
# directories without duplicating them, drop empty elements, keep changes
# made while active. LD_LIBRARY_PATH is a fish path variable: a list split
# on ':' and joined with ':' when exported or quoted; so is our own
# _envhook_rest_PATH, which lets "$_envhook_rest_PATH" join without a
# command substitution (those split on newlines). Builtins only; status 0.

# __ENVHOOK_KEY__

if test "$_envhook_state" != foreign
    # The current value without our directories and without empty elements
    # (_envhook_rest_PATH), in linear time.
    # __ENVHOOK_STRIP__

    if test -n "$_envhook_state"
        # Active already: keep the saved value unless it was changed meanwhile.
        if test "$LD_LIBRARY_PATH" != "$$_envhook_va"; or not set -q LD_LIBRARY_PATH
            if set -q LD_LIBRARY_PATH
                set -gx $_envhook_vs set
                set -gx $_envhook_vv "$_envhook_rest_PATH"
            else
                set -gx $_envhook_vs unset
                set -gx $_envhook_vv ''
            end
        end
    else if set -q LD_LIBRARY_PATH
        set -gx $_envhook_vs set
        set -gx $_envhook_vv "$LD_LIBRARY_PATH"
    else
        set -gx $_envhook_vs unset
        set -gx $_envhook_vv ''
    end

    set -gx LD_LIBRARY_PATH $_envhook_ours $_envhook_rest_PATH
    set -gx $_envhook_va "$LD_LIBRARY_PATH"
end

# Staleness, the rule `envhook check` and `audit` apply too: conda, mamba
# and pixi add a record to conda-meta/ for each package they install or
# upgrade, and remove the record of each they remove; pip removes the
# dist-info directories this hook was made from when it upgrades or
# uninstalls them (the watched paths include the records it was made
# from). A moved or copied environment says that instead.
if test -z "$ENVHOOK_QUIET"
    if test "$_envhook_prefix" != "$_envhook_origin"
        # The prefix quoted for pasting in a POSIX shell, made here: a
        # copy's prefix is known only now.
        set -l _envhook_paste "'"(string replace -a -- "'" "'\\''" "$_envhook_prefix")"'"
        printf __ENVHOOK_MOVED_FORMAT__ "$_envhook_prefix" "$_envhook_origin" "$_envhook_paste" >&2
    else
        set -l _envhook_stale
        # A record added or replaced since the hook: a conda-meta/*.json
        # newer than it. (conda-meta/ itself changes for files that are not
        # records too: `conda env config vars set` writes conda-meta/state.)
        if test __ENVHOOK_CONDA_META__ -nt __ENVHOOK_SELF__
            for _envhook_el in __ENVHOOK_CONDA_META__/*.json
                if test "$_envhook_el" -nt __ENVHOOK_SELF__
                    set _envhook_stale 1
                    break
                end
            end
        end
        for _envhook_el in (string split -- : __ENVHOOK_WATCH__)
            if test -n "$_envhook_el"; and not test -e "$_envhook_el"
                set _envhook_stale 1
            end
        end
        if test -n "$_envhook_stale"
            printf '%s\n' __ENVHOOK_STALE_MESSAGE__ >&2
        end
    end
    if test "$_envhook_state" = foreign
        printf '%s\n' __ENVHOOK_FOREIGN_MESSAGE__ >&2
    end
end

set -e _envhook_el _envhook_i
true
# __ENVHOOK_DETAILS__
