# __ENVHOOK_HEADER__
#
# POSIX sh, sourced by bash, zsh, dash and busybox sh (and by xonsh through
# source-bash). Undoes the matching activate.d hook:
#
# - LD_LIBRARY_PATH untouched since activation: the saved value comes back
#   byte for byte (unset stays unset, empty stays empty).
# - Changed while active: only our directories are removed, the change stays.
# - Not activated by us (conda runs deactivate.d of freshly installed
#   packages on reactivation): nothing happens.
# Paths are baked in: rattler and pixi change CONDA_PREFIX before running
# deactivate.d. Builtins only; safe under `set -euo pipefail`; status 0.

# Data in single quotes; see activate.sh.
# shellcheck disable=SC2016,SC2089
_envhook_dirs=__ENVHOOK_DIRS__

if [ -n "${ENVHOOK_STATE___ENVHOOK_ID__:-}" ]; then
    if [ -n "${LD_LIBRARY_PATH+x}" ] && [ "${LD_LIBRARY_PATH}" = "${ENVHOOK_APPLIED___ENVHOOK_ID__-}" ]; then
        if [ "${ENVHOOK_STATE___ENVHOOK_ID__}" = set ]; then
            LD_LIBRARY_PATH=${ENVHOOK_SAVED___ENVHOOK_ID__-}
            export LD_LIBRARY_PATH
        else
            unset LD_LIBRARY_PATH
        fi
    elif [ -n "${LD_LIBRARY_PATH+x}" ]; then
        # Changed while active: keep the change, minus our directories and
        # empty elements (_envhook_rest: ":a:b", or empty).
        _envhook_rest=
        # __ENVHOOK_STRIP__
        if [ -n "${_envhook_rest}" ] || [ "${ENVHOOK_STATE___ENVHOOK_ID__}" = set ]; then
            LD_LIBRARY_PATH=${_envhook_rest#:}
            # shellcheck disable=SC2090
            export LD_LIBRARY_PATH
        else
            unset LD_LIBRARY_PATH
        fi
    fi
    unset ENVHOOK_STATE___ENVHOOK_ID__ ENVHOOK_SAVED___ENVHOOK_ID__ ENVHOOK_APPLIED___ENVHOOK_ID__
fi

unset _envhook_dirs _envhook_rest
:
