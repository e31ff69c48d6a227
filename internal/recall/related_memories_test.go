package recall

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/embed"
	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
)

// memory stores m (project, kind and text set) from session sessionID (0:
// stated outside a session) and returns its id.
func (f *fixture) memory(sessionID int64, project, kind, text string) int64 {
	f.t.Helper()
	m := models.Memory{SessionID: sessionID, Project: project, Source: models.SourceUser, Kind: kind, Text: text, CreatedAt: f.tick()}
	f.write(func(tx *models.Tx) error { _, err := tx.InsertMemory(&m); return err })
	return m.ID
}

// shown reports whether out holds a memory's line body: kind, voice, a
// date (MM-DD, or the whole date another year) and notes, then text.
func shown(out, kind, voice, text string) bool {
	return regexp.MustCompile(regexp.QuoteMeta(kind+", "+voice+", ") + `[0-9-]+(, [a-z ]+)*: ` + regexp.QuoteMeta(text)).MatchString(out)
}

// hinted reports whether the hint names memory id.
func hinted(out string, id int64) bool {
	return strings.Contains(out, "- "+MemoryRef(id)+" (relevance ")
}

// TestRelatedMemoryHintsMemories: the UserPromptSubmit hint names a
// project's memories in force that match the prompt's words, as mN
// with their kind (before observations as relevant); never a superseded,
// forgotten or retired one, one of a kind the settings switch off, of
// another project or of the asking session; redacted by the rules in
// force; within relatedCount and the threshold.
func TestRelatedMemoryHintsMemories(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	old := f.session("app", "old", "")
	f.obs(models.Observation{SessionID: old, Project: "app", Title: "Ran `go test ./internal/server/...`: ok", Success: true})
	rule := f.memory(old, "app", models.MemoryConstraint, "Never run database migrations inside the request handler")
	zstd := f.memory(old, "app", models.MemoryDecision, "Compress the snapshot archives with zstd")
	lz4 := f.memory(0, "app", models.MemoryDecision, "Compress the snapshot archives with lz4 instead of zstd")
	f.write(func(tx *models.Tx) error { _, err := tx.SupersedeMemory(zstd, lz4); return err })
	todo := f.memory(old, "app", models.MemoryTodo, "Document the snapshot restore procedure")
	gone := f.memory(old, "app", models.MemoryCause, "The flaky restore came from a shared temp dir")
	f.write(func(tx *models.Tx) error { _, err := tx.ForgetMemory(gone); return err })
	retired := f.memory(old, "app", models.MemoryCause, "The restore procedure timed out on the slow disk")
	f.write(func(tx *models.Tx) error { _, err := tx.SetMemoryState(retired, models.MemoryRetired); return err })
	secret := f.memory(old, "app", models.MemoryConstraint, "The staging deploy reads its token zz-SECRET-4321 from the vault")
	elsewhere := f.session("other", "o", "")
	foreign := f.memory(elsewhere, "other", models.MemoryConstraint, "Never run database migrations inside the request handler, ever")
	cur := f.session("app", "cur", "")
	mine := f.memory(cur, "app", models.MemoryDecision, "Database migrations run from the request handler of the admin page")
	for i := 0; i < 20; i++ { // memories that match nothing
		f.memory(old, "app", models.MemoryDecision, fmt.Sprintf("Keep the build cache number %d", i))
	}

	related := func(prompt string) string {
		t.Helper()
		out, err := f.builder().RelatedMemory(ctx, "app", cur, prompt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%q:\n%s", prompt, out)
		return out
	}
	out := related("add the database migrations to the request handler")
	if !hinted(out, rule) || !shown(out, "constraint", "user", "Never run database migrations inside the request handler") {
		t.Errorf("the constraint matching the prompt's words is not hinted with its kind and text")
	}
	if hinted(out, foreign) || hinted(out, mine) {
		t.Error("another project's memory, or the asking session's own, is hinted")
	}
	if !strings.HasPrefix(out, OpenTag) || !strings.HasSuffix(out, CloseTag) {
		t.Errorf("not wrapped: %q", out)
	}

	out = related("compress the snapshot archives")
	if !hinted(out, lz4) || hinted(out, zstd) {
		t.Error("want the decision in force hinted, not the one it superseded")
	}
	if !shown(out, "decision", "user", "Compress the snapshot archives with lz4") {
		t.Error("the decision's kind and text are not shown")
	}

	out = related("the snapshot restore procedure")
	if !hinted(out, todo) || hinted(out, retired) || strings.Contains(out, "shared temp dir") {
		t.Error("want the todo hinted, never a retired or forgotten memory")
	}
	f.st.Memory.Todos = false
	if out := related("the snapshot restore procedure"); hinted(out, todo) {
		t.Error("a todo is hinted while the settings switch todos off")
	}
	f.st.Memory.Todos = true

	f.st.Privacy.RedactionRules = append(f.st.Privacy.RedactionRules, privacy.Rule{Name: "zz", Pattern: `zz-SECRET-\d+`, Enabled: true})
	out = related("where does the staging deploy read its token")
	if !hinted(out, secret) || strings.Contains(out, "zz-SECRET") || !strings.Contains(out, "[REDACTED:zz]") {
		t.Error("the memory's line is not redacted by the rules in force")
	}

	// Ties go to the memory; relatedCount bounds memories and tool calls
	// together; a threshold nothing clears answers nothing.
	hints, err := f.builder().Related(ctx, "app", cur, "snapshot archives restore procedure database migrations request handler", 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hints) != 2 || hints[0].Memory == nil {
		t.Errorf("want 2 hints, best first: %+v", hints)
	}
	f.st.Injection.RelatedThreshold = 1
	if out := related("add the database migrations to the request handler"); out != "" {
		t.Errorf("threshold 1 answered %q", out)
	}
}

// semanticFixture is a fixture whose builder has the embeddings on,
// through a loopback fake of the embeddings endpoint, once every stored
// row has its vector.
type semanticFixture struct {
	*fixture
	fake *embedtest.Server
	svc  *embed.Service
	logs *syncLog
}

// syncLog is a log buffer safe for the lookups' goroutines.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const semDims = 256

func newSemanticFixture(t *testing.T, f *fixture) *semanticFixture {
	t.Helper()
	fake := embedtest.New(semDims)
	t.Cleanup(fake.Close)
	logs := &syncLog{}
	svc := &embed.Service{Store: f.store, Log: slog.New(slog.NewTextHandler(logs, nil)),
		Options: embed.Options{Timeout: 2 * time.Second, Batch: 16, Idle: 10 * time.Millisecond, MinBackoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}}
	svc.Start(context.Background(), models.EmbeddingsSettings{URL: fake.URL, Model: "m", Dimensions: semDims})
	t.Cleanup(svc.Stop) // before the store closes
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := svc.Status(context.Background())
		if err == nil && st.State == "ok" && st.Total > 0 && st.Embedded == st.Total {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rows not embedded: %+v %v", st, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return &semanticFixture{fixture: f, fake: fake, svc: svc, logs: logs}
}

func (s *semanticFixture) builder(budget time.Duration) *Builder {
	b := s.fixture.builder()
	b.Embed, b.EmbedBudget, b.Log = s.svc, budget, slog.New(slog.NewTextHandler(s.logs, nil))
	return b
}

// similarity is the fake endpoint's cosine similarity of two texts.
func similarity(a, b string) float64 {
	x, y := embedtest.Vector("m\x00"+a, semDims), embedtest.Vector("m\x00"+b, semDims)
	var d, nx, ny float64
	for i := range x {
		d, nx, ny = d+float64(x[i]*y[i]), nx+float64(x[i]*x[i]), ny+float64(y[i]*y[i])
	}
	return d / math.Sqrt(nx*ny)
}

// hintOnceEmbedded asks b for the hint of prompt in session until it
// names memory id (the indexer embeds in the background) or a minute
// has passed, and returns the last.
func hintOnceEmbedded(t *testing.T, b *Builder, project string, session int64, prompt string, id int64) string {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, err := b.RelatedMemory(context.Background(), project, session, prompt)
		if err != nil {
			t.Fatal(err)
		}
		if hinted(out, id) || time.Now().After(deadline) {
			return out
		}
	}
}

// TestRelatedMemorySemantic: with embeddings on, a memory in force
// close in meaning to a prompt that shares no word with it is hinted
// (the fake endpoint knows no synonyms: "postgresql" lies close to
// "postgres" by their letters), which words alone do not find; a
// superseded memory as close is not; with the endpoint slow the hook
// does not wait for it: the hint answers from words (the fake never
// finished the request) and the log says it fell back.
func TestRelatedMemorySemantic(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	old := f.session("app", "old", "")
	f.obs(models.Observation{SessionID: old, Project: "app", Title: "Ran `make lint`: ok", Success: true})
	const (
		near     = "The cache lives in postgres"
		replaced = "The queue lives in postgres too"
		far      = "Release builds are signed with the hardware key"
		prompt   = "is postgresql right for this"
	)
	cache := f.memory(old, "app", models.MemoryDecision, near)
	queue := f.memory(old, "app", models.MemoryDecision, replaced)
	signing := f.memory(old, "app", models.MemoryConstraint, far)
	f.write(func(tx *models.Tx) error { _, err := tx.SupersedeMemory(queue, signing); return err })
	simNear, simFar := similarity(near, prompt), similarity(far, prompt)
	t.Logf("similarity: %.3f near, %.3f far, %.3f superseded", simNear, simFar, similarity(replaced, prompt))
	threshold := simNear - 0.05
	if simFar >= threshold || similarity(replaced, prompt) < threshold {
		t.Fatalf("the fixture's texts do not separate: near %.3f, far %.3f", simNear, simFar)
	}
	f.st.Injection.RelatedThreshold = threshold
	cur := f.session("app", "cur", "")

	if out, err := f.builder().RelatedMemory(ctx, "app", cur, prompt); err != nil || hinted(out, cache) {
		t.Fatalf("words alone found the memory (%v): %s", err, out)
	}
	s := newSemanticFixture(t, f)
	b := s.builder(10 * time.Second)
	out := hintOnceEmbedded(t, b, "app", cur, prompt, cache)
	t.Logf("\n%s", out)
	if !hinted(out, cache) || !shown(out, "decision", "user", near) {
		t.Fatalf("the memory close in meaning is not hinted:\n%s\n%s", out, s.logs.String())
	}
	if hinted(out, queue) || hinted(out, signing) {
		t.Error("a superseded memory, or one far in meaning, is hinted")
	}

	// Slow: the hint answers from words without waiting.
	s.fake.Delay = time.Minute
	s.fake.SetMode(embedtest.Slow)
	b = s.builder(200 * time.Millisecond)
	asked, answered := s.fake.Requests.Load(), s.fake.Texts.Load()
	out, err := b.RelatedMemory(ctx, "app", cur, "where does the cache live")
	if err != nil {
		t.Fatal(err)
	}
	if !hinted(out, cache) {
		t.Errorf("no hint from words with the endpoint slow:\n%s", out)
	}
	if s.fake.Requests.Load() == asked || s.fake.Texts.Load() != answered {
		t.Errorf("the hint waited for the slow endpoint (asked %d→%d, answered %d→%d)", asked, s.fake.Requests.Load(), answered, s.fake.Texts.Load())
	}
	if !strings.Contains(s.logs.String(), "hinting from text alone") {
		t.Errorf("the fallback is not logged:\n%s", s.logs.String())
	}
}

// TestHintSkipsInjectedMemories: a memory the session's context already
// held (SessionContext) is not hinted again on that session's prompts;
// another session, or one whose context it did not fit in, is hinted it.
func TestHintSkipsInjectedMemories(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	old := f.session("app", "old", "")
	rule := f.memory(old, "app", models.MemoryConstraint, "Never run database migrations inside the request handler")
	cur, other, small := f.session("app", "cur", ""), f.session("app", "other", ""), f.session("app", "small", "")
	b := f.builder()
	const prompt = "add the database migrations to the request handler"
	hint := func(session int64) string {
		t.Helper()
		out, err := b.RelatedMemory(ctx, "app", session, prompt)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if !hinted(hint(cur), rule) {
		t.Fatal("before any context, the matching memory is not hinted")
	}
	out, err := b.SessionContext(ctx, capture.ContextRequest{Project: "app", SessionID: cur, Source: "startup"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, MemoryRef(rule)) {
		t.Fatalf("the context does not hold the memory:\n%s", out)
	}
	if hinted(hint(cur), rule) {
		t.Error("the memory the session's context holds is hinted again")
	}
	if !hinted(hint(other), rule) {
		t.Error("another session is not hinted the memory")
	}
	f.st.Injection.MaxInjectTokens = 20 // nothing fits
	b = f.builder()
	if out, err := b.SessionContext(ctx, capture.ContextRequest{Project: "app", SessionID: small, Source: "startup"}); err != nil || out != "" {
		t.Fatalf("a 20-token context: %q, %v", out, err)
	}
	if !hinted(hint(small), rule) {
		t.Error("a memory that did not fit in the session's context is not hinted")
	}
}

// TestRelatedMemorySemanticNotCrowded: memories no longer in force that
// are closer in meaning to the prompt than the one in force (100 retired
// ones saying the prompt itself) do not crowd it out of the hint: the
// lookup by meaning scans only the memories in force of the kinds kept.
func TestRelatedMemorySemanticNotCrowded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	old := f.session("app", "old", "")
	const (
		near   = "The cache lives in postgres"
		prompt = "is postgresql right for this"
	)
	for i := range 100 {
		text := fmt.Sprintf("%s %d", prompt, i)
		if i == 0 && similarity(text, prompt) <= similarity(near, prompt) {
			t.Fatalf("the fixture's texts do not crowd: retired %.3f, in force %.3f", similarity(text, prompt), similarity(near, prompt))
		}
		id := f.memory(old, "app", models.MemoryDecision, text)
		f.write(func(tx *models.Tx) error { _, err := tx.SetMemoryState(id, models.MemoryRetired); return err })
	}
	cache := f.memory(old, "app", models.MemoryDecision, near)
	f.st.Injection.RelatedThreshold = similarity(near, prompt) - 0.05
	cur := f.session("app", "cur", "")
	s := newSemanticFixture(t, f)
	b := s.builder(10 * time.Second)
	out := hintOnceEmbedded(t, b, "app", cur, prompt, cache)
	if !hinted(out, cache) {
		t.Fatalf("the memory in force is not hinted past 100 retired ones closer in meaning:\n%s\n%s", out, s.logs.String())
	}
	if len(regexp.MustCompile(`(?m)^- m\d+ `).FindAllString(out, -1)) != 1 {
		t.Errorf("want the one memory in force hinted:\n%s", out)
	}
}
