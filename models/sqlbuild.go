package models

import (
	"strconv"
	"strings"
)

// The helpers dynamic SQL is built with (see "SQL style" in
// docs/architecture.md): a statement whose shape depends on its input is
// put together from named pieces, each returning its text and the
// arguments of its ? placeholders in order. The text holds constants and
// the names of mneme's own tables and columns, never a value; and no
// fmt.Sprintf writes it (internal/archtest's TestNoFormattedSQLInModels).

// sqlList is a list of SQL pieces to join (the CTEs of a WITH, the
// branches of a UNION ALL) with the arguments of their placeholders, in
// the order the pieces come.
type sqlList struct {
	parts []string
	args  []any
}

// add appends a piece and its arguments.
func (l *sqlList) add(part string, args []any) {
	l.parts = append(l.parts, part)
	l.args = append(l.args, args...)
}

// join is the pieces joined by sep.
func (l *sqlList) join(sep string) string { return strings.Join(l.parts, sep) }

// sqlPrefix is the SQL of the first n characters of the column col
// (substr: the same on both backends).
func sqlPrefix(col string, n int) string {
	return "substr(" + col + ", 1, " + strconv.Itoa(n) + ")"
}
