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
# deactivate.d. Only a copy made without conda is told by CONDA_PREFIX (see
# the key). Builtins only; safe under `set -euo pipefail`; status 0.

# The variables the key fragment sets (key.sh) are assigned where it is
# rendered, which shellcheck cannot see in the template (a directive
# before the first command covers the file).
# shellcheck disable=SC2154
# __ENVHOOK_KEY__
# Only state this environment applied is ours to undo.
case ${_envhook_applied} in
    "${_envhook_prefix}"/*) ;;
    *) _envhook_state= ;;
esac

if [ -n "${_envhook_state}" ]; then
    if [ -n "${LD_LIBRARY_PATH+x}" ] && [ "${LD_LIBRARY_PATH}" = "${_envhook_applied}" ]; then
        if [ "${_envhook_state}" = set ]; then
            LD_LIBRARY_PATH=${_envhook_saved}
            export LD_LIBRARY_PATH
        else
            unset LD_LIBRARY_PATH
        fi
    elif [ -n "${LD_LIBRARY_PATH+x}" ]; then
        # Changed while active: keep the change, minus our directories and
        # empty elements (_envhook_rest: ":a:b", or empty).
        _envhook_rest=
        # __ENVHOOK_STRIP__
        if [ -n "${_envhook_rest}" ] || [ "${_envhook_state}" = set ]; then
            LD_LIBRARY_PATH=${_envhook_rest#:}
            # shellcheck disable=SC2090
            export LD_LIBRARY_PATH
        else
            unset LD_LIBRARY_PATH
        fi
    fi
    eval "unset ENVHOOK_STATE_${_envhook_key} ENVHOOK_SAVED_${_envhook_key}" \
        "ENVHOOK_APPLIED_${_envhook_key}"
fi

unset _envhook_dirs _envhook_rest _envhook_prefix _envhook_origin _envhook_copy _envhook_key _envhook_state \
    _envhook_saved _envhook_applied
:
# __ENVHOOK_DETAILS__
