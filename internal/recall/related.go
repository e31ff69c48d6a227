package recall

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/models"
)

// MaxKeywords bounds the terms of a related-memory query: more terms cost
// more index lookups and add little.
const MaxKeywords = 10

// candidates is how many BM25 hits are scored for relevance.
const candidates = 20

// recentMatches bounds the work of one lookup: only the project's newest
// matching observations are ranked.
const recentMatches = 500

// bm25Half is the BM25 score (negated) at which the score part of relevance
// reaches one half. SQLite's bm25() of a match on one rare term in a title
// is around 5 to 15 on a 100k-row table.
const bm25Half = 8.0

// Hint is one related memory: an observation, or a memory in force
// (Memory set), and how relevant it is (0..1).
type Hint struct {
	// ID is the observation's or the memory's; Title the observation's
	// ("" for a memory: its text is Memory's).
	ID        int64
	Title     string
	Relevance float64
	CreatedAt time.Time
	// Memory is the memory hinted; nil for an observation.
	Memory *models.Memory
}

// RelatedMemory returns, for a prompt just submitted, at most relatedCount
// one-line hints about earlier work of the same project (the memories in
// force and the observations) whose relevance clears the threshold,
// wrapped in <mneme-context>; or "" when nothing does.
func (b *Builder) RelatedMemory(ctx context.Context, project string, sessionID int64, prompt string) (string, error) {
	pol := b.policy()
	inj := pol.Settings.Injection
	if !inj.RelatedEnabled || inj.RelatedCount <= 0 || pol.ProjectExcluded(project) {
		return "", nil
	}
	hints, err := b.Related(ctx, project, sessionID, prompt, inj.RelatedCount, inj.RelatedThreshold)
	if err != nil || len(hints) == 0 {
		return "", err
	}
	var ids []int64
	for _, h := range hints {
		if h.Memory == nil {
			ids = append(ids, h.ID)
		}
	}
	status, err := b.fileStatus(ctx, ids)
	if err != nil {
		return "", err
	}
	c := cleaner{pol}
	check := filestate.NewChecker()
	// The session's person (team mode): a session only takes its own
	// person's events, so the request's is the session's.
	w := memoryWho{person: capture.PersonFrom(ctx), now: b.now()}
	var out strings.Builder
	out.WriteString(OpenTag + "\nmneme: related memory from earlier sessions (run `mneme search <words>` for details):\n")
	for _, h := range hints {
		if h.Memory != nil {
			fmt.Fprintf(&out, "- %s (relevance %.2f) %s\n", MemoryRef(h.ID), h.Relevance, c.redact(memoryBody(*h.Memory, check, c, w)))
			continue
		}
		fmt.Fprintf(&out, "- #%d (relevance %.2f) %s (%s)%s\n", h.ID, h.Relevance, c.redact(c.text(h.Title, 160)),
			h.CreatedAt.UTC().Format(time.DateOnly), changedMark(status[h.ID]))
	}
	out.WriteString(CloseTag)
	return out.String(), nil
}

