package summarize

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/memory"
	"github.com/mneme-dev/mneme/internal/memory/extract"
	"github.com/mneme-dev/mneme/models"
)

// Queue is the worker's background summary queue. Jobs are rows of
// summary_jobs, so they survive a restart; one goroutine runs them one at a
// time, retrying LLM failures with exponential backoff and falling back to
// the heuristic summary when the LLM cannot deliver.
type Queue struct {
	Store *models.Store
	// Settings returns the settings in force; read for every job.
	Settings func() models.Settings
	Log      *slog.Logger
	// Backoff is the delay before the first retry; it doubles per attempt.
	Backoff time.Duration
	// MaxAttempts is how many times an LLM is tried before the fallback.
	MaxAttempts int
	// Timeout bounds one LLM call.
	Timeout time.Duration
	// IntermediateEvery is how often a long session gets an intermediate
	// summary (30 minutes).
	IntermediateEvery time.Duration
	// Now is the clock; tests move it.
	Now func() time.Time
	// Clean is the privacy pipeline every string stored is put through
	// (the LLM's answer, error messages); nil stores them as they are.
	// The worker sets it to its policy's Clean.
	Clean func(string) string

	cli       *ClaudeCLI
	mu        sync.Mutex // guards the timings once started (SetRetry)
	wake      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	cancel    context.CancelFunc
	startOnce sync.Once
	stopOnce  sync.Once
}

// Defaults of the queue.
const (
	DefaultBackoff           = 10 * time.Second
	DefaultMaxAttempts       = 3
	DefaultTimeout           = 2 * time.Minute
	DefaultIntermediateEvery = 30 * time.Minute
)

// NewQueue builds a queue over store with the default timings; clean is
// the privacy pipeline summaries pass through (Queue.Clean).
func NewQueue(store *models.Store, settings func() models.Settings, clean func(string) string, log *slog.Logger) *Queue {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Queue{
		Store: store, Settings: settings, Clean: clean, Log: log,
		Backoff: DefaultBackoff, MaxAttempts: DefaultMaxAttempts, Timeout: DefaultTimeout,
		IntermediateEvery: DefaultIntermediateEvery,
	}
}

// SetRetry changes the retry timings of a running queue.
func (q *Queue) SetRetry(backoff time.Duration, maxAttempts int) {
	q.mu.Lock()
	q.Backoff, q.MaxAttempts = backoff, maxAttempts
	q.mu.Unlock()
}

func (q *Queue) retryTimings() (time.Duration, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	b, n := q.Backoff, q.MaxAttempts
	if b <= 0 {
		b = DefaultBackoff
	}
	if n <= 0 {
		n = DefaultMaxAttempts
	}
	return b, n
}

func (q *Queue) now() time.Time {
	if q.Now != nil {
		return q.Now().UTC()
	}
	return time.Now().UTC()
}

// Start makes jobs a crash left running pending again and starts the
// goroutine that runs them.
func (q *Queue) Start() error {
	var err error
	q.startOnce.Do(func() {
		q.wake = make(chan struct{}, 1)
		q.stop = make(chan struct{})
		q.done = make(chan struct{})
		q.cli = &ClaudeCLI{}
		var n int64
		err = q.Store.Writer.Do(context.Background(), func(tx *models.Tx) error {
			var e error
			n, e = tx.ResetRunningJobs()
			return e
		})
		if n > 0 {
			q.Log.Info("summary jobs resumed after restart", "jobs", n)
		}
		ctx, cancel := context.WithCancel(context.Background())
		q.cancel = cancel
		go q.loop(ctx)
	})
	return err
}

// Stop cancels the job in progress (it stays queued and runs again at the
// next start) and waits for the goroutine to end.
func (q *Queue) Stop() {
	if q.stop == nil {
		return
	}
	q.stopOnce.Do(func() {
		close(q.stop)
		q.cancel()
		<-q.done
	})
}

