package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/models"
)

// statusReport is what `mneme status` finds, and its --json.
type statusReport struct {
	DataDir string `json:"dataDir"`
	Spool   struct {
		// Waiting counts the events spooled while the worker could not
		// take them, which the next hook (or the worker) replays.
		Waiting int `json:"waiting"`
		// SetAside counts those the worker refused for good, kept in
		// SetAsideIn (one file each, with the reason).
		SetAside   int      `json:"setAside"`
		SetAsideIn []string `json:"setAsideIn,omitempty"`
		Message    string   `json:"message,omitempty"`
	} `json:"spool"`
	Worker struct {
		// State is running, down, not mneme (something else answers),
		// or token refused.
		State  string      `json:"state"`
		Where  string      `json:"where"`
		Health *api.Health `json:"health,omitempty"`
	} `json:"worker"`
	Viewer string `json:"viewer,omitempty"`
	// login tells that the viewer wants `mneme open` to log in (this
	// machine's worker; a teammate's token logs in by itself).
	login bool
}

func statusCmd(g *globals, code *int) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether the worker runs, what it holds, and how many events wait in the spool",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep, err := g.status()
			if err != nil {
				return err
			}
			if rep.Worker.State != "running" {
				*code = exitWorker
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			printStatus(out, rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print it as JSON (the spool's counts, the worker's state and its /api/health)")
	return cmd
}

// status finds what `mneme status` says: the spool's counts, and the
// worker's health.
func (g *globals) status() (statusReport, error) {
	var rep statusReport
	rep.DataDir = g.dataDir
	waiting, q := g.spoolState()
	rep.Spool.Waiting, rep.Spool.SetAside, rep.Spool.SetAsideIn, rep.Spool.Message = waiting, q.Events, q.Dirs, q.Message
	r := g.remote()
	rep.Worker.Where = r.where
	req, err := http.NewRequest(http.MethodGet, r.base+"/api/health", nil)
	if err != nil {
		return rep, err
	}
	r.authorize(req)
	resp, err := r.client(2 * time.Second).Do(req)
	if err != nil {
		rep.Worker.State = "down"
		return rep, nil
	}
	defer resp.Body.Close()
	var h api.Health
	switch {
	case json.NewDecoder(resp.Body).Decode(&h) != nil || h.Service != "mneme":
		rep.Worker.State = "not mneme"
	case h.PID == 0:
		// The health a stranger gets: the secret was not taken.
		rep.Worker.State, rep.Worker.Health = "token refused", &h
	default:
		rep.Worker.State, rep.Worker.Health = "running", &h
		rep.Viewer = r.base
		if r.token == "" {
			rep.Viewer, rep.login = g.viewerURL(), true
		}
	}
	return rep, nil
}

// printStatus writes rep for a person, one thing a line.
func printStatus(out io.Writer, rep statusReport) {
	fmt.Fprintf(out, "data directory: %s\n", rep.DataDir)
	if rep.Spool.Waiting > 0 {
		fmt.Fprintf(out, "spool:          %s waiting to be replayed\n", plural(rep.Spool.Waiting, "event"))
	} else {
		fmt.Fprintln(out, "spool:          empty")
	}
	if rep.Spool.SetAside > 0 {
		fmt.Fprintf(out, "set aside:      %s\n", rep.Spool.Message)
	}
	h := rep.Worker.Health
	switch rep.Worker.State {
	case "down":
		fmt.Fprintf(out, "worker:         not running %s (it starts by itself on the next hook, or run `mneme serve`)\n", rep.Worker.Where)
		return
	case "not mneme":
		fmt.Fprintf(out, "worker:         something answers %s, but not as mneme\n", rep.Worker.Where)
		return
	case "token refused":
		fmt.Fprintf(out, "worker:         %s %s, but refuses MNEME_TOKEN (the secret file in its data directory)\n", h.Status, rep.Worker.Where)
		return
	}
	fmt.Fprintf(out, "worker:         %s, version %s%s, pid %d, up %s\n", h.Status, h.Version, commitNote(h.Commit), h.PID, time.Duration(h.UptimeSeconds*float64(time.Second)).Round(time.Second))
	if h.Problem != "" {
		fmt.Fprintf(out, "problem:        %s\n", h.Problem)
	}
	fmt.Fprintf(out, "stored:         %s, %s, %s, %s\n", plural(h.Counts.Sessions, "session"), plural(h.Counts.Prompts, "prompt"), plural(h.Counts.Observations, "observation"), plural(h.Counts.Summaries, "summary"))
	if l := h.Listener; l != nil {
		fmt.Fprintf(out, "listener:       %s, %s published%s\n", plural(int(l.Connects), "connection"), plural(int(l.Published), "event"), errorsLine(l.BackgroundErrors))
	}
	if ix := h.Indexer; ix != nil && ix.Errors > 0 {
		fmt.Fprintf(out, "search index:   %s\n", strings.TrimPrefix(errorsLine(ix.BackgroundErrors), ", "))
	}
	fmt.Fprintf(out, "semantic:       %s\n", embeddingsLine(h.Embeddings))
	if rep.login {
		fmt.Fprintf(out, "viewer:         %s (run `mneme open` to log in)\n", rep.Viewer)
	} else {
		fmt.Fprintf(out, "viewer:         %s\n", rep.Viewer)
	}
}

// spoolState counts the events waiting in the hook's spools (the data
// directory's and the fallback) and what they set aside: those of this
// machine's worker, or with MNEME_URL set, those of the remote one. A
// spool that cannot be read counts as empty.
func (g *globals) spoolState() (waiting int, q api.Quarantine) {
	spool := hookwire.Spool{Dir: filepath.Join(g.dataDir, "spool")}
	fallback := hookwire.Spool{Dir: hookwire.FallbackSpoolDir(g.dataDir)}
	if os.Getenv(EnvURL) != "" {
		// The hook's events for a remote worker wait apart.
		spool.Dir = filepath.Join(g.dataDir, hookwire.RemoteSpoolDir)
		fallback.Dir += "-remote"
	}
	q.Add(spool.Rejected())
	q.Add(fallback.Rejected())
	for _, s := range []hookwire.Spool{spool, fallback} {
		n, _ := s.Waiting()
		waiting += n
	}
	return waiting, q
}

// errorsLine says what a background loop of the worker failed to do, as
// ", N errors, the last at T: text", or "" when nothing failed.
func errorsLine(e models.BackgroundErrors) string {
	if e.Errors == 0 {
		return ""
	}
	return fmt.Sprintf(", %d errors, the last at %s: %s", e.Errors, stamp(e.LastErrorAt), e.LastError)
}

// embeddingsLine says the embeddings' state: off, or the model, the
// backfill's progress and the endpoint's last error.
func embeddingsLine(e api.EmbeddingsHealth) string {
	if e.State == "" || e.State == "off" {
		return "off (set an embeddings endpoint in the settings to search by meaning)"
	}
	s := fmt.Sprintf("%s, model %s, %d of %d rows embedded", e.State, e.Model, e.Embedded, e.Total)
	if e.LastError != "" {
		s += ", endpoint error: " + e.LastError
	}
	return s
}