// Related searches the project's memories in force (of the kinds the
// settings keep; not those the session's context already holds) and its
// observations (outside session sessionID) for the
// prompt's keywords and returns up to limit hints with relevance of at
// least threshold, best first; a memory before an observation as
// relevant.
//
// With embeddings on, the prompt's nearest memories and observations
// by meaning join them (a hint's relevance is then the larger of its text
// relevance and its cosine similarity), looked up (one embedding of the
// prompt, then both) at the same time as the text within the semantic
// budget; past it the hints are text's alone.
func (b *Builder) Related(ctx context.Context, project string, sessionID int64, prompt string, limit int, threshold float64) ([]Hint, error) {
	kinds := enabledKinds(b.policy().Settings.Memory)
	// The memories the session's context already holds are not hinted:
	// both lookups leave them out, so they take no candidate's place.
	held := b.injected.all(sessionID)
	sem := b.semanticRelated(ctx, project, sessionID, prompt, kinds, held)
	all := Keywords(prompt, MaxKeywords)
	obs, err := b.relatedObservations(ctx, project, sessionID, all)
	if err != nil {
		return nil, err
	}
	mems, err := b.relatedMemories(ctx, project, sessionID, all, kinds, held)
	if err != nil {
		return nil, err
	}
	if sem != nil {
		mems, obs = b.joinSemantic(mems, obs, sem)
	}
	var out []Hint
	for _, h := range append(mems, obs...) {
		if h.Relevance >= threshold {
			out = append(out, h)
		}
	}
	sortHints(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// relatedObservations are the observations matching the telling ones of
// kws, as hints.
func (b *Builder) relatedObservations(ctx context.Context, project string, sessionID int64, kws []string) ([]Hint, error) {
	kws, err := b.telling(ctx, kws, maxDocFreq, b.Store.CountObservationMatches)
	if err != nil || len(kws) == 0 {
		return nil, err
	}
	// Only the project's newest recentMatches matches are scored, so a
	// common term costs the same as a rare one.
	rows, err := b.Store.RelatedObservations(ctx, FTSQuery(kws), project, sessionID, recentMatches, candidates)
	if err != nil {
		return nil, err
	}
	out := make([]Hint, 0, len(rows))
	for _, r := range rows {
		rel := Relevance(r.Score, coverage(kws, r.Title+" "+r.Files+" "+r.Input))
		out = append(out, Hint{ID: r.ID, Title: r.Title, Relevance: rel, CreatedAt: r.CreatedAt})
	}
	return out, nil
}

// relatedMemories are the memories in force of kinds matching the
// telling ones of kws (telling among memories), but those held, as hints.
func (b *Builder) relatedMemories(ctx context.Context, project string, sessionID int64, kws, kinds []string, held []int64) ([]Hint, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	kws, err := b.telling(ctx, kws, maxMemoryDocFreq, b.Store.CountMemoryMatches)
	if err != nil || len(kws) == 0 {
		return nil, err
	}
	rows, err := b.Store.RelatedMemories(ctx, FTSQuery(kws), project, kinds, sessionID, held, recentMatches, candidates)
	if err != nil {
		return nil, err
	}
	out := make([]Hint, 0, len(rows))
	for _, r := range rows {
		out = append(out, memoryHint(r.Memory, Relevance(r.Score, coverage(kws, r.Text))))
	}
	return out, nil
}

func memoryHint(m models.Memory, rel float64) Hint {
	return Hint{ID: m.ID, Relevance: rel, CreatedAt: m.CreatedAt, Memory: &m}
}

// enabledKinds are the memory kinds the settings keep.
func enabledKinds(st models.MemorySettings) []string {
	var out []string
	for _, k := range models.MemoryKinds {
		if st.KindEnabled(k) {
			out = append(out, k)
		}
	}
	return out
}

// DefaultEmbedBudget is how long a related-memory lookup waits for
// the embeddings endpoint and the vector scan together.
const DefaultEmbedBudget = 250 * time.Millisecond

// semanticLookup is a semantic lookup under way.
type semanticLookup struct {
	done     chan struct{}
	obs      []models.SearchHit
	mems     []Hint
	err      error
	deadline <-chan struct{}
	cancel   context.CancelFunc
	budget   time.Duration
}

// semanticRelated starts looking up the prompt's nearest observations
// and memories in force of kinds by meaning (nil when embeddings are
// off).
func (b *Builder) semanticRelated(ctx context.Context, project string, sessionID int64, prompt string, kinds []string, held []int64) *semanticLookup {
	if !b.Embed.Enabled() || strings.TrimSpace(prompt) == "" {
		return nil
	}
	budget := b.EmbedBudget
	if budget <= 0 {
		budget = DefaultEmbedBudget
	}
	sctx, cancel := context.WithTimeout(ctx, budget)
	l := &semanticLookup{done: make(chan struct{}), deadline: sctx.Done(), cancel: cancel, budget: budget}
	go func() {
		defer close(l.done)
		qs := []models.SearchQuery{{Project: project, Type: models.SearchObservation, ExcludeSessionID: sessionID, Limit: candidates}}
		if len(kinds) > 0 {
			// A memory's state and kind are not in the vector index: the
			// scan keeps the memories in force of kinds by their ids, so
			// superseded ones never crowd them out.
			var only []int64
			if only, l.err = b.Store.MemoryIDsInForce(sctx, project, kinds); l.err != nil {
				return
			}
			only = slices.DeleteFunc(only, func(id int64) bool { return slices.Contains(held, id) })
			if len(only) > 0 {
				qs = append(qs, models.SearchQuery{Project: project, Type: models.SearchMemory, ExcludeSessionID: sessionID, OnlyIDs: only, Limit: candidates})
			}
		}
		var found [][]models.SearchHit
		if found, l.err = b.Embed.NearestWithin(sctx, prompt, budget, qs...); l.err != nil {
			return
		}
		l.obs = found[0]
		if len(found) > 1 {
			l.mems, l.err = b.memoriesInForce(sctx, found[1], kinds)
		}
	}()
	return l
}

// memoriesInForce are the memories of hits still current and of kinds,
// as hints (their similarity the relevance), in hits' order.
func (b *Builder) memoriesInForce(ctx context.Context, hits []models.SearchHit, kinds []string) ([]Hint, error) {
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	ms, err := b.Store.MemoriesByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]models.Memory, len(ms))
	for _, m := range ms {
		if m.State == models.MemoryCurrent && slices.Contains(kinds, m.Kind) {
			byID[m.ID] = m
		}
	}
	var out []Hint
	for _, h := range hits {
		if m, ok := byID[h.ID]; ok {
			out = append(out, memoryHint(m, h.Score))
		}
	}
	return out, nil
}

