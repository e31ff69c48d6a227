// Package api holds the JSON shapes of the worker's HTTP API, declared
// once: the handlers answer with them and the CLI decodes them. It imports
// models for the records themselves and nothing heavier.
package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// Page is one page of a listing; HasMore tells whether the next offset
// has more.
type Page[T any] struct {
	Items   []T  `json:"items"`
	HasMore bool `json:"hasMore"`
}

// Health is GET /api/health with credentials.
type Health struct {
	Service string `json:"service"`
	Status  string `json:"status"`
	Problem string `json:"problem,omitempty"`
	Version string `json:"version"`
	// Commit is the commit the worker was built from and CommitDate its
	// date (RFC 3339), when stamped or recorded (hookwire.Stamped).
	Commit        string        `json:"commit,omitempty"`
	CommitDate    string        `json:"commitDate,omitempty"`
	PID           int           `json:"pid"`
	UptimeSeconds float64       `json:"uptimeSeconds"`
	SchemaVersion int           `json:"schemaVersion"`
	Counts        models.Counts `json:"counts"`
	StreamClients int           `json:"streamClients"`
	// Goroutines is runtime.NumGoroutine(), for the soak tests' leak check.
	Goroutines int `json:"goroutines"`
	// Backend is the store's: "sqlite" (the data directory's mneme.db)
	// or "postgres" (team mode).
	Backend string `json:"backend"`
	// Database is, on PostgreSQL, the server and database the worker
	// stores in (host:port/name): never the user or password.
	Database string `json:"database,omitempty"`
	// Listener is, on PostgreSQL, what this replica's event listener did:
	// LISTEN connections made (more than one: it reconnected), events
	// published to the live stream, the last event id published.
	Listener *models.ListenerStats `json:"listener,omitempty"`
	// Indexer is, on SQLite, what the background search indexer failed
	// to do (its errors, the last one redacted): an index that cannot
	// catch up shows here before searches slow down.
	Indexer *models.IndexerStats `json:"indexer,omitempty"`
	// Quarantined counts the spooled events the worker refused for good,
	// set aside in the spools' rejected/ directories.
	Quarantined Quarantine `json:"quarantined"`
	// Embeddings is the embeddings' state (off unless configured).
	Embeddings EmbeddingsHealth `json:"embeddings"`
}

// Quarantine is what the spools set aside: events the worker refused for
// good (a 4xx, or a 5xx it marked permanent) and lines that could not be
// read, one file each in a spool's rejected/ directory, so that they
// never hold up the events behind them.
type Quarantine struct {
	Events int      `json:"events"`
	Dirs   []string `json:"dirs,omitempty"`
	// Message says it in a sentence (the viewer's banner, `mneme
	// status`); "" when nothing was set aside.
	Message string `json:"message,omitempty"`
}

// Add counts the events set aside in one more directory.
func (q *Quarantine) Add(events int, dir string) {
	if events == 0 {
		return
	}
	q.Events += events
	q.Dirs = append(q.Dirs, dir)
	noun := "events"
	if q.Events == 1 {
		noun = "event"
	}
	q.Message = fmt.Sprintf("%d spooled %s refused by the worker for good, set aside in %s (one file each, with the reason; the worker's log says more). Every other event was stored.",
		q.Events, noun, strings.Join(q.Dirs, " and "))
}

// PublicHealth is GET /api/health without credentials: that mneme is
// there and whether it is well, nothing about what it holds.
type PublicHealth struct {
	Service string `json:"service"`
	Status  string `json:"status"`
}

// SearchResult is one hit of GET /api/search, with its snippet split into
// plain and matched parts (no HTML travels in a snippet).
type SearchResult struct {
	models.SearchHit
	SnippetParts []models.SnippetPart `json:"snippetParts"`
}

