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

# Values are data in single quotes: `$` or backticks in a prefix are
# literal there, and so are quotes in LD_LIBRARY_PATH (a directive before
# the first command covers the file). The variables the key fragment
# sets (key.sh) are assigned where it is rendered, which shellcheck
# cannot see in the template. The freshness tests compare with -nt (not
# POSIX, but bash, zsh, dash, busybox sh and ksh all have it) and chain
# their files with -a and -o (XSI, in all of them too), one builtin for
# all. The prefix compared with the origin looks constant, but conda
# rewrites the first in a copy.
# shellcheck disable=SC2016,SC2050,SC2089,SC2090,SC2154,SC2166,SC3013
#
# The common cases come first and return, so that a shell parses nothing
# more (a shell parses a sourced file one top-level command at a time, and
# bash spends more on parsing the hook's literals than on running it).
#
# Both run where the hook was written: CONDA_PREFIX (set by conda, mamba
# and pixi; unset when sourced by hand) is this prefix. In a copy made
# without conda (see the key below) it is the copy's, which the general
# path handles. Each is a top-level command of its own: a reactivation
# (the path every `conda activate` of an active stack takes) parses only
# the first, a few short lines, and never the second's long tests.
#
# 1. Already active and untouched since (a reactivation: conda re-runs
#    activate.d after every install, rattler and a stacked deactivate too):
#    nothing to do. State under our id that another copy of the
#    environment applied does not start with our directories.
# shellcheck disable=SC2195 # placeholders: the prefix, quoted
case ${CONDA_PREFIX:-__ENVHOOK_PREFIX__} in
    __ENVHOOK_PREFIX__)
        case ${LD_LIBRARY_PATH-}: in
            "${ENVHOOK_APPLIED___ENVHOOK_ID__-x}":)
                case ${LD_LIBRARY_PATH}: in
                    __ENVHOOK_DIRS__:*) return 0 ;;
                    *) ;;
                esac
                ;;
            *) ;;
        esac
        ;;
    *) ;;
esac
# shellcheck disable=SC2195 # placeholders: the prefix, quoted
case ${CONDA_PREFIX:-__ENVHOOK_PREFIX__} in
    __ENVHOOK_PREFIX__)
        # 2. A first activation (no state under our id) in place (not a copy: the
        #    prefix as conda may have rewritten it equals the prefix as written),
        #    with nothing to warn about (ENVHOOK_QUIET, or nothing changed in
        #    conda-meta/ and the site-packages watched since the hook was written,
        #    which implies the freshness rule below), of a value with no empty
        #    element and none of our directories: save it and prepend ours, in one
        #    builtin. Anything else takes the general path below, which does the
        #    same here.
        # shellcheck disable=SC2195 # placeholders: the prefix as conda may rewrite it, and as written
        case ${ENVHOOK_STATE___ENVHOOK_ID__-}__ENVHOOK_PREFIX__ in
            __ENVHOOK_ORIGIN__)
                # shellcheck disable=SC2078 # the placeholder becomes -nt tests of paths
                if [ -n "${ENVHOOK_QUIET:+q}" -o __ENVHOOK_UNCHANGED__ ]; then
                    # shellcheck disable=SC2195 # the placeholder becomes one pattern per directory
                    case ${LD_LIBRARY_PATH+x}:${LD_LIBRARY_PATH-}: in
                        ::)
                            export ENVHOOK_STATE___ENVHOOK_ID__=unset ENVHOOK_SAVED___ENVHOOK_ID__='' \
                                ENVHOOK_APPLIED___ENVHOOK_ID__=__ENVHOOK_DIRS__ LD_LIBRARY_PATH=__ENVHOOK_DIRS__
                            return 0
                            ;;
                        *::* | __ENVHOOK_DIR_PATTERNS__) ;;
                        *)
                            # LD_LIBRARY_PATH is assigned last: whether a shell
                            # expands all the arguments first (dash, bash) or
                            # assigns them in order (zsh's typeset-like export),
                            # each value is made from the value as it was. Quoted:
                            # dash before 0.5.11 splits export's arguments.
                            export ENVHOOK_STATE___ENVHOOK_ID__=set ENVHOOK_SAVED___ENVHOOK_ID__="${LD_LIBRARY_PATH}" \
                                ENVHOOK_APPLIED___ENVHOOK_ID__=__ENVHOOK_DIRS__:"${LD_LIBRARY_PATH}" \
                                LD_LIBRARY_PATH=__ENVHOOK_DIRS__:"${LD_LIBRARY_PATH}"
                            return 0
                            ;;
                    esac
                fi
                ;;
            *) ;;
        esac
        ;;
    *) ;;
