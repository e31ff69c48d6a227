package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/hooks"
	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/transcript"
	"github.com/mneme-dev/mneme/models"
)

// importCmd is `mneme import`: backfill memory from Claude Code's
// transcripts, through the worker's hook ingest, as if the hooks had run.
func importCmd(g *globals, code *int) *cobra.Command {
	var dry bool
	var since, project string
	var workers int
	cmd := &cobra.Command{
		Use:   "import [paths…]",
		Short: "Backfill memory from Claude Code's transcripts (~/.claude/projects), or read back `mneme export --all`",
		Long: `Reads Claude Code's transcripts (every *.jsonl under ~/.claude/projects, or the files and
directories given) and sends each session's events to the worker as its hooks would have:
sessions, prompts, tool calls (failures too), turns and session ends, with their original
times. Privacy rules, the skip list, importance, compression and summaries apply as for live
capture. Running it again, or on sessions also captured live, stores nothing twice. A
transcript written to in the last 10 minutes belongs to a session still running: its open
turn and its end are left to its hooks.

A file written by ` + "`mneme export --all`" + ` (recognised by its opening {"format":"mneme-export")
is read back instead, on this machine or another: its sessions, prompts, observations and
summaries are restored as they were stored, merged with what the worker holds (sessions by
their Claude Code id): importing it again stores nothing twice. A file cut short is reported
as such; the complete sessions before the cut are kept.`,
		Example: `  mneme import
  mneme import --dry-run
  mneme import --project notes-app --since 2026-01-01 ~/.claude/projects
  mneme import mneme-everything.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := transcript.Options{Project: project, Workers: workers, ActiveWithin: 10 * time.Minute}
			if since != "" {
				t, err := time.ParseInLocation("2006-01-02", since, time.Local)
				if err != nil {
					return usagef("--since must be a date like 2026-01-31")
				}
				opts.Since = t
			}
			return runImport(cmd.Context(), g, args, opts, dry, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "read and count, store nothing")
	cmd.Flags().StringVar(&since, "since", "", "only events since this day (YYYY-MM-DD)")
	cmd.Flags().StringVar(&project, "project", "", "only sessions of this project")
	cmd.Flags().IntVar(&workers, "workers", 32, "transcripts read and sent at once")
	return cmd
}

func runImport(ctx context.Context, g *globals, paths []string, opts transcript.Options, dry bool, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	exports, rest, err := splitExports(paths)
	if err != nil {
		return err
	}
	var sink transcript.Sink
	var live *socketSink
	var before models.Counts
	if !dry {
		unlock, err := transcript.Lock(g.dataDir)
		if err != nil {
			return err
		}
		defer unlock()
		if live, err = newSocketSink(g); err != nil {
			return err
		}
		if before, err = live.counts(); err != nil {
			return err
		}
		sink = live
	}
	if len(exports) > 0 {
		if err := runImportExports(ctx, live, exports, stdout); err != nil {
			return err
		}
		if len(rest) == 0 {
			return nil
		}
		paths = rest
	}
	var bar *progressbar.ProgressBar
	if isTTY(stderr) {
		desc := "importing"
		if dry {
			desc = "reading"
		}
		bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowBytes(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		opts.Progress = func(p transcript.Progress) {
			if bar.GetMax64() != p.Bytes && p.Bytes > 0 {
				bar.ChangeMax64(p.Bytes)
			}
			bar.Describe(fmt.Sprintf("%s: %s, %s, %s", desc, plural(p.Sessions, "session"), plural(p.Prompts, "prompt"), plural(p.Observations, "tool call")))
			bar.Set64(p.BytesDone)
		}
	}
	st, err := transcript.Run(ctx, paths, opts, sink)
	if bar != nil {
		bar.Finish()
	}
	printImport(stdout, stderr, st, dry)
	if dry && err == nil {
		printKnown(g, stdout, st)
	}
	if err != nil {
		return fmt.Errorf("import stopped: %w (run it again: nothing is stored twice)", err)
	}
	if s, ok := sink.(*socketSink); ok {
		if after, err := s.counts(); err == nil {
			fmt.Fprintf(stdout, "new in memory: %s, %s, %s (the rest was there already)\n", plural(after.Sessions-before.Sessions, "session"), plural(after.Prompts-before.Prompts, "prompt"), plural(after.Observations-before.Observations, "observation"))
		}
	}
	return nil
}

func printImport(stdout, stderr io.Writer, st transcript.Stats, dry bool) {
	for _, p := range st.Problems {
		fmt.Fprintln(stderr, "skipped: "+p)
	}
	if n := st.Skipped + st.Errors - len(st.Problems); n > 0 {
		fmt.Fprintf(stderr, "… and %d more\n", n)
	}
	verb := "imported"
	if dry {
		verb = "would import"
	}
	fmt.Fprintf(stdout, "%s %s, %s, %s (%d failed), %s from %s (%d MB) in %s; skipped %d, errors %d\n",
		verb, plural(st.Sessions, "session"), plural(st.Prompts, "prompt"), plural(st.Observations, "tool call"), st.Failures, plural(st.Turns, "turn"), plural(st.Files, "file"), st.Bytes>>20, st.Took.Round(time.Millisecond), st.Skipped, st.Errors)
	if dry && len(st.Projects) > 0 {
		names := make([]string, 0, len(st.Projects))
		for n := range st.Projects {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			c := st.Projects[n]
			fmt.Fprintf(stdout, "  %-30s %5d %-8s %6d %-7s %7d %s\n", n, c.Sessions, pluralNoun(c.Sessions, "session"),
				c.Prompts, pluralNoun(c.Prompts, "prompt"), c.Observations, pluralNoun(c.Observations, "tool call"))
		}
	}
}

// socketSink sends the events to the worker (POST /api/import/events),
// each cleaned first as `mneme hook` cleans an event before it sends it:
// private tags stripped and secrets redacted with the worker's rules
// (hooks.LoadRedactor), so that with MNEME_URL no secret leaves the
// machine either.
type socketSink struct {
	r      remote
	client *http.Client
	clean  *privacy.Redactor
}

// importAnswerTimeout is how long import waits for the worker's answer to
// one batch.
const importAnswerTimeout = 5 * time.Minute

func newSocketSink(g *globals) (*socketSink, error) {
	r := g.remote()
	r.transport.MaxIdleConnsPerHost = 64
	// A batch is up to 1 MiB of rows, each indexed for search: a busy
	// worker on a small machine may take minutes over one, and an import
	// that gives up half-way helps no one. The limit is only there so a
	// wedged worker does not hang the command for ever.
	r.transport.ResponseHeaderTimeout = importAnswerTimeout
	s := &socketSink{r: r, client: r.client(importAnswerTimeout + time.Minute), clean: hooks.LoadRedactor(g.dataDir, nil)}
	err := g.withWorker(r, 15*time.Second, func() error {
		_, err := s.counts()
		return err
	})
	if err != nil {
		return nil, r.unreachable(err)
	}
	return s, nil
}

// counts is what the worker holds now (GET /api/import: /api/health's
// counts are cached).
func (s *socketSink) counts() (models.Counts, error) {
	req, err := http.NewRequest(http.MethodGet, s.r.base+"/api/import", nil)
	if err != nil {
		return models.Counts{}, err
	}
	s.r.authorize(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return models.Counts{}, err
	}
	defer resp.Body.Close()
	var st api.ImportStatus
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&st) != nil {
		return models.Counts{}, fmt.Errorf("the worker %s answered %d, not as mneme", s.r.where, resp.StatusCode)
	}
	return st.Counts, nil
}

// Batch limits: a batch stays well under the worker's 2 MiB body cap.
const (
	batchBytes  = 1 << 20
	batchEvents = 256
	eventBytes  = 1 << 20 // one event's payload, its long strings cut to fit
)

// Send posts one event alone (the runner batches through ForFile).
func (s *socketSink) Send(ctx context.Context, ev *transcript.Event) error {
	b := s.ForFile()
	if err := b.Send(ctx, ev); err != nil {
		return err
	}
	return b.Flush(ctx)
}

// ForFile batches the events of one file.
func (s *socketSink) ForFile() transcript.FileSink { return &socketBatch{s: s} }

// socketBatch is one file's events on their way, as JSON lines.
type socketBatch struct {
	s   *socketSink
	buf bytes.Buffer
	n   int
}

func (b *socketBatch) Send(ctx context.Context, ev *transcript.Event) error {
	payload, err := json.Marshal(&ev.Payload)
	if err != nil {
		return hookwire.Permanent(err)
	}
	line, err := json.Marshal(api.ImportEvent{Event: ev.Name, Payload: b.s.clean.CleanPayload(payload, eventBytes)})
	if err != nil {
		return hookwire.Permanent(err)
	}
	if b.n > 0 && b.buf.Len()+len(line) > batchBytes {
		if err := b.Flush(ctx); err != nil {
			return err
		}
	}
	b.buf.Write(line)
	b.buf.WriteByte('\n')
	b.n++
	if b.n >= batchEvents {
		return b.Flush(ctx)
	}
	return nil
}

// Flush posts what the batch holds to POST /api/import/events, retrying
// while the worker is busy. Events it refused come back as a
// *transcript.RefusedError; any other failure stops the import.
func (b *socketBatch) Flush(ctx context.Context) error {
	if b.n == 0 {
		return nil
	}
	defer func() { b.buf.Reset(); b.n = 0 }()
	res, err := postLines[api.ImportResult](ctx, b.s, "/api/import/events", b.buf.Bytes())
	if err != nil {
		return err
	}
	if len(res.Refused) > 0 {
		return &transcript.RefusedError{Reasons: res.Refused}
	}
	return nil
}

// postLines posts a batch of JSON lines to the worker's path (post) and
// decodes its JSON answer.
func postLines[T any](ctx context.Context, s *socketSink, path string, lines []byte) (T, error) {
	var res T
	out, err := s.post(ctx, path, "application/x-ndjson", lines)
	if err != nil {
		return res, err
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return res, fmt.Errorf("the worker answered %s", bytes.TrimSpace(out))
	}
	return res, nil
}

// post sends body to the worker's path and returns its answer, retrying
// while the worker is busy (the database locked for a moment): the body
// is sent again whole, and what it stored already is recognised. Any
// answer but 200 is an error.
func (s *socketSink) post(ctx context.Context, path, contentType string, body []byte) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.r.base+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", contentType)
		s.r.authorize(req)
		resp, err := s.client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("the worker %s: %w", s.r.where, err)
		}
		out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK:
			return out, nil
		case (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) && attempt < 20:
			time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
			continue
		}
		return nil, fmt.Errorf("worker answered %d: %s", resp.StatusCode, bytes.TrimSpace(out))
	}
}

// printKnown ends a dry run with how many of its sessions the worker
// holds already (it is not started for that: a dry run stores nothing).
func printKnown(g *globals, stdout io.Writer, st transcript.Stats) {
	if len(st.SessionIDs) == 0 {
		return
	}
	body, _ := json.Marshal(map[string][]string{"ids": st.SessionIDs})
	var res struct {
		Known int `json:"known"`
	}
	if err := apiJSON(g, http.MethodPost, "/api/import/known", body, &res); err != nil {
		fmt.Fprintf(stdout, "how many are in memory already is unknown: %v\n", err)
		return
	}
	fmt.Fprintf(stdout, "would be new in memory: %s; already there: %s\n",
		plural(len(st.SessionIDs)-res.Known, "session"), plural(res.Known, "session"))
}
