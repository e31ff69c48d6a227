package failsig

import (
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"numbers", "expected 3 rows, got 42 (line 17)", "expected N rows, got N (line N)"},
		{"numbers inside names stay", "TestParseV2 failed in step-3 of base64", "TestParseV2 failed in step-N of base64"},
		{"durations", "--- FAIL: TestA (0.03s) after 1.5 s, 200ms", "--- FAIL: TestA (<dur>) after <dur>, <dur>"},
		{"absolute paths", "open /tmp/TestLoad123/001/config.json: no such file", "open <path>: no such file"},
		{"home and windows paths", `read ~/work/app/x.txt and C:\Users\jo\app\y.txt`, "read <path> and <path>"},
		{"relative paths stay, their lines do not", "src/a.ts(12,5): error TS2322", "src/a.ts(N,N): error TS2322"},
		{"times", "at 2026-11-20T14:03:05.123Z and 2026-11-21 09:00:01, then 14:03:05", "at <time> and <time>, then <time>"},
		{"hex ids", "commit 3f9a2c1d4e failed; object 0a1b2c3d4e5f60718293a4b5c6d7e8f9", "commit <hex> failed; object <hex>"},
		{"short hex words stay", "e2e test ab12 failed", "e2e test ab12 failed"},
		{"uuids", "session 123e4567-e89b-12d3-a456-426614174000 not found", "session <id> not found"},
		{"addresses", "dial tcp 127.0.0.1:5432: connection refused; [::1]:8080; localhost:37777; 0xc000123abc", "dial tcp <addr>: connection refused; <addr>; localhost:<port>; <addr>"},
		{"urls", "GET https://api.example.com:8443/v1/x returned 503", "GET <url>/v1/x returned N"},
		{"whitespace", "  a \t b\n c ", "a b c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mask(tt.in); got != tt.want {
				t.Errorf("Mask(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// goTestRun is the error Claude Code reports for a failing go test run,
// with this run's durations and temporary directory.
func goTestRun(test, dur, tmp string) string {
	return "Exit code 1\n--- FAIL: " + test + " (" + dur + ")\n    load_test.go:31: open " + tmp + "/config.json: no such file or directory\nFAIL\nFAIL\tgithub.com/acme/app/load\t" + dur + "\nFAIL"
}

func TestSignature(t *testing.T) {
	a := Key("Bash", "go test ./load/...", goTestRun("TestLoadConfig", "0.03s", "/tmp/TestLoadConfig2718281/001"))
	b := Key("Bash", "cd /home/dev/app && go test -count=1 ./load", goTestRun("TestLoadConfig", "1.20s", "/tmp/TestLoadConfig3141592/002"))
	if a == "" || a != b {
		t.Errorf("two runs of one failing test: %q and %q, want one signature", a, b)
	}
	if want := "Bash | go test | TestLoadConfig | -"; a != want {
		t.Errorf("signature %q, want %q", a, want)
	}
	other := Key("Bash", "go test ./load/...", goTestRun("TestLoadDefaults", "0.03s", "/tmp/TestLoadDefaults1/001"))
	if other == a {
		t.Errorf("different failing tests, one signature %q", a)
	}

	tests := []struct {
		name, tool, input, output string
		want                      string
	}{
		{"go subtests: the leaf, sorted", "Bash", "go test ./...", "Exit code 1\n--- FAIL: TestB (0.00s)\n    --- FAIL: TestB/empty (0.00s)\n--- FAIL: TestA (0.01s)\nFAIL",
			"Bash | go test | TestA, TestB/empty | -"},
		{"pytest", "Bash", "python -m pytest tests", "Exit code 1\nFAILED tests/test_api.py::test_login - AssertionError: 401 != 200\n1 failed, 9 passed in 0.52s",
			"Bash | python pytest | tests/test_api.py::test_login | -"},
		{"a compiler's error code", "Bash", "npx tsc --noEmit", "Exit code 2\nsrc/a.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.",
			"Bash | npx tsc | TS2322 | src/a.ts(N,N): error TS2322: Type 'string' is not assignable to type 'number'."},
		{"a traceback's exception", "Bash", "python3 manage.py migrate", "Exit code 1\nTraceback (most recent call last):\n  File \"/srv/app/manage.py\", line 22, in <module>\nKeyError: 'DATABASE_URL'",
			"Bash | python3 | KeyError | KeyError: 'DATABASE_URL'"},
		{"an Edit's own error", "Edit", "/home/dev/app/main.go", "<tool_use_error>String to replace not found in file.\nString: func main() {</tool_use_error>",
			"Edit | - | - | String to replace not found in file."},
		{"a program without subcommand", "Bash", "./scripts/step-7.sh --fast", "Exit code 2\nstep 7: error: disk full at /var/lib/x",
			"Bash | ./scripts/step-N.sh | - | step N: error: disk full at <path>"},
		{"nothing to know it by", "Bash", "sleep 100", "", ""},
		{"exit code alone", "Bash", "false", "Exit code 1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Key(tt.tool, tt.input, tt.output); got != tt.want {
				t.Errorf("Key\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCommandShape(t *testing.T) {
	tests := map[string]string{
		"go test ./...":                       "go test",
		"cd /x && go test -run TestA ./y":     "go test",
		"FOO=1 npm run build 2>&1 | tail -20": "npm run build",
		"export A=b; pytest -x tests":         "pytest tests",
		"./build.sh --release":                "./build.sh",
		"":                                    "",
	}
	for in, want := range tests {
		if got := CommandShape(in); got != want {
			t.Errorf("CommandShape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSignatureBounded(t *testing.T) {
	long := "Exit code 1\nerror: " + strings.Repeat("word ", 200)
	if got := Key("Bash", "make", long); len([]rune(got)) > MaxRunes {
		t.Errorf("%d runes, want at most %d", len([]rune(got)), MaxRunes)
	}
}
