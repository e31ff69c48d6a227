package privacy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil/racebuild"
)

// A document with no long string reads as the same value, escapes,
// numbers and nesting included.
func TestReadPayloadKeepsShortDocuments(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `"x"`, `12`, ` {"a" : [1, -2.5e3, true, false, null, {"b":"c\"d\\e\/f\b\f\n\r\t"}] } `,
		`{"k\u0041":"\u00e9\ud83d\ude00 \ud800 \u0000","n":12345678901234567890,"e":""}`,
		`{"session_id":"s","tool_input":{"command":"echo <private>x</private>"}}`,
	}
	r := Builtins()
	for _, d := range docs {
		out, err := r.ReadPayload(strings.NewReader(d))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		var want, got any
		json.Unmarshal([]byte(d), &want)
		if err := json.Unmarshal(out, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s read as %s (%v)", d, out, err)
		}
	}
	for _, bad := range []string{`{"a":`, `{"a" 1}`, `[1 2]`, `{"a":"\x"}`, `"abc`, `{} x`, `{"a":"b"`, "\"a\x01\"", `{1:2}`, ``} {
		if out, err := r.ReadPayload(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read without error as %s", bad, out)
		}
	}
}

// longDoc is a document whose "out" string is head, n bytes of filler
// and tail, made as it is read.
func longDoc(head string, n int, filler byte, tail string) io.Reader {
	return io.MultiReader(strings.NewReader(`{"session_id":"s","out":"`+head), io.LimitReader(repeatByte(filler), int64(n)),
		strings.NewReader(tail+`","after":[1,"x"]}`))
}

type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func readLong(t *testing.T, in io.Reader) map[string]any {
	t.Helper()
	out, err := Builtins().ReadPayload(in)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if m["session_id"] != "s" || !reflect.DeepEqual(m["after"], []any{1.0, "x"}) {
		t.Errorf("the other members changed: %v %v", m["session_id"], m["after"])
	}
	return m
}

// A long string keeps its two ends, cleaned, and says how much was cut;
// a secret across a cut or in an end is redacted; a tag that may open in
// the bytes skipped drops the tail; a block opened in the head and closed
// in the tail is stripped as in the whole string.
func TestReadPayloadCutsLongStrings(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("one goroutine, nothing for the race detector to watch: make test runs it without it (test-norace)")
	}
	const n = 8 << 20
	m := readLong(t, longDoc("password=HeadSecret01 start ", n, 'x', " end password=TailSecret02"))
	out := m["out"].(string)
	if !strings.HasPrefix(out, "password=[REDACTED:secret_assignment] start") || !strings.HasSuffix(out, " end password=[REDACTED:secret_assignment]") {
		t.Errorf("ends: %.60q … %.60q", out, out[len(out)-60:])
	}
	if len(out) > 2*ShrinkKeep || !strings.Contains(out, " bytes omitted by mneme …") {
		t.Errorf("%d bytes kept, marker: %v", len(out), strings.Contains(out, "omitted"))
	}
	// The marker counts what the string lost: its length as read less
	// what is kept, as cleanWindow counts it.
	whole := len("password=HeadSecret01 start ") + n + len(" end password=TailSecret02")
	var cutBytes int
	i := strings.Index(out, "\n… ")
	fmt.Sscanf(out[i:], "\n… %d bytes omitted", &cutBytes)
	if kept := len(out) - len(omitted(cutBytes)); cutBytes != whole-kept {
		t.Errorf("the marker counts %d bytes omitted, %d were", cutBytes, whole-kept)
	}

	// A secret across the cut of the head, and across the tail's.
	pad := strings.Repeat("y", cutKeep-10)
	m = readLong(t, longDoc(pad+" password=CrossHead03 ", n, 'x', " password=CrossTail04 "+pad))
	if out := m["out"].(string); strings.Contains(out, "CrossHead") || strings.Contains(out, "CrossTail") {
		t.Error("a secret across a cut survived in part")
	}

	// A tag opening in the bytes skipped: the tail may be private.
	mid := strings.Repeat("z", 2*cutRead)
	m = readLong(t, io.MultiReader(strings.NewReader(`{"session_id":"s","out":"head `+mid+`<private>hidden `), io.LimitReader(repeatByte('p'), n),
		strings.NewReader(` PrivTail05</private> public tail","after":[1,"x"]}`)))
	if out := m["out"].(string); strings.Contains(out, "PrivTail05") || !strings.HasPrefix(out, "head ") || !strings.Contains(out, "omitted") {
		t.Errorf("a tag opened in the skipped bytes: %.40q … %.40q", out, out[len(out)-40:])
	}
	// Tags that are not stripped ones (<b>, </div>) keep the tail.
	m = readLong(t, longDoc("head ", n/2, 'x', "<b>bold</b></div> tail"))
	if out := m["out"].(string); !strings.HasSuffix(out, "<b>bold</b></div> tail") {
		t.Errorf("the tail was dropped: %.40q", out[len(out)-40:])
	}
	// A look-alike '<' (fullwidth) before "private" in the skipped bytes.
	m = readLong(t, io.MultiReader(strings.NewReader(`{"session_id":"s","out":"head `+mid+"\uFF1Cprivate> "), io.LimitReader(repeatByte('q'), n),
		strings.NewReader(` PrivTail06</private> public","after":[1,"x"]}`)))
	if strings.Contains(m["out"].(string), "PrivTail06") {
		t.Error("a look-alike tag opened in the skipped bytes kept the tail")
	}
	// A block opened in the head and closed in the tail.
	m = readLong(t, longDoc("head <private>PrivHead07 ", n, 'w', " PrivTail08</private> public tail"))
	if out := m["out"].(string); strings.Contains(out, "PrivHead07") || strings.Contains(out, "PrivTail08") || !strings.HasSuffix(out, "public tail") {
		t.Errorf("a block across the cut: %.60q", out)
	}
}

// A 100 MB string is read in bounded memory.
func TestReadPayloadMemoryBounded(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("one goroutine, nothing for the race detector to watch: make test runs it without it (test-norace)")
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	readLong(t, longDoc("head ", 100<<20, 'x', " tail"))
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("reading a 100 MB string allocated %d MB", alloc>>20)
	}
}

func TestReadPayloadReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Builtins().ReadPayload(io.MultiReader(strings.NewReader(`{"a":"`), iotestErr{boom}))
	if !errors.Is(err, boom) {
		t.Errorf("got %v", err)
	}
	if _, err := Builtins().ReadPayload(bytes.NewReader(nil)); err == nil {
		t.Error("an empty payload read")
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }
