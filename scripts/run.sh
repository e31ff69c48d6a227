#!/bin/sh
# run.sh PROGRAM [ARGS...]: how the Claude Code plugin starts mneme's
# binaries (hooks/hooks.json, .claude-plugin/plugin.json).
#
# It runs PROGRAM from the plugin's bin/. When bin/ has none, it installs
# them first: it downloads the release archive of the plugin's version
# (.claude-plugin/plugin.json) for this platform, checks it against the
# SHA-256 recorded in the plugin (.claude-plugin/checksums.txt, written at
# release time; nothing fetched from the download location is trusted),
# unpacks it in a temporary directory inside the plugin and renames that
# into place as bin/, under a lock directory, so two sessions starting at
# once never see a partial bin/. When that fails it runs PROGRAM from PATH
# if it is there; otherwise a hook answers Claude Code and exits 0 (at
# session start with one line saying why and how to install by hand) and
# the MCP server says it on stderr and exits 1. Nothing of a failed install
# is left but .install-failed, whose age keeps the hooks after it from
# trying again for a while (a session start always tries).
#
# Environment: MNEME_DOWNLOAD_URL replaces the release's download
# directory (https://github.com/mneme-dev/mneme/releases/download/v<version>)
# for mirrors and tests; MNEME_DOWNLOAD_TIMEOUT bounds the install in
# seconds (default: well under the event's hook timeout).
prog=$1
shift
root=${CLAUDE_PLUGIN_ROOT:-$(dirname "$0")/..}
bindir=$root/bin

installed() {
  for bin in "$bindir/$prog" "$bindir/$prog.exe"; do
    if [ -f "$bin" ] && [ -x "$bin" ]; then
      found=$bin
      return 0
    fi
  done
  return 1
}

if installed; then
  exec "$found" "$@"
fi

event=
[ "$prog" = mneme-hook ] && event=${1:-}
# The install's budget, in seconds: well under Claude Code's timeout for
# the event (hooks/hooks.json), and generous for the MCP server.
case "$prog:$event" in
mneme-hook:session-start) budget=6 ;;
mneme-hook:pre-tool-use | mneme-hook:session-end) budget=1 ;;
mneme-hook:*) budget=3 ;;
*) budget=20 ;;
esac
case ${MNEME_DOWNLOAD_TIMEOUT:-} in
'' | *[!0-9]*) ;; # whole seconds only
*) budget=$MNEME_DOWNLOAD_TIMEOUT ;;
esac

# now_ms is the clock in milliseconds: from date +%s%N where it has
# nanoseconds, else whole seconds less one (counting time used for the
# budget, a coarse clock errs towards more time left, never less).
now_ms() {
  t=$(date +%s%N 2>/dev/null)
  case $t in
  '' | *[!0-9]*) echo $(($(date +%s) * 1000 - 999)) ;;
  *) echo $((t / 1000000)) ;;
  esac
}
start=$(now_ms)

version=$(sed -n 's/^[[:space:]]*"version"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$root/.claude-plugin/plugin.json" 2>/dev/null | head -n 1)
case $(uname -s 2>/dev/null) in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN* | Windows*) os=windows ;;
*) os= ;;
esac
case $(uname -m 2>/dev/null) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) arch= ;;
esac
ext=tar.gz
[ "$os" = windows ] && ext=zip
archive=mneme_${version}_${os}_${arch}.$ext
release=https://github.com/mneme-dev/mneme/releases/download/v$version
base=${MNEME_DOWNLOAD_URL:-$release}
lock=$root/.install-lock
marker=$root/.install-failed
tmp=
locked=

cleanup() {
  [ -n "$tmp" ] && rm -rf "$tmp"
  [ -n "$locked" ] && rmdir "$lock" 2>/dev/null
  tmp= locked=
}
trap cleanup EXIT
trap 'cleanup; exit 1' HUP INT TERM

# left prints the seconds left of the budget, to the millisecond (0.000
# when none).
left() {
  ms=$((budget * 1000 - ($(now_ms) - start)))
  [ $ms -gt 0 ] || ms=0
  printf '%d.%03d\n' $((ms / 1000)) $((ms % 1000))
}

# sha256 FILE prints FILE's SHA-256 in hex.
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | sed 's/ .*//'
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | sed 's/ .*//'
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | sed 's/ .*//'
  else
    return 1
  fi
}

# deadline SECONDS CMD...: CMD, killed when it runs longer than SECONDS.
deadline() {
  secs=$1
  shift
  "$@" &
  job=$!
  (
    trap 'kill $nap 2>/dev/null; exit 0' TERM
    sleep "$secs" &
    nap=$!
    wait $nap
    kill $job 2>/dev/null
  ) </dev/null >/dev/null 2>&1 &
  dog=$!
  wait $job
  rc=$?
  kill $dog 2>/dev/null
  wait $dog 2>/dev/null
  return $rc
}

# fetch URL FILE downloads within what is left of the budget; on failure
# why says what went wrong.
fetch() {
  secs=$(left)
  [ "${secs%.*}${secs#*.}" -ge 100 ] 2>/dev/null || { why="no time was left to download $1"; return 1; }
  if command -v curl >/dev/null 2>&1; then
    code=$(deadline "$secs" curl -sS -L -f --max-time "$secs" -o "$2" -w '%{http_code}' "$1" 2>"$tmp/err")
    rc=$?
    [ $rc -eq 0 ] && return 0
    case $rc in
    22) why="download of $1 failed: HTTP $code" ;;
    28 | 143) why="download of $1 did not finish within ${budget}s" ;;
    *) why="download of $1 failed: $(head -n 1 "$tmp/err" | sed 's/^curl: ([0-9]*) //')" ;;
    esac
    return 1
  elif command -v wget >/dev/null 2>&1; then
    deadline "$secs" wget -q -T "$secs" -t 1 -O "$2" "$1" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] && return 0
    case $rc in
    8) why="download of $1 failed: the server answered with an error" ;;
    143) why="download of $1 did not finish within ${budget}s" ;;
    *) why="download of $1 failed (wget exit $rc)" ;;
    esac
    return 1
  fi
  why="neither curl nor wget is installed"
  return 1
}

