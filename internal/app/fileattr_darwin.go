package app

import (
	"strings"

	"golang.org/x/sys/unix"
)

// lockedAttr reads path's immutable and append-only flags (chflags: uchg,
// schg, uappnd, sappnd) with lstat, which does not open the file, and says
// how to clear them. attr is "" when none is set or the file does not
// exist.
func lockedAttr(path string) (attr, fix string) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return "", ""
	}
	var out []string
	if st.Flags&(unix.UF_IMMUTABLE|unix.SF_IMMUTABLE) != 0 {
		out = append(out, "immutable")
	}
	if st.Flags&(unix.UF_APPEND|unix.SF_APPEND) != 0 {
		out = append(out, "append-only")
	}
	return strings.Join(out, " and "), "chflags nouchg,nouappnd " + path
}
