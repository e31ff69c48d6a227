// Package handlers holds mneme's HTTP handlers: thin methods that parse
// input, call the capture pipeline or the store, and answer with JSON or a
// templ page.
package handlers

import (
	"fmt"
	"github.com/mneme-dev/mneme/internal/embed"
	"github.com/mneme-dev/mneme/internal/settings"
	"slices"
	"strings"

	"log/slog"
	"sync"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web/auth"
	"github.com/mneme-dev/mneme/web/sse"
)

// Handler carries what every handler needs. Every field that is a
// dependency (a service, a func) is required: app.New sets them all and
// checks them with Ready, so no handler asks whether one is there.
type Handler struct {
	Store   *models.Store
	Capture *capture.Service
	Broker  *sse.Broker
	Log     *slog.Logger
	// Build is the worker's version, commit and commit date
	// (/api/health, the viewer's footer).
	Build   hookwire.Build
	Started time.Time
	// Status reports a problem the worker knows of (disk full, read-only
	// data directory), shown on /api/health and in the viewer.
	Status func() string
	// Quarantined counts the spooled events set aside as refused for
	// good, shown on /api/health and in the viewer.
	Quarantined func() api.Quarantine
	// Settings owns the settings in force: handlers read, prepare and
	// save them through it only.
	Settings *settings.Service
	// Auth holds the worker's secret, the login cookie and the one-time
	// login links.
	Auth *auth.Keeper
	// Import runs imports of Claude Code's transcripts from the viewer.
	Import Importer
	// StreamOptions tune /stream (keepalives, write timeout).
	StreamOptions StreamOptions
	// ViewerURL is the viewer's address (http://127.0.0.1:37777), put in
	// front of login links; "" leaves them as paths.
	ViewerURL string
	// Embed searches by meaning (off unless the embeddings settings are
	// set, and then text only).
	Embed *embed.Service

	counts   countsCache // /api/health's counts, for two seconds
	tokenUse sync.Map    // API token id → when its use was last recorded
}

// Ready reports the required dependencies h lacks, as one error; nil
// when it has them all.
func (h *Handler) Ready() error {
	var missing []string
	for name, ok := range map[string]bool{
		"Store": h.Store != nil, "Capture": h.Capture != nil, "Broker": h.Broker != nil, "Log": h.Log != nil,
		"Status": h.Status != nil, "Quarantined": h.Quarantined != nil, "Settings": h.Settings != nil,
		"Auth": h.Auth != nil, "Import": h.Import != nil, "Embed": h.Embed != nil,
	} {
		if !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("handlers: missing %s", strings.Join(missing, ", "))
}
