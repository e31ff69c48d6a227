package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// TestMemoriesCommand: `mneme memories` lists the memories in force
// through the worker, each with who said it; --state proposed lists
// teammates' proposals, --as-of what held on a date, --json the API's
// page; `accept` and `reject` settle a proposal; bad input says why.
func TestMemoriesCommand(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	day := func(d int) time.Time { return time.Date(2026, 11, d, 10, 0, 0, 0, time.UTC) }
	var old, newer, rule, proposal, other models.Memory
	err := srv.Store.Writer.Do(t.Context(), func(tx *models.Tx) error {
		old = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Use SQLite for the cache", CreatedAt: day(10)}
		newer = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Switched the cache to bbolt",
			Subject: "cache", CreatedAt: day(25)}
		rule = models.Memory{Project: "app", Source: models.SourcePrompt, Kind: models.MemoryConstraint, Text: "Never touch the cache by hand", CreatedAt: day(1)}
		proposal = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryDecision, Text: "Make the cache shared",
			Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed, CreatedAt: day(13)}
		other = models.Memory{Project: "app", Source: models.SourceAnswer, Kind: models.MemoryTodo, Text: "Drop the legacy importer",
			Speaker: models.SpeakerTeammate, SpeakerRef: "bob", State: models.MemoryProposed, CreatedAt: day(14)}
		for _, m := range []*models.Memory{&old, &newer, &rule, &proposal, &other} {
			if _, err := tx.InsertMemory(m); err != nil {
				return err
			}
		}
		_, err := tx.SupersedeMemory(old.ID, newer.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(srv.Port)
	mneme := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := run(append([]string{"--port", port, "--data-dir", srv.DataDir}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	line := func(m models.Memory) string { return fmt.Sprintf("m%-5d %-10s", m.ID, m.Kind) }

	code, out, errOut := mneme("memories", "--project", "app")
	t.Logf("\n%s", out)
	if code != 0 {
		t.Fatalf("memories: exit %d %s", code, errOut)
	}
	for _, want := range []string{
		line(rule) + "  you           2026-11-01  current     Never touch the cache by hand",
		line(newer) + "  Claude        2026-11-25  current     Switched the cache to bbolt",
		"about cache",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("memories lacks %q", want)
		}
	}
	for _, m := range []models.Memory{old, proposal, other} {
		if strings.Contains(out, line(m)) {
			t.Errorf("memories in force lists m%d (%s)", m.ID, m.State)
		}
	}

	code, out, _ = mneme("memories", "--project", "app", "--state", "proposed")
	if code != 0 || !strings.Contains(out, line(proposal)+"  bob ") || !strings.Contains(out, line(other)+"  bob ") ||
		!strings.Contains(out, "mneme memories accept <id>") || strings.Contains(out, line(rule)) {
		t.Errorf("--state proposed: exit %d\n%s", code, out)
	}
	code, out, _ = mneme("memories", "--project", "app", "--as-of", "2026-11-20")
	if code != 0 || !strings.Contains(out, "In force on 2026-11-20") || !strings.Contains(out, line(old)) || !strings.Contains(out, line(rule)) ||
		strings.Contains(out, line(newer)) || !strings.Contains(out, fmt.Sprintf("superseded by m%d · ended by Claude", newer.ID)) {
		t.Errorf("--as-of 2026-11-20: exit %d\n%s", code, out)
	}
	code, out, _ = mneme("memories", "--project", "app", "--kind", "constraint", "--json")
	var page api.Page[models.Memory]
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil || len(page.Items) != 1 || page.Items[0].Speaker != models.SpeakerUser {
		t.Errorf("--json: exit %d %s", code, out)
	}

	code, out, _ = mneme("memories", "accept", strconv.FormatInt(proposal.ID, 10))
	if code != 0 || !strings.Contains(out, fmt.Sprintf("Accepted m%d (decision of app, bob, now current)", proposal.ID)) {
		t.Errorf("accept: exit %d %s", code, out)
	}
	code, out, _ = mneme("memories", "reject", fmt.Sprintf("m%d", other.ID))
	if code != 0 || !strings.Contains(out, fmt.Sprintf("Rejected m%d (todo of app, bob, now retired)", other.ID)) {
		t.Errorf("reject: exit %d %s", code, out)
	}
	for id, want := range map[int64]string{proposal.ID: models.MemoryCurrent, other.ID: models.MemoryRetired} {
		if m, err := srv.Store.MemoryByID(t.Context(), id); err != nil || m.State != want {
			t.Errorf("m%d is %s (%v), want %s", id, m.State, err, want)
		}
	}
	code, out, _ = mneme("memories", "--project", "app")
	if code != 0 || !strings.Contains(out, line(proposal)+"  bob ") {
		t.Errorf("the accepted memory is not in force:\n%s", out)
	}

	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"memories", "accept", strconv.FormatInt(rule.ID, 10)}, 2, "not proposed"}, // the worker refuses it as invalid
		{[]string{"memories", "accept", "abc"}, 2, "is not a memory's id"},
		{[]string{"memories", "reject", "999999"}, 1, "not found"},
		{[]string{"memories", "--as-of", "last week"}, 2, "as_of must be a date"},
		{[]string{"memories", "--state", "bogus"}, 2, "state: unknown value"},
	} {
		code, _, errOut := mneme(c.args...)
		if code != c.code || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: exit %d %q, want %d saying %q", c.args, code, errOut, c.code, c.says)
		}
	}
	if code, out, _ := mneme("memories", "--project", "nothing-here"); code != 1 || !strings.Contains(out, "No memories.") {
		t.Errorf("no memories: exit %d %q", code, out)
	}
}
