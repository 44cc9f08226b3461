# Shared by the kroute hook shims (sourced, not run). `kroute_socket` sets `found` to the
# socket of the daemon that serves the repository around $CLAUDE_PROJECT_DIR or
# $GEMINI_PROJECT_DIR (else the working directory), named as router/base/protocol.py names
# it (a test pins the two): a hash of the repository root and its kroute.toml. It returns 1 when there is none, or when
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
  root=$(cd "$dir" && pwd -P) || return 1
  key=$( { printf '%s\000%s' "$root" "$root/kroute.toml" | sha256sum 2>/dev/null \
    || printf '%s\000%s' "$root" "$root/kroute.toml" | shasum -a 256; } | cut -c1-12) || return 1
  if [ -n "${XDG_RUNTIME_DIR:-}" ]; then run="$XDG_RUNTIME_DIR/kroute"; else run="/tmp/kroute-$(id -u)"; fi
  sock="$run/$key.sock"
  [ "${#sock}" -le 100 ] || sock="/tmp/kroute-$(id -u)/$key.sock"
  found=$sock
  kroute_own_socket
}
