# Run envhook's hooks from this venv's own activation: the activate hook
# now, the deactivate hook from `deactivate`, which is wrapped (copied
# with `typeset -f`: bash, zsh, ksh; in a shell without it neither runs).
# A deactivate hook still owed (this script was sourced again, or another
# venv's activate replaced the wrapped deactivate first) runs before.
# The hooks' paths are data in single quotes (SC2016); they are sourced
# by a path only known here (SC1090); typeset is not POSIX (SC3044).
# shellcheck disable=SC1090,SC1091,SC2016,SC3044
if [ -n "${_envhook_venv_undo-}" ] && [ -f "${_envhook_venv_undo}" ]; then
    . "${_envhook_venv_undo}"
fi
unset _envhook_venv_undo
if _envhook_venv_f=$(typeset -f deactivate 2>/dev/null) && [ -n "${_envhook_venv_f}" ]; then
    eval "_envhook_venv_deactivate${_envhook_venv_f#deactivate}"
    _envhook_venv_undo=__ENVHOOK_DEACTIVATE__
    deactivate() {
        if [ -n "${_envhook_venv_undo-}" ] && [ -f "${_envhook_venv_undo}" ]; then
            . "${_envhook_venv_undo}"
        fi
        unset _envhook_venv_undo
        _envhook_venv_deactivate "$@"
        if [ "${1-}" != nondestructive ]; then
            unset -f _envhook_venv_deactivate
        fi
    }
    if [ -f __ENVHOOK_ACTIVATE__ ]; then
        . __ENVHOOK_ACTIVATE__
    fi
fi
unset _envhook_venv_f
