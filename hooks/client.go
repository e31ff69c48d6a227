// Package hooks is what runs inside Claude Code's hooks: everything the
// short-lived hook process needs, and nothing it does not. It holds the
// privacy pipeline at the edge (tags and redaction, by the rules the
// worker hands over in <data>/redaction.json, before anything is sent or
// spooled) and the thin client with its time budgets, the file gate's
// budget and worker auto-start. hooks.json beside it is the plugin's hook
// configuration.
//
// What the worker shares with it (event names, the neutral answer, the
// spool, the secret and socket paths, project identity) is
// internal/hookwire, so no worker package imports hooks. It imports only
// the standard library, internal/privacy and internal/hookwire, which do
// too. The mneme-hook binary is built on it alone, so Claude Code's
// per-event process does not load the database, the web server or the
// templates (their package init and page faults cost about 5 ms a call).
// The worker's side of the contract (payload decoding, policy, description
// and compression) is internal/shape.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// A payload of up to streamAbove bytes is read whole. A longer one is read
// as it comes (privacy.ReadPayload), in bounded memory: each long string
// is kept as its two ends, cleaned, with the cut marked, and the event is
// stored. MaxStdin bounds what `mneme hook` reads from Claude Code at all.
const (
	streamAbove = 4 << 20
	MaxStdin    = 1 << 30
)

// sendLimit keeps a payload under the worker's 2 MiB body cap.
const sendLimit = 1800 << 10

// Client is the thin client behind `mneme hook`: it strips private tags and
// redacts secrets at the edge, posts the event to the worker, starts the
// worker when it is not running, and spools the event when the worker
// cannot be reached in time.
type Client struct {
	// DataDir is the worker's data directory: the client reaches the
	// worker only over its unix socket (DialSocket), never TCP, so
	// whatever else listens on the worker's port never sees an event.
	// Over the socket the worker knows its owner by the connection, and
	// no secret is sent.
	DataDir string
	Spool   hookwire.Spool
	// Fallback is spooled to when Spool cannot be written (disk full,
	// read-only data directory); an empty Dir disables it.
	Fallback hookwire.Spool
	// StartWorker launches `mneme serve` detached; nil disables auto-start.
	StartWorker func() error
	// Debug receives diagnostics (MNEME_DEBUG); nil discards them.
	Debug io.Writer

	// Redactor cleans every event before it is sent or spooled
	// (LoadRedactor); nil applies the built-in rules.
	Redactor *privacy.Redactor

	// URL, when set (MNEME_URL), is a remote worker, a team's: events go
	// there over TCP instead of the socket, with Token (MNEME_TOKEN, a
	// person's API token) as the bearer. They are redacted here first,
	// with this machine's rules, like every event: nothing unredacted
	// leaves the machine.
	URL   string
	Token string
	// Send sends to the worker. Nil means the local worker's socket
	// (SocketSender); with URL set it must be a sender for that URL
	// (hookhttp.Sender), or every event is spooled for a later hook that
	// has one.
	Send Sender

	contacted      bool // the worker answered during this run
	fallbackWarned bool // the refusal of the fallback spool was reported
}

// Budget is how long one event may keep Claude Code waiting.
type Budget struct {
	Request time.Duration // one attempt to post the event
	Start   time.Duration // waiting for an auto-started worker to be healthy
}

// BudgetFor returns the time budget of an event. Tool and Stop events are on
// Claude Code's hot path; SessionEnd gets about 1.5 s from Claude Code;
// SessionStart carries the context and may wait a little longer.
func BudgetFor(event string) Budget {
	switch event {
	case hookwire.SessionStart:
		return Budget{Request: 3 * time.Second, Start: 3 * time.Second}
	case hookwire.UserPromptSubmit:
		return Budget{Request: 1500 * time.Millisecond, Start: 1500 * time.Millisecond}
	case hookwire.SessionEnd:
		return Budget{Request: 600 * time.Millisecond, Start: 500 * time.Millisecond}
	}
	return Budget{Request: 400 * time.Millisecond, Start: 250 * time.Millisecond}
}

func (c *Client) debugf(format string, args ...any) {
	if c.Debug != nil {
		fmt.Fprintf(c.Debug, "mneme hook: "+format+"\n", args...)
	}
}

// Run handles one hook invocation. It always writes valid JSON to stdout:
// the worker's answer, or the neutral Continue answer. It never returns an
// error that should block Claude Code.
func (c *Client) Run(slug string, stdin io.Reader, stdout io.Writer) {
	out := c.run(slug, stdin)
	if !json.Valid(out) {
		out = []byte(hookwire.ContinueJSON)
	}
	stdout.Write(out)
	stdout.Write([]byte("\n"))
}

