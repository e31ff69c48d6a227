package app

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// peerIsOwner reports whether the process at the other end of c runs as
// this user (LOCAL_PEERCRED, what getpeereid(3) reads).
func peerIsOwner(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}
