//go:build unix

package handlers_test

import "syscall"

// setRcvBuf sets the receive buffer of the socket fd to n bytes.
func setRcvBuf(fd uintptr, n int) {
	syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
