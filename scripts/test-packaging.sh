#!/usr/bin/env bash
# test-packaging.sh DIST (make test-packaging, after make release-snapshot):
# the plugin's bootstrap (scripts/run.sh) installing the snapshot's archive;
# the snapshot's .deb for this machine installed as a user gets it, with
# dpkg as root; both binaries in /usr/bin saying the stamped version;
# `mneme install` in a throwaway HOME wiring Claude Code's hooks to
# /usr/bin/mneme-hook; a real Claude Code session through them (e2e's
# TestClaudeCodeWithInstalledPackage); then dpkg -r, after which neither
# binary is left. It refuses to run over a mneme that was there before.
set -euo pipefail
dist=$(cd "${1:-dist}" && pwd)
cd "$(dirname "$0")/.."
fail() { echo "test-packaging: $*" >&2; exit 1; }

sudo=
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || fail "dpkg -i needs root: run as root (as CI does) or with sudo available"
  sudo=sudo
fi
command -v dpkg >/dev/null 2>&1 || fail "no dpkg: the .deb is tested on Debian and Ubuntu"
arch=$(dpkg --print-architecture)
debs=("$dist"/*_"$arch".deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "want one *_$arch.deb in $dist, found: ${debs[*]}"
deb=${debs[0]}

# The version and commit GoReleaser stamped (dist/metadata.json).
meta() { sed -n 's/.*"'"$1"'": *"\([^"]*\)".*/\1/p' "$dist/metadata.json" | head -1; }
version=$(meta version)
commit=$(meta commit)
[ -n "$version" ] && [ -n "$commit" ] || fail "no version or commit in $dist/metadata.json"

if dpkg-query -W -f='${Status}' mneme 2>/dev/null | grep -q 'install ok'; then
  fail "a mneme package is installed already; this test installs and removes its own: dpkg -r mneme first"
fi
for f in /usr/bin/mneme /usr/bin/mneme-hook; do
  [ ! -e "$f" ] || fail "$f exists and is no package's: move it away first"
done

installed=
home=$(mktemp -d)
cleanup() {
  rm -rf "$home"
  if [ -n "$installed" ]; then $sudo dpkg -r mneme >/dev/null || true; fi
}
trap cleanup EXIT

echo "== the plugin's run.sh installing the snapshot's archive from a loopback server, checked against the recorded SHA-256"
MNEME_RELEASE_DIST=$dist go test -count=1 -run '^TestPluginBootstrapSnapshot$' -v ./cmd/mneme/ ||
  fail "TestPluginBootstrapSnapshot failed"

echo "== dpkg -i $(basename "$deb")"
$sudo dpkg -i "$deb"
installed=1
dpkg -L mneme | grep -qx /usr/bin/mneme || fail "dpkg -L mneme does not list /usr/bin/mneme"
dpkg -L mneme | grep -qx /usr/bin/mneme-hook || fail "dpkg -L mneme does not list /usr/bin/mneme-hook"

echo "== the stamped version: $version, commit $commit"
for cmd in "/usr/bin/mneme version" "/usr/bin/mneme --version" "/usr/bin/mneme-hook --version"; do
  out=$($cmd)
  echo "$cmd:"
  sed 's/^/  /' <<<"$out"
  prog=$(basename "${cmd%% *}")
  want="$prog version $version"$'\n'"commit $commit ("
  case $out in
  "$want"*) ;;
  *) fail "$cmd printed \"$out\", want it to begin \"$want\"" ;;
  esac
done

echo "== mneme install in a throwaway HOME"
settings=$home/.claude/settings.json
HOME=$home /usr/bin/mneme install --settings "$settings"
commands=$(grep -o '"command": *"[^"]*"' "$settings" | sed 's/"command": *"\(.*\)"/\1/')
n=$(grep -c . <<<"$commands" || true)
[ "$n" -ge 6 ] || fail "$settings holds $n hook commands, want mneme's (at least 6):\n$(cat "$settings")"
while read -r c; do
  case $c in
  "/usr/bin/mneme-hook "*) ;;
  *) fail "a hook runs \"$c\", not /usr/bin/mneme-hook" ;;
  esac
done <<<"$commands"
echo "$n hooks, each running /usr/bin/mneme-hook"

echo "== a real Claude Code session through /usr/bin/mneme-hook and /usr/bin/mneme"
MNEME_E2E_INSTALLED=/usr/bin MNEME_E2E_INSTALLED_VERSION=$version MNEME_E2E_INSTALLED_COMMIT=$commit \
  go test -count=1 -timeout 10m -run '^TestClaudeCodeWithInstalledPackage$' -v ./e2e/ ||
  fail "TestClaudeCodeWithInstalledPackage failed"

echo "== dpkg -r mneme"
$sudo dpkg -r mneme
installed=
for f in /usr/bin/mneme /usr/bin/mneme-hook; do
  [ ! -e "$f" ] || fail "$f is still there after dpkg -r"
done
if dpkg-query -W -f='${Status}' mneme 2>/dev/null | grep -q 'install ok'; then
  fail "dpkg still lists mneme as installed"
fi
echo "removed: /usr/bin/mneme and /usr/bin/mneme-hook are gone"
echo "test-packaging: ok ($(basename "$deb"))"
