package app

import "net"

// listenUnix listens on path. Windows has no umask and no mode bits: the
// socket file takes its ACL from its directory, which grants only this
// user (hookwire.MakePrivateDir / PrepareDataDir); that ACL is all that keeps
// others off it (see peerIsOwner). The file is removed when the listener
// closes.
func listenUnix(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, nil
}
