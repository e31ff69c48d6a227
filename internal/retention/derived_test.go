package retention

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/modelstest"
)

// Every text column of memories has its line in memoryColumns: a column
// added to the table says there whether it is made from the text.
func TestReapplyKnowsEveryMemoryColumn(t *testing.T) {
	s := openStore(t)
	tables, err := s.TextTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tt := range tables {
		if tt.Name != "memories" {
			continue
		}
		found = true
		for _, col := range tt.Cols {
			if _, ok := memoryColumns[col]; !ok {
				t.Errorf("memories.%s has no line in memoryColumns: say how re-applied redaction rewrites it", col)
			}
		}
		for col := range memoryColumns {
			if !slices.Contains(tt.Cols, col) {
				t.Errorf("memoryColumns lists %q, which memories has no text column of", col)
			}
		}
	}
	if !found {
		t.Fatal("no memories table among the text tables")
	}
}

// What is made from a row's text loses what the rules took out of it: a
// memory's key words, identifiers, files and file states, subject and
// evidence, and its event;
// a tool call's title cut in the middle of a secret, and its event. What
// the rules took nothing of stays as it was, and an event's kind, state
// and times are never touched. An identifier the rules change is the
// same wherever it is stored, so a tool call still finds its files'
// states.
func TestReapplyDerivedColumns(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	const key = "Zk41PqLmVw0Rt8Yc"
	now := time.Now().UTC()
	toolUse := "toolu_" + key
	var memID int64
	err := s.Writer.Do(ctx, func(tx *models.Tx) error {
		sess := models.Session{ClaudeSessionID: "s", Project: "p", StartedAt: now, Status: models.StatusActive}
		if err := tx.Insert(&sess); err != nil {
			return err
		}
		o := models.Observation{SessionID: sess.ID, Project: "p", ToolName: "Bash", Kind: "bash", ToolUseID: &toolUse,
			Input: `{"command":"login --token ` + key + `"}`, Title: "Ran `login --token " + key[:9] + "…`",
			Files: []string{"/p/notes.txt"}, Success: true, CreatedAt: now}
		if _, err := tx.InsertObservation(&o); err != nil {
			return err
		}
		if err := tx.RecordFileStates(sess.ID, toolUse, []models.FileState{{Path: "/p/notes.txt", Kind: "file"}}); err != nil {
			return err
		}
		if _, err := tx.AppendEvent(models.EventObservation, "p", sess.ID, o.ID, map[string]any{"title": o.Title, "files": o.Files}); err != nil {
			return err
		}
		// As the extractor makes them: the key words in lower case and
		// stemmed, the files and identifiers out of their sentence.
		m := models.Memory{SessionID: sess.ID, Project: "p", Source: models.SourceAnswer, Kind: models.MemoryTodo,
			Text:   "TODO rotate the token " + key + " kept in the key file deploy/" + key + ".sh, then check the restore policies",
			Files:  []string{"deploy/" + key + ".sh", "restore/policy.md"},
			Idents: []string{key, "restorePolicy"},
			Terms:  []string{"todo", "rotate", "token", strings.ToLower(key), "kept", "deploy", "check", "restore", "policy"},
			FileStates: []models.FileState{{Path: "/p/deploy/" + key + ".sh", Kind: "file", SHA256: "ab12"},
				{Path: "/p/restore/policy.md", Kind: "file", SHA256: "cd34"}},
			Subject: strings.ToLower(key) + " token", Evidence: "so change " + key + " first",
			CreatedAt: now}
		if _, err := tx.InsertMemory(&m); err != nil {
			return err
		}
		memID = m.ID
		other := models.Memory{SessionID: sess.ID, Project: "p", Source: models.SourceAnswer, Kind: models.MemoryDecision,
			Text: "Check the restore policies every week", Subject: "restore policy", Evidence: "check the restore policies",
			Terms: []string{"check", "restore", "policy", "week"}, CreatedAt: now}
		_, err := tx.InsertMemory(&other)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r := privacy.New([]privacy.Rule{
		{Name: "todo", Pattern: `TODO rotate the token \w+`, Enabled: true},         // the whole match, TODO too
		{Name: "keyfile", Pattern: `key file (?P<secret>[\w/.]*\w)`, Enabled: true}, // after what precedes it
		{Name: "flag", Pattern: `--token (?P<secret>\w{16})`, Enabled: true},        // sixteen characters, not nine
		{Name: "tooluse", Pattern: `toolu_(?P<secret>[A-Z]\w+)`, Enabled: true},     // in an identifier
	})
	res, err := Reapply(ctx, s, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reapply: %+v", res.Changed)

	stored := strings.ToLower(string(storedBytes(t, s)))
	for _, part := range []string{key, key[:9]} {
		if i := strings.Index(stored, strings.ToLower(part)); i >= 0 {
			t.Errorf("the database still holds %q: …%q…", part, stored[max(0, i-100):min(len(stored), i+40)])
		}
	}
	m, err := s.MemoryByID(ctx, memID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[REDACTED:todo] kept in the key file [REDACTED:keyfile], then check the restore policies"; m.Text != want {
		t.Errorf("text %q, want %q", m.Text, want)
	}
	if want := []string{"restore/policy.md"}; !slices.Equal(m.Files, want) {
		t.Errorf("files %q, want %q", m.Files, want)
	}
	if want := []string{"restorePolicy"}; !slices.Equal(m.Idents, want) {
		t.Errorf("idents %q, want %q", m.Idents, want)
	}
	if want := []string{"kept", "check", "restore", "policy"}; !slices.Equal(m.Terms, want) {
		t.Errorf("terms %q, want %q", m.Terms, want)
	}
	if len(m.FileStates) != 1 || m.FileStates[0].Path != "/p/restore/policy.md" || m.FileStates[0].SHA256 != "cd34" {
		t.Errorf("file states %+v, want policy.md's only", m.FileStates)
	}
	if m.Subject != "" || m.Evidence != "so change "+derivedMarker+" first" {
		t.Errorf("subject %q, evidence %q: want no subject, and the key out of the evidence", m.Subject, m.Evidence)
	}
	var data string
	modelstest.Scan(t, s, &data, `SELECT data FROM events WHERE kind = 'memory' AND ref_id = ?`, memID)
	var ev models.Memory
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		t.Fatalf("memory event no longer JSON: %v: %s", err, data)
	}
	// "todo" went with the key out of the text: the kind stays.
	if ev.Kind != models.MemoryTodo || ev.State != models.MemoryCurrent || !ev.CreatedAt.Equal(m.CreatedAt) || ev.ID != memID {
		t.Errorf("the memory event's kind, state, time or id changed: %s", data)
	}
	if ev.Text != m.Text || ev.Subject != m.Subject || ev.Evidence != m.Evidence || !slices.Equal(ev.Terms, m.Terms) || !slices.Equal(ev.Idents, m.Idents) || !slices.Equal(ev.Files, m.Files) ||
		len(ev.FileStates) != 1 {
		t.Errorf("the memory event says another memory than the row:\n%s\n%+v", data, m)
	}
	var untouched string
	modelstest.Scan(t, s, &untouched, `SELECT subject || '|' || evidence || '|' || terms FROM memories WHERE id <> ?`, memID)
	if want := `restore policy|check the restore policies|["check","restore","policy","week"]`; untouched != want {
		t.Errorf("a memory the rules took nothing of became %s, want %s", untouched, want)
	}
	var title string
	modelstest.Scan(t, s, &title, `SELECT title FROM observations`)
	if want := "Ran `login --token " + derivedMarker + "…`"; title != want {
		t.Errorf("title %q, want %q", title, want)
	}
	modelstest.Scan(t, s, &data, `SELECT data FROM events WHERE kind = 'observation'`)
	if want := `{"files":["/p/notes.txt"],"title":"` + title + `"}`; data != want {
		t.Errorf("observation event %s, want %s", data, want)
	}
	var joined int64
	modelstest.Scan(t, s, &joined, `SELECT COUNT(*) FROM observations o JOIN file_states f ON f.session_id = o.session_id AND f.tool_use_id = o.tool_use_id`)
	if joined != 1 {
		t.Errorf("the tool call no longer finds its file states: its id was rewritten one way in observations, another in file_states")
	}
	if res, _ := Reapply(ctx, s, r); res.Total() != 0 {
		t.Errorf("a second pass changed %+v", res.Changed)
	}
}

// storedBytes is testutil.StoredBytes (which this package's own tests
// cannot import): the database files' bytes, the -wal checkpointed, or
// on PostgreSQL every row of every table as text.
func storedBytes(t *testing.T, s *models.Store) []byte {
	t.Helper()
	if s.Postgres() {
		return modelstest.RowsText(t, s)
	}
	if err := s.CheckpointTruncate(); err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(s.Path() + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// lost's words: runs of letters and digits in lower case, markers aside;
// a piece of a lost word (cut, stemmed, split) taints too, a short or
// digit-only piece does not.
func TestLostWords(t *testing.T) {
	l := lost(nil).add("use AcmeInternal-7731 and the policies [REDACTED:x] to", "use [REDACTED:acme] and the [REDACTED:x] to")
	want := lost{"acmeinternal": true, "7731": true, "policies": true}
	if len(l) != len(want) || !l["acmeinternal"] || !l["7731"] || !l["policies"] {
		t.Fatalf("lost %v, want %v", l, want)
	}
	for w, taints := range map[string]bool{"acmeinternal": true, "acmeint": true, "policy": true, "7731": true, "773": false, "acm": false, "and": false, "deploy": false} {
		if l.taints(w) != taints {
			t.Errorf("taints(%q) = %v", w, !taints)
		}
	}
	if got := l.scrubText("see AcmeInt… and [REDACTED:acme] policy"); got != "see "+derivedMarker+"… and [REDACTED:acme] "+derivedMarker {
		t.Errorf("scrubText: %q", got)
	}
	doc := `{"b": ["deploy", "acmeinternal-7731", {"p": "x", "q": 1}], "a": "acmeinternal"}`
	took := &rowChange{}
	if got := scrubJSON(doc, l, nil, took); got != `{"a":"acmeinternal","b":["deploy",{"p":"x","q":1}]}` || !took.dropped[`"acmeinternal-7731"`] {
		t.Errorf("scrubJSON: %s, dropped %v", got, took.dropped)
	}
	of := &rowChange{dropped: map[string]bool{`{"p":"x","q":1}`: true}, copies: map[string]string{"acmeinternal": "A"}}
	if got := scrubJSON(doc, nil, of, &rowChange{}); got != `{"a":"A","b":["deploy","acmeinternal-7731"]}` {
		t.Errorf("scrubJSON with what the row lost: %s", got)
	}
	if doc := `{"b": ["deploy"], "a": 1.50}`; scrubJSON(doc, l, nil, &rowChange{}) != doc {
		t.Errorf("scrubJSON rewrote a document it dropped nothing of")
	}
}
