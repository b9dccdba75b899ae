# envhook's bash completion (`source <(envhook completions bash)`). bash
# asks envhook itself for candidates (clap_complete's dynamic protocol:
# COMPLETE=bash, candidates separated by \v) and inserts each one quoted
# for the command line. envhook writes this instead of clap_complete's
# registration (4.6.12), which puts the completer's path, already quoted,
# inside double quotes (so a `$(...)` in the path runs at every Tab and a
# space breaks it) and fills COMPREPLY from an unquoted command
# substitution (globbed, and a `;` in an environment's name reaches the
# command line as it is).
_clap_complete_envhook() {
    local IFS=$'\013'
    local _CLAP_COMPLETE_INDEX=${COMP_CWORD}
    local _CLAP_COMPLETE_COMP_TYPE=${COMP_TYPE-}
    local _CLAP_COMPLETE_SPACE=true
    if compopt +o nospace 2>/dev/null; then
        _CLAP_COMPLETE_SPACE=false
    fi
    local words=("${COMP_WORDS[@]}")
    if [[ ${BASH_VERSINFO[0]} -ge 4 ]]; then
        words[COMP_CWORD]=$2
    fi
    local out
    if ! out=$(_CLAP_IFS=$IFS _CLAP_COMPLETE_INDEX=$_CLAP_COMPLETE_INDEX \
        _CLAP_COMPLETE_COMP_TYPE=$_CLAP_COMPLETE_COMP_TYPE \
        _CLAP_COMPLETE_SPACE=$_CLAP_COMPLETE_SPACE COMPLETE=bash \
        __ENVHOOK_COMPLETER__ -- "${words[@]}"); then
        unset COMPREPLY
        return 0
    fi
    # Split on \v alone, never globbed; each candidate quoted as the
    # command line needs it.
    local -a candidates=()
    local noglob=
    [[ $- == *f* ]] && noglob=1
    set -f
    # shellcheck disable=SC2206 # split on IFS (\v) on purpose, globbing off
    candidates=(${out})
    [[ -n ${noglob} ]] || set +f
    COMPREPLY=()
    local candidate quoted
    for candidate in "${candidates[@]}"; do
        printf -v quoted '%q' "${candidate}"
        COMPREPLY+=("${quoted}")
    done
    if [[ ${_CLAP_COMPLETE_SPACE} == false && ${COMPREPLY[0]-} =~ [=/:]$ ]]; then
        compopt -o nospace
    fi
}
if [[ ${BASH_VERSINFO[0]} -eq 4 && ${BASH_VERSINFO[1]} -ge 4 || ${BASH_VERSINFO[0]} -gt 4 ]]; then
    complete -o nospace -o bashdefault -o nosort -F _clap_complete_envhook envhook
else
    complete -o nospace -o bashdefault -F _clap_complete_envhook envhook
fi
