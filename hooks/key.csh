# key: the environment's directories and prefix, the prefix the hook was
# written for, the key its state lives under, and that state; the same in
# the activate and deactivate hooks, which envhook renders it into at their
# KEY placeholder, so each hook stays one file.
# (_envhook_foreign is 1 for state another copy applied.)
set _envhook_dirs = __ENVHOOK_DIRS__
set _envhook_prefix = __ENVHOOK_PREFIX__
# The prefix this hook was written for, spelled so that conda's rewriting
# of the old prefix in a copy does not change it; a copy (clone, rename,
# conda-unpack) keys its state by its prefix's length too (see activate.sh;
# $% is tcsh's length). The state is read through eval, as the key is only
# known now: the single-quoted parts keep their `$` for eval.
set _envhook_origin = __ENVHOOK_ORIGIN__
# A copy made without conda (cp -a, rsync, a restored backup) holds these
# hooks byte for byte; conda.csh runs them with CONDA_PREFIX set to the
# copy. When CONDA_PREFIX is another directory (-F, device and inode, tells
# another spelling of this prefix apart) holding this hook and the link
# directory it was written with, the copy's own directories are used, never
# the source's (see key.sh). Its prefix goes into csh's string edits through
# eval, with `\`, quotes and `!` escaped as the edits read them
# (_envhook_esc); a prefix with `#`, which no edit can hold, gets nothing
# applied (_envhook_hold) and the moved warning.
set _envhook_copy = 0
set _envhook_hold = 0
set _envhook_esc = ""
if ( $?CONDA_PREFIX ) then
    if ( ${CONDA_PREFIX:q} != "" && ${CONDA_PREFIX:q} != ${_envhook_prefix:q} ) then
        if ( __ENVHOOK_COPY_MARKS__ ) then
            set _envhook_copy = 1
            if ( -e ${_envhook_prefix:q} ) then
                if ( -F ${CONDA_PREFIX:q} == -F ${_envhook_prefix:q} ) set _envhook_copy = 0
            endif
        endif
    endif
    if ( $_envhook_copy ) then
        set _envhook_prefix = ${CONDA_PREFIX:q}
        set _envhook_dirs = __ENVHOOK_COPY_DIRS__
        if ( ${_envhook_prefix:s/#//:q} != ${_envhook_prefix:q} ) set _envhook_hold = 1
        set _envhook_esc = ${_envhook_prefix:as#\\#\\\\#:q}
        set _envhook_esc = ${_envhook_esc:as#\'#\\\'#:q}
        set _envhook_esc = ${_envhook_esc:as#\"#\\\"#:q}
        set _envhook_esc = ${_envhook_esc:as#\!#\\\!#:q}
    endif
endif
set _envhook_key = __ENVHOOK_ID__
if ( ${_envhook_prefix:q} != ${_envhook_origin:q} ) set _envhook_key = __ENVHOOK_ID___$%_envhook_prefix
set _envhook_state = ""
set _envhook_saved = ""
set _envhook_applied = ""
eval 'set _envhook_has = $?ENVHOOK_STATE_'"$_envhook_key"
if ( $_envhook_has ) eval 'set _envhook_state = ${ENVHOOK_STATE_'"$_envhook_key"':q}'
eval 'set _envhook_has = $?ENVHOOK_SAVED_'"$_envhook_key"
if ( $_envhook_has ) eval 'set _envhook_saved = ${ENVHOOK_SAVED_'"$_envhook_key"':q}'
eval 'set _envhook_has = $?ENVHOOK_APPLIED_'"$_envhook_key"
if ( $_envhook_has ) eval 'set _envhook_applied = ${ENVHOOK_APPLIED_'"$_envhook_key"':q}'
# A copy that csh cannot edit for has applied nothing, and has nothing to
# undo.
if ( $_envhook_hold ) set _envhook_state = ""
# State under our key is ours when the value it applied starts with our
# prefix and a '/' (the sentinel anchors the test at the start).
set _envhook_foreign = 0
if ( ${_envhook_state:q} != "" ) then
    set _envhook_probe = @envhook@end@${_envhook_applied:q}
    if ( $_envhook_copy ) then
        eval 'set _envhook_cut = ${_envhook_probe:s#@envhook@end@'"${_envhook_esc:q}"'/##:q}'
    else
        set _envhook_cut = ${_envhook_probe:s#@envhook@end@__ENVHOOK_PREFIX_EDIT__/##:q}
    endif
    if ( ${_envhook_cut:q} == ${_envhook_probe:q} ) then
        set _envhook_foreign = 1
        set _envhook_state = ""
    endif
endif
