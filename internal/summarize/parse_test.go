package summarize_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/summarize"
)

func TestParseStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       summarize.Result
		err        bool
	}{
		{"exact", strictAnswer, summarize.Result{Request: "Add JWT auth middleware.", Investigated: "Why go test failed: JWT_SECRET unset.",
			Learned: "Tests need JWT_SECRET.", Completed: "Created internal/auth/jwt.go; tests pass."}, false},
		{"markdown labels and continuation lines", "**REQUEST:** Fix the login bug\n\n**INVESTIGATED:** the session cookie\nwas not set\n**LEARNED:** none\n**COMPLETED:** patched auth.go\n**NEXT STEPS:** add a test",
			summarize.Result{Request: "Fix the login bug", Investigated: "the session cookie was not set", Completed: "patched auth.go", NextSteps: "add a test"}, false},
		{"chatter before", "Sure! Here it is:\n" + strictAnswer, summarize.Result{}, true},
		{"missing label", "REQUEST: a\nINVESTIGATED: b\nLEARNED: c\nCOMPLETED: d", summarize.Result{}, true},
		{"label twice", strictAnswer + "\nREQUEST: again", summarize.Result{}, true},
		{"all empty", "REQUEST: none\nINVESTIGATED: none\nLEARNED: none\nCOMPLETED: none\nNEXT_STEPS: none", summarize.Result{}, true},
		{"empty", "", summarize.Result{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := summarize.ParseStrict(tc.text)
			if tc.err {
				if !errors.Is(err, summarize.ErrMalformed) || !errors.Is(err, hookwire.ErrPermanent) {
					t.Fatalf("err = %v, want ErrMalformed", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
