//go:build unix && !linux

package hookwire

// sunPathLen is the size of sun_path in sockaddr_un on macOS and the BSDs:
// 104 bytes, so a home directory that Linux takes can be too long here.
const sunPathLen = 104
