# Shared by the kroute hook shims (sourced, not run). Finds the socket of the daemon that
# serves the repository around $CLAUDE_PROJECT_DIR (else the working directory), the way
# router/paths.py names it: a hash of the repository root and its kroute.toml.

kroute_socket() {
  dir=${CLAUDE_PROJECT_DIR:-$PWD}
  while [ ! -f "$dir/kroute.toml" ]; do
    [ "$dir" = / ] && return 1
    dir=$(dirname "$dir")
  done
  root=$(cd "$dir" && pwd -P) || return 1
  key=$( { printf '%s\000%s' "$root" "$root/kroute.toml" | sha256sum 2>/dev/null \
    || printf '%s\000%s' "$root" "$root/kroute.toml" | shasum -a 256; } | cut -c1-12) || return 1
  if [ -n "${XDG_RUNTIME_DIR:-}" ]; then run="$XDG_RUNTIME_DIR/kroute"; else run="/tmp/kroute-$(id -u)"; fi
  sock="$run/$key.sock"
  [ "${#sock}" -le 100 ] || sock="/tmp/kroute-$(id -u)/$key.sock"
  [ -S "$sock" ] || return 1
  printf '%s' "$sock"
}