esac

# __ENVHOOK_KEY__
# State under our key that another environment applied (two copies whose
# keys still coincide) is not ours to change.
_envhook_foreign=
if [ -n "${_envhook_state}" ]; then
    case ${_envhook_applied} in
        "${_envhook_prefix}"/*) ;;
        *) _envhook_foreign=1 ;;
    esac
fi

# What to do: nothing (state another copy applied, or a reactivation), put
# our directories in front of the value as it is, or first strip ours and
# empty elements from it (_envhook_rest: ":a:b", or empty).
_envhook_apply=
_envhook_strip=
if [ -z "${_envhook_foreign}" ] && ! {
    [ -n "${_envhook_state}" ] && [ -n "${LD_LIBRARY_PATH+x}" ] &&
        [ "${LD_LIBRARY_PATH}" = "${_envhook_applied}" ]
}; then
    _envhook_apply=1
    # shellcheck disable=SC2195 # the placeholder becomes one pattern per directory
    case :${LD_LIBRARY_PATH:-}: in
        ::) _envhook_rest= ;;
        *::* | __ENVHOOK_DIR_PATTERNS__) _envhook_strip=1 ;;
        *)
            _envhook_rest=:${LD_LIBRARY_PATH}
            # A copy's own directories are not among those patterns.
            if [ -n "${_envhook_copy}" ]; then _envhook_strip=1; fi
            ;;
    esac
fi

# The rest of the work, in a function so that the stripping code (long,
# and rarely needed) is parsed only when it runs: a shell parses a sourced
# file one top-level command at a time, and this hook returns before it.
_envhook_finish() {
    if [ -n "${_envhook_apply}" ]; then
        if [ -n "${_envhook_state}" ]; then
            # Active already, but changed meanwhile: the change is kept, and
            # becomes what deactivation returns to.
            if [ -n "${LD_LIBRARY_PATH+x}" ]; then
                _envhook_state='set'
                _envhook_saved=${_envhook_rest#:}
            else
                _envhook_state='unset'
                _envhook_saved=
            fi
        elif [ -n "${LD_LIBRARY_PATH+x}" ]; then
            _envhook_state='set'
            _envhook_saved=${LD_LIBRARY_PATH}
        else
            _envhook_state='unset'
            _envhook_saved=
        fi
        LD_LIBRARY_PATH=${_envhook_dirs}${_envhook_rest}
        # shellcheck disable=SC2090
        export LD_LIBRARY_PATH
        eval "ENVHOOK_STATE_${_envhook_key}=\${_envhook_state}" \
            "ENVHOOK_SAVED_${_envhook_key}=\${_envhook_saved}" \
            "ENVHOOK_APPLIED_${_envhook_key}=\${LD_LIBRARY_PATH}" \
            "; export ENVHOOK_STATE_${_envhook_key} ENVHOOK_SAVED_${_envhook_key}" \
            "ENVHOOK_APPLIED_${_envhook_key}"
    fi

    # Staleness, the rule `envhook check` and `audit` apply too: conda,
    # mamba and pixi add a record (conda-meta/*.json) for each package they
    # install or upgrade, newer than this hook, and remove the record of
    # each they remove; pip removes the dist-info directories this hook was
    # made from when it upgrades or uninstalls them. The records and
    # dist-infos the hook was made from are watched paths. conda-meta/
    # itself also changes for files that are not records (`conda env
    # config vars set` writes conda-meta/state), so a newer directory only
    # leads to a look at the records. A moved or copied environment says
    # that instead.
    if [ -z "${ENVHOOK_QUIET:-}" ]; then
        # xonsh runs .sh hooks through source-bash, which discards what they
        # print; its bash has no controlling terminal (/dev/tty fails), but its
        # standard input is the user's terminal, so the warnings go there.
        _envhook_tty=
        if [ -n "${XONSH_VERSION-}" ] && [ -t 0 ]; then
            _envhook_tty=1
        fi
        _envhook_say() {
            if [ -n "${_envhook_tty}" ]; then
                # shellcheck disable=SC2059 # the format is the caller's literal
                { printf "$@" >&0; } 2>/dev/null || :
            else
                # shellcheck disable=SC2059
                printf "$@" >&2
            fi
        }
        if [ "${_envhook_prefix}" != "${_envhook_origin}" ]; then
            # The prefix quoted for pasting ('\'' for each '), made here: a
            # copy's prefix is known only now.
            _envhook_q=
            _envhook_t=${_envhook_prefix}
            while :; do
                case ${_envhook_t} in
                    *\'*)
                        _envhook_q=${_envhook_q}${_envhook_t%%\'*}\'\\\'\'
                        _envhook_t=${_envhook_t#*\'}
                        ;;
                    *) break ;;
                esac
            done
            # The format is a quoted literal with three %s (SC2182 sees a word).
            # shellcheck disable=SC2016,SC1003,SC2182
            _envhook_say __ENVHOOK_MOVED_FORMAT__ "${_envhook_prefix}" "${_envhook_origin}" \
                "'${_envhook_q}${_envhook_t}'"
        else
            # Whether a record is newer than this hook, globbing whatever
            # the user set: zsh gets null_glob in an emulated function
            # (through eval: other parsers never see zsh's syntax), other
            # shells get noglob and bash's failglob lifted for the loop.
            if [ -n "${ZSH_VERSION-}" ]; then
                # shellcheck disable=SC2016 # expanded by zsh, in the eval
                eval '_envhook_newer_record() {
                    emulate -L zsh
                    setopt null_glob
                    local r
                    for r in "$1"/*.json; do
                        if [[ $r -nt $2 ]]; then return 0; fi
                    done
                    return 1
                }'
            else
                _envhook_newer_record() {
                    _envhook_found=1
                    case $- in
                        *f*) _envhook_noglob=1 && set +f ;;
                        *) _envhook_noglob= ;;
                    esac
                    _envhook_failglob=
                    # shellcheck disable=SC3044 # bash only
                    if [ -n "${BASH_VERSION-}" ] && shopt -q failglob; then
                        _envhook_failglob=1
                        shopt -u failglob
                    fi
                    for _envhook_r in "$1"/*.json; do
                        if [ "${_envhook_r}" -nt "$2" ]; then
                            _envhook_found=0
                            break
                        fi
                    done
                    if [ -n "${_envhook_noglob}" ]; then set -f; fi
                    # shellcheck disable=SC3044 # bash only
                    if [ -n "${_envhook_failglob}" ]; then shopt -s failglob; fi
                    unset _envhook_r _envhook_noglob _envhook_failglob
                    return "${_envhook_found}"
                }
            fi
            # One test for every watched record and dist-info, then the
            # records' times when conda-meta/ changed.
            # shellcheck disable=SC2078 # the placeholders become paths
            if ! __ENVHOOK_FRESH__ || { [ __ENVHOOK_CONDA_META__ -nt __ENVHOOK_SELF__ ] &&
                _envhook_newer_record __ENVHOOK_CONDA_META__ __ENVHOOK_SELF__; }; then
                # The message quotes the prefix for pasting (SC1003 sees the quoting).
                # shellcheck disable=SC2016,SC1003
                _envhook_say '%s\n' __ENVHOOK_STALE_MESSAGE__
            fi
        fi
        if [ -n "${_envhook_foreign}" ]; then
            _envhook_say '%s\n' __ENVHOOK_FOREIGN_MESSAGE__
        fi
        unset -f _envhook_say _envhook_newer_record 2>/dev/null || :
        unset _envhook_tty _envhook_found _envhook_q _envhook_t
    fi

    unset _envhook_dirs _envhook_rest _envhook_prefix _envhook_origin _envhook_copy \
        _envhook_key _envhook_state _envhook_saved _envhook_applied _envhook_foreign \
        _envhook_apply _envhook_strip
}

if [ -z "${_envhook_strip}" ]; then
    _envhook_finish
    unset -f _envhook_finish
    return 0
fi

# __ENVHOOK_STRIP__
_envhook_finish
unset -f _envhook_finish
:
# __ENVHOOK_DETAILS__
