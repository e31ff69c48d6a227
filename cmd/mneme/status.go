package main

import (
	"encoding/json"
	"fmt"
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

func statusCmd(g *globals, code *int) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show whether the worker runs, what it holds, and what waits in the spool",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "data directory: %s\n", g.dataDir)
			pending, q := g.spoolState()
			if pending {
				fmt.Fprintln(out, "spool:          events are waiting to be replayed")
			} else {
				fmt.Fprintln(out, "spool:          empty")
			}
			if q.Events > 0 {
				fmt.Fprintf(out, "set aside:      %s\n", q.Message)
			}
			r := g.remote()
			req, err := http.NewRequest(http.MethodGet, r.base+"/api/health", nil)
			if err != nil {
				return err
			}
			r.authorize(req)
			resp, err := r.client(2 * time.Second).Do(req)
			if err != nil {
				fmt.Fprintf(out, "worker:         not running %s (it starts by itself on the next hook, or run `mneme serve`)\n", r.where)
				*code = exitWorker
				return nil
			}
			defer resp.Body.Close()
			var h api.Health
			if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || h.Service != "mneme" {
				fmt.Fprintf(out, "worker:         something answers %s, but not as mneme\n", r.where)
				*code = exitWorker
				return nil
			}
			if h.PID == 0 {
				// The health a stranger gets: the secret was not taken.
				fmt.Fprintf(out, "worker:         %s %s, but refuses MNEME_TOKEN (the secret file in its data directory)\n", h.Status, r.where)
				*code = exitWorker
				return nil
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
			if r.token == "" {
				fmt.Fprintf(out, "viewer:         %s (run `mneme open` to log in)\n", g.viewerURL())
			} else {
				fmt.Fprintf(out, "viewer:         %s\n", r.base)
			}
			return nil
		},
	}
}

// spoolState says whether events wait in the hook's spools (the data
// directory's and the fallback) and what they set aside: those of this
// machine's worker, or with MNEME_URL set, those of the remote one.
func (g *globals) spoolState() (pending bool, q api.Quarantine) {
	spool := hookwire.Spool{Dir: filepath.Join(g.dataDir, "spool")}
	fallback := hookwire.Spool{Dir: hookwire.FallbackSpoolDir(g.dataDir)}
	if os.Getenv(EnvURL) != "" {
		// The hook's events for a remote worker wait apart.
		spool.Dir = filepath.Join(g.dataDir, hookwire.RemoteSpoolDir)
		fallback.Dir += "-remote"
	}
	q.Add(spool.Rejected())
	q.Add(fallback.Rejected())
	return spool.Pending() || fallback.Pending(), q
}

// errorsLine says what a background loop of the worker failed to do, as
// ", N errors, the last at T: text", or "" when nothing failed.
func errorsLine(e models.BackgroundErrors) string {
	if e.Errors == 0 {
		return ""
	}
	return fmt.Sprintf(", %d errors, the last at %s: %s", e.Errors, e.LastErrorAt.Local().Format(time.DateTime), e.LastError)
}

// embeddingsLine says semantic recall's state: off, or the model, the
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
