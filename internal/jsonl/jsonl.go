// Package jsonl reads JSON Lines files: the hand-labelled benchmark
// corpora (extraction, trust, outcomes) keep one item a line.
package jsonl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// Read decodes every line of the file at path into a T.
func Read[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}
