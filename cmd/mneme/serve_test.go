package main

import (
	"bufio"
	"bytes"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

func TestServePortTakenByMneme(t *testing.T) {
	bin, _ := buildBinaries(t)
	srv := testutil.NewServer(t)
	stdout, stderr, code := runBin(t, bin, binEnv(srv.DataDir, srv.Port), nil, "serve", "--port", strconv.Itoa(srv.Port))
	if code != 0 {
		t.Fatalf("exit %d, want 0: %s", code, stderr)
	}
	want := "mneme is already running on port " + strconv.Itoa(srv.Port)
	if !strings.Contains(string(stdout), want) {
		t.Errorf("stdout %q, want it to say %q", stdout, want)
	}
}

func TestServePortTakenBySomethingElse(t *testing.T) {
	bin, _ := buildBinaries(t)
	// A TCP server that answers anything with a line of non-HTTP text.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			bufio.NewReader(c).ReadString('\n')
			c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	_, stderr, code := runBin(t, bin, binEnv(t.TempDir(), port), nil, "serve")
	if code == 0 {
		t.Fatal("serve must fail when another program holds the port")
	}
	for _, want := range []string{strconv.Itoa(port), "--port", "MNEME_PORT"} {
		if !bytes.Contains(stderr, []byte(want)) {
			t.Errorf("the message must name %q: %s", want, stderr)
		}
	}
}

// In-process: serve refuses a non-loopback address without a token.
func TestServeRefusesExposedBindWithoutToken(t *testing.T) {
	t.Setenv("MNEME_TOKEN", "")
	var out, errb bytes.Buffer
	code := run([]string{"--data-dir", t.TempDir(), "--port", strconv.Itoa(freePort(t)), "serve", "--host", "0.0.0.0"}, nil, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "MNEME_TOKEN") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
