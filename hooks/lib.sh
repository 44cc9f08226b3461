# Shared by the kroute hook shims (sourced, not run). `kroute_socket` sets `found` to the
# socket of the daemon that serves the repository around $CLAUDE_PROJECT_DIR or
# $GEMINI_PROJECT_DIR (else the working directory), named as router/client/locate.py names
# it (a test pins the two), found through the `<key>.root` file the daemon writes beside it.
# It returns 1 when there is none (no daemon runs), or when
# the socket or its directory is not the user's own (another user may have created them
# first to catch the prompts sent there): then the caller falls back to kroute-hook, whose
# client names the problem. Every process spawned costs about a millisecond, so the common
# case spawns none.

# Whether $found is a socket owned by the effective user, in a directory the user owns
# (`test -O`: a builtin, no process; kroute-hook checks the directory's mode too).
kroute_own_socket() {
  [ -S "$found" ] && [ -O "$found" ] && [ ! -L "${found%/*}" ] && [ -O "${found%/*}" ]
}

kroute_socket() {
  # `kroute install claude --local` writes the socket path into the hook command, which
  # spares the search below (a few processes, so a few milliseconds).
  if [ -n "${KROUTE_SOCKET:-}" ]; then
    found=$KROUTE_SOCKET
    kroute_own_socket
    return
  fi
  # Claude Code and Gemini CLI name the project; Codex runs hooks in the session directory
  dir=${CLAUDE_PROJECT_DIR:-${GEMINI_PROJECT_DIR:-$PWD}}
  while [ ! -f "$dir/kroute.toml" ]; do
    case $dir in */*[!/]*) dir=${dir%/*} ;; *) return 1 ;; esac
    [ -n "$dir" ] || return 1
  done
  # `cd -P` leaves the physical path in $PWD: no subshell for `pwd -P`
  here=$PWD
  cd -P "$dir" 2>/dev/null || return 1
  root=$PWD
  cd "$here" 2>/dev/null
  if [ -n "${XDG_RUNTIME_DIR:-}" ]; then run="$XDG_RUNTIME_DIR/kroute"; else run="/tmp/kroute-$(id -u)"; fi
  # as locate.socket_dir: a runtime dir too deep for a socket path falls back to /tmp
  [ "${#run}" -le 82 ] || run="/tmp/kroute-$(id -u)"
  # each daemon names its root and config beside its socket (<key>.root): reading them is
  # builtins only, where hashing the root in shell would spawn three processes
  for file in "$run"/*.root; do
    [ -f "$file" ] || continue
    { read -r served_root && read -r served_config; } < "$file" || continue
    if [ "$served_root" = "$root" ] && [ "$served_config" = "$root/kroute.toml" ]; then
      found=${file%.root}.sock
      kroute_own_socket
      return
    fi
  done
  return 1
}
