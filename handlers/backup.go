package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gofiber/fiber/v2"
)

// Backup serves GET /api/backup: a consistent snapshot of the database
// (models.Store.BackupTo: VACUUM INTO, while ingest goes on), checked
// with PRAGMA integrity_check, sent as the body. The snapshot is written
// to a private file in the data directory, which is unlinked as soon as
// it is open: nothing is left behind, even if the client goes away.
// X-Mneme-Schema-Version and X-Mneme-Integrity say what the check found.
// `mneme backup FILE` uses it and checks the copy again.
func (h *Handler) Backup(c *fiber.Ctx) error {
	var rnd [8]byte
	rand.Read(rnd[:])
	path := filepath.Join(filepath.Dir(h.Store.Path()), ".backup-"+hex.EncodeToString(rnd[:])+".db")
	fc, err := h.Store.BackupTo(c.UserContext(), path)
	if err != nil {
		os.Remove(path)
		return err
	}
	f, err := os.Open(path)
	os.Remove(path)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "application/vnd.sqlite3")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="mneme-backup.db"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Mneme-Schema-Version", strconv.Itoa(fc.SchemaVersion))
	c.Set("X-Mneme-Integrity", fc.Integrity)
	c.Context().SetBodyStream(f, int(fc.Bytes)) // closed by fasthttp once sent
	return nil
}
