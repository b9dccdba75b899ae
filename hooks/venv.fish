# Run envhook's hooks from this venv's own activation: the activate hook
# now, the deactivate hook from `deactivate`, which is wrapped (copied
# with `functions -c`). A deactivate hook still owed (this script was
# sourced again, or another venv's activate replaced the wrapped
# deactivate first) runs before.
if set -q _envhook_venv_undo; and test -f "$_envhook_venv_undo"
    source "$_envhook_venv_undo"
end
set -e _envhook_venv_undo
if functions -q deactivate
    functions -e _envhook_venv_deactivate
    functions -c deactivate _envhook_venv_deactivate
    set -g _envhook_venv_undo __ENVHOOK_DEACTIVATE__
    function deactivate -d 'Exit the virtual environment; envhook restores LD_LIBRARY_PATH first'
        if set -q _envhook_venv_undo; and test -f "$_envhook_venv_undo"
            source "$_envhook_venv_undo"
        end
        set -e _envhook_venv_undo
        _envhook_venv_deactivate $argv
        if test "$argv[1]" != nondestructive
            functions -e _envhook_venv_deactivate
        end
    end
    if test -f __ENVHOOK_ACTIVATE__
        source __ENVHOOK_ACTIVATE__
    end
end
