// Package retention maintains stored data after the fact: the background
// job that deletes observations older than the retention setting, and the
// re-application of the current redaction rules to what is already stored.
// Forgetting, the user's own deletions, is internal/forget's.
// Every write goes through the store's writer, in batches, so ingest keeps
// flowing while either runs; the FTS5 triggers keep the search index in
// step.
package retention

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// Batch is how many rows one write transaction deletes or rewrites.
const Batch = 1000

// Cutoff is the creation time before which observations are deleted with
// a retention of days (0 keeps everything: zero time).
func Cutoff(days int, now time.Time) time.Time {
	if days <= 0 {
		return time.Time{}
	}
	return now.UTC().Add(-time.Duration(days) * 24 * time.Hour)
}

// CountOlder counts the observations a retention of days would delete now:
// what the settings page shows before saving.
func CountOlder(ctx context.Context, store *models.Store, days int, now time.Time) (int64, error) {
	cut := Cutoff(days, now)
	if cut.IsZero() {
		return 0, nil
	}
	return store.CountObservationsBefore(ctx, cut)
}

// Apply deletes the observations older than days (and their events on the
// live stream's log), Batch rows per transaction, as a forget does (each
// batch is announced as a forgotten event), then scrubs the files once
// when it deleted any (models.Store.Scrub, without the rebuild: the
// deleted observations were written once and their bytes zeroed). It
// returns how many observations it deleted.
func Apply(ctx context.Context, store *models.Store, days int, now time.Time) (int64, error) {
	n, err := deleteOlder(ctx, store, days, now)
	if err != nil || n == 0 {
		return n, err
	}
	_, err = store.Scrub(context.WithoutCancel(ctx), false)
	return n, err
}

// deleteOlder is Apply without the scrub.
func deleteOlder(ctx context.Context, store *models.Store, days int, now time.Time) (int64, error) {
	cut := Cutoff(days, now)
	if cut.IsZero() {
		return 0, nil
	}
	var total int64
	for {
		var n int64
		err := store.Writer.Do(ctx, func(tx *models.Tx) error {
			var err error
			n, err = tx.DeleteObservationsBefore(cut, Batch)
			return err
		})
		total += n
		if err != nil || n < Batch {
			return total, err
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}

// ScrubEvery is how often at most the background job scrubs the files
// after deleting: a scrub merges the whole search index inside the writer
// (about a minute at 1M observations, while hooks wait or spool), so the
// hourly deletions are scrubbed from the files within a day. A run asked
// for with Kick (a new retention setting) scrubs at once.
const ScrubEvery = 24 * time.Hour

// Job runs Apply in the background: shortly after it starts, every
// Interval, and whenever Kick is called (after the settings change).
type Job struct {
	Store    *models.Store
	Settings func() models.Settings
	Interval time.Duration
	Log      *slog.Logger

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// Start starts the job; stop it with Stop before closing the store.
func Start(store *models.Store, settings func() models.Settings, log *slog.Logger) *Job {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	j := &Job{Store: store, Settings: settings, Interval: time.Hour, Log: log,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go j.loop()
	return j
}

// Kick asks for a run now (it does not wait for it).
func (j *Job) Kick() {
	select {
	case j.kick <- struct{}{}:
	default:
	}
}

// Stop ends the job, waiting for a run in progress to finish its batch.
func (j *Job) Stop() {
	j.once.Do(func() { close(j.stop) })
	<-j.done
}

func (j *Job) loop() {
	defer close(j.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-j.stop; cancel() }()
	first := time.NewTimer(time.Minute)
	defer first.Stop()
	tick := time.NewTicker(j.Interval)
	defer tick.Stop()
	var unscrubbed int64 // observations deleted since the last scrub
	var scrubbed time.Time
	for {
		kicked := false
		select {
		case <-j.stop:
			return
		case <-first.C:
		case <-tick.C:
		case <-j.kick:
			kicked = true
		}
		days := j.Settings().Retention.ObservationDays
		n, err := deleteOlder(ctx, j.Store, days, time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			j.Log.Warn("retention", "days", days, "err", err)
		case n > 0:
			j.Log.Info("retention deleted old observations", "days", days, "deleted", n)
		}
		unscrubbed += n
		if unscrubbed > 0 && (kicked || time.Since(scrubbed) >= ScrubEvery) {
			if _, err := j.Store.Scrub(context.WithoutCancel(ctx), false); err != nil {
				j.Log.Warn("retention scrub", "err", err)
			} else {
				unscrubbed, scrubbed = 0, time.Now()
			}
		}
	}
}
