package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func (c *cluster) start() error {
	bin, err := BinDir()
	if err != nil {
		return err
	}
	reap()
	dir, err := os.MkdirTemp("", "mneme-pgtest-")
	if err != nil {
		return err
	}
	c.dir = dir
	// PostgreSQL refuses to run as root: run it as the postgres user the
	// Debian package creates, in a directory that user owns.
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("running as root and there is no postgres user to run PostgreSQL as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, strings.TrimSpace(string(out)))
	}
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		c.port = port
		if err = c.run(bin, data, cred); err == nil {
			return nil
		}
		if attempt == 4 {
			return err
		}
	}
	return nil
}

// reap removes the clusters earlier test processes left in the temp
// directory, a few dozen megabytes each: a process cannot remove its own
// (nothing of it runs after its last test), so the next one does. A
// cluster is left when its postmaster is gone and it is ten minutes old:
// younger, it may still be being made (initdb, then the start) by a
// process running now.
func reap() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "mneme-pgtest-*"))
	for _, d := range dirs {
		info, err := os.Stat(d)
		if err != nil || time.Since(info.ModTime()) < 10*time.Minute || postmasterRuns(filepath.Join(d, "data")) {
			continue
		}
		os.RemoveAll(d)
	}
}

// postmasterRuns reports that the postmaster of the cluster in data is
// alive: the pid on the first line of its postmaster.pid answers signal 0.
func postmasterRuns(data string) bool {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return false
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// run starts the postmaster and waits until it answers. It is started from
// a goroutine locked to its OS thread, which never ends, with a parent-death
// signal: when the test process exits, however it exits, the kernel sends
// the postmaster SIGQUIT (immediate shutdown), so no server outlives it.
func (c *cluster) run(bin, data string, cred *syscall.Credential) error {
	logf, err := os.Create(filepath.Join(c.dir, "postgres.log"))
	if err != nil {
		return err
	}
	if cred != nil {
		os.Chown(logf.Name(), int(cred.Uid), int(cred.Gid))
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-p", strconv.Itoa(c.port), "-k", c.dir,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "max_connections=300",
		"-c", "shared_buffers=128MB",
		// A throwaway cluster: durability across an OS crash is not
		// tested here, speed is welcome (a worker killed with -9 still
		// loses nothing the server acknowledged).
		"-c", "fsync=off", "-c", "full_page_writes=off",
		"-c", "log_min_messages=warning")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	started := make(chan error, 1)
	exited := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread, and the parent-death signal, last as long as the process
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited <- cmd.Wait()
		select {} // keep the thread
	}()
	if err := <-started; err != nil {
		return err
	}
	c.cmd = cmd
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logf.Name())
			return fmt.Errorf("postgres exited: %v: %s", err, strings.TrimSpace(string(log)))
		default:
		}
		if exec1(c.url("postgres"), "SELECT 1") == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Kill()
	return errors.New("postgres did not answer within 60 s")
}