// joinSemantic waits for the lookup until its budget ends and adds its
// memories and observations to the text's; past the budget, or on an
// error, it logs and keeps the text's.
func (b *Builder) joinSemantic(mems, obs []Hint, l *semanticLookup) ([]Hint, []Hint) {
	defer l.cancel()
	var err error
	select {
	case <-l.done:
		err = l.err
	case <-l.deadline:
		err = context.DeadlineExceeded
	}
	if err != nil {
		if b.Log != nil {
			b.Log.Warn("related memory: semantic lookup not answered within its budget; hinting from text alone", "budget", l.budget, "err", err)
		}
		return mems, obs
	}
	sem := make([]Hint, len(l.obs))
	for i, h := range l.obs {
		sem[i] = Hint{ID: h.ID, Title: h.Title, Relevance: h.Score, CreatedAt: h.CreatedAt}
	}
	return joinHints(mems, l.mems), joinHints(obs, sem)
}

// joinHints adds to text (hints of one kind of row) the hints of sem not
// in it, and raises a hint in both to the larger relevance.
func joinHints(text, sem []Hint) []Hint {
	at := map[int64]int{}
	for i, h := range text {
		at[h.ID] = i
	}
	for _, h := range sem {
		if i, ok := at[h.ID]; ok {
			text[i].Relevance = max(text[i].Relevance, h.Relevance)
			continue
		}
		at[h.ID] = len(text)
		text = append(text, h)
	}
	return text
}

// maxDocFreq is the document frequency past which a keyword is too common
// to tell anything (1% of a 100k-observation database): its BM25 weight is
// low, and ranking it would cost a walk over its whole posting list. It was
// 5000; counting up to it took 80% of a lookup (p50 ≈ 20 ms at 100k).
const maxDocFreq = 1000

// maxMemoryDocFreq is maxDocFreq of memories: the same share (1%) of a
// project with 10,000 memories. Every memory a keyword matches is read to
// keep the project's memories in force (a memory's project and state are
// not in the full-text index), so it bounds that work too: at most
// MaxKeywords × maxMemoryDocFreq rows.
const maxMemoryDocFreq = 100

// telling keeps the keywords that occur in at least one and at most
// maxFreq rows, as count (observations' or memories') counts them. Each
// count stops at maxFreq+1 rows, so this costs the same for common terms
// as for rare ones.
func (b *Builder) telling(ctx context.Context, kws []string, maxFreq int, count func(ctx context.Context, match string, limit int) (int, error)) ([]string, error) {
	out := kws[:0:0]
	for _, k := range kws {
		n, err := count(ctx, FTSQuery([]string{k}), maxFreq+1)
		if err != nil {
			return nil, err
		}
		if n > 0 && n <= maxFreq {
			out = append(out, k)
		}
	}
	return out, nil
}

