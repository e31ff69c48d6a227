//go:build windows

package hookwire

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"unsafe"
)

// On Windows "private to this user" is the access control list (see
// acl.go): Unix's mode bits mean nothing there (os.Chmod only toggles the
// read-only attribute). The ACL is also what keeps others off the worker's
// socket, since Windows' AF_UNIX sockets carry no peer credentials.
//
// advapi32 is a Known DLL, loaded from the system directory whatever the
// search path.
var (
	advapi32                       = syscall.NewLazyDLL("advapi32.dll")
	procGetNamedSecurityInfoW      = advapi32.NewProc("GetNamedSecurityInfoW")
	procSetNamedSecurityInfoW      = advapi32.NewProc("SetNamedSecurityInfoW")
	procGetSecurityDescriptorDacl  = advapi32.NewProc("GetSecurityDescriptorDacl")
	procGetSecurityDescriptorOwner = advapi32.NewProc("GetSecurityDescriptorOwner")
	procSDToStringSD               = advapi32.NewProc("ConvertSecurityDescriptorToStringSecurityDescriptorW")
	procStringSDToSD               = advapi32.NewProc("ConvertStringSecurityDescriptorToSecurityDescriptorW")
	errNoSID                       = errors.New("cannot read this user's SID")
)

const (
	seFileObject                     = 1
	ownerSecurityInformation         = 0x1
	daclSecurityInformation          = 0x4
	protectedDaclSecurityInformation = 0x80000000
	sddlRevision1                    = 1
)

// userSID is the SID of the user this process runs as (S-1-5-21-…).
func userSID() (string, error) {
	tok, err := syscall.OpenCurrentProcessToken()
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoSID, err)
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoSID, err)
	}
	return u.User.Sid.String()
}

// securitySDDL reads path's owner and DACL as SDDL text.
func securitySDDL(path string) (string, error) {
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return "", err
	}
	var sd uintptr
	r, _, _ := procGetNamedSecurityInfoW.Call(uintptr(unsafe.Pointer(name)), seFileObject,
		ownerSecurityInformation|daclSecurityInformation, 0, 0, 0, 0, uintptr(unsafe.Pointer(&sd)))
	if r != 0 {
		return "", os.NewSyscallError("GetNamedSecurityInfo", syscall.Errno(r))
	}
	defer syscall.LocalFree(syscall.Handle(sd))
	var str *uint16
	ok, _, err := procSDToStringSD.Call(sd, sddlRevision1, ownerSecurityInformation|daclSecurityInformation,
		uintptr(unsafe.Pointer(&str)), 0)
	if ok == 0 {
		return "", os.NewSyscallError("ConvertSecurityDescriptorToStringSecurityDescriptor", err)
	}
	defer syscall.LocalFree(syscall.Handle(uintptr(unsafe.Pointer(str))))
	return syscall.UTF16ToString(unsafe.Slice(str, utf16Len(str))), nil
}

func utf16Len(p *uint16) int {
	n := 0
	for ptr := unsafe.Pointer(p); *(*uint16)(ptr) != 0; n++ {
		ptr = unsafe.Add(ptr, 2)
	}
	return n
}

// securityDescriptor turns SDDL text into a self-relative security
// descriptor, to be freed with LocalFree.
func securityDescriptor(sddl string) (uintptr, error) {
	s, err := syscall.UTF16PtrFromString(sddl)
	if err != nil {
		return 0, err
	}
	var sd uintptr
	ok, _, err := procStringSDToSD.Call(uintptr(unsafe.Pointer(s)), sddlRevision1, uintptr(unsafe.Pointer(&sd)), 0)
	if ok == 0 {
		return 0, os.NewSyscallError("ConvertStringSecurityDescriptorToSecurityDescriptor", err)
	}
	return sd, nil
}

// privateDescriptor is privateSDDL for this user as a self-relative
// security descriptor; the caller frees it with LocalFree.
func privateDescriptor() (uintptr, error) {
	sid, err := userSID()
	if err != nil {
		return 0, err
	}
	return securityDescriptor(privateSDDL(sid))
}

