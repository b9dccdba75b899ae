# __ENVHOOK_HEADER__
#
# POSIX sh, sourced by bash, zsh, dash and busybox sh (and by xonsh through
# source-bash). Puts this environment's CUDA libraries first on
# LD_LIBRARY_PATH and remembers what was there, so that the deactivate.d
# hook can put it back exactly.
#
# - The value before activation is saved once, in ENVHOOK_SAVED_<id> and
#   ENVHOOK_STATE_<id> (`set` or `unset`); reactivation never overwrites it.
# - Our directories are removed before being prepended, so running this
#   again (conda reactivates after every install, and re-runs it when
#   deactivating back into a stacked env) never duplicates them. Empty
#   elements are dropped: an empty element means the current directory.
# - If LD_LIBRARY_PATH was changed since we set it, the change is kept and
#   becomes what deactivation returns to.
# - Builtins only (no subshell, no external program); safe under
#   `set -euo pipefail` and zsh's nounset; always ends with status 0.
# - Linear in LD_LIBRARY_PATH's length (benches/hook-long-values.sh).
#   Assignments of the value are unquoted on purpose: an assignment never
#   splits or globs, and bash copies an unquoted expansion three times
#   faster than a quoted one.

# The values below are data in single quotes; `$` or quotes in a prefix are
# literal there, which shellcheck's SC2016/SC2089/SC2090 cannot know.
# shellcheck disable=SC2016,SC2089
_envhook_dirs=__ENVHOOK_DIRS__

if [ -n "${ENVHOOK_STATE___ENVHOOK_ID__:-}" ] && [ -n "${LD_LIBRARY_PATH+x}" ] &&
    [ "${LD_LIBRARY_PATH}" = "${ENVHOOK_APPLIED___ENVHOOK_ID__-}" ]; then
    # Active and untouched since (a reactivation): nothing to change.
    :
else
    # The current value without our directories and without empty elements,
    # each kept element preceded by ':' (_envhook_rest: ":a:b", or empty).
    # Stripping is linear in the value's length, but only happens when
    # there is something to strip.
    # shellcheck disable=SC2195 # the placeholder becomes one pattern per directory
    case :${LD_LIBRARY_PATH:-}: in
        ::) _envhook_rest= ;;
        *::* | __ENVHOOK_DIR_PATTERNS__)
            # __ENVHOOK_STRIP__
            ;;
        *) _envhook_rest=:${LD_LIBRARY_PATH} ;;
    esac

    if [ -n "${ENVHOOK_STATE___ENVHOOK_ID__:-}" ]; then
        # Active already, but changed meanwhile: the change is kept, and
        # becomes what deactivation returns to.
        if [ -n "${LD_LIBRARY_PATH+x}" ]; then
            ENVHOOK_STATE___ENVHOOK_ID__='set'
            ENVHOOK_SAVED___ENVHOOK_ID__=${_envhook_rest#:}
        else
            ENVHOOK_STATE___ENVHOOK_ID__='unset'
            ENVHOOK_SAVED___ENVHOOK_ID__=
        fi
    elif [ -n "${LD_LIBRARY_PATH+x}" ]; then
        ENVHOOK_STATE___ENVHOOK_ID__='set'
        ENVHOOK_SAVED___ENVHOOK_ID__=${LD_LIBRARY_PATH}
    else
        ENVHOOK_STATE___ENVHOOK_ID__='unset'
        ENVHOOK_SAVED___ENVHOOK_ID__=
    fi

    LD_LIBRARY_PATH=${_envhook_dirs}${_envhook_rest}
    ENVHOOK_APPLIED___ENVHOOK_ID__=${LD_LIBRARY_PATH}
    # shellcheck disable=SC2090
    export LD_LIBRARY_PATH ENVHOOK_STATE___ENVHOOK_ID__ ENVHOOK_SAVED___ENVHOOK_ID__ ENVHOOK_APPLIED___ENVHOOK_ID__
fi

# Staleness: conda and mamba append to conda-meta/history on every
# transaction, and upgrades remove the records this hook was made from.
if [ -z "${ENVHOOK_QUIET:-}" ]; then
    _envhook_stale=
    # -nt is not POSIX, but bash, zsh, dash, busybox sh and ksh all have it.
    # shellcheck disable=SC3013,SC2016
    if [ __ENVHOOK_HISTORY__ -nt __ENVHOOK_SELF__ ]; then
        _envhook_stale=1
    fi
    # One test per record (no list splitting: it costs more than the tests).
    # shellcheck disable=SC2016
    __ENVHOOK_WATCH_TESTS__
    if [ -n "${_envhook_stale}" ]; then
        # The message quotes the prefix for pasting (SC1003 sees the quoting).
        # shellcheck disable=SC2016,SC1003
        printf '%s\n' __ENVHOOK_STALE_MESSAGE__ >&2
    fi
fi

unset _envhook_dirs _envhook_rest _envhook_stale
:
