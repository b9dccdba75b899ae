# __ENVHOOK_HEADER__
#
# POSIX sh for /etc/profile.d (or any login script), for machines and
# containers that never run `conda activate`: puts this environment's CUDA
# libraries first on LD_LIBRARY_PATH, once, without an empty element.
# There is no deactivation; nothing is saved. Builtins only; status 0.

# Data in single quotes; see activate.sh.
# shellcheck disable=SC2016,SC2089
_envhook_dirs=__ENVHOOK_DIRS__
_envhook_rest=
if [ -n "${LD_LIBRARY_PATH:-}" ]; then
    _envhook_todo="${LD_LIBRARY_PATH}:"
    while [ -n "${_envhook_todo}" ]; do
        _envhook_el="${_envhook_todo%%:*}"
        _envhook_todo="${_envhook_todo#*:}"
        case ":${_envhook_dirs}:" in
            *":${_envhook_el}:"*) ;;
            *) if [ -n "${_envhook_el}" ]; then
                   _envhook_rest="${_envhook_rest:+${_envhook_rest}:}${_envhook_el}"
               fi ;;
        esac
    done
fi
LD_LIBRARY_PATH="${_envhook_dirs}${_envhook_rest:+:${_envhook_rest}}"
# shellcheck disable=SC2090
export LD_LIBRARY_PATH
unset _envhook_dirs _envhook_rest _envhook_todo _envhook_el
:
