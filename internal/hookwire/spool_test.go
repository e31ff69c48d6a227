package hookwire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type sent struct {
	event string
	body  map[string]any
}

func collect(t *testing.T, s Spool) ([]sent, ReplayResult) {
	t.Helper()
	var got []sent
	res, err := s.Replay(func(event string, body []byte) error {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Errorf("replayed body is not JSON: %s", body)
		}
		got = append(got, sent{event, m})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, res
}

func TestSpoolAppendReplayOrder(t *testing.T) {
	s := Spool{Dir: filepath.Join(t.TempDir(), "spool")}
	if s.Pending() {
		t.Fatal("a new spool has nothing pending")
	}
	before := time.Now().UTC().Add(-time.Second)
	for i := 0; i < 5; i++ {
		if err := s.Append("post-tool-use", []byte(fmt.Sprintf(`{"session_id":"s","tool_use_id":"t%d"}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if !s.Pending() {
		t.Fatal("Pending must be true after Append")
	}
	info, err := os.Stat(filepath.Join(s.Dir, pendingName))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("spool file must be private (0600): %v %v", info.Mode(), err)
	}
	got, res := collect(t, s)
	if res.Sent != 5 || len(got) != 5 {
		t.Fatalf("sent %d, want 5", res.Sent)
	}
	for i, g := range got {
		if g.event != "post-tool-use" || g.body["tool_use_id"] != fmt.Sprintf("t%d", i) {
			t.Errorf("event %d: %s %v", i, g.event, g.body)
		}
		ts, _ := g.body["mneme_time"].(string)
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil || at.Before(before) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("event %d: mneme_time %q must be the spooling time", i, ts)
		}
	}
	if s.Pending() {
		t.Error("nothing is pending after a full replay")
	}
	if got, _ := collect(t, s); len(got) != 0 {
		t.Errorf("a second replay sends nothing, sent %d", len(got))
	}
}

func TestSpoolKeepsExistingMnemeTime(t *testing.T) {
	s := Spool{Dir: t.TempDir()}
	s.Append("stop", []byte(`{"session_id":"s","mneme_time":"2020-01-02T03:04:05Z"}`))
	s.Append("stop", []byte(`{}`))
	got, _ := collect(t, s)
	if got[0].body["mneme_time"] != "2020-01-02T03:04:05Z" {
		t.Errorf("an existing mneme_time must be kept: %v", got[0].body)
	}
	if _, ok := got[1].body["mneme_time"]; !ok {
		t.Errorf("an empty object gets mneme_time too: %v", got[1].body)
	}
}

func TestSpoolFailingSendKeepsTheRest(t *testing.T) {
	s := Spool{Dir: t.TempDir()}
	for i := 0; i < 6; i++ {
		s.Append("post-tool-use", []byte(fmt.Sprintf(`{"n":%d}`, i)))
	}
	var first []float64
	down := errors.New("worker down")
	res, err := s.Replay(func(_ string, body []byte) error {
		var m map[string]any
		json.Unmarshal(body, &m)
		if len(first) == 3 {
			return down
		}
		first = append(first, m["n"].(float64))
		return nil
	})
	if !errors.Is(err, down) || res.Sent != 3 {
		t.Fatalf("replay: %d sent, err %v", res.Sent, err)
	}
	if !s.Pending() {
		t.Fatal("the unsent events stay pending")
	}
	// Events spooled after the failure come after the unsent ones.
	s.Append("post-tool-use", []byte(`{"n":6}`))
	got, res := collect(t, s)
	if res.Sent != 4 {
		t.Fatalf("second replay sent %d, want 4", res.Sent)
	}
	for i, g := range got {
		if g.body["n"].(float64) != float64(3+i) {
			t.Errorf("second replay, event %d is n=%v, want %d", i, g.body["n"], 3+i)
		}
	}
}

func TestSpoolRejectsCorruptAndNewerLines(t *testing.T) {
	s := Spool{Dir: t.TempDir()}
	s.Append("stop", []byte(`{"n":1}`))
	f, _ := os.OpenFile(filepath.Join(s.Dir, pendingName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("this is not json\n")
	f.WriteString(`{"v":99,"event":"stop","spooledAt":"2026-01-01T00:00:00Z","body":{"n":"future"}}` + "\n")
	f.WriteString(`{"v":1,"event":"","body":{}}` + "\n")
	f.Close()
	s.Append("stop", []byte(`{"n":2}`))
	// A body that is not JSON at all is spooled as a JSON string, not lost.
	s.Append("stop", []byte(`not json`))

	var bodies []string
	res, err := s.Replay(func(_ string, body []byte) error {
		bodies = append(bodies, string(body))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent != 3 || res.Corrupt != 3 {
		t.Fatalf("sent %d, corrupt %d; want 3 and 3 (%q)", res.Sent, res.Corrupt, bodies)
	}
	rejected := quarantined(t, s, 3)
	for _, want := range []string{"this is not json", `"v":99`, "spool version 99 is newer", "corrupt line"} {
		if !strings.Contains(rejected, want) {
			t.Errorf("rejected/ lacks %q:\n%s", want, rejected)
		}
	}
	if s.Pending() {
		t.Error("set-aside lines must not stay pending")
	}
}

func TestSpoolPermanentIsSetAside(t *testing.T) {
	s := Spool{Dir: t.TempDir()}
	s.Append("post-tool-use", []byte(`{"n":1}`))
	s.Append("post-tool-use", []byte(`{"n":2}`))
	n := 0
	res, err := s.Replay(func(_ string, body []byte) error {
		n++
		if n == 1 {
			return Permanent(errors.New("worker answered 400: missing session_id"))
		}
		return nil
	})
	if err != nil || res.Sent != 1 || res.Corrupt != 1 {
		t.Fatalf("sent %d corrupt %d err %v", res.Sent, res.Corrupt, err)
	}
	if rejected := quarantined(t, s, 1); !strings.Contains(rejected, "missing session_id") {
		t.Errorf("rejected/ must give the reason: %s", rejected)
	}
}

// quarantined checks that s set aside want events, each in a private file
// of its own under rejected/, and returns their text.
func quarantined(t *testing.T, s Spool, want int) string {
	t.Helper()
	n, dir := s.Rejected()
	if n != want || dir != filepath.Join(s.Dir, RejectedDir) {
		t.Errorf("Rejected() = %d in %s, want %d in %s/rejected", n, dir, want, s.Dir)
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("rejected/ must be private (0700): %v %v", info.Mode(), err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != want {
		t.Errorf("rejected/ holds %d files, want %d", len(files), want)
	}
	var all strings.Builder
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s must be private (0600): %v", f, err)
		}
		b, _ := os.ReadFile(f)
		all.Write(b)
	}
	return all.String()
}

// A poison event in the middle of a 1,000-event spool, which the worker
// refuses for good: the 999 others are sent, in order, the poison is
// quarantined, the spool ends empty (issue 21: a failure used to stop the
// replay, the events behind it waiting for ever).
func TestSpoolPoisonEventDoesNotBlock(t *testing.T) {
	s := Spool{Dir: t.TempDir()}
	var reasons []string
	s.OnReject = func(r string) { reasons = append(reasons, r) }
	for i := range 1000 {
		if err := s.Append("post-tool-use", fmt.Appendf(nil, `{"n":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	var got []int
	res, err := s.Replay(func(_ string, body []byte) error {
		var m struct{ N int }
		json.Unmarshal(body, &m)
		if m.N == 500 {
			return Permanent(errors.New("worker answered 500: the database refuses it"))
		}
		got = append(got, m.N)
		return nil
	})
	if err != nil || res.Sent != 999 || res.Corrupt != 1 || len(got) != 999 {
		t.Fatalf("replay: %+v, %v, %d sent", res, err, len(got))
	}
	for i, n := range got {
		if want := i + i/500; n != want {
			t.Fatalf("event %d sent as number %d, want %d", i, n, want)
		}
	}
	if s.Pending() {
		t.Error("the spool must end empty")
	}
	if rejected := quarantined(t, s, 1); !strings.Contains(rejected, `{"n":500}`) || !strings.Contains(rejected, "the database refuses it") {
		t.Errorf("the quarantined event and its reason: %s", rejected)
	}
	if len(reasons) != 1 || !strings.Contains(reasons[0], filepath.Join(s.Dir, RejectedDir)) {
		t.Errorf("OnReject was told %q: it must say where the event is", reasons)
	}
}

// An older mneme's rejected.jsonl still counts.
func TestSpoolRejectedCountsLegacyFile(t *testing.T) {
	s := Spool{Dir: t.TempDir()}
	os.WriteFile(filepath.Join(s.Dir, "rejected.jsonl"), []byte("# 2026-01-01T00:00:00Z corrupt line\nxx\n# 2026-01-02T00:00:00Z corrupt line\nyy\n"), 0o600)
	if n, _ := s.Rejected(); n != 2 {
		t.Errorf("Rejected() = %d, want 2", n)
	}
}

// Which answers refuse an event for good, and which are retried.
func TestPermanentStatus(t *testing.T) {
	for _, c := range []struct {
		status int
		marked bool
		want   bool
	}{
		{400, false, true}, {404, false, true}, {413, false, true}, {422, false, true}, {403, false, true},
		{401, false, false}, {408, false, false}, {429, false, false},
		{500, false, false}, {503, false, false}, {502, false, false},
		{500, true, true},
		{200, true, false},
	} {
		if got := PermanentStatus(c.status, c.marked); got != c.want {
			t.Errorf("PermanentStatus(%d, %v) = %v, want %v", c.status, c.marked, got, c.want)
		}
	}
}

// A permanent error keeps its message and its chain, however it is wrapped.
func TestPermanent(t *testing.T) {
	if Permanent(nil) != nil {
		t.Error("Permanent(nil) is not nil")
	}
	base := errors.New("missing session_id")
	err := fmt.Errorf("event 3: %w", Permanent(base))
	if !errors.Is(err, ErrPermanent) || !errors.Is(err, base) || err.Error() != "event 3: missing session_id" {
		t.Errorf("%v: not permanent, or not its cause", err)
	}
	if errors.Is(base, ErrPermanent) || errors.Is(fmt.Errorf("x: %w", base), ErrPermanent) {
		t.Error("an unmarked error is permanent")
	}
}

// Many appenders race with repeated replays: every event is delivered
// exactly once.
func TestSpoolConcurrentAppendAndReplay(t *testing.T) {
	s := Spool{Dir: t.TempDir()}
	const writers, perWriter = 8, 60
	var mu sync.Mutex
	seen := map[string]int{}
	send := func(_ string, body []byte) error {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return err
		}
		mu.Lock()
		seen[m["id"].(string)]++
		mu.Unlock()
		return nil
	}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				if err := s.Append("post-tool-use", []byte(fmt.Sprintf(`{"id":"%d-%d"}`, w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	var replayers sync.WaitGroup
	for r := 0; r < 2; r++ {
		replayers.Add(1)
		go func() {
			defer replayers.Done()
			for {
				if _, err := s.Replay(send); err != nil {
					t.Error(err)
				}
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	replayers.Wait()
	if _, err := s.Replay(send); err != nil {
		t.Fatal(err)
	}
	if len(seen) != writers*perWriter {
		t.Errorf("%d distinct events delivered, want %d", len(seen), writers*perWriter)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
	}
	if s.Pending() {
		t.Error("spool must be empty at the end")
	}
}

// While the worker stays down, failed replays must not multiply files: the
// spool stays a bounded number of files however many events wait.
func TestSpoolDownKeepsFewFiles(t *testing.T) {
	s := Spool{Dir: t.TempDir()}
	down := errors.New("connection refused")
	for i := 0; i < 50; i++ {
		if _, err := s.Replay(func(string, []byte) error { return down }); err != nil && !errors.Is(err, down) {
			t.Fatal(err)
		}
		s.Append("post-tool-use", []byte(fmt.Sprintf(`{"n":%d}`, i)))
	}
	files, _ := filepath.Glob(filepath.Join(s.Dir, "*.jsonl"))
	if len(files) > 2 {
		t.Errorf("%d spool files after 50 failed replays: %v", len(files), files)
	}
	got, res := collect(t, s)
	if res.Sent != 50 {
		t.Fatalf("sent %d, want 50", res.Sent)
	}
	for i, g := range got {
		if g.body["n"].(float64) != float64(i) {
			t.Fatalf("event %d is n=%v: order lost", i, g.body["n"])
		}
	}
}

// TestSpoolWaiting counts the events waiting: the lines of pending.jsonl
// and of replay files, blank ones left out, whatever else is in the
// directory (what was set aside is Rejected's).
func TestSpoolWaiting(t *testing.T) {
	s := Spool{Dir: filepath.Join(t.TempDir(), "spool")}
	if n, err := s.Waiting(); n != 0 || err != nil {
		t.Fatalf("no spool yet: %d, %v", n, err)
	}
	os.MkdirAll(filepath.Join(s.Dir, RejectedDir), 0o700)
	for name, data := range map[string]string{
		pendingName:                         "{\"a\":1}\n\n  \n{\"b\":2}",
		"replay-00000000000000000001.jsonl": "{\"c\":3}\n",
		"notes.txt":                         "x\ny\n",
		filepath.Join(RejectedDir, "1-event.jsonl"): "{\"d\":4}\n",
	} {
		if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.Waiting(); n != 3 || err != nil {
		t.Errorf("waiting: %d, %v; want 3", n, err)
	}
}

// TestPendingWhileARenameMovesTheFile: a replay renames pending.jsonl to
// a replay file between Pending's listing and its look at the file's
// size; Pending lists again rather than say nothing waits.
func TestPendingWhileARenameMovesTheFile(t *testing.T) {
	gone := fakeEntry{name: pendingName, gone: true}
	moved := fakeEntry{name: "replay-1.jsonl", size: 14}
	for _, c := range []struct {
		name     string
		listings [][]os.DirEntry
		want     bool
	}{
		{"moved to a replay file", [][]os.DirEntry{{gone}, {moved}}, true},
		{"replayed meanwhile", [][]os.DirEntry{{gone}, {}}, false},
		{"an empty file", [][]os.DirEntry{{fakeEntry{name: pendingName}}}, false},
		{"moving every time", [][]os.DirEntry{{gone}, {gone}, {gone}}, true},
		{"nothing", [][]os.DirEntry{{}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := 0
			got := pendingIn(func() ([]os.DirEntry, error) {
				if i >= len(c.listings) {
					t.Fatalf("listed %d times, have %d listings", i+1, len(c.listings))
				}
				i++
				return c.listings[i-1], nil
			})
			if got != c.want || i != len(c.listings) {
				t.Fatalf("Pending = %v after %d listings, want %v after %d", got, i, c.want, len(c.listings))
			}
		})
	}
}

// fakeEntry is a directory entry whose file has size bytes, or is gone
// by the time its size is asked.
type fakeEntry struct {
	name string
	size int64
	gone bool
}

func (e fakeEntry) Name() string      { return e.name }
func (e fakeEntry) IsDir() bool       { return false }
func (e fakeEntry) Type() fs.FileMode { return 0 }
func (e fakeEntry) Info() (fs.FileInfo, error) {
	if e.gone {
		return nil, fs.ErrNotExist
	}
	return fakeInfo{e}, nil
}

type fakeInfo struct{ e fakeEntry }

func (i fakeInfo) Name() string       { return i.e.name }
func (i fakeInfo) Size() int64        { return i.e.size }
func (i fakeInfo) Mode() fs.FileMode  { return 0o600 }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return false }
func (i fakeInfo) Sys() any           { return nil }
