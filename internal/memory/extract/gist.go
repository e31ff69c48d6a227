package extract

import (
	"regexp"
	"strings"
)

// closingRe is an answer's sign-off.
var closingRe = regexp.MustCompile(`(?i)^(?:let me know|feel free|hope this|happy to|want me to|would you like|do you want|should i|shall i|if you'd like|if you want)\b`)

// Gist is the opening of an answer for a one-line quote (a session
// summary's "Claude's answer: …"), at most max runes: its first two sentences,
// and where a label introduces a list, the label with the list's items
// ("Key decisions: A; B; C") — never the label alone, cut where the
// content starts. Code, tables and markdown are left out.
func Gist(answer string, max int) string {
	if max <= 0 {
		return ""
	}
	var us []unit
	for _, u := range units(bound(answer)) {
		if u.quoted {
			if _, rule := classifyAnswer(u); rule {
				continue // a source's instruction is not Claude's answer
			}
		}
		us = append(us, u)
	}
	var parts []string
	size, prose := 0, 0
	for i := 0; i < len(us) && size < max && prose < 2; i++ {
		u := us[i]
		var part string
		if u.item {
			var items []string
			for ; i < len(us) && us[i].item && us[i].list == u.list; i++ {
				if t := strings.TrimRight(cleanInline(us[i].text), ".;"); t != "" {
					items = append(items, t)
				}
			}
			i--
			part = strings.Join(items, "; ")
			if u.label != "" && part != "" {
				part = strings.TrimRight(u.label, ":") + ": " + part
			}
			if part != "" {
				part += "."
			}
			prose++ // a list counts as one sentence
		} else {
			part = cleanInline(u.text)
			if isQuestion(part) || closingRe.MatchString(part) {
				continue // talk to the user, not what was done
			}
			if u.byDefault && u.label != "" {
				part = strings.TrimRight(u.label, ":") + ": " + part
			}
			prose++
		}
		if part != "" {
			parts = append(parts, part)
			size += len(part) + 1
		}
	}
	return clip(strings.Join(parts, " "), max)
}
