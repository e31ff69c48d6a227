package app

import (
	"strings"

	"golang.org/x/sys/unix"
)

// lockedAttr reads path's immutable and append-only attributes with statx,
// which does not open the file, and says how to clear them. attr is ""
// when neither is set, when the file does not exist, or when the file
// system does not say.
func lockedAttr(path string) (attr, fix string) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_DONT_SYNC, unix.STATX_BASIC_STATS, &st); err != nil {
		return "", ""
	}
	attrs := st.Attributes & st.Attributes_mask
	var out []string
	if attrs&unix.STATX_ATTR_IMMUTABLE != 0 {
		out = append(out, "immutable")
	}
	if attrs&unix.STATX_ATTR_APPEND != 0 {
		out = append(out, "append-only")
	}
	return strings.Join(out, " and "), "chattr -i -a " + path
}
