package handlers

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/models"
)

// Query parameters, read one way for the pages and the JSON API alike. A
// value that cannot be read is a paramError: a 400 with its message, as a
// JSON error or in the page (it is a models.ErrInvalid).

// paramError is a query parameter that cannot be read.
type paramError struct{ msg string }

func (e *paramError) Error() string { return e.msg }

// Is makes errors.Is(err, models.ErrInvalid) true: pages show the message.
func (e *paramError) Is(target error) bool { return target == models.ErrInvalid }

func invalidParam(format string, args ...any) error {
	return &paramError{msg: fmt.Sprintf(format, args...)}
}

// searchParams reads a search: q (FTS5 syntax, checked by the store),
// project, type, tool, from, to, offset and limit (default 20, at most
// 100).
func searchParams(c *fiber.Ctx) (models.SearchQuery, error) {
	q := models.SearchQuery{Q: c.Query("q"), Project: c.Query("project"), Type: c.Query("type"), Tool: c.Query("tool")}
	switch q.Type {
	case "", models.SearchPrompt, models.SearchObservation, models.SearchSummary:
	default:
		return q, invalidParam("type must be prompt, observation or summary")
	}
	var err error
	if q.Offset, err = intParam(c, "offset", 0, 0, models.MaxSearchWindow-100); err != nil {
		return q, err
	}
	if q.Limit, err = intParam(c, "limit", 20, 1, 100); err != nil {
		return q, err
	}
	if q.From, q.To, err = dateRange(c); err != nil {
		return q, err
	}
	return q, nil
}

// statsParams reads project, days (default 14, at most 366), from and to
// (YYYY-MM-DD) and top (at most 50).
func statsParams(c *fiber.Ctx) (models.StatsQuery, error) {
	q := models.StatsQuery{Project: c.Query("project")}
	var err error
	if q.Days, err = intParam(c, "days", models.DefaultStatsDays, 1, models.MaxStatsDays); err != nil {
		return q, err
	}
	if q.Top, err = intParam(c, "top", 10, 1, 50); err != nil {
		return q, err
	}
	if q.From, err = dayParam(c, "from"); err != nil {
		return q, err
	}
	if q.To, err = dayParam(c, "to"); err != nil {
		return q, err
	}
	return q, nil
}

// listParams reads project, offset and limit (default 50, at most 500).
func listParams(c *fiber.Ctx) (models.ListFilter, error) {
	f := models.ListFilter{Project: c.Query("project")}
	var err error
	if f.Offset, err = offsetParam(c); err != nil {
		return f, err
	}
	if f.Limit, err = intParam(c, "limit", 50, 1, 500); err != nil {
		return f, err
	}
	return f, nil
}

// apiListParams is listParams plus the session, person and id filters.
func apiListParams(c *fiber.Ctx) (models.ListFilter, error) {
	f, err := listParams(c)
	if err != nil {
		return f, err
	}
	if f.SessionID, err = idParam(c, "session"); err != nil {
		return f, err
	}
	f.Person = c.Query("person")
	f.IDs, err = idsParam(c, "id")
	return f, err
}

// idsParam reads an optional comma-separated list of positive ids (at
// most maxBatch); nil when absent.
func idsParam(c *fiber.Ctx, name string) ([]int64, error) {
	v := c.Query(name)
	if v == "" {
		return nil, nil
	}
	parts := strings.Split(v, ",")
	if len(parts) > maxBatch {
		return nil, invalidParam("%s holds at most %d ids", name, maxBatch)
	}
	ids := make([]int64, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || n <= 0 {
			return nil, invalidParam("%s must be positive whole numbers separated by commas", name)
		}
		ids = append(ids, n)
	}
	return ids, nil
}

// offsetParam reads offset: a whole number ≥ 0, 0 when absent.
func offsetParam(c *fiber.Ctx) (int, error) {
	return intParam(c, "offset", 0, 0, math.MaxInt32)
}

// intParam reads a whole number in [lo, hi], def when absent.
func intParam(c *fiber.Ctx, name string, def, lo, hi int) (int, error) {
	v := c.Query(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		if hi == math.MaxInt32 {
			return 0, invalidParam("%s must be a whole number ≥ %d", name, lo)
		}
		return 0, invalidParam("%s must be a whole number from %d to %d", name, lo, hi)
	}
	return n, nil
}

// idParam reads an optional positive id (0 when absent).
func idParam(c *fiber.Ctx, name string) (int64, error) {
	v := c.Query(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, invalidParam("%s must be a positive whole number", name)
	}
	return n, nil
}

// boolParam reads an optional flag: 1/true/on/yes or 0/false/off/no.
func boolParam(c *fiber.Ctx, name string) (bool, error) {
	switch strings.ToLower(c.Query(name)) {
	case "", "0", "false", "off", "no":
		return false, nil
	case "1", "true", "on", "yes":
		return true, nil
	}
	return false, invalidParam("%s must be 1 or 0 (true or false)", name)
}

// failuresParam reads the failures filter of the feed and of
// /api/observations: only failed tool calls (a boolParam; the feed's
// checkbox sends "on").
func failuresParam(c *fiber.Ctx) (bool, error) { return boolParam(c, "failures") }

// dayParam reads an optional date, YYYY-MM-DD.
func dayParam(c *fiber.Ctx, name string) (time.Time, error) {
	v := c.Query(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return t, invalidParam("%s must be a date like 2026-01-31", name)
	}
	return t, nil
}

// timeParam reads an optional date (YYYY-MM-DD: its start, or with
// endOfDay the start of the next day) or RFC 3339 time (exact, in UTC).
func timeParam(c *fiber.Ctx, name string, endOfDay bool) (time.Time, error) {
	v := c.Query(name)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		if endOfDay {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, invalidParam("%s must be a date (YYYY-MM-DD) or an RFC 3339 time", name)
}

// dateRange reads from and to (timeParam; to is inclusive: a day runs to
// its end).
func dateRange(c *fiber.Ctx) (from, to time.Time, err error) {
	if from, err = timeParam(c, "from", false); err != nil {
		return
	}
	if to, err = timeParam(c, "to", true); err != nil {
		return
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		err = invalidParam("from must be before to")
	}
	return
}
