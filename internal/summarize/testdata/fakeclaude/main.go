// Command fakeclaude stands in for `claude -p` in the claude-cli summarizer
// tests. It records its arguments, stdin and environment in
// $FAKE_CLAUDE_RECORD/<pid>.json, then behaves as $FAKE_CLAUDE_MODE says:
// ok (answers like Claude Code's --output-format json), slow (ok after
// 300 ms), hang (starts a grandchild and sleeps forever), exit1, garbage,
// flood (endless output), text (the strict format as plain text).
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

const answer = `REQUEST: Add JWT auth middleware to the API.
INVESTIGATED: Why go test failed: JWT_SECRET was not set in the test.
LEARNED: The middleware reads JWT_SECRET from the environment.
COMPLETED: Created internal/auth/jwt.go; go test ./... passes.
NEXT_STEPS: Read the signing key from the config file.`

func main() {
	mode := os.Getenv("FAKE_CLAUDE_MODE")
	if mode == "grandchild" {
		time.Sleep(time.Hour)
		return
	}
	stdin, _ := io.ReadAll(os.Stdin)
	rec := map[string]any{
		"pid": os.Getpid(), "args": os.Args[1:], "stdin": string(stdin),
		"summarizerEnv": os.Getenv("MNEME_SUMMARIZER"), "start": time.Now().UnixNano(),
	}
	dir := os.Getenv("FAKE_CLAUDE_RECORD")
	save := func() {
		if dir == "" {
			return
		}
		b, _ := json.Marshal(rec)
		os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())+".json"), b, 0o644)
	}
	switch mode {
	case "hang":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "FAKE_CLAUDE_MODE=grandchild")
		if err := child.Start(); err == nil {
			rec["grandchild"] = child.Process.Pid
		}
		save()
		time.Sleep(time.Hour)
	case "exit1":
		save()
		fmt.Fprintln(os.Stderr, "Error: Invalid API key · Please run /login")
		os.Exit(1)
	case "garbage":
		save()
		fmt.Println("Sure! Here is a summary of your session: it went well.")
	case "flood":
		save()
		for {
			os.Stdout.WriteString("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n")
		}
	case "text":
		save()
		fmt.Println(answer)
	default: // ok, slow, gate
		if mode == "slow" {
			time.Sleep(300 * time.Millisecond)
		}
		// gate: answer once the file FAKE_CLAUDE_GATE exists.
		for gate := os.Getenv("FAKE_CLAUDE_GATE"); mode == "gate"; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(gate); err == nil {
				break
			}
		}
		rec["end"] = time.Now().UnixNano()
		save()
		out := map[string]any{
			"type": "result", "subtype": "success", "is_error": false, "result": answer,
			"total_cost_usd": 0.0042,
			"usage":          map[string]any{"input_tokens": 1200, "output_tokens": 95, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 300},
			"modelUsage":     map[string]any{"claude-haiku-4-5-20251001": map[string]any{}},
		}
		json.NewEncoder(os.Stdout).Encode(out)
	}
}