func (c *Client) run(slug string, stdin io.Reader) []byte {
	event, ok := hookwire.EventName(slug)
	if !ok {
		c.debugf("unknown event %q", slug)
		return []byte(hookwire.ContinueJSON)
	}
	raw, err := c.readPayload(stdin)
	if err != nil || len(bytes.TrimSpace(raw)) == 0 {
		c.debugf("no payload on stdin: %v", err)
		return []byte(hookwire.ContinueJSON)
	}
	if event == hookwire.PreToolUse {
		return c.gate(hookwire.EventSlug(hookwire.PreToolUse), raw)
	}
	if c.URL != "" {
		raw = hookwire.AddRemoteFacts(event, raw) // a team worker opens no path of this machine
	}
	body := Shrink(c.redact(raw), sendLimit)
	budget := BudgetFor(event)

	// Events spooled earlier go first, so the worker sees them in order.
	if c.pending() {
		if err := c.flush(budget.Request); err != nil {
			c.debugf("spool not flushed (%v); spooling this event too", err)
			if errors.Is(err, errFlushBudget) || errors.Is(err, errSpoolBusy) {
				// The worker is there but older events are still queued:
				// this one goes behind them, and Claude Code goes on.
				c.spool(slug, body)
				return []byte(hookwire.ContinueJSON)
			}
			if c.pending() {
				// Only when nothing listens: a worker that answered (503
				// while its database is read-only) or timed out is there,
				// and starting another would only cost time.
				if isConnRefused(err) && c.tryStart(budget) == nil && c.flush(budget.Request) == nil {
					return c.sendOrSpool(slug, body, budget, false)
				}
				c.spool(slug, body)
				return []byte(hookwire.ContinueJSON)
			}
		}
	}
	return c.sendOrSpool(slug, body, budget, true)
}

// readPayload reads Claude Code's payload: whole up to streamAbove bytes,
// else as it comes, its long strings cut (see streamAbove). A long payload
// that is not one JSON document is cut at streamAbove bytes and cleaned as
// text, as any malformed payload is.
func (c *Client) readPayload(stdin io.Reader) ([]byte, error) {
	head, err := io.ReadAll(io.LimitReader(stdin, streamAbove+1))
	if err != nil || len(head) <= streamAbove {
		return head, err
	}
	out, err := c.redactor().ReadPayload(io.MultiReader(bytes.NewReader(head), io.LimitReader(stdin, MaxStdin-int64(len(head)))))
	if err != nil {
		c.debugf("a payload of over %d bytes is not one JSON document: %v", streamAbove, err)
		return head[:streamAbove], nil
	}
	return out, nil
}

func (c *Client) sendOrSpool(slug string, body []byte, budget Budget, mayStart bool) []byte {
	resp, err := c.post(slug, body, budget.Request)
	if err == nil {
		return resp
	}
	if errors.Is(err, hookwire.ErrPermanent) {
		c.debugf("worker refused the event: %v", err)
		return []byte(hookwire.ContinueJSON)
	}
	c.debugf("worker not reachable: %v", err)
	if mayStart && isConnRefused(err) && c.tryStart(budget) == nil {
		resp, err := c.post(slug, body, budget.Request)
		if err == nil {
			return resp
		}
		c.debugf("the started worker did not take the event: %v", err)
	}
	c.spool(slug, body)
	return []byte(hookwire.ContinueJSON)
}

func (c *Client) pending() bool { return c.Spool.Pending() || c.fallbackPending() }

// fallbackPending reports whether events wait in a fallback spool this
// hook may replay (see fallbackTrusted).
func (c *Client) fallbackPending() bool {
	return c.fallbackTrusted() && c.Fallback.Pending()
}

// fallbackTrusted reports whether the fallback spool directory exists and
// is this user's private directory (CheckPrivateDir). One that is not is
// neither replayed nor written: someone else may have made it.
func (c *Client) fallbackTrusted() bool {
	if c.Fallback.Dir == "" {
		return false
	}
	err := hookwire.CheckPrivateDir(c.Fallback.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.refuseFallback(err)
	}
	return err == nil
}

func (c *Client) refuseFallback(err error) {
	if !c.fallbackWarned {
		c.fallbackWarned = true
		c.debugf("fallback spool refused, neither written nor replayed: %v", err)
	}
}

func (c *Client) spool(slug string, body []byte) {
	// While something waits in the fallback, new events go there too, so
	// that replay order stays event order.
	if c.Fallback.Dir == "" || !c.fallbackPending() {
		err := c.Spool.Append(slug, body)
		if err == nil {
			return
		}
		if c.Fallback.Dir == "" {
			c.debugf("spool failed, event lost: %v", err)
			return
		}
		c.debugf("spool failed (%v); spooling to %s instead", err, c.Fallback.Dir)
	}
	if err := hookwire.MakePrivateDir(c.Fallback.Dir); err != nil {
		c.refuseFallback(err)
		c.debugf("event lost: no spool can take it")
		return
	}
	if err := c.Fallback.Append(slug, body); err != nil {
		c.debugf("fallback spool failed, event lost: %v", err)
	}
}

