package memory_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/jsonl"
	"github.com/mneme-dev/mneme/internal/memory"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/internal/transcript"
	"github.com/mneme-dev/mneme/models"
)

// scenario is one line of testdata/trust/*.jsonl (see its README).
type scenario struct {
	ID    string         `json:"id"`
	Class string         `json:"class"`
	Trust []string       `json:"trust"`
	Turns []scenarioTurn `json:"turns"`
	Want  []struct {
		Kind    string `json:"kind"`
		Key     string `json:"key"`
		Speaker string `json:"speaker"`
		Subject string `json:"subject"`
	} `json:"want"`
	Poison []string `json:"poison"`
}

// scenarioTurn is one prompt and Claude's final answer (see the trust
// README's format).
type scenarioTurn struct {
	Person   string `json:"person"`
	Imported bool   `json:"imported"`
	Session  string `json:"session"`
	Prompt   string `json:"prompt"`
	Answer   string `json:"answer"`
}

func loadScenarios(t testing.TB, name string) []scenario {
	t.Helper()
	out, err := jsonl.Read[scenario](filepath.Join("testdata", "trust", name))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runScenario runs a scenario's turns through the worker's memory path —
// the privacy pipeline's cleaning, Extract, Prepare and Write in one
// transaction — on store, as project sc.ID, and returns every memory of
// the project.
func runScenario(t testing.TB, store *models.Store, sc scenario) []models.Memory {
	t.Helper()
	ctx := context.Background()
	settings := models.DefaultSettings()
	settings.Memory.Trust = sc.Trust
	pol := shape.NewPolicy(settings)
	sessions := map[string]int64{}
	turnOf := map[string]int{}
	prevAnswer, prevPrompt := map[string]string{}, map[string]string{}
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i, tu := range sc.Turns {
		key := tu.Session
		if key == "" {
			key = "s1"
		}
		if _, ok := sessions[key]; !ok {
			err := store.Writer.Do(ctx, func(tx *models.Tx) error {
				s, err := tx.EnsureSession(&models.Session{ClaudeSessionID: sc.ID + "-" + key, Project: sc.ID, Cwd: t.(interface{ TempDir() string }).TempDir(),
					StartedAt: at, CapturedBy: tu.Person})
				if err == nil {
					sessions[key] = s.ID
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		turnOf[key]++
		prompt := tu.Prompt
		if tu.Imported {
			if p, ok := transcript.PromptText(prompt); ok {
				prompt = p
			} else {
				prompt = "" // Claude Code's own line: no prompt, no memory
			}
		}
		tr := memory.Turn{
			Project: sc.ID, SessionID: sessions[key], PromptNumber: turnOf[key], Answer: pol.Clean(tu.Answer),
			PrevAnswer: prevAnswer[key], PrevPrompt: prevPrompt[key], Person: tu.Person, Trusted: settings.Memory.Trusts(tu.Person),
			At: at.Add(time.Duration(i) * time.Minute),
		}
		if p := pol.Clean(prompt); strings.TrimSpace(p) != "" {
			tr.Prompts = []string{p}
		}
		b, err := memory.Prepare(ctx, store, tr, memory.Extract(tr, settings.Memory), pol.Clean)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Writer.Do(ctx, func(tx *models.Tx) error { _, err := b.Write(tx); return err }); err != nil {
			t.Fatal(err)
		}
		prevAnswer[key] = tr.Answer
		prevPrompt[key] = strings.Join(tr.Prompts, "\n\n")
	}
	ms, err := store.Memories(ctx, models.MemoryFilter{Project: sc.ID})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// trustScore adds up one half.
type trustScore struct {
	scenarios, inForce, poisoned int
	// decisions and constraints: in force, matching a label (kind, key,
	// speaker, subject); labels, found.
	dcInForce, dcCorrect, dcLabels, dcFound int
	// every kind.
	allCorrect, allLabels, allFound int
	chains, chainsOne               int
	notes                           []string
}

// anySubject, set by MNEME_TRUST_ANY_SUBJECT, scores without subjects: a
// diagnostic of how much the subject costs, never the benchmark.
var anySubject = os.Getenv("MNEME_TRUST_ANY_SUBJECT") != ""

func matchesWant(m models.Memory, kind, key, speaker, subject string) bool {
	if anySubject {
		subject = ""
	}
	if m.Kind != kind || m.Speaker != speaker || !strings.Contains(strings.ToLower(m.Text), strings.ToLower(key)) {
		return false
	}
	for _, alt := range strings.Split(subject, "|") {
		if alt = strings.ToLower(strings.TrimSpace(alt)); alt != "" && strings.Contains(singular(m.Subject), singular(alt)) {
			return true
		}
	}
	return subject == ""
}

// singular is s lowercased with each word's plural "s" dropped, so that a
// subject "commit" matches a label "commits" and "migrations" "migration".
func singular(s string) string {
	f := strings.Fields(strings.ToLower(s))
	for i, w := range f {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			f[i] = strings.TrimSuffix(w, "s")
		}
	}
	return strings.Join(f, " ")
}

func (s *trustScore) add(sc scenario, ms []models.Memory) {
	s.scenarios++
	var force []models.Memory
	for _, m := range ms {
		if m.State == models.MemoryCurrent {
			force = append(force, m)
		}
	}
	describe := func(m models.Memory) string {
		return fmt.Sprintf("%s %s/%s [%s] %q", m.Kind, m.Speaker, m.State, m.Subject, m.Text)
	}
	for _, m := range force {
		s.inForce++
		dc := m.Kind == models.MemoryDecision || m.Kind == models.MemoryConstraint
		if dc {
			s.dcInForce++
		}
		for _, p := range sc.Poison {
			if strings.Contains(strings.ToLower(m.Text), strings.ToLower(p)) {
				s.poisoned++
				s.notes = append(s.notes, fmt.Sprintf("%s POISON %q in force: %s", sc.ID, p, describe(m)))
				break
			}
		}
		ok := false
		for _, w := range sc.Want {
			ok = ok || matchesWant(m, w.Kind, w.Key, w.Speaker, w.Subject)
		}
		if ok {
			s.allCorrect++
			if dc {
				s.dcCorrect++
			}
		} else {
			s.notes = append(s.notes, fmt.Sprintf("%s extra: %s", sc.ID, describe(m)))
		}
	}
	for _, w := range sc.Want {
		dc := w.Kind == models.MemoryDecision || w.Kind == models.MemoryConstraint
		s.allLabels++
		if dc {
			s.dcLabels++
		}
		found := false
		for _, m := range force {
			found = found || matchesWant(m, w.Kind, w.Key, w.Speaker, w.Subject)
		}
		if found {
			s.allFound++
			if dc {
				s.dcFound++
			}
			continue
		}
		var near []string
		for _, m := range ms {
			if strings.Contains(strings.ToLower(m.Text), strings.ToLower(w.Key)) {
				near = append(near, describe(m))
			}
		}
		s.notes = append(s.notes, fmt.Sprintf("%s missed %s %q by %s about %q; stored with the key: %v", sc.ID, w.Kind, w.Key, w.Speaker, w.Subject, near))
	}
	if sc.Class == "chain" {
		s.chains++
		if len(force) == 1 {
			s.chainsOne++
		}
	}
}

// TestTrustBenchmark scores the memory path on both halves of the trust
// corpus (testdata/trust): quoted and reported text, teammates, imported
// system lines, choices made across turns and chains of changes. It
// prints the table; the floors are the goal on the tuning half and zero
// poison on both (the held-out half's figures are what to read). With
// MNEME_TRUST_OUT set, the table is also written to that file.
func TestTrustBenchmark(t *testing.T) {
	dir := t.TempDir()
	store := testutil.OpenStore(t, dir)
	t.Cleanup(func() { store.Close() })
	var b strings.Builder
	fmt.Fprintf(&b, "| half | scenarios | in force | poisoned | decisions+constraints precision | recall | all kinds precision | recall | chains ending in one |\n|---|---|---|---|---|---|---|---|---|\n")
	halves := map[string]trustScore{}
	var byClass strings.Builder
	for _, name := range []string{"tune.jsonl", "heldout.jsonl", "heldout2.jsonl", "heldout3.jsonl", "heldout4.jsonl", "heldout5.jsonl", "heldout6.jsonl", "heldout7.jsonl", "heldout8.jsonl", "heldout9.jsonl", "heldout10.jsonl", "heldout11.jsonl", "dev1.jsonl"} {
		var s trustScore
		classes := map[string]*trustScore{}
		for _, sc := range loadScenarios(t, name) {
			ms := runScenario(t, store, sc)
			s.add(sc, ms)
			if classes[sc.Class] == nil {
				classes[sc.Class] = &trustScore{}
			}
			classes[sc.Class].add(sc, ms)
		}
		half := strings.TrimSuffix(name, ".jsonl")
		halves[half] = s
		b.WriteString(s.row(half))
		for _, c := range slices.Sorted(maps.Keys(classes)) {
			byClass.WriteString(classes[c].row(half + " " + c))
		}
		// The held-out half's misses are not printed: nobody tunes on it
		// (MNEME_TRUST_HELDOUT_NOTES=1 shows them, for the final report).
		// The first held-out half (hq) was retired into tuning once the
		// second (hr) was committed, hr once the third (hs) was, and hs
		// once the fourth (ht) was, and ht once the fifth (hu) was held out
		// beside it; the sixth (hv) is held out beside hu; hx, hy and
		// hz are held out now, hu, hv and hw retired. See
		// testdata/trust/README.md.
		if testing.Verbose() && (!heldOutNow[half] || os.Getenv("MNEME_TRUST_HELDOUT_NOTES") != "") {
			for _, n := range s.notes {
				t.Logf("%s %s", half, n)
			}
		}
	}
	t.Log("\n" + b.String())
	if os.Getenv("MNEME_TRUST_CLASSES") != "" {
		// Figures by class, for every half: aggregates only, no misses.
		t.Log("\n" + byClass.String())
	}
	if out := os.Getenv("MNEME_TRUST_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Regression guards at the figures reached, not the goal (0 poisoned,
	// ≥ 0.9 precision and recall): the table is what to read. A half held
	// out is guarded at its first figure, on the extractor as it was when
	// the half was committed, so that no later change makes it worse; it
	// is never tuned on. A retired half is guarded at what tuning on it
	// reached.
	for _, g := range []struct {
		half              string
		poisoned          int
		precision, recall float64
		why               string
	}{
		{"tune", tunePoisonGuard, 0.82, 0.87, "tuned on"},
		{"heldout", 0, 0.85, 0.9, "retired, tuned on"},
		{"heldout2", 0, 0, 0.89, "retired, tuned on"},
		{"heldout3", 0, 0, 0.95, "retired, tuned on"},
		{"heldout4", 0, 0, 0.95, "retired, tuned on"},
		{"heldout5", 2, 0, 0.78, "retired, tuned on"},
		{"heldout6", 0, 0, 0.92, "retired, tuned on"},
		{"heldout7", 2, 0, 0.68, "retired, tuned on"},
		{"heldout8", 4, 0, 0.53, "held out: its first figure (db4175e)"},
		{"heldout9", 5, 0, 0.38, "held out: its first figure (f9bcf35)"},
		{"heldout10", 8, 0, 0.64, "held out: its first figure (3b5ae41)"},
		{"heldout11", 4, 0, 0.46, "held out: its first figure (dd48608)"},
		{"dev1", 7, 0, 0.77, "development half, retired, tuned on"},
	} {
		s := halves[g.half]
		p, r := ratio(s.dcCorrect, s.dcInForce), ratio(s.dcFound, s.dcLabels)
		if s.poisoned > g.poisoned || p < g.precision || r < g.recall {
			t.Errorf("%s (%s): %d poisoned, decisions and constraints precision %.3f, recall %.3f; want ≤ %d, ≥ %.2f and ≥ %.2f",
				g.half, g.why, s.poisoned, p, r, g.poisoned, g.precision, g.recall)
		}
	}
}

// tunePoisonGuard is the tuning half's poisoned memories in force: none
// once a turn's decision replaces what it points at without naming it
// (the last change, when it says "again"; what its answer took out; what
// its prompt found fault with); four
// before that, after two rounds on tq289–tq352 (eleven at their first
// run, nine of them theirs; two before them).
const tunePoisonGuard = 0

// row is s as a line of the benchmark's table.
func (s trustScore) row(name string) string {
	return fmt.Sprintf("| %s | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %d/%d |\n", name, s.scenarios, s.inForce, s.poisoned,
		ratio(s.dcCorrect, s.dcInForce), ratio(s.dcFound, s.dcLabels), ratio(s.allCorrect, s.inForce), ratio(s.allFound, s.allLabels), s.chainsOne, s.chains)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// A rule stated in Claude's answer is kept as a note, never in force: the
// user's or the project's to set, it is either the user's repeated (kept
// from the prompt) or a source's the quote patterns missed.
func TestAnswerRulesAreNotes(t *testing.T) {
	store := testutil.OpenStore(t, t.TempDir())
	t.Cleanup(func() { store.Close() })
	var sc scenario
	sc.ID = "answer-rule"
	sc.Turns = append(sc.Turns, scenarioTurn{Session: "s1", Prompt: "Set up the release script.",
		Answer: "Done. The vendor's position: release builds must never strip debug symbols. I went with goreleaser over a Makefile target, because it signs the archives."})
	var noted, decision bool
	for _, m := range runScenario(t, store, sc) {
		switch {
		case m.Kind == models.MemoryConstraint:
			if m.State != models.MemoryNoted {
				t.Errorf("an answer's rule is %s, want noted: %q", m.State, m.Text)
			}
			noted = true
		case m.Kind == models.MemoryDecision && m.State == models.MemoryCurrent:
			decision = true
		}
	}
	if !noted || !decision {
		t.Errorf("want the rule noted and Claude's decision in force: noted %v, decision %v", noted, decision)
	}
}

// A choice changed twice, in the ways people write it — by Claude across
// sessions, by the user from a rule to a switch to a standing rule, and
// a move told with its reason after one told with "instead of" — leaves
// one memory in force, the last.
func TestChainsEndInOne(t *testing.T) {
	store := testutil.OpenStore(t, t.TempDir())
	t.Cleanup(func() { store.Close() })
	chains := [][]scenarioTurn{
		{{Session: "s1", Prompt: "Set up logging.", Answer: "I went with zap for logging, because it is fast and structured."},
			{Session: "s2", Prompt: "zap's API is clunky.", Answer: "Switched logging to zerolog; zap is removed."},
			{Session: "s3", Prompt: "Let's just use slog from the standard library, no dependency.", Answer: "Done: every logger is now slog, and zerolog is gone from go.mod."}},
		{{Session: "s1", Prompt: "Always deploy with Helm.", Answer: "Noted."},
			{Session: "s2", Prompt: "We're switching deploys to Kustomize, Helm is too much templating.", Answer: "Converted the charts to Kustomize overlays."},
			{Session: "s3", Prompt: "From now on deploy with Argo CD only; no manual kubectl apply.", Answer: "Added the Argo CD Application manifests."}},
		{{Session: "s1", Prompt: "Where should uploads go?", Answer: "Uploads are stored on the local disk under /var/uploads for now, since there is one server."},
			{Session: "s1", Prompt: "We add a second server next week.", Answer: "Uploads now go to S3 instead of the local disk, because both servers must see them."},
			{Session: "s2", Prompt: "S3 egress is too expensive.", Answer: "Moved uploads to Cloudflare R2: same API, no egress fees. The S3 bucket is retired."}},
	}
	last := []string{"slog", "Argo CD", "Cloudflare R2"}
	for i, ch := range chains {
		var sc scenario
		sc.ID = fmt.Sprintf("chain-%d", i)
		sc.Turns = append(sc.Turns, ch...)
		var force []string
		for _, m := range runScenario(t, store, sc) {
			if m.State == models.MemoryCurrent {
				force = append(force, m.Text)
			}
		}
		if len(force) != 1 || !strings.Contains(force[0], last[i]) {
			t.Errorf("chain %d ends with %q in force, want one memory naming %s", i, force, last[i])
		}
	}
}

// "…, as you chose" tells the user's choice: when the prompt's pick was
// read from the options, the answer's restatement is the same decision;
// when it was not, the answer's statement is the user's decision.
func TestAsYouChoseIsTheUsersChoice(t *testing.T) {
	store := testutil.OpenStore(t, t.TempDir())
	t.Cleanup(func() { store.Close() })
	offered := "Two ways to cache the catalogue:\n\n1. **In-process LRU** — no new service, but each pod warms its own.\n2. **Memcached** — shared across pods, one more thing to run.\n\nWhich do you want?"
	for name, c := range map[string]struct {
		offered string
		pick    string
	}{
		"pick read": {offered, "2, shared matters more"},
		// Options as bold paragraphs the reader does not take for a list.
		"pick not read": {"**Plan A, in-process LRU cache.** No new service.\n\n**Plan B, a Memcached cluster.** Shared across pods.\n\nThoughts?", "memcached. obviously"},
	} {
		var sc scenario
		sc.ID = "as-you-chose-" + strings.ReplaceAll(name, " ", "-")
		sc.Turns = append(sc.Turns, scenarioTurn{Session: "s1", Prompt: "The catalogue endpoint is slow, cache it.", Answer: c.offered},
			scenarioTurn{Session: "s1", Prompt: c.pick, Answer: "The catalogue is cached in Memcached as you chose, keyed by catalogue version with a 10-minute TTL."})
		var decisions []models.Memory
		for _, m := range runScenario(t, store, sc) {
			if m.Kind == models.MemoryDecision && m.State == models.MemoryCurrent {
				decisions = append(decisions, m)
			}
		}
		if len(decisions) != 1 || decisions[0].Speaker != models.SpeakerUser || !strings.Contains(strings.ToLower(decisions[0].Text), "memcached") {
			t.Errorf("%s: decisions in force %+v, want one of the user's naming Memcached", name, decisions)
		} else if !strings.Contains(decisions[0].Subject, "catalogue") {
			t.Errorf("%s: subject %q, want what the question before the options was about (the catalogue)", name, decisions[0].Subject)
		}
	}
}

// "…, as you chose" in Claude's answer never retires the user's rule:
// neither where Claude asked nothing (it is Claude's own words, a
// decision of Claude's) nor right after options (the user's pick, but
// told in Claude's words: a user's rule is replaced only by the user).
func TestAsYouChoseKeepsTheUsersRule(t *testing.T) {
	store := testutil.OpenStore(t, t.TempDir())
	t.Cleanup(func() { store.Close() })
	rule := scenarioTurn{Session: "s1", Prompt: "Always use pnpm in this repo, never npm.", Answer: "Understood."}
	for name, turns := range map[string][]scenarioTurn{
		"no options asked": {rule, {Session: "s2", Prompt: "ok", Answer: "Switched the scripts to npm as you chose, since it ships with node."}},
		"after options": {rule,
			{Session: "s2", Prompt: "the lockfile keeps conflicting", Answer: "**Plan A, keep pnpm** and regenerate the lockfile.\n\n**Plan B, move to npm**, which CI images ship.\n\nThoughts?"},
			{Session: "s2", Prompt: "meh. whatever is simpler", Answer: "Replaced pnpm with npm as you chose, since the CI images ship it."}},
	} {
		sc := scenario{ID: "as-you-chose-rule-" + strings.ReplaceAll(name, " ", "-")}
		sc.Turns = append(sc.Turns, turns...)
		var pnpm bool
		for _, m := range runScenario(t, store, sc) {
			if m.Kind == models.MemoryConstraint && strings.Contains(m.Text, "pnpm") {
				pnpm = m.State == models.MemoryCurrent
			}
			if strings.Contains(m.Text, "as you chose") && m.State == models.MemoryCurrent && name == "no options asked" && m.Speaker != models.SpeakerClaude {
				t.Errorf("%s: %q is %s's, want Claude's", name, m.Text, m.Speaker)
			}
		}
		if !pnpm {
			t.Errorf("%s: the user's pnpm rule is no longer in force", name)
		}
	}
}

// Chains across sessions, told in other words: a tool found fault with
// and replaced by the user twice, a count in a rule moved ("two
// approvals" → "one approval is enough"), Claude's choice replaced by the
// user's in other words, a library replaced in the answer: each ends
// with one memory in force, the last turn's.
func TestChainsAcrossSessionsInOtherWords(t *testing.T) {
	store := testutil.OpenStore(t, t.TempDir())
	chains := [][]scenarioTurn{
		{{Session: "s1", Prompt: "Set up error tracking.", Answer: "I went with Sentry for error tracking, since the SDK covers both the API and the web app."},
			{Session: "s2", Prompt: "Sentry's pricing jumped. Move error tracking to GlitchTip, self-hosted.", Answer: "Moved: both apps report to GlitchTip on our box."},
			{Session: "s3", Prompt: "GlitchTip keeps falling over; we're on Bugsnag from now on.", Answer: "Switched the DSNs to Bugsnag."}},
		{{Session: "s1", Prompt: "From now on, PRs need two approvals.", Answer: "Noted."},
			{Session: "s2", Prompt: "One approval is enough from now on, the team is too small.", Answer: "Updated the branch protection to one approval."}},
		{{Session: "s1", Prompt: "Add the nightly report job.", Answer: "Background jobs run on a cron in the API container, because it's one less service to deploy."},
			{Session: "s2", Prompt: "The cron in the API container double-fires after deploys. Jobs get their own worker service from now on.", Answer: "Added a `worker` service to the compose file and moved the nightly report there."}},
		{{Session: "s1", Prompt: "Pick an HTTP client for the Python services.", Answer: "I went with requests because every service already depends on it."},
			{Session: "s2", Prompt: "We need async now. httpx everywhere please.", Answer: "Replaced requests with httpx.AsyncClient in all four services."}},
	}
	for i, turns := range chains {
		var sc scenario
		sc.ID = fmt.Sprintf("across%d", i)
		sc.Turns = turns
		var force []models.Memory
		for _, m := range runScenario(t, store, sc) {
			if m.State == models.MemoryCurrent {
				force = append(force, m)
			}
		}
		last := strings.ToLower(turns[len(turns)-1].Prompt + "\n" + turns[len(turns)-1].Answer)
		if len(force) != 1 || !strings.Contains(last, strings.ToLower(force[0].Text)) {
			t.Errorf("%s: %d in force %+v, want one of the last turn", sc.ID, len(force), force)
		}
	}
}

// heldOutNow are the halves held out now,
// whose misses are not printed (see testdata/trust/README.md).
var heldOutNow = map[string]bool{"heldout8": true, "heldout9": true, "heldout10": true, "heldout11": true}
