package models

import "time"

// Time helpers: stored times are text written by the driver in UTC.

// timeBound formats t for comparison with stored created_at values, which
// the driver writes as text in UTC: "2026-11-21 19:35:22.7796+00:00". The
// bound has no fraction and no zone suffix, so it is a prefix of every
// stored value of that second and sorts before them: >= From keeps them,
// < To drops them.
func timeBound(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

// parseStoredTime reads a created_at value as the driver returns it: a
// time.Time for DATETIME columns, else the stored text.
func parseStoredTime(v any) time.Time {
	var s string
	switch v := v.(type) {
	case time.Time:
		return v.UTC()
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