func sortHints(h []Hint) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].Relevance > h[j-1].Relevance; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// Relevance maps a (positive) BM25 score and the share of the prompt's
// keywords a hit contains to 0..1: half from coverage, half from the score
// squashed as s/(s+bm25Half). BM25 alone is not comparable across queries;
// coverage alone ignores how rare the matched terms are.
func Relevance(bm25, coverage float64) float64 {
	if bm25 < 0 {
		bm25 = 0
	}
	return 0.5*coverage + 0.5*bm25/(bm25+bm25Half)
}

// coverage is the share of keywords found in text, counting at most four:
// a hit matching four keywords of a long prompt is fully on topic.
func coverage(kws []string, text string) float64 {
	text = strings.ToLower(text)
	found := 0
	for _, k := range kws {
		if strings.Contains(text, stem(k)) {
			found++
		}
	}
	return min(float64(found)/float64(min(len(kws), 4)), 1)
}

// stem is a crude prefix of a keyword that survives English endings
// ("failing" → "fail", "tests" → "test"), to check coverage in raw text the
// way the porter tokenizer matched it.
func stem(k string) string {
	if isCodeish(k) || len(k) <= 4 {
		return k
	}
	n := max(4, len(k)-3)
	return k[:n]
}

// FTSQuery ORs the keywords as quoted FTS5 strings (quotes doubled), so no
// keyword is ever read as FTS5 syntax. A code-ish keyword like "foo.go"
// becomes the phrase "foo go" under the unicode61 tokenizer.
func FTSQuery(kws []string) string {
	parts := make([]string, len(kws))
	for i, k := range kws {
		parts[i] = `"` + strings.ReplaceAll(k, `"`, `""`) + `"`
	}
	return strings.Join(parts, " OR ")
}

// Keywords extracts up to max search terms from a prompt: stop words and
// words under three letters dropped, code-ish tokens (snake_case, dotted
// names, paths, camelCase, flags) kept whole and first, then the longer
// words first, lower-cased and without duplicates.
func Keywords(prompt string, max int) []string {
	var code, words []string
	seen := map[string]bool{}
	for _, tok := range strings.FieldsFunc(prompt, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '/' || r == '-')
	}) {
		tok = strings.Trim(tok, "./-")
		if !hasAlnum(tok) {
			continue
		}
		codeish := isCodeish(tok)
		tok = strings.ToLower(tok)
		if seen[tok] {
			continue
		}
		if !codeish && (len(tok) < 3 || stopWords[tok] || isNumber(tok)) {
			continue
		}
		seen[tok] = true
		if codeish {
			code = append(code, tok)
		} else {
			words = append(words, tok)
		}
	}
	// Longer words tend to be rarer and more telling; keep prompt order among
	// equals.
	for i := 1; i < len(words); i++ {
		for j := i; j > 0 && len(words[j]) > len(words[j-1]); j-- {
			words[j], words[j-1] = words[j-1], words[j]
		}
	}
	out := append(code, words...)
	if len(out) > max {
		out = out[:max]
	}
	return out
}

func hasAlnum(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// isCodeish reports a token that looks like code rather than prose: it
// holds '_', '.', '/' or an inner '-', or mixes cases inside (camelCase).
func isCodeish(tok string) bool {
	if strings.ContainsAny(tok, "_./") || strings.Contains(strings.Trim(tok, "-"), "-") {
		return true
	}
	rs := []rune(tok)
	for i := 1; i < len(rs); i++ {
		if unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i]) {
			return true
		}
	}
	return false
}

// stopWords are common English words (and prompt filler) that say nothing
// about a topic.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are aren't as at be because been
		before being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
		during each few for from further get got had hadn't has hasn't have haven't having he her here hers herself him
		himself his how i if in into is isn't it it's its itself just let let's like make me more most mustn't my myself
		need no nor not now of off on once only or other ought our ours ourselves out over own please same shan't she
		should shouldn't so some such than that that's the their theirs them themselves then there there's these they
		this those through to too under until up us use using very via want was wasn't we were weren't what when where
		which while who whom why will with won't would wouldn't you your yours yourself yourselves
		thanks thank okay ok yes yeah hey hi hello sure maybe something anything everything thing things way look
		see know think try tried trying going work working works done again still really just also now new one two
		add added change changed fix fixed check run ran make made show tell give help find able next last first`) {
		m[w] = true
	}
	return m
}()
