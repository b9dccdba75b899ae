# __ENVHOOK_HEADER__
#
# An Apptainer/Singularity %environment section: puts this environment's
# CUDA libraries first on LD_LIBRARY_PATH, once, without an empty element,
# and keeps what the container started with (APPTAINERENV_LD_LIBRARY_PATH,
# --env) after them.
#
# Apptainer does not hand this to /bin/sh: its embedded interpreter
# (mvdan/sh) parses the whole file, then runs it, as it does every
# /.singularity.d/env script. So this is the plainest POSIX sh there is:
# no zsh or bash branches (the parser rejects zsh's expansion flags), no
# field splitting into "$*" (mvdan/sh joins it with spaces, whatever IFS
# says), no functions, no eval. Each element is cut off with
# ${var%%:*}/${var#*:}; the value a container starts with is short, so the
# quadratic cost of that in dash never shows.

# Data in single quotes; see activate.sh.
# shellcheck disable=SC1003,SC2016,SC2089
_envhook_dirs=__ENVHOOK_DIRS__
_envhook_rest=
_envhook_todo=${LD_LIBRARY_PATH-}:
while [ -n "${_envhook_todo}" ]; do
    _envhook_el=${_envhook_todo%%:*}
    _envhook_todo=${_envhook_todo#*:}
    # Ours, or empty (it matches the final "::"): dropped. Quoted, the
    # element is matched as text, never as a pattern.
    case ":${_envhook_dirs}::" in
        *":${_envhook_el}:"*) ;;
        *) _envhook_rest=${_envhook_rest}:${_envhook_el} ;;
    esac
done
LD_LIBRARY_PATH=${_envhook_dirs}${_envhook_rest}
# shellcheck disable=SC2090
export LD_LIBRARY_PATH
unset _envhook_dirs _envhook_rest _envhook_todo _envhook_el
# __ENVHOOK_DETAILS__
