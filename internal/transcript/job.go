package transcript

import (
	"context"
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Job runs imports inside the worker, for the viewer: one at a time
// (Lock, shared with `mneme import`), in the background, telling Publish
// how it goes.
type Job struct {
	// DataDir holds the import lock.
	DataDir string
	// Dir is what is imported; DefaultDir when empty.
	Dir string
	// Sink stores the events (the worker's capture pipeline).
	Sink Sink
	// Known counts which of these Claude Code session ids are stored.
	Known func(ctx context.Context, ids []string) (int, error)
	// Stored counts the rows in memory, before and after an import, so
	// the state can tell new rows from those already there; nil: unknown.
	Stored func(ctx context.Context) (Counts, error)
	// Publish is told the state as it changes (at most ten times a
	// second); nil discards it.
	Publish func(State)
	// ProjectOf names a cwd's project as the worker does (its aliases).
	ProjectOf func(cwd string) string

	mu    sync.Mutex
	state State
	seq   int64 // the last State.Seq given out
	// scan is the last dry run, reused for scanFor (reading a gigabyte
	// of transcripts takes seconds) while the directory holds the same
	// files (scanned); an import finishing drops it.
	scan      *Stats
	scannedAt time.Time
	scanned   uint64
	cancel    context.CancelFunc // stops the running import
	done      chan struct{}      // closed when it has stopped
}

// scanFor is how long a dry run of the directory is reused.
const scanFor = time.Minute

// State is where the viewer's import is.
type State struct {
	Running  bool      `json:"running"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	Progress Progress  `json:"progress"`
	Stats    *Stats    `json:"stats,omitempty"` // once finished
	// New is what the finished import added to memory (sessions, prompts
	// and tool calls); the rest of Stats was there already.
	New   *Counts `json:"new,omitempty"`
	Known int     `json:"known,omitempty"` // sessions read that were in memory already
	Error string  `json:"error,omitempty"`
	// Seq orders states: each change has a larger one (across restarts
	// too, as it starts from the clock), so a page that holds a newer
	// state drops an older one that arrives late (a snapshot fetched
	// before the import finished, answered after its last event).
	Seq int64 `json:"seq"`
}

// Preview is a dry run of the Job's directory: what an import would read,
// per project, and how many of its sessions are stored already.
type Preview struct {
	Dir   string `json:"dir"`
	Stats Stats  `json:"stats"`
	Known int    `json:"known"` // sessions already in memory
	// Missing tells that Dir does not exist (Claude Code has not written
	// a transcript here yet): nothing to import, and nothing unreadable.
	Missing bool `json:"missing,omitempty"`
}

func (j *Job) dir() string {
	if j.Dir != "" {
		return j.Dir
	}
	return DefaultDir()
}

func (j *Job) options() Options {
	return Options{ProjectOf: j.ProjectOf, ActiveWithin: 10 * time.Minute, Workers: 32}
}

// Count is how many transcripts an import of the Job's directory would
// read, and their bytes: the files Find lists there (what Run reads),
// without opening one. It is cheap enough for every first page.
func (j *Job) Count() (dir string, files int, bytes int64) {
	dir = j.dir()
	for _, f := range Find([]string{dir}, func(Problem) {}) {
		files++
		bytes += f.size
	}
	return dir, files, bytes
}

// Scan is a dry run of the directory, with how many of its sessions are
// stored now. One made within scanFor is reused while the directory
// lists the same transcripts, so a file that appeared since is never
// missed; a file that grew is counted as it was for up to scanFor.
func (j *Job) Scan(ctx context.Context) (Preview, error) {
	p := Preview{Dir: j.dir()}
	if _, err := os.Stat(p.Dir); errors.Is(err, fs.ErrNotExist) {
		p.Missing = true
		return p, nil
	}
	files := listing(p.Dir)
	j.mu.Lock()
	cached := j.scan
	if time.Since(j.scannedAt) > scanFor || j.scanned != files {
		cached = nil
	}
	j.mu.Unlock()
	st := Stats{}
	if cached != nil {
		st = *cached
	} else {
		var err error
		if st, err = Run(ctx, []string{p.Dir}, j.options(), nil); err != nil {
			p.Stats = st
			return p, err
		}
		j.mu.Lock()
		j.scan, j.scannedAt, j.scanned = &st, time.Now(), files
		j.mu.Unlock()
	}
	p.Stats = st
	var err error
	if j.Known != nil && len(st.SessionIDs) > 0 {
		p.Known, err = j.Known(ctx, st.SessionIDs)
	}
	return p, err
}

// listing is a hash of the transcripts Find lists in dir, by path and
// whatever their order (Find's follows their times, which a growing
// transcript changes): it changes when one appears or goes.
func listing(dir string) uint64 {
	var sum uint64
	for _, f := range Find([]string{dir}, func(Problem) {}) {
		h := fnv.New64a()
		h.Write([]byte(f.path))
		sum += h.Sum64()
	}
	return sum
}

// State is the current or last import's state.
func (j *Job) State() State {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state
}

// Start begins an import of the directory in the background; ErrRunning
// while one runs (here or in `mneme import`).
func (j *Job) Start() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.state.Running {
		return ErrRunning
	}
	unlock, err := Lock(j.DataDir)
	if err != nil {
		return err
	}
	j.state = State{Running: true, Started: time.Now().UTC()}
	j.stamp()
	j.publish(j.state)
	opts := j.options()
	opts.Progress = func(p Progress) {
		j.mu.Lock()
		j.state.Progress = p
		j.stamp()
		st := j.state
		j.mu.Unlock()
		if !p.Done {
			j.publish(st)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	j.cancel, j.done = cancel, done
	release := sync.OnceFunc(unlock)
	go func() {
		defer close(done)
		defer release()
		// Counted outside ctx: Stop cancelling it mid-query must not
		// abort a count (the SQLite driver panics on a row cancelled
		// while it is read).
		before, berr := j.stored(context.Background())
		st, err := Run(ctx, []string{j.dir()}, opts, j.Sink)
		var added *Counts
		if after, aerr := j.stored(context.Background()); berr == nil && aerr == nil && j.Stored != nil {
			added = &Counts{Sessions: after.Sessions - before.Sessions, Prompts: after.Prompts - before.Prompts,
				Observations: after.Observations - before.Observations}
		}
		// The lock goes before the state says the import is over: whoever
		// hears that may start the next one at once.
		release()
		j.mu.Lock()
		j.state.Running, j.state.Finished, j.state.Stats = false, time.Now().UTC(), &st
		if added != nil {
			j.state.New, j.state.Known = added, max(st.Sessions-added.Sessions, 0)
		}
		j.scan = nil
		if err != nil {
			j.state.Error = err.Error()
		}
		j.stamp()
		final := j.state
		j.mu.Unlock()
		j.publish(final)
	}()
	return nil
}

// stamp gives j.state the next Seq; j.mu is held.
func (j *Job) stamp() {
	j.seq = max(j.seq+1, time.Now().UnixNano())
	j.state.Seq = j.seq
}

// stored is j.Stored's counts, zero when there is none.
func (j *Job) stored(ctx context.Context) (Counts, error) {
	if j.Stored == nil {
		return Counts{}, nil
	}
	return j.Stored(ctx)
}

func (j *Job) publish(s State) {
	if j.Publish != nil {
		j.Publish(s)
	}
}

// Stop cancels a running import and waits until it has stopped (what it
// stored stays; running it again goes on where it stopped).
func (j *Job) Stop() {
	j.mu.Lock()
	cancel, done := j.cancel, j.done
	j.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}
