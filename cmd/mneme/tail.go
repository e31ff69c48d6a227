package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	r3sse "github.com/r3labs/sse/v2"
	"github.com/spf13/cobra"
	backoff "gopkg.in/cenkalti/backoff.v1"

	"github.com/mneme-dev/mneme/internal/transcript"
	"github.com/mneme-dev/mneme/models"
)

// tailCmd is `mneme tail`: the live stream in the terminal.
func tailCmd(g *globals, code *int) *cobra.Command {
	var project string
	var since int64
	var count int
	cmd := &cobra.Command{
		Use:   "tail",
		Short: "Follow prompts, tool calls, failures and summaries as they happen",
		Long: `Follow the worker's live stream (GET /stream), one line per event:
time, kind, project and what happened. Colours when stdout is a terminal.
It reconnects by itself when the worker restarts, and replays what it
missed meanwhile.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := g.signals()
			defer cancel()
			t := &tailer{out: cmd.OutOrStdout(), errOut: cmd.ErrOrStderr(), color: isTTY(cmd.OutOrStdout()), count: count}
			return t.follow(ctx, g.remote(), project, since)
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "only this project's events")
	cmd.Flags().Int64Var(&since, "since", 0, "first replay the events after this event id")
	cmd.Flags().IntVar(&count, "count", 0, "exit after this many events (0: follow until interrupted)")
	return cmd
}

// tailer prints stream events.
type tailer struct {
	out, errOut io.Writer
	color       bool
	count       int // events left to print before exiting; 0 = no limit
	seen        int
	cancel      context.CancelFunc
}

// follow subscribes to base/stream until ctx ends (or count events were
// printed), resubscribing whenever the stream ends. r3labs' client returns
// without retrying when the server closes the stream cleanly (a worker
// restart), so the loop here resubscribes; the client keeps the last id it
// saw and sends it as Last-Event-ID, so nothing is missed or repeated.
func (t *tailer) follow(ctx context.Context, r remote, project string, since int64) error {
	ctx, t.cancel = context.WithCancel(ctx)
	defer t.cancel()
	u := r.base + "/stream"
	if project != "" {
		u += "?project=" + url.QueryEscape(project)
	}
	client := r3sse.NewClient(u)
	client.Connection = r.client(0)
	if r.token != "" {
		client.Headers["Authorization"] = "Bearer " + r.token
	}
	if since > 0 {
		client.LastEventID.Store([]byte(strconv.FormatInt(since, 10)))
	}
	retry := backoff.NewExponentialBackOff()
	retry.InitialInterval, retry.MaxInterval, retry.MaxElapsedTime = 250*time.Millisecond, 5*time.Second, 0
	client.ReconnectStrategy = backoff.WithContext(retry, ctx)
	// down is shared by the reconnect loop and r3labs' reader goroutine.
	var down atomic.Bool
	client.ReconnectNotify = func(err error, wait time.Duration) {
		if !down.Swap(true) {
			fmt.Fprintf(t.errOut, "mneme tail: %v; retrying until it answers…\n", r.unreachable(err))
		}
	}
	client.OnConnect(func(*r3sse.Client) {
		if down.Swap(false) {
			fmt.Fprintln(t.errOut, "mneme tail: reconnected")
		}
	})
	fmt.Fprintln(t.errOut, t.following(r, project, since))
	for ctx.Err() == nil {
		err := client.SubscribeRawWithContext(ctx, t.print)
		if ctx.Err() != nil {
			break
		}
		if !down.Swap(true) {
			fmt.Fprintf(t.errOut, "mneme tail: stream ended (%s); reconnecting…\n", trimErr(err))
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	return nil
}

// following is the line tail prints first (on stderr, so stdout stays
// the events only): what it follows, from where, and how to stop.
func (t *tailer) following(r remote, project string, since int64) string {
	what := "every project"
	if project != "" {
		what = "project " + project
	}
	from := "from now on"
	if since > 0 {
		from = fmt.Sprintf("from event %d on", since)
	}
	stop := "Ctrl-C to stop"
	if t.count > 0 {
		stop = "stopping after " + plural(t.count, "event")
	}
	return fmt.Sprintf("mneme tail: following prompts, tool calls, failures and summaries of %s %s (worker %s); %s.", what, from, r.where, stop)
}

func trimErr(err error) string {
	if err == nil {
		return "closed"
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && strings.Contains(s, "dial tcp") {
		return s[i+2:]
	}
	return s
}

// tailEvent is the union of the stream's payloads, as far as tail shows them.
type tailEvent struct {
	Project   string    `json:"project"`
	CreatedAt time.Time `json:"createdAt"`
	// prompt
	Number int    `json:"number"`
	Text   string `json:"text"`
	// observation
	Title    string `json:"title"`
	ToolName string `json:"toolName"`
	Success  *bool  `json:"success"`
	// summary
	Kind      string `json:"kind"`
	Request   string `json:"request"`
	Completed string `json:"completed"`
	// session_started / session_completed
	Source string `json:"source"`
	Branch string `json:"branch"`
	Reason string `json:"reason"`
}

// ANSI colours.
const (
	ansiReset  = "\x1b[0m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
	ansiPurple = "\x1b[35m"
	ansiCyan   = "\x1b[36m"
)

// print writes one event as a line. Keepalive comments reach here as
// events with no data once an id was seen (an r3labs quirk): skipped.
func (t *tailer) print(msg *r3sse.Event) {
	if len(msg.Data) == 0 || len(msg.Event) == 0 {
		return
	}
	kind := string(msg.Event)
	var ev tailEvent
	if err := json.Unmarshal(msg.Data, &ev); err != nil {
		return
	}
	at := ev.CreatedAt
	if at.IsZero() {
		at = time.Now()
	}
	colour, what := ansiBlue, ""
	switch kind {
	case "session_started":
		what = "session started"
		if ev.Source != "" {
			what += " (" + ev.Source + ")"
		}
		if ev.Branch != "" {
			what += " on " + ev.Branch
		}
	case "prompt":
		colour, what = ansiCyan, fmt.Sprintf("#%d %s", ev.Number, ev.Text)
	case "observation":
		colour, what = ansiGreen, "✓ "+ev.Title
		if ev.Success != nil && !*ev.Success {
			colour, what = ansiRed, "✗ "+ev.Title
		}
	case "summary":
		colour, what = ansiPurple, ev.Kind+" summary"
		if s := firstNonEmpty(ev.Completed, ev.Request); s != "" {
			what += ": " + s
		}
	case "session_completed":
		what = "session completed"
		if ev.Reason != "" {
			what += " (" + ev.Reason + ")"
		}
	case "settings_changed":
		colour, what = ansiYellow, "settings changed"
	case models.EventForgotten:
		var f models.Forgotten
		json.Unmarshal(msg.Data, &f)
		colour, what = ansiYellow, fmt.Sprintf("forgot a %s: %s, %s, %s, %s",
			f.Target, plural(len(f.Sessions), "session"), plural(len(f.Prompts), "prompt"), plural(len(f.Observations), "observation"), plural(len(f.Summaries), "summary"))
	case models.EventImportProgress:
		// Ten a second while the viewer's import runs: only its end.
		var st struct {
			Running bool               `json:"running"`
			Stats   *transcript.Counts `json:"stats"`
		}
		if json.Unmarshal(msg.Data, &st) != nil || st.Running || st.Stats == nil {
			return
		}
		colour, what = ansiYellow, fmt.Sprintf("import finished: %s, %s, %s", plural(st.Stats.Sessions, "session"), plural(st.Stats.Prompts, "prompt"), plural(st.Stats.Observations, "tool call"))
	default:
		what = string(msg.Data)
	}
	line := fmt.Sprintf("%s  %-17s %-16s %s", at.Local().Format("15:04:05"), kind, clip(terminalSafe(ev.Project), 16), clip(terminalSafe(what), 160))
	if t.color {
		line = fmt.Sprintf("%s%s%s  %s%-17s%s %-16s %s", ansiDim, at.Local().Format("15:04:05"), ansiReset,
			colour, kind, ansiReset, clip(terminalSafe(ev.Project), 16), clip(terminalSafe(what), 160))
	}
	fmt.Fprintln(t.out, line)
	t.seen++
	if t.count > 0 && t.seen >= t.count {
		t.cancel()
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// terminalSafe flattens s to one line and drops control characters, so
// stored content (tool output, prompts) cannot move the cursor, change
// colours or set the terminal title.
func terminalSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			return -1
		}
		return r
	}, s)
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
