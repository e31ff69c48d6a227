#!/usr/bin/env bash
# Fetch claude-mem and Bun from the npm registry into .cache/bench-compare
# (never committed). `npm pack` fetches just the published tarballs:
# claude-mem's worker is one bundled file (plugin/scripts/worker-service.cjs)
# and runs without its package dependencies, which a full `npm install`
# spends many minutes resolving.
set -euo pipefail
cd "$(dirname "$0")/../.."
CLAUDE_MEM_VERSION="${CLAUDE_MEM_VERSION:-13.25.3}"
BUN_VERSION="${BUN_VERSION:-1.4.5}"
dir=.cache/bench-compare
mkdir -p "$dir"
cd "$dir"
case "$(uname -m)" in
  x86_64) bunpkg="@oven/bun-linux-x64" ;;
  aarch64|arm64) bunpkg="@oven/bun-linux-aarch64" ;;
  *) echo "no Bun build for $(uname -m)" >&2; exit 1 ;;
esac
if [ ! -x claude-mem/package/plugin/scripts/worker-service.cjs ] || ! grep -q "\"version\": \"$CLAUDE_MEM_VERSION\"" claude-mem/package/package.json 2>/dev/null; then
  rm -rf claude-mem && mkdir claude-mem
  tgz=$(npm pack --silent "claude-mem@$CLAUDE_MEM_VERSION" 2>/dev/null | tail -1)
  tar xzf "$tgz" -C claude-mem && rm -f "$tgz"
fi
if [ ! -x bun/package/bin/bun ] || [ "$(bun/package/bin/bun --version 2>/dev/null)" != "$BUN_VERSION" ]; then
  rm -rf bun && mkdir bun
  tgz=$(npm pack --silent "$bunpkg@$BUN_VERSION" 2>/dev/null | tail -1)
  tar xzf "$tgz" -C bun && rm -f "$tgz"
  chmod +x bun/package/bin/bun
fi
echo "claude-mem $(grep -m1 '"version"' claude-mem/package/package.json | tr -dc '0-9.') and bun $(bun/package/bin/bun --version) in $PWD"
