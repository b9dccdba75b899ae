# key: the environment's directories and prefix, the prefix the hook was
# written for, the key its state lives under, and that state; the same in
# the activate and deactivate hooks, which envhook renders it into at their
# KEY placeholder, so each hook stays one file.
# (_envhook_state is 'foreign' for state another copy applied.)
set -l _envhook_ours (string split -- : __ENVHOOK_DIRS__)
set -l _envhook_prefix __ENVHOOK_PREFIX__
# The prefix this hook was written for, spelled so that conda's rewriting
# of the old prefix in a copy does not change it; a copy (clone, rename,
# conda-unpack) keys its state by its prefix's length too (see activate.sh).
set -l _envhook_origin __ENVHOOK_ORIGIN__
# A copy made without conda (cp -a, rsync, a restored backup) holds these
# hooks byte for byte; conda runs them with CONDA_PREFIX set to the copy.
# When CONDA_PREFIX is another directory (not another spelling of this
# prefix) holding this hook and the link directory it was written with,
# the copy's own directories are used, never the source's (see key.sh).
set -l _envhook_copy
if set -q CONDA_PREFIX; and test -n "$CONDA_PREFIX"; and test "$CONDA_PREFIX" != "$_envhook_prefix"
    if test __ENVHOOK_COPY_MARKS__; and not test "$CONDA_PREFIX" -ef "$_envhook_prefix"
        set _envhook_prefix "$CONDA_PREFIX"
        set _envhook_ours __ENVHOOK_COPY_DIRS__
        set _envhook_copy 1
    end
end
set -l _envhook_key __ENVHOOK_ID__
if test "$_envhook_prefix" != "$_envhook_origin"
    set _envhook_key __ENVHOOK_ID___(string length -- "$_envhook_prefix")
end
set -l _envhook_vs ENVHOOK_STATE_$_envhook_key
set -l _envhook_vv ENVHOOK_SAVED_$_envhook_key
set -l _envhook_va ENVHOOK_APPLIED_$_envhook_key
# State under our key is ours when the value it applied starts with our
# prefix (compared by length: the prefix may hold wildcard characters).
set -l _envhook_state
if set -q $_envhook_vs; and test -n "$$_envhook_vs"
    set -l _envhook_n (math (string length -- "$_envhook_prefix") + 1)
    if test (string sub -l $_envhook_n -- "$$_envhook_va") = "$_envhook_prefix/"
        set _envhook_state "$$_envhook_vs"
    else
        set _envhook_state foreign
    end
end
