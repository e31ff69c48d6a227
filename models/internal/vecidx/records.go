package vecidx

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Records keeps the exact vectors of an Index, entry i the i-th appended,
// each as stored (RecordBytes) and what its user appends to it (models:
// the row's time and session, to check its filters exactly): in memory
// for a small index (MemRecords), in a file for a large one
// (FileRecords), where rescoring a few thousand candidates reads them
// back.
//
// Like an Index, records are appended by one writer, which the caller
// serialises, and read by many: a reader reads only the entries of the
// index it holds, all appended (and flushed) before it got it.
type Records interface {
	// Append appends one record.
	Append(rec []byte) error
	// Flush makes the records appended so far readable.
	Flush() error
	// Score sets the Score of each candidate (sorted by entry) to the
	// exact similarity of its record to q (DotRecord), or its Entry to
	// -1 when accept (nil: all) refuses its record.
	Score(q []float32, cands []Candidate, accept Accept) error
	// Grown is the records an index grown from one holding these
	// appends to (Index.Grown).
	Grown() Records
	// Bytes is the memory the records hold.
	Bytes() int
}

// MemRecords keeps records in memory, in chunks of ChunkEntries.
type MemRecords struct {
	size   int
	chunks [][]byte
	n      int
}

// NewMemRecords keeps records of size bytes in memory.
func NewMemRecords(size int) *MemRecords { return &MemRecords{size: size} }

// Append implements Records.
func (m *MemRecords) Append(rec []byte) error {
	k := m.n % ChunkEntries
	if k == 0 {
		m.chunks = append(m.chunks, make([]byte, ChunkEntries*m.size))
	}
	copy(m.chunks[len(m.chunks)-1][k*m.size:(k+1)*m.size], rec)
	m.n++
	return nil
}

// Flush implements Records.
func (m *MemRecords) Flush() error { return nil }

// record is entry i's record.
func (m *MemRecords) record(i int) []byte {
	k := i % ChunkEntries
	return m.chunks[i/ChunkEntries][k*m.size : (k+1)*m.size]
}

// Score implements Records.
func (m *MemRecords) Score(q []float32, cands []Candidate, accept Accept) error {
	for j := range cands {
		e := int(cands[j].Entry)
		rec := m.record(e)
		if accept != nil && !accept(e, rec) {
			cands[j].Entry = -1
			continue
		}
		cands[j].Score = DotRecord(q, rec)
	}
	return nil
}

// Grown implements Records: a copy whose chunk list is its own.
func (m *MemRecords) Grown() Records {
	nm := *m
	nm.chunks = append([][]byte(nil), m.chunks...)
	return &nm
}

// Bytes implements Records.
func (m *MemRecords) Bytes() int { return len(m.chunks) * ChunkEntries * m.size }

// Len is the number of records.
func (m *MemRecords) Len() int { return m.n }

// Each calls f with each record in order, until it returns an error.
func (m *MemRecords) Each(f func(rec []byte) error) error {
	for i := range m.n {
		if err := f(m.record(i)); err != nil {
			return err
		}
	}
	return nil
}

// FileRecords keeps records in a file of their own, which nothing else
// opens: on Linux and macOS it is removed from its directory as soon as
// it is made (its space is freed when it is closed, and a crash leaves
// nothing behind); on Windows, which cannot remove an open file, when it
// is closed (RemoveStale removes what a crash left).
//
// The records are encrypted (AES-256 in counter mode, a record's entry its
// nonce) with a random key that only the process's memory holds: what
// the file leaves on the disk, once closed, is noise. So the vectors of
// rows deleted since it was written (a forget, retention) leave the disk
// when the index is loaded again and this file let go of, without
// writing it over.
//
// It is closed when its last holder releases it (Acquire, Release): the
// index that holds it, and each search reading it meanwhile.
type FileRecords struct {
	f      *os.File
	path   string // "" once removed
	size   int
	n      int64
	w      *bufio.Writer
	aes    cipher.Block
	buf    []byte // Append's
	refs   atomic.Int32
	closed sync.Once
	err    error
}

