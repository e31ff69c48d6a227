package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// `mneme token` over the socket: create prints the token once with how
// to use it, list never shows it, revoke stops it; with MNEME_URL and a
// person's token instead of the secret, the worker refuses.
func TestTokenCommand(t *testing.T) {
	t.Setenv(EnvURL, "")
	srv := testutil.NewServer(t)
	port := strconv.Itoa(srv.Port)
	mneme := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"--port", port, "--data-dir", srv.DataDir}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}

	code, out, errOut := mneme("token", "create", "--person", "alice")
	tok := regexp.MustCompile(`MNEME_TOKEN=(mneme_pt_[0-9a-f]{64})\n`).FindStringSubmatch(out)
	if code != 0 || tok == nil || !strings.Contains(out, "export MNEME_URL=http://") || !strings.Contains(out, "Token 1 for alice") {
		t.Fatalf("create: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = mneme("token", "list")
	if code != 0 || strings.Contains(out, tok[1][len("mneme_pt_")+6:]) || !regexp.MustCompile(`(?m)^1\s+alice\s+mneme_pt_[0-9a-f]{6}…\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+-\s+-$`).MatchString(out) {
		t.Fatalf("list: exit %d\n%s%s", code, out, errOut)
	}

	// The token is not the owner's: token admin at MNEME_URL answers 403.
	t.Setenv(EnvURL, srv.URL)
	t.Setenv("MNEME_TOKEN", tok[1])
	if code, _, errOut = mneme("token", "list"); code != exitWorker || !strings.Contains(errOut, "person's API token") {
		t.Errorf("list with a person's token: exit %d %s", code, errOut)
	}
	t.Setenv(EnvURL, "")

	if code, out, errOut = mneme("token", "revoke", "1"); code != 0 || !strings.Contains(out, "Token 1 of alice") {
		t.Fatalf("revoke: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ = mneme("token", "list"); code != 0 || !regexp.MustCompile(`(?m)^1\s+alice.*\d\d:\d\d$`).MatchString(out) || strings.HasSuffix(strings.TrimSpace(out), "-") {
		t.Errorf("list after revoke:\n%s", out)
	}
	for _, args := range [][]string{{"token", "create"}, {"token", "create", "--person", " "}, {"token", "revoke", "x"}} {
		if code, _, errOut = mneme(args...); code == 0 {
			t.Errorf("%q: exit 0 %s", args, errOut)
		}
	}
}
