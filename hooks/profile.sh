# __ENVHOOK_HEADER__
#
# POSIX sh for /etc/profile.d (or any login script), for machines and
# containers that never run `conda activate`: puts this environment's CUDA
# libraries first on LD_LIBRARY_PATH, once, without an empty element.
# There is no deactivation; nothing is saved. Builtins only; status 0.

# Data in single quotes; see activate.sh.
# shellcheck disable=SC2016,SC2089
_envhook_dirs=__ENVHOOK_DIRS__
# The current value without our directories and without empty elements
# (_envhook_rest: ":a:b", or empty), in linear time.
_envhook_rest=
# __ENVHOOK_STRIP__
LD_LIBRARY_PATH=${_envhook_dirs}${_envhook_rest}
# shellcheck disable=SC2090
export LD_LIBRARY_PATH
unset _envhook_dirs _envhook_rest
:
# __ENVHOOK_DETAILS__
