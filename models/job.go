package models

import (
	"context"
	"time"
)

// Summary job statuses.
const (
	JobPending = "pending"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// SummaryJob is a persisted request for a summary. Jobs survive a restart:
// a job left running by a crash is pending again at the next start. The
// triple (session, kind, prompt number) is unique, so the same turn queued
// twice yields one job and one summary.
type SummaryJob struct {
	ID            int64     `gorm:"primaryKey" json:"id"`
	SessionID     int64     `json:"sessionId"`
	Kind          string    `json:"kind"`
	PromptNumber  int       `json:"promptNumber"`
	Status        string    `json:"status"`
	Attempts      int       `json:"attempts"`
	NextAttemptAt time.Time `json:"nextAttemptAt"`
	LastError     string    `json:"lastError,omitempty"`
	SummaryID     int64     `json:"summaryId,omitempty"`
	// AssistantMessage is Claude's last answer when the job was queued.
	AssistantMessage string    `json:"-"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
}

// EnqueueJob inserts a pending job, due now, unless one exists for the
// same session, kind and prompt number. inserted is false for such a
// duplicate. The job's created_at is at, the time of the event that asked
// for it (its summary's time). The session's last assistant message is
// kept with the job.
func (tx *Tx) EnqueueJob(sessionID int64, kind string, promptNumber int, at, now time.Time) (inserted bool, err error) {
	res := tx.db.Exec(`INSERT INTO summary_jobs (session_id, kind, prompt_number, status, attempts, next_attempt_at, created_at, updated_at, assistant_message)
		SELECT ?, ?, ?, ?, 0, ?, ?, ?, last_assistant_message FROM sessions WHERE id = ?
		ON CONFLICT(session_id, kind, prompt_number) DO NOTHING`,
		sessionID, kind, promptNumber, JobPending, now, at, now, sessionID)
	return res.RowsAffected == 1, res.Error
}

// LastJobTime is when the newest job of one of kinds was queued for the
// session; ok is false when there is none.
func (tx *Tx) LastJobTime(sessionID int64, kinds ...string) (t time.Time, ok bool, err error) {
	var j SummaryJob
	err = tx.db.Where("session_id = ? AND kind IN ?", sessionID, kinds).Order("created_at DESC").Limit(1).Find(&j).Error
	if err != nil || j.ID == 0 {
		return time.Time{}, false, err
	}
	return j.CreatedAt, true, nil
}

// NextJob returns the oldest pending job due at now, or ErrNotFound.
func (s *Store) NextJob(ctx context.Context, now time.Time) (*SummaryJob, error) {
	var j SummaryJob
	err := s.db.WithContext(ctx).Where("status = ? AND next_attempt_at <= ?", JobPending, now).
		Order("next_attempt_at, id").First(&j).Error
	return &j, notFound(err)
}

// NextJobDue is when the earliest pending job falls due; ok is false when
// no job is pending.
func (s *Store) NextJobDue(ctx context.Context) (due time.Time, ok bool, err error) {
	var j SummaryJob
	err = s.db.WithContext(ctx).Where("status = ?", JobPending).Order("next_attempt_at").Limit(1).Find(&j).Error
	if err != nil || j.ID == 0 {
		return time.Time{}, false, err
	}
	return j.NextAttemptAt, true, nil
}

// JobsOfSession lists a session's jobs in order.
func (s *Store) JobsOfSession(ctx context.Context, sessionID int64) ([]SummaryJob, error) {
	var out []SummaryJob
	err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("id").Find(&out).Error
	return out, err
}

// CountJobs counts the jobs in any of the statuses given, in one query:
// the count of pending and running jobs together is one snapshot, so a job
// moving from running back to pending (a retry) is never missed between
// two counts.
func (s *Store) CountJobs(ctx context.Context, status ...string) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&SummaryJob{}).Where("status IN ?", status).Count(&n).Error
	return n, err
}

// MarkJob moves a job to status, recording attempts, the next attempt time,
// the last error and the summary it produced.
func (tx *Tx) MarkJob(j *SummaryJob) error {
	j.UpdatedAt = time.Now().UTC()
	return tx.db.Exec(`UPDATE summary_jobs SET status = ?, attempts = ?, next_attempt_at = ?, last_error = ?, summary_id = ?, updated_at = ? WHERE id = ?`,
		j.Status, j.Attempts, j.NextAttemptAt, j.LastError, j.SummaryID, j.UpdatedAt, j.ID).Error
}

// ResetRunningJobs makes jobs left running by a crash pending again.
func (tx *Tx) ResetRunningJobs() (int64, error) {
	res := tx.db.Exec(`UPDATE summary_jobs SET status = ? WHERE status = ?`, JobPending, JobRunning)
	return res.RowsAffected, res.Error
}

// JobSession is what enqueuing a summary job needs of its session.
func (tx *Tx) JobSession(sessionID int64) (Session, error) {
	var sess Session
	err := tx.db.Select("id, started_at, prompt_counter").First(&sess, sessionID).Error
	return sess, err
}
