package views

import (
	"strconv"
	"time"
)

// The viewer writes a moment in one of a few shapes, all in local time,
// always inside <time datetime={ isoTime(t) }> so that it stays machine
// readable:
//
//	dateTime  2026-11-28 14:05  a moment: a session's start, a search hit, a title
//	clock     14:05             a moment of today in a feed or a story; another day's is its dateTime
//	day       2026-11-28        a day: a memory's date
//	ago       5 min ago         how long since, where that is the point: the last import
//
// The CLI (its stamp) and MCP print the same dateTime shape.
const (
	dateTimeLayout = "2006-01-02 15:04"
	clockLayout    = "15:04"
	dayLayout      = "2006-01-02"
)

// dateTime is t as a local date and time of day.
func dateTime(t time.Time) string { return t.Local().Format(dateTimeLayout) }

// clock is t's local time of day when t is today, else its dateTime.
func clock(t time.Time) string {
	t = t.Local()
	now := time.Now()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format(clockLayout)
	}
	return t.Format(dateTimeLayout)
}

// day is t's local date.
func day(t time.Time) string { return t.Local().Format(dayLayout) }

// ago is how long before now t was, in the largest whole unit: "just
// now", "5 min ago", "3 h ago", "2 d ago".
func ago(t time.Time) string {
	return agoFrom(t, time.Now())
}

func agoFrom(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + " h ago"
	}
	return strconv.Itoa(int(d.Hours())/24) + " d ago"
}

// isoTime is t for a <time datetime> attribute.
func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
