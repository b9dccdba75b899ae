# strip: sets _envhook_kept to LD_LIBRARY_PATH without our directories
# (_envhook_dirs) and without empty elements ("a:b", or empty), for the
# tcsh hooks; envhook renders it into activate.csh and deactivate.csh at
# their STRIP placeholder.
#
# csh has no functions, no ${var-default}, no substrings and no loops over
# ':'-separated fields that keep spaces, so the value is framed as ":a:b:"
# and edited with the :as modifier (substitute, in C): one line per
# directory of ours and one for empty elements, repeated while a pass
# changes something (:as does not rescan what it substituted: ":d:d:"
# becomes ":d:"). Every expansion uses :q, so the value stays one word, is
# never globbed or re-expanded, and keeps newlines. The frame's last ':'
# goes through a sentinel, as csh can only edit the first occurrence of a
# string; a value that already holds the sentinel is never touched (see
# the hooks).
if ( $?LD_LIBRARY_PATH ) then
    set _envhook_rest = ":${LD_LIBRARY_PATH:q}:"
else
    set _envhook_rest = ":"
endif
set _envhook_prev = ""
while ( ${_envhook_rest:q} != ${_envhook_prev:q} )
    set _envhook_prev = ${_envhook_rest:q}
    __ENVHOOK_DIR_EDITS__
    set _envhook_rest = ${_envhook_rest:as#::#:#:q}
end
if ( ${_envhook_rest:q} == ":" ) then
    set _envhook_kept = ""
else
    set _envhook_kept = ${_envhook_rest:s#:##:q}@envhook@end@
    set _envhook_kept = ${_envhook_kept:s#:@envhook@end@##:q}
endif
