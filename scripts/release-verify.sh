#!/usr/bin/env bash
# release-verify.sh DIST: check what `goreleaser release --snapshot` (make
# release-snapshot) or a release left in DIST, then list it.
#   - every file of checksums.txt is there with that SHA-256 (sha256sum -c),
#     and every archive and package is in checksums.txt;
#   - the archives are the five platforms', each holding mneme, mneme-hook,
#     LICENSE and README.md; the packages are a .deb and an .rpm for
#     linux amd64 and arm64;
#   - a CycloneDX SBOM for each binary of each platform;
#   - the Homebrew formula names those archives with those sums.
set -euo pipefail
dist=${1:-dist}
cd "$dist"
fail() { echo "release-verify: $*" >&2; exit 1; }

[ -s checksums.txt ] || fail "no checksums.txt in $dist"
sha256sum --quiet --strict -c checksums.txt || fail "checksums.txt does not match the files"
echo "checksums.txt: $(wc -l <checksums.txt) files, every SHA-256 matches"

shopt -s nullglob
artifacts=(*.tar.gz *.zip *.deb *.rpm)
for f in "${artifacts[@]}"; do
  awk -v f="$f" '$2 == f || $2 == "*" f { found = 1 } END { exit !found }' checksums.txt || fail "$f is not in checksums.txt"
done

want_archives=(linux_amd64.tar.gz linux_arm64.tar.gz darwin_amd64.tar.gz darwin_arm64.tar.gz windows_amd64.zip)
for suffix in "${want_archives[@]}"; do
  a=(*_"$suffix")
  [ ${#a[@]} -eq 1 ] || fail "want one archive *_$suffix, found ${#a[@]}"
  case $suffix in
  *.zip) names=$(unzip -Z1 "${a[0]}") ; exe=.exe ;;
  *) names=$(tar -tzf "${a[0]}") ; exe= ;;
  esac
  for want in "mneme$exe" "mneme-hook$exe" LICENSE README.md; do
    grep -qx "$want" <<<"$names" || fail "${a[0]} lacks $want (holds: $(echo $names))"
  done
done
for pkg in _amd64.deb _arm64.deb .x86_64.rpm .aarch64.rpm; do
  p=(*"$pkg")
  [ ${#p[@]} -eq 1 ] || fail "want one package *$pkg, found ${#p[@]}"
done
if command -v dpkg-deb >/dev/null 2>&1; then
  for deb in *.deb; do
    contents=$(dpkg-deb -c "$deb")
    for want in ./usr/bin/mneme ./usr/bin/mneme-hook; do
      grep -q " $want\$" <<<"$contents" || fail "$deb does not install ${want#.}"
    done
  done
fi

# One CycloneDX SBOM per binary, in checksums.txt, naming the module at
# the release's version and at least the modules every build links.
for suffix in "${want_archives[@]}"; do
  plat=${suffix%%.*}
  for bin in mneme mneme-hook; do
    s=("$bin"_*_"$plat".cdx.json)
    [ ${#s[@]} -eq 1 ] || fail "want one SBOM ${bin}_*_$plat.cdx.json, found ${#s[@]}"
    grep -q " ${s[0]}\$" checksums.txt || fail "${s[0]} is not in checksums.txt"
    grep -q '"bomFormat": *"CycloneDX"' "${s[0]}" || fail "${s[0]} is not a CycloneDX document"
    grep -q '"name": *"github.com/mneme-dev/mneme"' "${s[0]}" || fail "${s[0]} does not name github.com/mneme-dev/mneme"
  done
done
grep -q '"name": *"gorm.io/gorm"' mneme_*_linux_amd64.cdx.json || fail "mneme's SBOM does not list gorm.io/gorm"
echo "SBOMs: $(ls *.cdx.json | wc -l) CycloneDX documents, one per binary"

formula=homebrew/Formula/mneme.rb
[ -s "$formula" ] || fail "no Homebrew formula at $dist/$formula"
# Each url "…/NAME" line is followed by its sha256 "…" line.
pairs=$(awk '/^ *url "/ { n = split($2, p, "/"); name = p[n]; gsub(/"/, "", name) }
             /^ *sha256 "/ { s = $2; gsub(/"/, "", s); print name, s }' "$formula")
[ "$(wc -l <<<"$pairs")" -ge 4 ] || fail "$formula names fewer than 4 archives:\n$pairs"
while read -r name sum; do
  grep -qx "$sum  $name" checksums.txt || fail "$formula gives $name the sum $sum, checksums.txt does not"
done <<<"$pairs"
echo "$formula: $(wc -l <<<"$pairs") archives, their sums as in checksums.txt"

echo
echo "artifacts in $dist (bytes):"
for f in "${artifacts[@]}" checksums.txt "$formula"; do
  printf '  %10d  %s\n' "$(stat -c %s "$f")" "$f"
done
