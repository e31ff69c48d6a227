package app

import (
	"golang.org/x/sys/windows"
)

// lockedAttr reads path's read-only attribute, which keeps SQLite from
// writing the file whatever its ACL says, and says how to clear it. attr
// is "" when it is not set or the file does not exist.
func lockedAttr(path string) (attr, fix string) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return "", ""
	}
	a, err := windows.GetFileAttributes(name)
	if err != nil || a&windows.FILE_ATTRIBUTE_READONLY == 0 {
		return "", ""
	}
	return "read-only", "attrib -r " + path
}

// writeDenied is nil on Windows: there is no access(2), and the ACL of a
// file in the private data directory is this user's (CheckPrivateDir);
// the read-only attribute is lockedAttr's.
func writeDenied(string) error { return nil }

// FreeBytes is the space under dir that this user may still fill.
func FreeBytes(dir string) (uint64, bool) {
	name, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, false
	}
	var avail, total, free uint64
	if windows.GetDiskFreeSpaceEx(name, &avail, &total, &free) != nil {
		return 0, false
	}
	return avail, true
}
