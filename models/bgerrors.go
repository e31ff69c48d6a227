package models

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The store's background loops (the search indexer on SQLite, the event
// listener on PostgreSQL) have no caller to return an error to: each
// counts its errors and keeps the last, which /api/health, `mneme status`
// and the worker's log show (see IndexerStats and ListenerStats).

// errorCount counts the errors of one background loop and keeps the last.
type errorCount struct {
	n    atomic.Int64
	mu   sync.Mutex
	last string
	at   time.Time
}

// add counts err (nil is not counted); its text is kept with the
// PostgreSQL URL's password, if it names it, masked.
func (e *errorCount) add(err error, url string) {
	if err == nil {
		return
	}
	msg := err.Error()
	if url != "" {
		msg = strings.ReplaceAll(msg, url, RedactURL(url))
	}
	e.mu.Lock()
	e.last, e.at = msg, time.Now().UTC()
	e.mu.Unlock()
	e.n.Add(1)
}

// BackgroundErrors is what a background loop of the store failed to do:
// how many times, and the last error (its text as the database said it;
// show it through the privacy pipeline, as the worker does).
type BackgroundErrors struct {
	// Errors counts the failures since the store was opened.
	Errors int64 `json:"errors"`
	// LastError is the text of the last one, LastErrorAt when it was.
	LastError   string    `json:"lastError,omitempty"`
	LastErrorAt time.Time `json:"lastErrorAt,omitzero"`
}

func (e *errorCount) stats() BackgroundErrors {
	e.mu.Lock()
	defer e.mu.Unlock()
	return BackgroundErrors{Errors: e.n.Load(), LastError: e.last, LastErrorAt: e.at}
}

// IndexerStats describe a SQLite store's background search indexer.
type IndexerStats struct {
	BackgroundErrors
}

// IndexerStats reports the errors of the background search indexer (none
// on PostgreSQL, which has none). A failed round is tried again at the
// next tick, and every search flushes the index first: errors here mean
// the index lags, and searches pay for it.
func (s *Store) IndexerStats() IndexerStats {
	return IndexerStats{BackgroundErrors: s.idxErrs.stats()}
}
