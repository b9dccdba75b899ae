# strip: sets _envhook_rest to LD_LIBRARY_PATH without our directories
# (_envhook_dirs, ':'-joined) and without empty elements, each kept element
# preceded by ':' (":a:b", or empty when nothing is kept: a hook prepends
# its directories with no further copy), in time linear in the value's
# length. envhook renders this file into activate.sh,
# deactivate.sh and profile.sh at their STRIP placeholder, so
# each hook stays one file.
#
# - zsh: split on ':' (`${(@s.:.)var}`) and the array difference with our
#   directories and the empty string (`${all:|ours}`), joined again; all
#   of it in C, under zsh's default options.
# - bash: split into an array on ':' (globbing off), the elements that are
#   neither ours nor empty kept, joined again; in a function defined
#   through eval, as only bash parses arrays.
# - Other POSIX shells (dash, busybox sh) have no such expansion, and
#   their `${var#pattern}` costs the square of the value's length. There
#   the value is split by field splitting (IFS=':', globbing off) into a
#   function's own positional parameters; runs of fields to keep are cut
#   from the joined value with `${var%%pattern*}` (a linear scan) and
#   `shift` drops what was consumed, or, where there are many fields to
#   drop, the indexes of those to keep are listed and `set --` keeps them;
#   "$*" joins them back.
#
# Builtins only, no subshell; safe under `set -eu`; the shell's IFS and
# globbing are restored.
# shellcheck disable=SC2154 # _envhook_dirs is set by the including hook
if [ -n "${ZSH_VERSION-}" ]; then
    # zsh splits and takes the array difference in C; emulate -L gives the
    # function zsh's default options (no SH_WORD_SPLIT, no KSH_ARRAYS),
    # whatever the user set, and restores theirs on return.
    # shellcheck disable=SC2296,SC3041,SC3043,SC3057 # zsh syntax, run by zsh only
    _envhook_zstrip() {
        emulate -L zsh
        local -a _envhook_ours _envhook_all
        set -A _envhook_ours "${(@s.:.)_envhook_dirs}" ''
        set -A _envhook_all "${(@s.:.)LD_LIBRARY_PATH-}"
        # The leading '' gives the leading ':' (and nothing when alone).
        set -A _envhook_all '' "${(@)_envhook_all:|_envhook_ours}"
        _envhook_rest=${(j.:.)_envhook_all}
    }
    _envhook_zstrip
    unset -f _envhook_zstrip
