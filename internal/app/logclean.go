package app

import (
	"context"
	"log/slog"
)

// cleanHandler puts every log record of the worker through the privacy
// pipeline: its message, string values and errors (an error may quote a
// request path, a file name, a summarizer's output). Other values pass.
type cleanHandler struct {
	next  slog.Handler
	clean func(string) string
}

func newCleanLogger(l *slog.Logger, clean func(string) string) *slog.Logger {
	return slog.New(&cleanHandler{next: l.Handler(), clean: clean})
}

func (h *cleanHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h *cleanHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.clean(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *cleanHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.clean(v.String()))
	case slog.KindGroup:
		as := v.Group()
		out := make([]any, len(as))
		for i, g := range as {
			out[i] = h.attr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok && err != nil {
			return slog.String(a.Key, h.clean(err.Error()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (h *cleanHandler) WithAttrs(as []slog.Attr) slog.Handler {
	cleaned := make([]slog.Attr, len(as))
	for i, a := range as {
		cleaned[i] = h.attr(a)
	}
	return &cleanHandler{next: h.next.WithAttrs(cleaned), clean: h.clean}
}

func (h *cleanHandler) WithGroup(name string) slog.Handler {
	return &cleanHandler{next: h.next.WithGroup(name), clean: h.clean}
}
