package hookwire

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// SecretFile is the name of the per-user secret in the data directory.
const SecretFile = "secret"

// SocketFile is the name of the worker's unix socket in the data directory.
const SocketFile = "mneme.sock"

// PrepareDataDir creates the data directory with mode 0700, and closes an
// existing one this user owns that is open to group or others: it holds the
// database, the secret and the socket.
func PrepareDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return closeToOthers(dir, info)
}

// Secret is the worker's secret: MNEME_TOKEN when set (a remote worker),
// else the content of <dataDir>/secret, which is made on first use. Every
// request over TCP must carry it (or the login cookie derived from it).
func Secret(dataDir string) (string, error) {
	if tok := os.Getenv(EnvToken); tok != "" {
		return tok, nil
	}
	return EnsureSecretFile(dataDir)
}

// EnsureSecretFile reads <dataDir>/secret, creating it first if it does not
// exist: 32 random bytes, base64url, mode 0600. It is written to a temporary
// file and linked into place, so that two workers starting at once agree on
// one secret (the second link fails and that one reads the first's).
func EnsureSecretFile(dataDir string) (string, error) {
	path := filepath.Join(dataDir, SecretFile)
	s, err := ReadSecretFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dataDir, ".secret-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(base64.RawURLEncoding.EncodeToString(b[:]) + "\n")
	if err := errors.Join(werr, makeFilePrivate(tmp), tmp.Sync(), tmp.Close()); err != nil {
		return "", err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	return ReadSecretFile(path)
}

// ReadSecretFile reads a secret file, refusing one that is not a regular
// file (a symbolic link is not followed), is not owned by this user, or is
// open to group or others.
func ReadSecretFile(path string) (string, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file: refusing it as the secret", path)
	}
	if err := ownerOnly(path, info); err != nil {
		return "", fmt.Errorf("%w: refusing it as the secret (%s, or delete it for a new one)", err, fixPrivateHint)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(data))
	if len(s) < 16 {
		return "", fmt.Errorf("%s holds no usable secret (delete it for a new one)", path)
	}
	return s, nil
}

// SocketPath is where the worker for dataDir listens: <dataDir>/mneme.sock,
// or, when that path is too long for a unix socket, a name derived from the
// data directory in a private per-user directory under the temp directory
// (see SocketDirPrivate). The worker and every client use this one function.
func SocketPath(dataDir string) string {
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	return socketPathWithin(dataDir, maxSunPath)
}

// socketPathWithin is SocketPath for a platform whose socket paths are at
// most max bytes long (103 on macOS, 107 on Linux and Windows).
func socketPathWithin(dataDir string, max int) string {
	p := filepath.Join(dataDir, SocketFile)
	if len(p) <= max {
		return p
	}
	return privateSocketPath(dataDir)
}

// privateSocketPath is the socket for dataDir (absolute) in the per-user
// directory under the temp directory.
func privateSocketPath(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	return filepath.Join(os.TempDir(), "mneme-"+userTag(), hex.EncodeToString(sum[:8])+".sock")
}

// SocketPaths are the places the worker for dataDir may listen, in the
// order it tries them and clients look: SocketPath, then the private
// per-user one for when the data directory cannot hold a socket (it is
// read-only: the worker still runs, read-only, to say so).
func SocketPaths(dataDir string) []string {
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	first, second := SocketPath(dataDir), privateSocketPath(dataDir)
	if first == second {
		return []string{first}
	}
	return []string{first, second}
}

// DialSocket connects to the worker for dataDir over the first of
// SocketPaths that answers; a socket outside the data directory only in a
// private directory of this user. When none does, the error is the first
// path's (ENOENT or ECONNREFUSED: nothing listens).
func DialSocket(ctx context.Context, d *net.Dialer, dataDir string) (net.Conn, error) {
	var first error
	for _, sock := range SocketPaths(dataDir) {
		err := SocketDirPrivate(dataDir, sock, false)
		if err == nil {
			var c net.Conn
			if c, err = d.DialContext(ctx, "unix", sock); err == nil {
				return c, nil
			}
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// SocketDirPrivate checks the directory of a fallback socket path (one not
// in the data directory) with CheckPrivateDir, creating it first when
// create is set: in the shared temp directory, another user could have
// made it to receive our connections. For a socket in the data directory it
// does nothing.
func SocketDirPrivate(dataDir, sock string, create bool) error {
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	dir := filepath.Dir(sock)
	if dir == dataDir {
		return nil
	}
	if create {
		return MakePrivateDir(dir)
	}
	return CheckPrivateDir(dir)
}
