package app

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/transcript"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/web/sse"
)

// captureSink stores imported events through the capture pipeline
// in-process, as ReplaySpool does with spooled ones.
type captureSink struct{ svc *capture.Service }

func (s captureSink) Send(ctx context.Context, ev *transcript.Event) error {
	p := ev.Payload
	_, err := s.svc.Handle(ctx, ev.Name, &p)
	return err
}

// publishImport announces the viewer's import on the stream, live only
// (import_progress events are not logged).
func publishImport(b *sse.Broker, st transcript.State) {
	data, err := json.Marshal(st)
	if err != nil {
		return
	}
	b.Publish(models.Event{Kind: models.EventImportProgress, Data: data, CreatedAt: time.Now().UTC()})
}
