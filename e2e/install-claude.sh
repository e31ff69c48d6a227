#!/usr/bin/env bash
# Installs the pinned Claude Code CLI into <repo>/.cache/claude-code for the
# end-to-end tests (e2e/), which find it there on their own (or through
# MNEME_CLAUDE_BIN). Idempotent: does nothing when the pinned version is
# already installed. Scripts are ignored (--ignore-scripts): the postinstall
# step is not needed, the native binary in the platform package runs as is.
set -euo pipefail

VERSION="${CLAUDE_CODE_VERSION:-2.1.330}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="$ROOT/.cache/claude-code"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64)  PLATFORM=linux-x64 ;;
  Linux-aarch64) PLATFORM=linux-arm64 ;;
  Darwin-x86_64) PLATFORM=darwin-x64 ;;
  Darwin-arm64)  PLATFORM=darwin-arm64 ;;
  *) echo "install-claude.sh: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
if [ "$PLATFORM" = linux-x64 ] || [ "$PLATFORM" = linux-arm64 ]; then
  # Alpine and other musl systems get the -musl build.
  if ldd --version 2>&1 | grep -qi musl; then PLATFORM="$PLATFORM-musl"; fi
fi
BIN="$PREFIX/node_modules/@anthropic-ai/claude-code-$PLATFORM/claude"

installed_version() {
  [ -x "$BIN" ] || return 1
  # "2.1.330 (Claude Code)"
  "$BIN" --version 2>/dev/null | awk '{print $1}'
}

if [ "$(installed_version || true)" = "$VERSION" ]; then
  echo "$BIN"
  exit 0
fi

command -v npm >/dev/null || { echo "install-claude.sh: npm is required" >&2; exit 1; }
mkdir -p "$PREFIX"
# --prefix installs into $PREFIX/node_modules and records the package in
# $PREFIX/package.json, so that a later install there keeps it. The repo
# itself has no package.json. The engines field asks for node >= 22, which
# only matters for the JS wrapper, not for the native binary we run.
npm install --prefix "$PREFIX" --ignore-scripts --include=optional --save-exact \
  --no-audit --no-fund --loglevel=error \
  "@anthropic-ai/claude-code@$VERSION" >&2

got="$(installed_version || true)"
if [ "$got" != "$VERSION" ]; then
  echo "install-claude.sh: expected $BIN to be version $VERSION, got '${got:-nothing}'" >&2
  exit 1
fi
echo "$BIN"