// SearchResults is the answer of GET /api/search. Ranked is false when the
// query matched too many rows to rank and the hits are newest first.
type SearchResults struct {
	Page[SearchResult]
	Query  string `json:"query"`
	Ranked bool   `json:"ranked"`
	// Mode is how the search ran: text, semantic or hybrid ("text" for a
	// hybrid search whose endpoint did not answer in time).
	Mode string `json:"mode"`
	// WordsError, on a hybrid search, is why its words could not be read
	// as a query (`a "quoted phrase" is not closed`): the items are
	// matches by meaning alone. Empty when the words were read.
	WordsError string `json:"wordsError,omitempty"`
}

// MemoryResults answers GET /api/memories?q=: the memories matching, best
// first, with how the search ran, as SearchResults.
type MemoryResults struct {
	Page[models.Memory]
	Mode       string `json:"mode"`
	WordsError string `json:"wordsError,omitempty"`
}

// EmbeddingsHealth is the embeddings' state on /api/health.
type EmbeddingsHealth struct {
	// State is off, pending (not tried yet), ok or error.
	State string `json:"state"`
	Model string `json:"model,omitempty"`
	// Embedded of Total searchable rows have a vector of Model.
	Embedded int64 `json:"embedded"`
	Total    int64 `json:"total"`
	// LastError is the endpoint's last failure (slow, down, wrong
	// dimensions, garbage), "" once it answers again.
	LastError string `json:"lastError,omitempty"`
}

// LoginLink is POST /api/login-links: a one-time login for the viewer.
type LoginLink struct {
	Token string `json:"token"`
	Path  string `json:"path"` // /login?token=…, to append to the viewer's address
	// URL is the whole link, on the address the worker serves the viewer
	// at (absent when it does not know it).
	URL       string    `json:"url,omitempty"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// CreatedToken is POST /api/tokens: the new token's row and, this once,
// the token itself (only its hash is stored).
type CreatedToken struct {
	models.APIToken
	Token string `json:"token"`
}

// SessionDetail is GET /api/sessions/:id: a session with everything
// recorded in it.
type SessionDetail struct {
	Session      *models.Session      `json:"session"`
	Prompts      []models.Prompt      `json:"prompts"`
	Observations []models.Observation `json:"observations"`
	Summaries    []models.Summary     `json:"summaries"`
	// SummaryJobs are the summaries queued for the session, in order
	// (GET /api/sessions/:id only, not the session page). A client tells
	// from them when the session's summaries are settled: every job done
	// or failed. A done job need not have stored a summary: a session's
	// final summary that would only restate its one turn's is not stored
	// (models.Summary.Restates), so waiting for that summary waits for
	// nothing.
	SummaryJobs []SummaryJob `json:"summaryJobs,omitempty"`
}

// SummaryJob is one summary queued for a session: its kind (turn,
// intermediate, final), the turn it is for, where it stands (pending,
// running, done, failed) and the summary it stored (0: none yet, or none
// to store).
type SummaryJob struct {
	Kind         string `json:"kind"`
	PromptNumber int    `json:"promptNumber"`
	Status       string `json:"status"`
	Attempts     int    `json:"attempts"`
	SummaryID    int64  `json:"summaryId,omitempty"`
	LastError    string `json:"lastError,omitempty"`
}

// ImportStatus is GET /api/import: the viewer's import, and the store's
// counts as they are now (not /api/health's cached ones), which `mneme
// import` compares before and after.
type ImportStatus struct {
	State  any           `json:"state"` // transcript.State
	Counts models.Counts `json:"counts"`
}

// ImportEvent is one line of POST /api/import/events: a hook event that
// `mneme import` rebuilt from a transcript, its payload as a hook sends it.
type ImportEvent struct {
	Event   string          `json:"event"` // SessionStart, …
	Payload json.RawMessage `json:"payload"`
}

// ImportResult answers POST /api/import/events: how many events were
// stored, and why the others were refused.
type ImportResult struct {
	Stored  int      `json:"stored"`
	Refused []string `json:"refused,omitempty"`
}
