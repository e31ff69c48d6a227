package transcript

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/filestate"
)

// Sink receives the events of an import. Send is called for the events of
// one file in order, from one goroutine; different files may be sent
// concurrently.
type Sink interface {
	Send(ctx context.Context, ev *Event) error
}

// Batching is a Sink that sends a file's events in batches. The runner
// asks it for one FileSink per file and closes that at the file's end.
type Batching interface {
	Sink
	ForFile() FileSink
}

// FileSink takes the events of one file, in order; Flush sends what it
// still holds. Events it refused for good come back as a *RefusedError.
type FileSink interface {
	Sink
	Flush(ctx context.Context) error
}

// RefusedError lists events of a batch the worker refused for good; the
// others were stored.
type RefusedError struct{ Reasons []string }

func (e *RefusedError) Error() string { return strings.Join(e.Reasons, "; ") }

// Options configure an import.
type Options struct {
	// Since drops events older than it (the zero time keeps all).
	Since time.Time
	// Project keeps only sessions of this project (ProjectOf of their cwd).
	Project string
	// ProjectOf names the project of a cwd; nil uses hookwire.ResolveProject,
	// as the worker does without aliases.
	ProjectOf func(cwd string) string
	// MaxLine caps a line's length (DefaultMaxLine when 0).
	MaxLine int
	// ActiveWithin: a transcript written to within it belongs to a
	// session that may still run, which gets no SessionEnd.
	ActiveWithin time.Duration
	// Workers is how many files are read (and sent) at once (4 when 0).
	Workers int
	// Progress, when set, is called now and then and at the end.
	Progress func(Progress)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// MaxProblems bounds the problems kept in Stats (100 when 0); all
	// are counted.
	MaxProblems int
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Options) projectOf(cwd string) string {
	if o.ProjectOf != nil {
		return o.ProjectOf(cwd)
	}
	return hookwire.ResolveProject(cwd).Name
}

// Counts is what an import found (or, dry, would send).
type Counts struct {
	Sessions     int `json:"sessions"`
	Prompts      int `json:"prompts"`
	Observations int `json:"observations"` // tool calls
	Failures     int `json:"failures"`     // of Observations
	Turns        int `json:"turns"`
	Ended        int `json:"ended"`
}

func (c *Counts) add(ev *Event) {
	switch ev.Name {
	case hookwire.SessionStart:
		// Counted per session id, in Run.
	case hookwire.UserPromptSubmit:
		c.Prompts++
	case hookwire.PostToolUse:
		c.Observations++
	case hookwire.PostToolUseFailure:
		c.Observations++
		c.Failures++
	case hookwire.Stop:
		c.Turns++
	case hookwire.SessionEnd:
		c.Ended++
	}
}

// Stats is the outcome of an import.
type Stats struct {
	Counts
	Files      int                `json:"files"`
	Bytes      int64              `json:"bytes"`
	Skipped    int                `json:"skipped"` // lines, results and files that could not be used
	Errors     int                `json:"errors"`  // events the worker refused
	Problems   []string           `json:"problems,omitempty"`
	Projects   map[string]*Counts `json:"projects,omitempty"`
	SessionIDs []string           `json:"-"` // every session sent, for the caller to check
	Took       time.Duration      `json:"took"`
}

// Progress is where a running import is.
type Progress struct {
	Files     int   `json:"files"`
	FilesDone int   `json:"filesDone"`
	Bytes     int64 `json:"bytes"`
	BytesDone int64 `json:"bytesDone"`
	Counts
	Skipped int  `json:"skipped"`
	Errors  int  `json:"errors"`
	Done    bool `json:"done"`
}

// DefaultDir is where Claude Code keeps its transcripts:
// $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects.
func DefaultDir() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "projects")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".claude", "projects")
	}
	return filepath.Join(home, ".claude", "projects")
}

// file is one transcript to read.
type file struct {
	path string
	size int64
	mod  time.Time
}

// Find lists the transcripts (*.jsonl) in paths: files as given, and
// directories walked. Symbolic links to files are followed; links to
// directories inside a walked tree are not (no loops). A path that cannot
// be read is a problem, not a failure.
func Find(paths []string, problem func(Problem)) []file {
	var out []file
	seen := map[string]bool{}
	add := func(path string, info fs.FileInfo) {
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = path
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			if seen[real] {
				return
			}
			seen[real] = true
		}
		out = append(out, file{path: abs, size: info.Size(), mod: info.ModTime()})
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			problem(Problem{root, 0, shortPathError(err)})
			continue
		}
		if !info.IsDir() {
			if info.Mode().IsRegular() {
				add(root, info)
			} else {
				problem(Problem{root, 0, "not a regular file: skipped"})
			}
			continue
		}
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				problem(Problem{path, 0, shortPathError(err)})
				return nil // WalkDir skips the directory it could not read
			}
			if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
				return nil
			}
			info, err := os.Stat(path) // follows a link to a file
			if err != nil {
				problem(Problem{path, 0, shortPathError(err)})
				return nil
			}
			if !info.Mode().IsRegular() {
				if !info.IsDir() {
					problem(Problem{path, 0, "not a regular file: skipped"})
				}
				return nil
			}
			add(path, info)
			return nil
		})
	}
	// Oldest first: a session resumed in a later file follows its start.
	sort.SliceStable(out, func(i, j int) bool { return out[i].mod.Before(out[j].mod) })
	return out
}

func shortPathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error() + ": skipped"
	}
	return err.Error() + ": skipped"
}

