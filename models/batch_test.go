package models

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

func testSession(t *testing.T, s *Store, claudeID string) int64 {
	t.Helper()
	var ref SessionRef
	err := s.Writer.Do(context.Background(), func(tx *Tx) error {
		var err error
		ref, err = tx.EnsureSession(&Session{ClaudeSessionID: claudeID, Project: "alpha"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ref.ID
}

func strp(s string) *string { return &s }

// Concurrent queued observations share one INSERT per commit: every one is
// stored once, replays (also inside the same batch) store nothing and
// announce nothing, each stored row gets its own id, and the events reach
// OnCommit in id order with the matching refId.
func TestQueueObservationBatches(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	var mu sync.Mutex
	var published []Event
	s.Writer.OnCommit(func(ev Event) { mu.Lock(); published = append(published, ev); mu.Unlock() })
	sess := testSession(t, s, "batch")
	at := time.Date(2026, 11, 21, 9, 30, 15, 123456789, time.UTC)

	const n = 300
	var wg sync.WaitGroup
	errs := make([]error, n)
	ids := make([]int64, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ctx, done := s.Writer.Expect(context.Background())
			defer done()
			var id int64
			errs[i] = s.Writer.Do(ctx, func(tx *Tx) error {
				o := Observation{SessionID: sess, Project: "alpha", ToolName: "Bash", Kind: "command",
					Title: fmt.Sprintf("call %d", i), Input: `{"command":"echo <b>&amp;</b>"}`, Output: "out\x00put é\xff",
					Files: []string{"a.go"}, Success: i%3 != 0, Importance: 0.25, DurationMS: int64(i), CreatedAt: at}
				switch {
				case i%5 == 0:
					o.ToolUseID = nil // hooks without an id are never deduplicated
				case i%5 == 1:
					o.ToolUseID = strp("dup") // 60 calls, one row
				default:
					o.ToolUseID = strp(fmt.Sprintf("toolu_%d", i))
				}
				return tx.QueueObservation(&o, func(o *Observation) any {
					id = o.ID
					return map[string]any{"id": o.ID, "title": o.Title}
				})
			})
			ids[i] = id
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
	}
	var rows []Observation
	if err := s.db.Order("id").Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	want := n - n/5 + 1 // every call but the 59 repeated "dup"s
	if len(rows) != want {
		t.Fatalf("%d rows stored, want %d", len(rows), want)
	}
	byID := map[int64]Observation{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	announced := 0
	for i, id := range ids {
		if id == 0 {
			if i%5 != 1 {
				t.Errorf("call %d was not stored", i)
			}
			continue
		}
		announced++
		r, ok := byID[id]
		if !ok || r.Title != fmt.Sprintf("call %d", i) || r.DurationMS != int64(i) || r.Success != (i%3 != 0) {
			t.Errorf("call %d got id %d holding %+v", i, id, r)
		}
	}
	if announced != want {
		t.Errorf("%d calls got an id, want %d", announced, want)
	}
	r := rows[0]
	if !r.CreatedAt.Equal(at.Truncate(time.Microsecond)) || r.Input != `{"command":"echo <b>&amp;</b>"}` || r.Output != "output é\uFFFD" ||
		len(r.Files) != 1 || r.Files[0] != "a.go" || r.Importance != 0.25 || r.SessionID != sess {
		t.Errorf("row read back differently: %+v", r)
	}

	// On PostgreSQL the events are published by the store's listener just
	// after the commits (pgnotify.go): wait for it to reach the last one.
	var last int64
	s.db.Raw(`SELECT COALESCE(MAX(id), 0) FROM events`).Row().Scan(&last)
	for deadline := time.Now().Add(30 * time.Second); s.Postgres() && s.ListenerStats().LastID < last && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	var obsEvents []Event
	for _, ev := range published {
		if ev.Kind == EventObservation {
			obsEvents = append(obsEvents, ev)
		}
	}
	if len(obsEvents) != want {
		t.Fatalf("%d observation events published, want %d", len(obsEvents), want)
	}
	for i, ev := range obsEvents {
		if i > 0 && ev.ID <= obsEvents[i-1].ID {
			t.Fatalf("events out of order: %d after %d", ev.ID, obsEvents[i-1].ID)
		}
		var data struct {
			ID    int64  `json:"id"`
			Title string `json:"title"`
		}
		if err := json.Unmarshal(ev.Data, &data); err != nil || data.ID != ev.RefID || byID[ev.RefID].Title != data.Title {
			t.Errorf("event %d: refId %d data %s", ev.ID, ev.RefID, ev.Data)
		}
	}
	var logged int64
	s.db.Raw(`SELECT COUNT(*) FROM events WHERE kind = ?`, EventObservation).Scan(&logged)
	if logged != int64(want) {
		t.Errorf("%d observation events logged, want %d", logged, want)
	}
	if st := s.Writer.Stats(); st.Batches == 0 || st.Ops < n {
		t.Errorf("writer stats %+v", st)
	}
	// Full-text search sees the batched rows once the queue is indexed.
	if err := s.FlushSearchIndex(context.Background()); err != nil {
		t.Fatal(err)
	}
	var matched int64
	if s.Postgres() {
		s.db.Raw(`SELECT COUNT(*) FROM observations WHERE fts @@ plainto_tsquery('english', 'call')`).Scan(&matched)
	} else {
		s.db.Raw(`SELECT COUNT(*) FROM observations_fts WHERE observations_fts MATCH 'call'`).Scan(&matched)
	}
	if matched != int64(want) {
		t.Errorf("FTS matched %d, want %d", matched, want)
	}
}

// A queued observation the database refuses (its session does not exist)
// fails alone: its neighbours in the same commit are stored.
func TestQueueObservationFailureIsIsolated(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	sess := testSession(t, s, "iso")
	const n = 40
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = s.Writer.Do(context.Background(), func(tx *Tx) error {
				sid := sess
				if i%10 == 3 {
					sid = 999999 // foreign key violation
				}
				o := Observation{SessionID: sid, Project: "alpha", ToolName: "Read", Kind: "read", Title: fmt.Sprint(i), ToolUseID: strp(fmt.Sprint(i))}
				return tx.QueueObservation(&o, func(o *Observation) any { return map[string]any{"id": o.ID} })
			})
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if (i%10 == 3) != (err != nil) {
			t.Errorf("op %d: err %v", i, err)
		}
	}
	var stored, events int64
	s.db.Raw(`SELECT COUNT(*) FROM observations`).Scan(&stored)
	s.db.Raw(`SELECT COUNT(*) FROM events WHERE kind = ?`, EventObservation).Scan(&events)
	if stored != n-n/10 || events != stored {
		t.Errorf("%d observations and %d events stored, want %d each", stored, events, n-n/10)
	}
}

// Outside a writer transaction QueueObservation writes at once.
func TestQueueObservationOutsideWriter(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	sess := testSession(t, s, "direct")
	o := Observation{SessionID: sess, Project: "alpha", ToolName: "Read", Kind: "read", Title: "direct", ToolUseID: strp("x")}
	if err := s.db.Transaction(func(db *gorm.DB) error {
		return (&Tx{db: db}).QueueObservation(&o, func(o *Observation) any { return map[string]any{"id": o.ID} })
	}); err != nil {
		t.Fatal(err)
	}
	if o.ID == 0 {
		t.Fatal("no id assigned")
	}
	var events int64
	s.db.Raw(`SELECT COUNT(*) FROM events WHERE ref_id = ?`, o.ID).Scan(&events)
	if events != 1 {
		t.Errorf("%d events for the observation", events)
	}
}

// Committed writes reach the database file through the background
// checkpointer, not through a commit (those only checkpoint past 10,000
// WAL pages): the main file grows without anyone asking for a checkpoint.
func TestBackgroundCheckpoint(t *testing.T) {
	t.Parallel()
	pgtest.SkipOnPostgres(t, "the WAL checkpointer and the size of mneme.db")
	s := openTestStore(t)
	sess := testSession(t, s, "ckpt")
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	before := fi.Size()
	for i := 0; i < 200; i++ {
		err := s.Writer.Do(context.Background(), func(tx *Tx) error {
			o := Observation{SessionID: sess, Project: "alpha", ToolName: "Bash", Kind: "command",
				Title: fmt.Sprintf("call %d", i), Output: strings.Repeat("x", 2000), ToolUseID: strp(fmt.Sprint(i))}
			return tx.QueueObservation(&o, func(o *Observation) any { return map[string]any{"id": o.ID} })
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		fi, err := os.Stat(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > before+200*1000 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("database file %d bytes, was %d: nothing was checkpointed", fi.Size(), before)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// One transaction queueing more observations than one INSERT takes, with
// replays on both sides of a statement boundary: each row is stored once,
// in order, and gets its own id and event.
func TestQueueObservationChunks(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	sess := testSession(t, s, "chunks")
	const n = 3*rowsPerStatement + 5
	obs := make([]*Observation, n)
	err := s.Writer.Do(context.Background(), func(tx *Tx) error {
		for i := range obs {
			tu := fmt.Sprintf("toolu_%d", i)
			if i == rowsPerStatement || i == 2*rowsPerStatement+1 {
				tu = "toolu_1" // a replay of row 1, in a later statement
			}
			obs[i] = &Observation{SessionID: sess, Project: "alpha", ToolName: "Bash", Kind: KindBash,
				Title: fmt.Sprintf("chunk %d", i), ToolUseID: &tu}
			if err := tx.QueueObservation(obs[i], func(o *Observation) any { return map[string]int64{"id": o.ID} }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	for i, o := range obs {
		replay := i == rowsPerStatement || i == 2*rowsPerStatement+1
		if replay != (o.ID == 0) {
			t.Fatalf("row %d: id %d (replay %v)", i, o.ID, replay)
		}
		if o.ID != 0 {
			if o.ID <= last {
				t.Fatalf("row %d: id %d after %d", i, o.ID, last)
			}
			last = o.ID
			got, err := s.ObservationByID(context.Background(), o.ID)
			if err != nil || got.Title != o.Title {
				t.Fatalf("row %d read back as %+v (%v)", i, got, err)
			}
		}
	}
	var rows, events int64
	s.db.Raw(`SELECT COUNT(*) FROM observations WHERE session_id = ?`, sess).Scan(&rows)
	s.db.Raw(`SELECT COUNT(*) FROM events WHERE kind = ? AND session_id = ?`, EventObservation, sess).Scan(&events)
	if rows != n-2 || events != n-2 {
		t.Fatalf("%d rows and %d events, want %d", rows, events, n-2)
	}
}