func (q *Queue) signal() {
	if q.wake == nil {
		return
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Enqueue queues a summary of the session: a turn (promptNumber), an
// intermediate or a final one. at is when the event asking for it
// happened (an imported turn's is its own, days ago; zero is now): the
// summary carries that time. The same request twice is one job. A turn
// from the second on, of a session running for more than IntermediateEvery
// (in the events' time) since its start or its last intermediate or final
// summary, also queues an intermediate summary: a session of one turn has
// its turn summary, and no interim one saying the same.
func (q *Queue) Enqueue(ctx context.Context, sessionID int64, kind string, promptNumber int, at time.Time) error {
	switch kind {
	case models.SummaryTurn, models.SummaryIntermediate, models.SummaryFinal:
	default:
		return fmt.Errorf("%w: summary kind %q", models.ErrInvalid, kind)
	}
	now := q.now()
	if at.IsZero() {
		at = now
	}
	at = at.UTC()
	every := q.IntermediateEvery
	if every <= 0 {
		every = DefaultIntermediateEvery
	}
	err := q.Store.Writer.Do(ctx, func(tx *models.Tx) error {
		sess, err := tx.JobSession(sessionID)
		if err != nil {
			return err
		}
		if kind == models.SummaryFinal && promptNumber == 0 {
			// A resumed session that ends again after new prompts gets a
			// new final summary; a replayed SessionEnd does not.
			promptNumber = sess.PromptCounter
		}
		if _, err := tx.EnqueueJob(sessionID, kind, promptNumber, at, now); err != nil {
			return err
		}
		if kind != models.SummaryTurn || promptNumber < 2 {
			return nil
		}
		last, ok, err := tx.LastJobTime(sessionID, models.SummaryIntermediate, models.SummaryFinal)
		if err != nil {
			return err
		}
		if !ok {
			last = sess.StartedAt
		}
		if at.Sub(last) >= every {
			_, err = tx.EnqueueJob(sessionID, models.SummaryIntermediate, promptNumber, at, now)
		}
		return err
	})
	if err != nil {
		return err
	}
	q.signal()
	return nil
}

func (q *Queue) loop(ctx context.Context) {
	defer close(q.done)
	for {
		for {
			select {
			case <-q.stop:
				return
			default:
			}
			job, err := q.Store.NextJob(ctx, q.now())
			if err != nil {
				if !errors.Is(err, models.ErrNotFound) && ctx.Err() == nil {
					q.Log.Error("summary queue: read next job", "err", err)
				}
				break
			}
			q.run(ctx, job)
		}
		wait := time.Minute
		if due, ok, err := q.Store.NextJobDue(ctx); err == nil && ok {
			wait = max(due.Sub(q.now()), 10*time.Millisecond)
		}
		t := time.NewTimer(wait)
		select {
		case <-q.stop:
			t.Stop()
			return
		case <-q.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// run processes one job and records its outcome.
func (q *Queue) run(ctx context.Context, job *models.SummaryJob) {
	job.Status = models.JobRunning
	job.Attempts++
	if err := q.Store.Writer.Do(ctx, func(tx *models.Tx) error { return tx.MarkJob(job) }); err != nil {
		return
	}
	in, err := LoadInput(ctx, q.Store, job.SessionID, job.Kind, job.PromptNumber)
	if err != nil {
		if ctx.Err() != nil {
			return // stopping: the job stays running and resumes at start
		}
		q.retry(ctx, job, nil, err)
		return
	}
	if job.AssistantMessage != "" {
		in.LastAssistantMessage = job.AssistantMessage
	}
	res, spent, err := q.summarize(ctx, job, in)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		q.retry(ctx, job, spent, err)
		return
	}
	if job.Kind != models.SummaryTurn {
		again, err := q.restates(ctx, in, res)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			q.retry(ctx, job, spent, err)
			return
		}
		if again {
			q.storeNothing(ctx, job, spent)
			return
		}
	}
	batch, err := q.memories(ctx, job, in, res)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		q.retry(ctx, job, spent, err)
		return
	}
	q.store(ctx, job, in, res, spent, batch)
}

// restates reports whether res, a session's final or intermediate
// summary, would only repeat the turn summary of a session of one turn
// (models.Summary.Restates).
func (q *Queue) restates(ctx context.Context, in *Input, res Result) (bool, error) {
	if in.Session.PromptCounter > 1 {
		return false, nil
	}
	turns, err := q.Store.SingleTurnSummaries(ctx, []int64{in.Session.ID})
	if err != nil {
		return false, err
	}
	t, ok := turns[in.Session.ID]
	return ok && toSummary(res, in).Restates(t), nil
}

// storeNothing ends a job whose summary would say nothing new: done,
// with no summary, and what the LLM call cost recorded.
func (q *Queue) storeNothing(ctx context.Context, job *models.SummaryJob, spent *Result) {
	err := q.Store.Writer.Do(context.WithoutCancel(ctx), func(tx *models.Tx) error {
		if spent != nil {
			if err := tx.RecordTokens(q.ledgerEntry(job, 0, spent)); err != nil {
				return err
			}
		}
		job.Status, job.LastError = models.JobDone, ""
		return tx.MarkJob(job)
	})
	if err != nil {
		q.Log.Error("summary queue: close job", "job", job.ID, "err", err)
	}
}

// memories extracts the memories of a turn job's turn, from its prompt
// and Claude's answer (or from the LLM summarizer's structured output,
// when it gave one), and prepares their writing: nil for other jobs.
func (q *Queue) memories(ctx context.Context, job *models.SummaryJob, in *Input, res Result) (*memory.Batch, error) {
	if job.Kind != models.SummaryTurn {
		return nil, nil
	}
	st := q.Settings().Memory
	t := memory.Turn{
		Project: in.Session.Project, SessionID: in.Session.ID, PromptNumber: in.PromptNumber, Cwd: in.Session.Cwd,
		Answer: in.LastAssistantMessage, At: q.jobTime(job),
		Person: in.Session.CapturedBy, Trusted: st.Trusts(in.Session.CapturedBy),
		Tools: memory.ToolTexts(in.Observations, in.Session.Cwd),
	}
	for _, p := range in.Prompts {
		t.Prompts = append(t.Prompts, p.Text)
	}
	if in.PromptNumber > 1 {
		prompt, answer, err := q.Store.PreviousTurn(ctx, in.Session.ID, in.PromptNumber)
		if err != nil {
			return nil, err
		}
		t.PrevPrompt, t.PrevAnswer = prompt, answer
	}
	statements := memory.Extract(t, st)
	if res.Memories != nil {
		// The LLM's statements replace the extractor's reading of the
		// answer; the user's prompts are read the same way on both paths.
		kept := statements[:0]
		for _, s := range statements {
			if s.Source == models.SourcePrompt {
				kept = append(kept, s)
			}
		}
		// What the LLM states from the answer's quotes or the turn's tool
		// output is the quoted source speaking, as for the extractor.
		quotes := t.Tools
		for _, qt := range extract.Quotes(t.Answer) {
			quotes = append(quotes, memory.ToolText{Ref: qt.From, Text: qt.Text})
		}
		statements = append(kept, memory.QuotedFromTools(memory.Enabled(res.Memories, st), quotes)...)
	}
	return memory.Prepare(ctx, q.Store, t, statements, q.clean)
}

// summarize runs the configured summarizer, applying the daily budget and
// the fallback. It returns an error only when the job should be retried.
func (q *Queue) summarize(ctx context.Context, job *models.SummaryJob, in *Input) (Result, *Result, error) {
	st := q.Settings().Summarizer
	llm := q.llm(st)
	if llm == nil {
		res, _ := Heuristic{}.Summarize(ctx, in)
		return res, nil, nil
	}
	if st.DailyTokenBudget > 0 {
		used, err := q.Store.TokensOnDay(ctx, models.LedgerDay(q.now()))
		if err != nil {
			return Result{}, nil, err
		}
		if used >= st.DailyTokenBudget {
			res := Heuristic{}.Build(in)
			res.Note = joinNote(fmt.Sprintf("daily token budget of %d reached (%d used today): heuristic summary instead of %s", st.DailyTokenBudget, used, llm.Name()), res.Note)
			return res, nil, nil
		}
	}
	timeout := q.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	res, err := llm.Summarize(cctx, in)
	cancel()
	var spent *Result
	if res.InputTokens+res.OutputTokens > 0 {
		r := res
		r.Generator = llm.Name()
		spent = &r
	}
	if err == nil {
		res.Generator = llm.Name()
		return res, spent, nil
	}
	if ctx.Err() != nil {
		return Result{}, nil, ctx.Err()
	}
	q.Log.Warn("LLM summary failed", "generator", llm.Name(), "session", job.SessionID, "attempt", job.Attempts, "err", err)
	if !errors.Is(err, hookwire.ErrPermanent) && job.Attempts < q.maxAttempts() {
		return Result{}, spent, err
	}
	fb := Heuristic{}.Build(in)
	fb.Note = joinNote(fmt.Sprintf("%s failed after %d %s (%s): heuristic summary instead", llm.Name(), job.Attempts, map[bool]string{true: "attempt", false: "attempts"}[job.Attempts == 1], clip(q.clean(err.Error()), 200)), fb.Note)
	if spent != nil {
		fb.InputTokens, fb.OutputTokens, fb.CostUSD = spent.InputTokens, spent.OutputTokens, spent.CostUSD
	}
	return fb, spent, nil
}

func (q *Queue) maxAttempts() int {
	_, n := q.retryTimings()
	return n
}

// llm is the LLM summarizer the settings ask for, nil for the heuristic.
func (q *Queue) llm(st models.SummarizerSettings) Summarizer {
	switch st.Kind {
	case GenClaudeCLI:
		q.cli.Configure(st.ClaudePath, st.Model)
		q.cli.Clean = q.Clean
		return q.cli
	case GenAPI:
		return &AnthropicAPI{APIKey: st.APIKey, Model: st.Model, BaseURL: st.BaseURL}
	}
	return nil
}

func joinNote(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// retry schedules the job's next attempt with exponential backoff, or marks
// it failed when its session is gone or its attempts are spent. What a
// failed LLM call cost is recorded meanwhile.
func (q *Queue) retry(ctx context.Context, job *models.SummaryJob, spent *Result, err error) {
	job.LastError = clip(q.clean(err.Error()), 500)
	if errors.Is(err, models.ErrNotFound) || job.Attempts >= q.maxAttempts() {
		job.Status = models.JobFailed
		q.Log.Error("summary job failed", "job", job.ID, "session", job.SessionID, "err", err)
	} else {
		job.Status = models.JobPending
		backoff, _ := q.retryTimings()
		job.NextAttemptAt = q.now().Add(backoff << (job.Attempts - 1))
	}
	werr := q.Store.Writer.Do(context.WithoutCancel(ctx), func(tx *models.Tx) error {
		if spent != nil {
			if err := tx.RecordTokens(q.ledgerEntry(job, 0, spent)); err != nil {
				return err
			}
		}
		return tx.MarkJob(job)
	})
	if werr != nil {
		q.Log.Error("summary queue: record failure", "job", job.ID, "err", werr)
	}
}

// clean is Clean, or s as it is without one.
func (q *Queue) clean(s string) string {
	if q.Clean == nil {
		return s
	}
	return q.Clean(s)
}

// cleanSummary cleans every text field of a summary before it is stored:
// the LLM may answer with what it was not given (a secret it read itself).
func (q *Queue) cleanSummary(s *models.Summary) {
	for _, f := range []*string{&s.Project, &s.Kind, &s.LastUserMessage, &s.LastAssistantMessage, &s.Generator, &s.Note} {
		*f = q.clean(*f)
	}
	for _, f := range []*string{&s.Request, &s.Investigated, &s.Learned, &s.Completed, &s.NextSteps} {
		*f = clip(q.clean(*f), MaxField)
	}
}

func (q *Queue) ledgerEntry(job *models.SummaryJob, summaryID int64, spent *Result) *models.LedgerEntry {
	return &models.LedgerEntry{
		SessionID: job.SessionID, SummaryID: summaryID, Generator: q.clean(spent.Generator), Model: q.clean(spent.Model),
		InputTokens: spent.InputTokens, OutputTokens: spent.OutputTokens, CostUSD: spent.CostUSD,
	}
}

// store writes the summary, its event, its ledger entry and the job's
// completion in one transaction; the writer publishes the event after the
// commit. A job forgotten while its summary was being written (its turn,
// session or project) stores nothing.
func (q *Queue) store(ctx context.Context, job *models.SummaryJob, in *Input, res Result, spent *Result, batch *memory.Batch) {
	sum := toSummary(res, in)
	q.cleanSummary(&sum)
	sum.CreatedAt = q.jobTime(job)
	err := q.Store.Writer.Do(context.WithoutCancel(ctx), func(tx *models.Tx) error {
		if ok, err := tx.JobExists(job.ID); err != nil || !ok {
			return err
		}
		if err := tx.InsertSummary(&sum); err != nil {
			return err
		}
		if _, err := tx.AppendEventAt(sum.CreatedAt, models.EventSummary, sum.Project, sum.SessionID, sum.ID, SummaryEvent(&sum)); err != nil {
			return err
		}
		if spent != nil {
			if err := tx.RecordTokens(q.ledgerEntry(job, sum.ID, spent)); err != nil {
				return err
			}
		}
		if batch != nil {
			if _, err := batch.Write(tx); err != nil {
				return err
			}
		}
		job.Status, job.SummaryID, job.LastError = models.JobDone, sum.ID, ""
		return tx.MarkJob(job)
	})
	if err != nil {
		q.Log.Error("summary queue: store summary", "job", job.ID, "err", err)
	}
}

// jobTime is the time of the event that queued job (Enqueue's at): when
// the turn or session it summarises ended, not when it is written.
func (q *Queue) jobTime(job *models.SummaryJob) time.Time {
	if job.CreatedAt.IsZero() {
		return q.now()
	}
	return job.CreatedAt.UTC()
}

// SummaryEvent is the JSON a summary travels as on the live stream.
func SummaryEvent(s *models.Summary) map[string]any {
	return map[string]any{
		"id": s.ID, "sessionId": s.SessionID, "project": s.Project, "kind": s.Kind, "promptNumber": s.PromptNumber,
		"request": s.Request, "investigated": s.Investigated, "learned": s.Learned,
		"completed": s.Completed, "nextSteps": s.NextSteps,
		"generator": s.Generator, "note": s.Note, "createdAt": s.CreatedAt,
	}
}

// Totals is the LLM spend the stats page shows: all time, today and each
// of the last 30 days, against the daily token budget in force.
func Totals(ctx context.Context, store *models.Store, st models.Settings, now time.Time) (models.LedgerTotals, error) {
	return store.LedgerTotals(ctx, now, 30, st.Summarizer.DailyTokenBudget)
}
