package hookwire

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A home directory long enough that <home>/.mneme/mneme.sock fits Linux's
// 107 bytes but not macOS's 103: on macOS the socket goes to the private
// per-user directory under $TMPDIR, on Linux it stays in the data
// directory; a short one stays there on both.
func TestSocketPathLongHomeDir(t *testing.T) {
	t.Setenv("TMPDIR", "/tmp/short")
	sock := "/" + SocketFile
	dataDir := "/Users/" + strings.Repeat("h", 105-len("/Users/")-len(sock)) // the path is 105 bytes
	if n := len(dataDir + sock); n != 105 {
		t.Fatalf("path of %d bytes", n)
	}
	if got := socketPathWithin(dataDir, 107); got != dataDir+sock {
		t.Errorf("Linux limit: %s", got)
	}
	got := socketPathWithin(dataDir, 103)
	if got == dataDir+sock || !strings.HasPrefix(got, filepath.Join(os.TempDir(), "mneme-")) || len(got) > 103 {
		t.Errorf("macOS limit: %s", got)
	}
	if got != privateSocketPath(dataDir) || socketPathWithin("/Users/ann/.mneme", 103) != "/Users/ann/.mneme"+sock {
		t.Errorf("macOS limit: %s, short home %s", got, socketPathWithin("/Users/ann/.mneme", 103))
	}
}

// TestPrivateSDDL: the descriptor mneme sets on Windows is private by the
// same test it is checked with at start; what Windows gives a directory
// by default, or one shared with others, is not.
func TestPrivateSDDL(t *testing.T) {
	me, other := "S-1-5-21-1004336348-1177238915-682003330-1001", "S-1-5-21-1004336348-1177238915-682003330-1002"
	if got := privateSDDL(me); got != "O:"+me+"D:P(A;OICI;FA;;;"+me+")" {
		t.Errorf("privateSDDL: %s", got)
	}
	for _, tc := range []struct{ sddl, why string }{
		{privateSDDL(me), ""},
		{"O:" + me + "G:" + me + "D:PAI(A;OICI;FA;;;" + me + ")(A;OICIIO;FA;;;CO)(D;;FA;;;WD)", ""},
		{"O:" + other + "D:P(A;OICI;FA;;;" + me + ")", "is owned by " + other},
		{"O:" + me + "D:AI(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)(A;OICIID;FA;;;" + me + ")", "grants access to SY, BA"},
		{"O:" + me + "D:P(A;;0x1200a9;;;WD)", "grants access to WD"},
		{"O:" + me + "D:NO_ACCESS_CONTROL", "no access control list"},
		{"O:" + me, "no access control list"},
		{"O:BAD:P(A;OICI;FA;;;" + me + ")", "is owned by BA"},
	} {
		why := sddlNotPrivate(tc.sddl, me)
		if tc.why == "" && why != "" || tc.why != "" && !strings.Contains(why, tc.why) {
			t.Errorf("%s: %q, want %q", tc.sddl, why, tc.why)
		}
	}
}