// FilePattern is the name of the records files in their directory.
const FilePattern = "vectors-*.tmp"

// CreateFileRecords makes an empty records file of records of size bytes
// in dir, held once (Release closes it).
func CreateFileRecords(dir string, size int) (*FileRecords, error) {
	key := make([]byte, 32)
	rand.Read(key)
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, FilePattern)
	if err != nil {
		return nil, err
	}
	r := &FileRecords{f: f, path: f.Name(), size: size, w: bufio.NewWriterSize(f, 1<<20), aes: block, buf: make([]byte, size)}
	if os.Remove(r.path) == nil {
		r.path = ""
	}
	r.refs.Store(1)
	return r, nil
}

// RemoveStale removes the records files a process that ended without
// closing them left in dir (on Windows; elsewhere none are left), and
// that no one holds open.
func RemoveStale(dir string) {
	names, _ := os.ReadDir(dir)
	for _, e := range names {
		if ok, _ := filepath.Match(FilePattern, e.Name()); ok {
			os.Remove(filepath.Join(dir, e.Name())) // fails while open: kept
		}
	}
}

// Append implements Records.
func (r *FileRecords) Append(rec []byte) error {
	r.crypt(r.n, r.buf, rec[:r.size])
	if _, err := r.w.Write(r.buf); err != nil {
		return err
	}
	r.n++
	return nil
}

// crypt encrypts or decrypts entry i's record src into dst.
func (r *FileRecords) crypt(i int64, dst, src []byte) {
	var iv [aes.BlockSize]byte
	binary.BigEndian.PutUint64(iv[:8], uint64(i))
	cipher.NewCTR(r.aes, iv[:]).XORKeyStream(dst, src)
}

// Flush implements Records. The first makes the write buffer small: a
// load appends a great many records, the indexer a few at a time.
func (r *FileRecords) Flush() error {
	if err := r.w.Flush(); err != nil {
		return err
	}
	if r.w.Size() > 64<<10 {
		r.w = bufio.NewWriterSize(r.f, 64<<10)
	}
	return nil
}

// Grown implements Records: the same file.
func (r *FileRecords) Grown() Records { return r }

// Bytes implements Records: the file is on disk, not in memory.
func (r *FileRecords) Bytes() int { return 0 }

// DiskBytes is the size of the file.
func (r *FileRecords) DiskBytes() int64 { return r.n * int64(r.size) }

// Score implements Records: one read a record, in entry order, in two
// halves at once when there are many.
func (r *FileRecords) Score(q []float32, cands []Candidate, accept Accept) error {
	if len(cands) < 64 {
		return r.score(q, cands, accept)
	}
	half := len(cands) / 2
	var err1 error
	var wg sync.WaitGroup
	wg.Go(func() { err1 = r.score(q, cands[:half], accept) })
	err2 := r.score(q, cands[half:], accept)
	wg.Wait()
	return errors.Join(err1, err2)
}

func (r *FileRecords) score(q []float32, cands []Candidate, accept Accept) error {
	buf := make([]byte, r.size)
	for j := range cands {
		e := int64(cands[j].Entry)
		if _, err := r.f.ReadAt(buf, e*int64(r.size)); err != nil {
			return err
		}
		r.crypt(e, buf, buf)
		if accept != nil && !accept(int(e), buf) {
			cands[j].Entry = -1
			continue
		}
		cands[j].Score = DotRecord(q, buf)
	}
	return nil
}

// Held is how many hold the file open (0: closed).
func (r *FileRecords) Held() int { return int(r.refs.Load()) }

// Acquire holds the file open for one more reader.
func (r *FileRecords) Acquire() { r.refs.Add(1) }

// Release lets go of one hold; the last closes the file (and its key is
// dropped) and removes it where it was not yet.
func (r *FileRecords) Release() {
	if r.refs.Add(-1) == 0 {
		r.closed.Do(func() {
			r.err = r.f.Close()
			if r.path != "" {
				r.err = errors.Join(r.err, os.Remove(r.path))
			}
			r.aes = nil
		})
	}
}

// Err is what closing the file went wrong with, if anything.
func (r *FileRecords) Err() error { return r.err }
