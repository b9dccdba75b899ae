# strip: sets _envhook_rest_PATH to LD_LIBRARY_PATH without our directories
# (_envhook_ours) and without empty elements, in time linear in the value's
# length (adding to a list one element at a time copies the list each
# time). envhook renders this file into activate.fish and deactivate.fish
# at their STRIP placeholder, so each hook stays one file.
#
# Empty elements: where there is one, `string split -n` rebuilds the list
# from the ':'-joined value (a quoted path variable joins with ':')
# without any; as the command substitution's command it keeps newlines
# inside elements. Our directories, which occur once if at all, are erased
# by index.
set -l _envhook_rest_PATH
if contains -- '' $LD_LIBRARY_PATH
    set _envhook_rest_PATH (string split -n -- : "$LD_LIBRARY_PATH")
else
    set _envhook_rest_PATH $LD_LIBRARY_PATH
end
for _envhook_el in $_envhook_ours
    while set -l _envhook_i (contains -i -- $_envhook_el $_envhook_rest_PATH)
        set -e _envhook_rest_PATH[$_envhook_i]
    end
end
