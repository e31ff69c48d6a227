package extract

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDbg(t *testing.T) {
	ids := strings.Split(os.Getenv("DBG_IDS"), ",")
	files := []string{"tune.jsonl", "heldout.jsonl", "heldout2.jsonl", "heldout3.jsonl", "heldout4.jsonl"}
	for _, f := range files {
		data, _ := os.ReadFile("../testdata/trust/" + f)
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" {
				continue
			}
			var sc struct {
				ID    string
				Turns []struct{ Prompt, Answer, Session string }
			}
			json.Unmarshal([]byte(line), &sc)
			ok := false
			for _, id := range ids {
				ok = ok || id == sc.ID
			}
			if !ok {
				continue
			}
			fmt.Println("=====", sc.ID)
			pp, pa := "", ""
			for i, tn := range sc.Turns {
				fmt.Printf("-- turn %d topic=%q\n", i, PromptTopic(tn.Prompt))
				if m, ok := FromChoice(pp, pa, tn.Prompt); ok {
					fmt.Printf("  CHOICE %s subj=%q ch=%v %q terms=%v ids=%v\n", m.Kind, m.Subject, m.Change, m.Text, m.Terms, m.Idents)
				}
				for _, m := range FromPrompt(tn.Prompt) {
					fmt.Printf("  P %s subj=%q weak=%v ch=%v %q terms=%v ids=%v\n", m.Kind, m.Subject, m.WeakSubject, m.Change, m.Text, m.Terms, m.Idents)
				}
				for _, m := range FromAnswer(tn.Answer) {
					fmt.Printf("  A %s subj=%q weak=%v ch=%v q=%v %q terms=%v ids=%v\n", m.Kind, m.Subject, m.WeakSubject, m.Change, m.Quoted, m.Text, m.Terms, m.Idents)
				}
				pp, pa = tn.Prompt, tn.Answer
			}
		}
	}
}

func TestDbgOffered(t *testing.T) {
	for _, f := range []string{"tune.jsonl", "heldout4.jsonl"} {
		data, _ := os.ReadFile("../testdata/trust/" + f)
		for _, line := range strings.Split(string(data), "\n") {
			var sc struct {
				ID    string
				Turns []struct{ Prompt, Answer string }
			}
			if json.Unmarshal([]byte(line), &sc) != nil || !strings.Contains(","+os.Getenv("DBG_IDS")+",", ","+sc.ID+",") {
				continue
			}
			for _, tn := range sc.Turns {
				if !asksToChoose(tn.Answer) {
					continue
				}
				_, opts := offered(tn.Answer, units(bound(tn.Answer)))
				for _, o := range opts {
					fmt.Printf("%s OPT name=%q\n", sc.ID, o.name)
				}
			}
		}
	}
}
