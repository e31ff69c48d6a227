//go:build windows

package hookwire

import (
	"os"
	"syscall"
	"unsafe"
)

// kernel32 is a Known DLL: Windows loads it from the system directory
// whatever the search path, so loading it by name cannot be hijacked.
var (
	kernel32         = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx   = kernel32.NewProc("LockFileEx")
	procUnlockFileEx = kernel32.NewProc("UnlockFileEx")
)

const (
	lockfileFailImmediately = 0x1
	lockfileExclusiveLock   = 0x2
	errorLockViolation      = syscall.Errno(33) // ERROR_LOCK_VIOLATION
	// Windows byte-range locks are mandatory: a locked range cannot be
	// read through another handle. The lock covers one byte far past any
	// data instead, so a replay reading a spool file is never refused
	// while an appender holds the lock.
	lockOffsetHigh = 0x40000000

	fileReadAttributes  = 0x00000080 // FILE_READ_ATTRIBUTES, for Stat
	standardRightsWrite = 0x00020000 // STANDARD_RIGHTS_WRITE (READ_CONTROL)
)

// LockFile takes an exclusive lock on f (LockFileEx): it goes with the open
// handle, so a process that dies releases it. With wait unset it returns
// ErrLocked at once when another holds the lock. The spools, the import
// lock and the replay lock all use it.
func LockFile(f *os.File, wait bool) error {
	flags := uintptr(lockfileExclusiveLock)
	if !wait {
		flags |= lockfileFailImmediately
	}
	ol := syscall.Overlapped{OffsetHigh: lockOffsetHigh}
	r, _, err := procLockFileEx.Call(f.Fd(), flags, 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	if r != 0 {
		return nil
	}
	if err == errorLockViolation || err == syscall.ERROR_IO_PENDING {
		return ErrLocked
	}
	return os.NewSyscallError("LockFileEx", err)
}

// UnlockFile releases LockFile's lock on f.
func UnlockFile(f *os.File) error {
	ol := syscall.Overlapped{OffsetHigh: lockOffsetHigh}
	r, _, err := procUnlockFileEx.Call(f.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	if r == 0 {
		return os.NewSyscallError("UnlockFileEx", err)
	}
	return nil
}

// openShared opens path as os.OpenFile does, but lets other processes
// rename or delete the file while it is open (FILE_SHARE_DELETE, which
// os.OpenFile leaves out): the spool's rotation renames pending.jsonl while
// it holds it open and locked, as it does on Unix. Only the flags the spool
// uses are mapped: O_RDONLY, O_RDWR, O_WRONLY|O_APPEND, and O_CREATE.
func openShared(path string, flag int, perm os.FileMode) (*os.File, error) {
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	var access uint32 = syscall.GENERIC_READ
	switch {
	case flag&os.O_APPEND != 0:
		// Appends always land at the end, as with O_APPEND on Unix
		// (FILE_APPEND_DATA without FILE_WRITE_DATA).
		access = syscall.FILE_APPEND_DATA | syscall.FILE_WRITE_ATTRIBUTES | fileReadAttributes | standardRightsWrite | syscall.SYNCHRONIZE
	case flag&(os.O_WRONLY|os.O_RDWR) != 0:
		access |= syscall.GENERIC_WRITE
	}
	var create uint32 = syscall.OPEN_EXISTING
	if flag&os.O_CREATE != 0 {
		create = syscall.OPEN_ALWAYS
	}
	share := uint32(syscall.FILE_SHARE_READ | syscall.FILE_SHARE_WRITE | syscall.FILE_SHARE_DELETE)
	h, err := syscall.CreateFile(name, access, share, nil, create, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
