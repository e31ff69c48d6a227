package testutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc/<pid>/stat's CPU times (USER_HZ, 100 on
// every Linux mneme runs on).
const clockTick = 10 * time.Millisecond

// ProcessTreeCPU is the CPU time (user and system) process pid has used,
// with its children: those it reaped (its cutime and cstime) and those
// still running. It reads Linux's /proc, so it is 0 elsewhere or when pid
// is not there. The benchmarks read a PostgreSQL server's with it (pid:
// its postmaster, whose children are the backends), whose work happens
// outside the benchmark's own process. Ticks are 10 ms: sum many
// operations.
func ProcessTreeCPU(pid int) time.Duration {
	self, ppid := procStat(pid)
	if self == nil || ppid < 0 {
		return 0
	}
	ticks := self[0] + self[1] + self[2] + self[3]
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		child, _ := strconv.Atoi(filepath.Base(d))
		if t, parent := procStat(child); t != nil && parent == pid {
			ticks += t[0] + t[1]
		}
	}
	return time.Duration(ticks) * clockTick
}

// ParentPID is the parent of process pid (Linux /proc), or -1.
func ParentPID(pid int) int {
	_, ppid := procStat(pid)
	return ppid
}

// procStat reads utime, stime, cutime and cstime of pid and its parent's
// pid from /proc/<pid>/stat; nil and -1 when it cannot.
func procStat(pid int) ([]int64, int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, -1
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after its closing parenthesis (state is field 3).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return nil, -1
	}
	ppid, _ := strconv.Atoi(f[1])
	var t []int64
	for _, k := range []int{11, 12, 13, 14} { // utime stime cutime cstime: fields 14-17
		v, _ := strconv.ParseInt(f[k], 10, 64)
		t = append(t, v)
	}
	return t, ppid
}