// Run imports the transcripts in paths (DefaultDir when empty) into sink;
// a nil sink is a dry run that only counts. It returns what was found and
// sent; its error is the Sink's first non-permanent one (the worker went
// away), or ctx's.
func Run(ctx context.Context, paths []string, opts Options, sink Sink) (Stats, error) {
	start := opts.now()
	if len(paths) == 0 {
		paths = []string{DefaultDir()}
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.MaxProblems <= 0 {
		opts.MaxProblems = 100
	}
	r := &runner{opts: &opts, sink: sink, stats: Stats{Projects: map[string]*Counts{}}, sessions: map[string]string{}}
	files := Find(paths, r.problem)
	r.stats.Files = len(files)
	for _, f := range files {
		r.total += f.size
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopTick := r.ticker()
	// Subagents' transcripts go after the sessions they worked for, so
	// their tool calls find their session and prompt stored.
	main, agents := splitAgents(files)
	for _, phase := range [][]file{main, agents} {
		r.files(ctx, cancel, phase)
	}
	stopTick()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats.Bytes = r.done.Load()
	r.stats.Took = opts.now().Sub(start)
	r.report(true)
	if err := context.Cause(ctx); err != nil {
		return r.stats, err
	}
	return r.stats, nil
}

// files reads phase with Options.Workers goroutines, one file each at a
// time; the first error cancels the rest.
func (r *runner) files(ctx context.Context, cancel context.CancelCauseFunc, phase []file) {
	jobs := make(chan file)
	var wg sync.WaitGroup
	for range r.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				if err := r.file(ctx, f); err != nil {
					cancel(err)
				}
			}
		}()
	}
	defer func() {
		close(jobs)
		wg.Wait()
	}()
	for _, f := range phase {
		select {
		case jobs <- f:
		case <-ctx.Done():
			return
		}
	}
}

// splitAgents sets apart the transcripts of subagents (agent-*.jsonl, or
// under a subagents directory): their lines belong to the session that
// started them.
func splitAgents(files []file) (main, agents []file) {
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f.path), "agent-") || strings.Contains(f.path, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
			agents = append(agents, f)
		} else {
			main = append(main, f)
		}
	}
	return main, agents
}

type runner struct {
	opts      *Options
	sink      Sink
	total     int64
	done      atomic.Int64
	mu        sync.Mutex
	stats     Stats
	filesDone int
	sessions  map[string]string // session id → project, counted once
}

func (r *runner) problem(p Problem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats.Skipped++
	if len(r.stats.Problems) < r.opts.MaxProblems {
		r.stats.Problems = append(r.stats.Problems, p.String())
	}
}

// ticker reports progress every 100 ms until stopped.
func (r *runner) ticker() func() {
	if r.opts.Progress == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				r.mu.Lock()
				r.report(false)
				r.mu.Unlock()
			}
		}
	}()
	return func() { close(stop); <-done }
}

// report calls Progress; r.mu is held.
func (r *runner) report(final bool) {
	if r.opts.Progress == nil {
		return
	}
	r.opts.Progress(Progress{
		Files: r.stats.Files, FilesDone: r.filesDone, Bytes: r.total, BytesDone: r.done.Load(),
		Counts: r.stats.Counts, Skipped: r.stats.Skipped, Errors: r.stats.Errors, Done: final,
	})
}

// file reads one transcript and sends its events.
func (r *runner) file(ctx context.Context, f file) error {
	defer func() {
		r.mu.Lock()
		r.filesDone++
		r.mu.Unlock()
	}()
	fh, _, err := filestate.OpenRegular(f.path)
	if err != nil {
		msg := shortPathError(err)
		if errors.Is(err, filestate.ErrNotRegular) {
			msg = "not a regular file: skipped"
		}
		r.problem(Problem{f.path, 0, msg})
		r.done.Add(f.size)
		return nil
	}
	defer fh.Close()
	read := int64(0)
	fp := &fileParser{path: f.path, opts: r.opts, problem: r.problem, sessions: map[string]*session{}}
	sink := r.sink
	var batch FileSink
	if b, ok := sink.(Batching); ok {
		batch = b.ForFile()
		sink = batch
	}
	fp.emit = func(ev *Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if sink != nil {
			if err := r.refused(f.path, fp.lineNo, sink.Send(ctx, ev)); err != nil {
				return err
			}
		}
		r.count(ev)
		return nil
	}
	err = fp.parse(fh, f.mod, func(n int) { read += int64(n); r.done.Add(int64(n)) })
	if rest := f.size - read; rest > 0 {
		r.done.Add(rest) // the file shrank, or a read failed
	}
	if err == nil && batch != nil {
		err = r.refused(f.path, 0, batch.Flush(ctx))
	}
	return err
}

// refused counts the events the worker refused for good as errors, and
// passes any other error on (it stops the import).
func (r *runner) refused(path string, line int, err error) error {
	var reasons []string
	var ref *RefusedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ref):
		reasons = ref.Reasons
	case errors.Is(err, hookwire.ErrPermanent):
		reasons = []string{err.Error()}
	default:
		return err
	}
	for _, why := range reasons {
		r.problem(Problem{path, line, "refused by the worker: " + why})
	}
	r.mu.Lock()
	r.stats.Errors += len(reasons)
	r.stats.Skipped -= len(reasons)
	r.mu.Unlock()
	return nil
}

func (r *runner) count(ev *Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := ev.Payload.SessionID
	proj, ok := r.sessions[id]
	if !ok {
		proj = r.opts.projectOf(ev.Payload.Cwd)
		r.sessions[id] = proj
		r.stats.Sessions++
		r.stats.SessionIDs = append(r.stats.SessionIDs, id)
	}
	pc := r.stats.Projects[proj]
	if pc == nil {
		pc = &Counts{}
		r.stats.Projects[proj] = pc
	}
	if !ok {
		pc.Sessions++
	}
	pc.add(ev)
	r.stats.add(ev)
}
