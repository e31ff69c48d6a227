#!/bin/sh
# run.sh PROGRAM [ARGS...]: how the Claude Code plugin starts mneme's
# binaries (hooks/hooks.json, .claude-plugin/plugin.json). It runs PROGRAM
# from the plugin's bin/ directory when it is there, else from PATH. When
# neither has it, a hook prints one line saying how to install mneme (shown
# to the user at session start) and lets Claude Code go on; the MCP server
# says it on stderr and exits 1.
prog=$1
shift
for bin in "${CLAUDE_PLUGIN_ROOT:-$(dirname "$0")/..}/bin/$prog" "${CLAUDE_PLUGIN_ROOT:-$(dirname "$0")/..}/bin/$prog.exe"; do
  [ -f "$bin" ] && [ -x "$bin" ] && exec "$bin" "$@"
done
if command -v "$prog" >/dev/null 2>&1; then
  exec "$prog" "$@"
fi
msg="mneme: $prog is not installed; install it with: go install github.com/mneme-dev/mneme/cmd/...@latest (Go 1.25+, puts mneme and mneme-hook in \$(go env GOPATH)/bin, which must be on PATH)"
case "$prog" in
mneme-hook)
  cat >/dev/null
  if [ "${1:-}" = session-start ]; then
    printf '{"continue":true,"systemMessage":"%s"}\n' "$msg"
  else
    printf '{"continue":true}\n'
  fi
  exit 0
  ;;
esac
echo "$msg" >&2
exit 1
