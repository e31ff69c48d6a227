package main

import (
	"strconv"
	"strings"
)

// plural is n and noun, the noun in the plural unless n is 1: "1
// session", "2 sessions", "0 summaries".
func plural[N ~int | ~int64 | ~int32](n N, noun string) string {
	return strconv.FormatInt(int64(n), 10) + " " + pluralNoun(n, noun)
}

// pluralNoun is noun, in the plural unless n is 1.
func pluralNoun[N ~int | ~int64 | ~int32](n N, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	switch {
	case strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ey"):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "sh"), strings.HasSuffix(noun, "ch"):
		return noun + "es"
	}
	return noun + "s"
}
