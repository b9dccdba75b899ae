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
# State under our key is ours when the value it applied starts with our
# prefix and a '/' (the sentinel anchors the test at the start).
set _envhook_foreign = 0
if ( ${_envhook_state:q} != "" ) then
    set _envhook_probe = @envhook@end@${_envhook_applied:q}
    if ( ${_envhook_probe:s#@envhook@end@__ENVHOOK_PREFIX_EDIT__/##:q} == ${_envhook_probe:q} ) then
        set _envhook_foreign = 1
        set _envhook_state = ""
    endif
endif
