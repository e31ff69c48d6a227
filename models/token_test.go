package models

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/pgtest"
)

// The token store on both dialects: a token is made, found by its value
// (only its hash is stored), its use recorded, revoked; the sessions it
// captured name the person.
func TestAPITokens(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{DialectSQLite, DialectPostgres} {
		t.Run(backend, func(t *testing.T) {
			var s *Store
			var err error
			if backend == DialectSQLite {
				s, err = Open(filepath.Join(t.TempDir(), "mneme.db"))
			} else {
				pgtest.PostgresOnly(t)
				s, err = OpenURL(pgtest.URL(t), t.TempDir())
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := t.Context()
			row, token, err := s.CreateAPIToken(ctx, "  alice ")
			if err != nil || row.ID == 0 || row.Person != "alice" || !IsPersonToken(token) || row.TokenHash != hashToken(token) || row.Prefix != token[:tokenShown] {
				t.Fatalf("create: %+v %q %v", row, token, err)
			}
			if _, _, err := s.CreateAPIToken(ctx, ""); !errors.Is(err, ErrInvalid) {
				t.Errorf("an empty person: %v", err)
			}
			got, err := s.APITokenBySecret(ctx, token)
			if err != nil || got.ID != row.ID || got.LastUsedAt != nil {
				t.Fatalf("by secret: %+v %v", got, err)
			}
			if _, err := s.APITokenBySecret(ctx, TokenPrefix+token[len(TokenPrefix)+1:]+"0"); !errors.Is(err, ErrNotFound) {
				t.Errorf("an unknown token: %v", err)
			}
			at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
			if err := s.TouchAPIToken(ctx, row.ID, at); err != nil {
				t.Fatal(err)
			}
			if got, _ := s.APITokenBySecret(ctx, token); got.LastUsedAt == nil || !got.LastUsedAt.Equal(at) {
				t.Errorf("last used %v, want %v", got.LastUsedAt, at)
			}

			err = s.writeQuietly(ctx, func(tx *Tx) error {
				for _, who := range []string{"alice", "", "bob"} {
					if _, err := tx.EnsureSession(&Session{ClaudeSessionID: "s-" + who, Project: "p", CapturedBy: who}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if who, err := s.Persons(ctx); err != nil || len(who) != 2 || who[0] != "alice" || who[1] != "bob" {
				t.Errorf("persons %q, %v", who, err)
			}
			if sess, err := s.SessionByClaudeID(ctx, "s-bob"); err != nil || sess.CapturedBy != "bob" {
				t.Errorf("bob's session %+v, %v", sess, err)
			}
			if obs, err := s.Observations(ctx, ObservationFilter{ListFilter: ListFilter{Person: "alice"}}); err != nil || len(obs) != 0 {
				t.Errorf("alice's observations %+v, %v", obs, err)
			}
			if ps, err := s.Prompts(ctx, ListFilter{Person: "bob"}); err != nil || len(ps) != 0 {
				t.Errorf("bob's prompts %+v, %v", ps, err)
			}

			if r, err := s.RevokeAPIToken(ctx, row.ID); err != nil || r.RevokedAt == nil {
				t.Fatalf("revoke: %+v %v", r, err)
			}
			if _, err := s.APITokenBySecret(ctx, token); !errors.Is(err, ErrTokenRevoked) {
				t.Errorf("a revoked token: %v", err)
			}
			if _, err := s.RevokeAPIToken(ctx, row.ID+100); !errors.Is(err, ErrNotFound) {
				t.Errorf("revoke an unknown id: %v", err)
			}
			if all, err := s.APITokens(ctx); err != nil || len(all) != 1 || all[0].RevokedAt == nil {
				t.Errorf("list %+v, %v", all, err)
			}
		})
	}
}

// A restored session (mneme import of a full export) keeps who captured it.
func TestRestoreKeepsCapturedBy(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	rows := &RestoreRows{Session: Session{ClaudeSessionID: "from-export", Project: "p", StartedAt: time.Now().UTC(), CapturedBy: "gina"}}
	if err := s.Writer.Do(t.Context(), func(tx *Tx) error { _, err := tx.Restore(rows); return err }); err != nil {
		t.Fatal(err)
	}
	if got, err := s.SessionByClaudeID(t.Context(), "from-export"); err != nil || got.CapturedBy != "gina" {
		t.Errorf("restored %+v, %v", got, err)
	}
}