// setPrivate gives path privateSDDL: this user as owner, and a protected
// DACL granting only them (SetNamedSecurityInfo, which also passes the
// inheritable entry on to what the directory already holds).
func setPrivate(path string) error {
	sd, err := privateDescriptor()
	if err != nil {
		return err
	}
	defer syscall.LocalFree(syscall.Handle(sd))
	var present, defaulted int32
	var dacl, owner uintptr
	if ok, _, err := procGetSecurityDescriptorDacl.Call(sd, uintptr(unsafe.Pointer(&present)), uintptr(unsafe.Pointer(&dacl)), uintptr(unsafe.Pointer(&defaulted))); ok == 0 {
		return os.NewSyscallError("GetSecurityDescriptorDacl", err)
	}
	if ok, _, err := procGetSecurityDescriptorOwner.Call(sd, uintptr(unsafe.Pointer(&owner)), uintptr(unsafe.Pointer(&defaulted))); ok == 0 {
		return os.NewSyscallError("GetSecurityDescriptorOwner", err)
	}
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	r, _, _ := procSetNamedSecurityInfoW.Call(uintptr(unsafe.Pointer(name)), seFileObject,
		ownerSecurityInformation|daclSecurityInformation|protectedDaclSecurityInformation, owner, 0, dacl, 0)
	if r != 0 {
		return &os.PathError{Op: "SetNamedSecurityInfo", Path: path, Err: syscall.Errno(r)}
	}
	return nil
}

// ownerOnly checks that path belongs to this user and that its DACL grants
// no one else access (see sddlNotPrivate).
func ownerOnly(path string, _ fs.FileInfo) error {
	sid, err := userSID()
	if err != nil {
		return fmt.Errorf("%s: %v: %w", path, err, ErrNotPrivate)
	}
	sddl, err := securitySDDL(path)
	if err != nil {
		return fmt.Errorf("%s: owner unknown (%v): %w", path, err, ErrNotPrivate)
	}
	if why := sddlNotPrivate(sddl, sid); why != "" {
		return fmt.Errorf("%s %s: %w", path, why, ErrNotPrivate)
	}
	return nil
}

// closeToOthers gives path, when this user owns it and others may use it,
// the private ACL: Windows' chmod 700.
func closeToOthers(path string, _ fs.FileInfo) error {
	sid, err := userSID()
	if err != nil {
		return err
	}
	sddl, err := securitySDDL(path)
	if err != nil {
		return err
	}
	if sddlPart(sddl, 'O') == sid && sddlNotPrivate(sddl, sid) != "" {
		return setPrivate(path)
	}
	return nil
}

// mkdirPrivate creates dir (its parent must exist) with the private ACL
// from the start: CreateDirectory with the security descriptor, so there
// is no moment at which it has the parent's.
func mkdirPrivate(dir string) error {
	sd, err := privateDescriptor()
	if err != nil {
		return err
	}
	defer syscall.LocalFree(syscall.Handle(sd))
	name, err := syscall.UTF16PtrFromString(dir)
	if err != nil {
		return err
	}
	sa := syscall.SecurityAttributes{Length: uint32(unsafe.Sizeof(syscall.SecurityAttributes{})), SecurityDescriptor: sd}
	if err := syscall.CreateDirectory(name, &sa); err != nil {
		if err == syscall.ERROR_ALREADY_EXISTS {
			err = fs.ErrExist
		}
		return &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	return nil
}

// makeFilePrivate gives the file f the private ACL (Windows' chmod 600).
func makeFilePrivate(f *os.File) error { return setPrivate(f.Name()) }

// fixPrivateHint says how to make a file private by hand.
const fixPrivateHint = "icacls it /inheritance:r /grant:r %USERNAME%:F"

// userTag names this user in shared places (the fallback directories in
// the temp directory, which on Windows is the user's own already): the
// user's SID, since Windows has no uid.
func userTag() string {
	if sid, err := userSID(); err == nil {
		return sid
	}
	return "user"
}