elif [ -n "${BASH_VERSION-}" ]; then
    # bash splits into an array (IFS=':', globbing off), keeps what is
    # neither ours nor empty, and joins with "${kept[*]}": one pass each.
    # (`${var//":dir:"/:}` looks like one pass but costs a scan of the
    # whole value per match: 10k of our directories in a 1 MB value took
    # 9 s.) Defined through eval so that other shells' parsers never see
    # bash's arrays; `local` keeps IFS and the arrays the function's own.
    # shellcheck disable=SC2016 # expanded by bash, inside the eval
    eval '_envhook_bstrip() {
        local -a _envhook_all=() _envhook_kept=()
        local _envhook_el IFS=: _envhook_glob=
        case $- in
            *f*) ;;
            *) _envhook_glob=1 && set -f ;;
        esac
        _envhook_all=(${LD_LIBRARY_PATH-})
        if [ -n "${_envhook_glob}" ]; then set +f; fi
        if ((${#_envhook_all[@]})); then
            for _envhook_el in "${_envhook_all[@]}"; do
                # Empty (matches the final "::") or one of ours: dropped;
                # quoted, the element is text, never a pattern.
                case ":${_envhook_dirs}::" in
                    *":${_envhook_el}:"*) ;;
                    *) _envhook_kept+=("${_envhook_el}") ;;
                esac
            done
        fi
        _envhook_rest=
        if ((${#_envhook_kept[@]})); then _envhook_rest=":${_envhook_kept[*]}"; fi
    }'
    _envhook_bstrip
    unset -f _envhook_bstrip
else
    # The fields of the value are this function's positional parameters.
    _envhook_keep() {
        # Few fields to drop (the usual case): the run of kept fields before
        # the first one to drop is cut from the joined fields with
        # ${x%%pattern*} (one linear scan in dash) and appended, and `shift`
        # drops the fields consumed. Each drop costs passes over the rest,
        # so after 16 drops the remaining fields go through the index list.
        _envhook_rest=
        _envhook_runs=0
        while [ "$#" -gt 0 ] && [ "${_envhook_runs}" -lt 16 ]; do
            _envhook_all=:$*:
            _envhook_head=${_envhook_all%%::*}
            _envhook_todo=${_envhook_dirs}:
            while [ -n "${_envhook_todo}" ]; do
                _envhook_el=${_envhook_todo%%:*}
                _envhook_todo=${_envhook_todo#*:}
                _envhook_try=${_envhook_all%%":${_envhook_el}:"*}
                if [ "${#_envhook_try}" -lt "${#_envhook_head}" ]; then
                    _envhook_head=${_envhook_try}
                fi
            done
            if [ "${#_envhook_head}" -eq "${#_envhook_all}" ]; then
                # Nothing (more) to drop.
                _envhook_rest=${_envhook_rest}:$*
                set --
            else
                # The head is ":f1:...:fk", or empty when the first field
                # is dropped: k fields kept, one dropped.
                # shellcheck disable=SC2086 # split on ':', on purpose
                _envhook_count ${_envhook_head}
                _envhook_rest=${_envhook_rest}${_envhook_head}
                shift "$((_envhook_k > 0 ? _envhook_k : 1))"
                _envhook_runs=$((_envhook_runs + 1))
            fi
        done
        if [ "$#" -gt 0 ]; then
            # Many fields to drop: the indexes of those to keep are listed
            # (in chunks of 100, so that the list is not copied onto itself
            # at every field) and `set --` with them keeps only those.
            _envhook_i=0
            _envhook_n=0
            _envhook_chunk=
            _envhook_list=
            for _envhook_el do
                _envhook_i=$((_envhook_i + 1))
                # Empty (matches the final "::") or one of ours: dropped.
                case ":${_envhook_dirs}::" in
                    *":${_envhook_el}:"*) continue ;;
                    *) ;;
                esac
                _envhook_chunk="${_envhook_chunk} \"\${${_envhook_i}}\""
                _envhook_n=$((_envhook_n + 1))
                if [ "${_envhook_n}" -eq 100 ]; then
                    _envhook_list=${_envhook_list}${_envhook_chunk}
                    _envhook_chunk=
                    _envhook_n=0
                fi
            done
            # The list holds only "${N}" words that envhook made.
            eval "set -- ${_envhook_list}${_envhook_chunk}"
            if [ "$#" -gt 0 ]; then _envhook_rest=${_envhook_rest}:$*; fi
        fi
    }
    _envhook_count() {
        _envhook_k=$#
    }
    _envhook_ifs_set="${IFS+x}"
    _envhook_ifs="${IFS-}"
    case $- in
        *f*) _envhook_glob= ;;
        *) _envhook_glob=1 ;;
    esac
    set -f
    IFS=:
    # shellcheck disable=SC2086 # split on ':', on purpose
    _envhook_keep ${LD_LIBRARY_PATH-}
    if [ -n "${_envhook_ifs_set}" ]; then IFS="${_envhook_ifs}"; else unset IFS; fi
    if [ -n "${_envhook_glob}" ]; then set +f; fi
    unset -f _envhook_keep _envhook_count
fi
unset _envhook_todo _envhook_el _envhook_again _envhook_i _envhook_n _envhook_chunk \
    _envhook_list _envhook_ifs _envhook_ifs_set _envhook_glob _envhook_runs _envhook_all \
    _envhook_head _envhook_try _envhook_k
