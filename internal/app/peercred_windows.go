package app

import "net"

// peerIsOwner is true on Windows: its AF_UNIX sockets carry no peer
// credentials. Who may connect is decided by the socket file's ACL, which
// it takes from the data directory (or the fallback socket directory):
// both grant only this user (hookwire.MakePrivateDir, checked at start).
func peerIsOwner(*net.UnixConn) bool { return true }
