package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// TokenPrefix begins every person token, so that secret scanners and
// mneme's own redaction (privacy's built-in rule "mneme-token") know one
// when it is pasted somewhere.
const TokenPrefix = "mneme_pt_"

// tokenShown is how many characters of a token lists show: the prefix and
// six hex digits (24 of its 256 bits), enough to tell tokens apart.
const tokenShown = len(TokenPrefix) + 6

// maxPersonLen bounds a person's name.
const maxPersonLen = 64

// ErrTokenRevoked is the answer to a token that was revoked.
var ErrTokenRevoked = errors.New("token revoked")

// APIToken is a person's API token in team mode (`mneme token create`).
// Only the SHA-256 of the token is stored: the token itself is shown once,
// when it is made. A token of 256 random bits needs no slow hash, and
// looking it up by its hash makes the comparison's timing irrelevant.
type APIToken struct {
	ID         int64      `gorm:"primaryKey" json:"id"`
	Person     string     `json:"person"`
	TokenHash  string     `json:"-"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty"`
}

// TableName is api_tokens.
func (APIToken) TableName() string { return "api_tokens" }

// hashToken is what the store keeps of a token: its SHA-256, in hex.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// IsPersonToken reports whether s has the shape of a person token (it may
// still be unknown or revoked).
func IsPersonToken(s string) bool {
	rest, ok := strings.CutPrefix(s, TokenPrefix)
	if !ok || len(rest) != 64 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil
}

// CleanPerson checks a person's name: trimmed, not empty, at most 64
// characters, no control characters.
func CleanPerson(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > maxPersonLen || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("%w: a person is a name of 1 to %d characters without control characters", ErrInvalid, maxPersonLen)
	}
	return name, nil
}

// CreateAPIToken makes a token for person and returns its row and the
// token itself, which is stored nowhere: the caller shows it once.
func (s *Store) CreateAPIToken(ctx context.Context, person string) (APIToken, string, error) {
	person, err := CleanPerson(person)
	if err != nil {
		return APIToken{}, "", err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return APIToken{}, "", err
	}
	token := TokenPrefix + hex.EncodeToString(b[:])
	t := APIToken{Person: person, TokenHash: hashToken(token), Prefix: token[:tokenShown], CreatedAt: time.Now().UTC()}
	if err := s.db.WithContext(ctx).Create(&t).Error; err != nil {
		return APIToken{}, "", err
	}
	return t, token, nil
}

// APITokens lists every token, revoked ones too, oldest first.
func (s *Store) APITokens(ctx context.Context) ([]APIToken, error) {
	var out []APIToken
	err := s.db.WithContext(ctx).Order("id").Find(&out).Error
	return out, err
}

// RevokeAPIToken revokes token id at once (every replica reads the row on
// each request). Revoking twice keeps the first time.
func (s *Store) RevokeAPIToken(ctx context.Context, id int64) (APIToken, error) {
	db := s.db.WithContext(ctx)
	if err := db.Exec(`UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, time.Now().UTC(), id).Error; err != nil {
		return APIToken{}, err
	}
	var t APIToken
	err := db.First(&t, id).Error
	return t, notFound(err)
}

// APITokenBySecret finds the row of a token presented by a client: by its
// hash, so the token is never compared byte by byte. An unknown token is
// ErrNotFound, a revoked one ErrTokenRevoked (with its row).
func (s *Store) APITokenBySecret(ctx context.Context, token string) (APIToken, error) {
	var t APIToken
	if err := s.db.WithContext(ctx).Where("token_hash = ?", hashToken(token)).First(&t).Error; err != nil {
		return APIToken{}, notFound(err)
	}
	if t.RevokedAt != nil {
		return t, ErrTokenRevoked
	}
	return t, nil
}

// APITokenActive reports whether token id may still be used: it exists
// and is not revoked. Open streams ask it again and again (see
// handlers.StreamOptions.TokenCheck), so that a revocation through any
// replica ends them on all.
func (s *Store) APITokenActive(ctx context.Context, id int64) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM api_tokens WHERE id = ? AND revoked_at IS NULL`, id).Scan(&n).Error
	return n == 1, err
}

// TouchAPIToken records that token id was used at at. Callers throttle it
// (see handlers.Handler.PersonOf): it is a write.
func (s *Store) TouchAPIToken(ctx context.Context, id int64, at time.Time) error {
	return s.db.WithContext(ctx).Exec(`UPDATE api_tokens SET last_used_at = ? WHERE id = ?`, at.UTC(), id).Error
}

// Persons lists who captured sessions (sessions.captured_by), sorted; the
// owner's sessions (an empty captured_by) are not a person.
func (s *Store) Persons(ctx context.Context) ([]string, error) {
	var out []string
	err := s.db.WithContext(ctx).Raw(`SELECT DISTINCT captured_by FROM sessions WHERE captured_by != '' ORDER BY captured_by`).Scan(&out).Error
	return out, err
}
