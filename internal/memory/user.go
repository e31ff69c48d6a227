package memory

import (
	"context"
	"fmt"
	"slices"

	"github.com/mneme-dev/mneme/internal/memory/extract"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// What a person does to memories by hand (the API, MCP's remember, the
// Memory page) rather than what the extractor reads off a turn: each is
// cleaned by the privacy pipeline in force and written in one
// transaction.

// Remember stores m, a memory said outright — its Project, Kind, Text,
// Source (models.SourceUser or models.SourceClaude) and Files as given —
// cleaned by pol, as a memory of the project that supersedes nothing by
// itself. Who said it: the user or Claude for the owner; person, when not
// "", makes it that teammate's, proposed until the owner accepts it
// unless the settings trust them. It is named as an extracted memory is
// (its terms, identifiers and subject), so a later memory on its subject
// can replace it, and accepting it replaces what it should.
func Remember(ctx context.Context, store *models.Store, pol *shape.Policy, m models.Memory, person string) (models.Memory, error) {
	files := m.Files
	m = models.Memory{Project: pol.Clean(m.Project), Kind: m.Kind, Text: pol.Clean(m.Text), Source: m.Source, State: models.MemoryCurrent}
	m.Speaker = models.SpeakerClaude
	if m.Source == models.SourceUser {
		m.Speaker = models.SpeakerUser
	}
	if person != "" {
		m.Speaker, m.SpeakerRef = models.SpeakerTeammate, person
		if !pol.Settings.Memory.Trusts(person) {
			m.State = models.MemoryProposed
		}
	}
	for _, f := range files {
		if f = pol.Clean(f); f != "" {
			m.Files = append(m.Files, f)
		}
	}
	if st, ok := extract.Stated(extract.Kind(m.Kind), m.Text); ok {
		m.Idents, m.Terms, m.Change, m.Subject = st.Idents, st.Terms, st.Change, st.Subject
		if len(m.Files) == 0 {
			m.Files = st.Files
		}
	}
	err := store.Writer.Do(ctx, func(tx *models.Tx) error {
		_, err := tx.InsertMemory(&m)
		return err
	})
	return m, err
}

// The changes Change applies.
var changes = []string{"pin", "unpin", "retire", "reinstate", "edit", "accept", "reject"}

// ErrUnknownChange is the error of a change Change does not know.
var ErrUnknownChange = fmt.Errorf("%w: action must be pin, unpin, retire, reinstate, edit, accept or reject", models.ErrInvalid)

// Change applies one change (pin, unpin, retire, reinstate, edit, accept
// or reject) to memory id and returns the memory as it is now; an edit's
// text is cleaned by pol. Accepting a teammate's proposed memory puts it
// in force and retires what it replaces, as if it had been stated then.
func Change(ctx context.Context, store *models.Store, pol *shape.Policy, id int64, action, text string) (*models.Memory, error) {
	var replaced []int64
	if action == "accept" {
		// What the proposal replaces once in force, read off the writer.
		p, err := store.MemoryByID(ctx, id)
		if err != nil {
			return nil, err
		}
		if replaced, err = Replaced(ctx, store, *p); err != nil {
			return nil, err
		}
	}
	var m *models.Memory
	err := store.Writer.Do(ctx, func(tx *models.Tx) error {
		var err error
		switch action {
		case "pin", "unpin":
			m, err = tx.PinMemory(id, action == "pin")
		case "retire":
			m, err = tx.SetMemoryState(id, models.MemoryRetired)
		case "reinstate":
			m, err = tx.SetMemoryState(id, models.MemoryCurrent)
		case "edit":
			m, err = tx.EditMemory(id, pol.Clean(text))
		case "accept":
			if m, err = tx.AcceptMemory(id); err == nil {
				for _, old := range replaced {
					if _, err = tx.SupersedeMemory(old, id); err != nil {
						break
					}
				}
			}
		case "reject":
			m, err = tx.RejectMemory(id)
		default:
			err = ErrUnknownChange
		}
		return err
	})
	return m, err
}

// KnownChange reports whether action is one Change applies.
func KnownChange(action string) bool { return slices.Contains(changes, action) }