# install downloads, checks and unpacks the archive into bin/; it holds
# the lock. On failure why says what went wrong and nothing is left.
install() {
  name_re=$(printf '%s' "$archive" | sed 's/\./\\./g')
  want=$(sed -n "s/^\([0-9a-fA-F]\{64\}\)[[:space:]][[:space:]]*\*\{0,1\}$name_re\$/\1/p" "$root/.claude-plugin/checksums.txt" 2>/dev/null | head -n 1 | tr 'A-F' 'a-f')
  if [ -z "$want" ]; then
    why="the plugin records no checksum for $archive"
    return 1
  fi
  tmp=$(mktemp -d "$root/.install-tmp.XXXXXX") || { why="cannot write in $root"; return 1; }
  fetch "$base/$archive" "$tmp/$archive" || return 1
  got=$(sha256 "$tmp/$archive") || { why="no sha256sum, shasum or openssl to check the download with"; return 1; }
  if [ "$got" != "$want" ]; then
    why="$archive does not match the checksum the plugin records"
    return 1
  fi
  mkdir "$tmp/x" "$tmp/bin" || { why="cannot write in $root"; return 1; }
  if [ "$ext" = zip ]; then
    # Git Bash may lack unzip; Windows' own tar.exe (bsdtar) reads zip.
    unzip -q "$tmp/$archive" -d "$tmp/x" 2>/dev/null ||
      "${SYSTEMROOT:-C:/Windows}/System32/tar.exe" -xf "$tmp/$archive" -C "$tmp/x" 2>/dev/null ||
      tar -xf "$tmp/$archive" -C "$tmp/x" 2>/dev/null
  else
    tar -xzf "$tmp/$archive" -C "$tmp/x" 2>/dev/null
  fi || { why="$archive could not be unpacked"; return 1; }
  for name in mneme mneme-hook; do
    for f in "$tmp/x/$name" "$tmp/x/$name.exe" "$tmp/x"/*/"$name" "$tmp/x"/*/"$name.exe"; do
      if [ -f "$f" ]; then
        mv "$f" "$tmp/bin/" && continue 2
      fi
    done
    why="$archive holds no $name"
    return 1
  done
  chmod 755 "$tmp/bin"/* || { why="cannot write in $root"; return 1; }
  # An existing bin/ without the binaries (left empty) is set aside in tmp,
  # then the new one renamed into place: one rename, never a partial bin/.
  if [ -e "$bindir" ]; then
    mv "$bindir" "$tmp/old" || { why="cannot replace $bindir"; return 1; }
  fi
  mv "$tmp/bin" "$bindir" || { why="cannot write $bindir"; return 1; }
  rm -f "$marker"
  return 0
}

why=
if [ -z "$version" ]; then
  why="no version in $root/.claude-plugin/plugin.json"
elif [ -z "$os" ] || [ -z "$arch" ]; then
  why="no release for this platform ($(uname -s 2>/dev/null) $(uname -m 2>/dev/null))"
elif [ "$prog" = mneme-hook ] && [ "$event" != session-start ] && [ -f "$marker" ] && [ -n "$(find "$marker" -mmin -5 2>/dev/null)" ]; then
  # An install failed moments ago: a tool call does not wait for another
  # (a session start and the MCP server, once a session, try again).
  why=$(head -n 1 "$marker" 2>/dev/null)
  why="${why:-an install failed moments ago}"
else
  while :; do
    if installed; then
      break
    fi
    # A lock older than two minutes is a run that was killed.
    if [ -d "$lock" ] && [ -n "$(find "$lock" -maxdepth 0 -mmin +2 2>/dev/null)" ]; then
      rmdir "$lock" 2>/dev/null
    fi
    if mkdir "$lock" 2>/dev/null; then
      locked=1
      if installed || install; then
        cleanup
        break
      fi
      printf '%s\n' "$why" >"$marker" 2>/dev/null
      cleanup
      break
    fi
    if [ "$(left)" = 0.000 ]; then
      why="another session was still installing mneme's binaries"
      break
    fi
    # Another run installs: wait for its bin/.
    sleep 0.2 2>/dev/null || sleep 1
  done
fi

if installed; then
  trap - EXIT
  exec "$found" "$@"
fi
if command -v "$prog" >/dev/null 2>&1; then
  trap - EXIT
  exec "$prog" "$@"
fi
how="unpack $archive from $release into $bindir, or run: go install github.com/mneme-dev/mneme/cmd/...@latest"
msg="mneme: could not install its binaries ($why); install by hand: $how"
case "$prog" in
mneme-hook)
  cat >/dev/null
  if [ "$event" = session-start ]; then
    esc=$(printf '%s' "$msg" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\n\r\t')
    [ -n "$esc" ] || esc="mneme: could not install its binaries; install by hand: go install github.com/mneme-dev/mneme/cmd/...@latest"
    printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}\n' "$esc"
  else
    printf '{"continue":true,"suppressOutput":true}\n'
  fi
  exit 0
  ;;
esac
echo "$msg" >&2
exit 1
