package handlers_test

import "syscall"

// setRcvBuf sets the receive buffer of the socket fd to n bytes.
func setRcvBuf(fd uintptr, n int) {
	syscall.SetsockoptInt(syscall.Handle(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
