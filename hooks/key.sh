# key: the environment's directories and prefix, the prefix the hook was
# written for, the key its state lives under, and that state; the same in
# the activate and deactivate hooks, which envhook renders it into at their
# KEY placeholder, so each hook stays one file.
# The values below are data in single quotes; `$` or quotes in a prefix are
# literal there, which shellcheck's SC2016/SC2089/SC2090 cannot know.
# shellcheck disable=SC2016,SC2089
_envhook_dirs=__ENVHOOK_DIRS__
# shellcheck disable=SC2016
_envhook_prefix=__ENVHOOK_PREFIX__
# A copy made without conda (cp -a, rsync, a restored backup) holds these
# hooks byte for byte, the source's prefix and directories in them. conda
# and mamba run a copy's hooks with CONDA_PREFIX set to the copy (activate.d
# sees the incoming environment, deactivate.d the outgoing one), so when
# CONDA_PREFIX is another directory (not another spelling of this prefix:
# -ef) that holds this hook and the link directory it was written with,
# the hook runs in that copy and uses the copy's own directories: its link
# directory holds relative links, valid where it lies. Never the source's
# libraries for a copy. (rattler's deactivation sets CONDA_PREFIX to the
# previous environment first; that one holds other link directories, so
# the test fails there and the prefix as written stands.)
_envhook_copy=
case ${CONDA_PREFIX:-} in
    '' | "${_envhook_prefix}") ;;
    *)
        # The placeholder becomes -f/-d tests of paths; -ef is not POSIX,
        # but bash, zsh, dash, busybox sh and ksh all have it, and -a (XSI).
        # shellcheck disable=SC2078,SC2166,SC3013
        if [ __ENVHOOK_COPY_MARKS__ ] && ! [ "${CONDA_PREFIX}" -ef "${_envhook_prefix}" ]; then
            _envhook_prefix=${CONDA_PREFIX}
            _envhook_dirs=__ENVHOOK_COPY_DIRS__
            _envhook_copy=1
        fi
        ;;
esac
# The prefix this hook was written for, spelled so that conda's rewriting
# of the old prefix in a copied environment (conda create --clone, conda
# rename, conda-unpack) does not change it: when the two differ, the hook
# runs in a copy. A copy gets its own state variables (the id is the
# source's; the prefix's length, a builtin, tells copies apart), so a copy
# stacked on its source is a different environment.
# shellcheck disable=SC2016
_envhook_origin=__ENVHOOK_ORIGIN__
if [ "${_envhook_prefix}" = "${_envhook_origin}" ]; then
    _envhook_key=__ENVHOOK_ID__
else
    _envhook_key=__ENVHOOK_ID___${#_envhook_prefix}
fi
# The state, read once (the key is only known now; the value is assigned,
# never parsed again).
_envhook_state='' _envhook_saved='' _envhook_applied=''
eval "_envhook_state=\${ENVHOOK_STATE_${_envhook_key}-}" \
    "_envhook_saved=\${ENVHOOK_SAVED_${_envhook_key}-}" \
    "_envhook_applied=\${ENVHOOK_APPLIED_${_envhook_key}-}"