// tryStart launches the worker and waits for it to answer /api/health.
// After an attempt that failed it does not try again for StartBackoff (see
// startBackedOff): when no worker can run (a read-only data directory, a
// mneme serve that exits at once), every event would otherwise wait out
// its whole start budget before it is spooled.
func (c *Client) tryStart(b Budget) error {
	if c.StartWorker == nil {
		return errors.New("auto-start disabled")
	}
	if ago, ok := c.startBackedOff(); ok {
		c.debugf("auto-start skipped: it failed %s ago (next try %s after that)", ago.Round(time.Millisecond), StartBackoff)
		return errStartBackedOff
	}
	err := c.start(b)
	if err != nil {
		c.markStartFailed()
	}
	return err
}

func (c *Client) start(b Budget) error {
	c.debugf("no worker is running: starting one")
	if err := c.StartWorker(); err != nil {
		c.debugf("start worker: %v", err)
		return err
	}
	deadline := time.Now().Add(b.Start)
	for time.Now().Before(deadline) {
		if c.Healthy(100 * time.Millisecond) {
			return nil
		}
		time.Sleep(15 * time.Millisecond)
	}
	c.debugf("worker did not become healthy within %s", b.Start)
	return errors.New("worker did not become healthy in time")
}

// Healthy reports whether the worker answers /api/health within timeout.
func (c *Client) Healthy(timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ans, err := c.sender()(ctx, "GET", "/api/health", nil)
	if err != nil {
		return false
	}
	c.noteContact()
	return ans.Status == 200
}

// flush replays the spool to the worker.
// Older events are still spooled after a flush: the current event must be
// spooled behind them rather than sent ahead.
var (
	errFlushBudget = errors.New("replay time budget used up; the rest stays spooled")
	errSpoolBusy   = errors.New("another process is replaying the spool")
)

// flush replays the spool to the worker, starting new sends only within
// timeout: a long backlog is left to later hooks and to the worker's own
// replay instead of keeping Claude Code waiting (300 spooled events took a
// second, 2,000 several).
func (c *Client) flush(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	send := func(event string, body []byte) error {
		if time.Now().After(deadline) {
			return errFlushBudget
		}
		_, err := c.post(event, body, timeout)
		return err
	}
	// The data directory's spool holds the older events; the fallback
	// only fills while that one cannot be written, and is replayed only
	// while it is this user's private directory.
	for i, sp := range []hookwire.Spool{c.Spool, c.Fallback} {
		if sp.Dir == "" || !sp.Pending() || i == 1 && !c.fallbackTrusted() {
			continue
		}
		sp.OnReject = func(reason string) { c.debugf("spooled event quarantined: %s", reason) }
		res, err := sp.Replay(send)
		if res.Sent > 0 || res.Corrupt > 0 {
			c.debugf("spool %s replayed: %d sent, %d set aside", sp.Dir, res.Sent, res.Corrupt)
		}
		if err == nil && res.Busy {
			err = errSpoolBusy
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// post sends one event and returns the worker's answer. An answer that
// refuses the event for good (hookwire.PermanentStatus: a 4xx, or a 5xx the
// worker marks) is a permanent error: retrying cannot help.
func (c *Client) post(slug string, body []byte, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ans, err := c.sender()(ctx, "POST", "/api/hooks/"+slug, body)
	if err != nil {
		return nil, err
	}
	c.noteContact()
	if ans.Status == 200 {
		return ans.Body, nil
	}
	err = fmt.Errorf("worker answered %d: %s", ans.Status, bytes.TrimSpace(ans.Body))
	if hookwire.PermanentStatus(ans.Status, ans.Permanent) {
		err = hookwire.Permanent(err)
	}
	return nil, err
}

// errNoRemoteSender is why an event for a team's worker is spooled by a
// client built without a sender for it (see Client.Send).
var errNoRemoteSender = errors.New("this hook command cannot reach a remote worker (MNEME_URL): spooled for `mneme hook`")

// sender is Send, or the local worker's socket.
func (c *Client) sender() Sender {
	if c.Send == nil {
		if c.URL != "" {
			return func(context.Context, string, string, []byte) (Answer, error) { return Answer{}, errNoRemoteSender }
		}
		c.Send = SocketSender(c.DataDir)
	}
	return c.Send
}

// isConnRefused is true when nothing listens on the socket: there is no
// socket file (ENOENT), or one left behind by a worker that ended
// (ECONNREFUSED). The worker is not running, so starting it can help. A
// timeout means a busy worker, and starting another would only cost time.
func isConnRefused(err error) bool {
	return hookwire.NoListener(err)
}

// Shrink keeps a payload under limit bytes by windowing its longest strings
// (head and tail kept, the middle replaced by an omission marker). The
// worker compresses far below this anyway; this only keeps huge tool
// responses (a 50 MB build log) from being refused as too large.
func Shrink(body []byte, limit int) []byte {
	if len(body) <= limit {
		return body
	}
	for _, keep := range []int{64 << 10, 16 << 10, 2 << 10} {
		body = mapJSONStrings(body, func(s string) string {
			if len(s) <= 2*keep {
				return s
			}
			head, tail := s[:RuneStart(s, keep)], s[RuneStart(s, len(s)-keep):]
			return head + fmt.Sprintf("\n… %d bytes omitted by mneme …\n", len(s)-len(head)-len(tail)) + tail
		})
		if len(body) <= limit {
			return body
		}
	}
	return body
}
