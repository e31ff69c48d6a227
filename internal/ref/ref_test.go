package ref

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[string]Ref{
		"12": {Observation, 12}, "#12": {Observation, 12}, " #12 ": {Observation, 12}, "observation:12": {Observation, 12},
		"m6": {Memory, 6}, "#m6": {Memory, 6}, "M6": {Memory, 6}, "memory 6": {Memory, 6}, "memory:#6": {Memory, 6},
		"s7": {Session, 7}, "#s7": {Session, 7}, "session #7": {Session, 7},
		"prompt:3": {Prompt, 3}, "prompt #3": {Prompt, 3}, "summary:4": {Summary, 4},
		"'#12'": {Observation, 12}, "`m6`": {Memory, 6},
	} {
		t.Run(in, func(t *testing.T) {
			got, err := Parse(in)
			if err != nil || got != want {
				t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
			}
			// What is printed reads back as itself.
			if back, err := Parse(got.String()); err != nil || back != got {
				t.Errorf("Parse(%q) = %v, %v", got.String(), back, err)
			}
			if back, err := Parse(got.Shell()); err != nil || back != got {
				t.Errorf("Parse(%q) = %v, %v", got.Shell(), back, err)
			}
		})
	}
	for _, bad := range []string{"", "#", "m", "abc", "x12", "m-1", "0", "s0", "12.5", "+3", "prompt:", "mm6"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if r, err := Parse(bad); err == nil {
				t.Errorf("Parse(%q) = %v, want an error", bad, r)
			}
		})
	}
}

func TestPrinted(t *testing.T) {
	for _, c := range []struct {
		r           Ref
		text, shell string
	}{
		{Ref{Observation, 12}, "#12", "12"},
		{Ref{Memory, 6}, "m6", "m6"},
		{Ref{Session, 7}, "s7", "s7"},
		{Ref{Prompt, 3}, "prompt:3", "prompt:3"},
	} {
		if c.r.String() != c.text || c.r.Shell() != c.shell {
			t.Errorf("%v prints %q and %q, want %q and %q", c.r, c.r.String(), c.r.Shell(), c.text, c.shell)
		}
	}
}
