package privacy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ReadPayload reads one JSON document from r, in bounded memory whatever
// its size: each string longer than a cut's two ends (see cutKeep) is
// kept as its head and tail only, cleaned and marked as CleanPayload's
// window cleans and marks a long string, as it is read; the rest of the
// document is kept as it is. What it returns is a document of the same
// shape, with the same members, for CleanPayload. The hook reads a
// payload over its limit this way (a 150 MB tool response), instead of
// cutting it mid-document and losing the event.
//
// A string's head and tail are cleaned together, the bytes between them
// unread, so a tag opened in the head closes in the tail as it would in
// the whole string. When the bytes skipped may hold the opening of a tag
// (a '<', or a look-alike, followed by what may start a tag's name), the
// tail is dropped too: what follows it may be private.
func (r *Redactor) ReadPayload(in io.Reader) ([]byte, error) {
	p := &payloadReader{in: bufio.NewReaderSize(in, 64<<10), r: r}
	c, err := p.skipSpace()
	if err != nil {
		return nil, err
	}
	if err := p.value(c, 0); err != nil {
		return nil, err
	}
	switch c, err := p.skipSpace(); {
	case err == io.EOF:
		return p.out.Bytes(), nil
	case err != nil:
		return nil, err
	default:
		return nil, errors.New("privacy: data after the JSON document: " + strconv.QuoteRune(rune(c)))
	}
}

// cutKeep is how much of each end of a string cut while read is kept, a
// little less than ShrinkKeep so that CleanPayload does not cut it again;
// cutRead is how much of each end is read for it (the margin is redacted
// with what is kept, see windowMargin).
const (
	cutKeep = ShrinkKeep - 128
	cutRead = cutKeep + windowMargin
)

// maxReadDepth bounds the nesting of a document read by ReadPayload, as
// encoding/json bounds it.
const maxReadDepth = 10000

var errSyntax = errors.New("privacy: the payload is not one JSON document")

type payloadReader struct {
	in  *bufio.Reader
	r   *Redactor
	out bytes.Buffer
}

func (p *payloadReader) skipSpace() (byte, error) {
	for {
		c, err := p.in.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, nil
		}
	}
}

// next is skipSpace where the document must go on.
func (p *payloadReader) next() (byte, error) {
	c, err := p.skipSpace()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return c, err
}

func (p *payloadReader) value(c byte, depth int) error {
	if depth > maxReadDepth {
		return errSyntax
	}
	switch {
	case c == '{':
		return p.container('}', depth, true)
	case c == '[':
		return p.container(']', depth, false)
	case c == '"':
		return p.str()
	case c == '-' || '0' <= c && c <= '9' || c == 't' || c == 'f' || c == 'n':
		return p.literal(c)
	}
	return errSyntax
}

// container reads an object's members or an array's elements, up to end.
func (p *payloadReader) container(end byte, depth int, object bool) error {
	p.out.WriteByte(map[bool]byte{true: '{', false: '['}[object])
	c, err := p.next()
	if err != nil {
		return err
	}
	if c == end {
		p.out.WriteByte(end)
		return nil
	}
	for {
		if object {
			if c != '"' {
				return errSyntax
			}
			if err := p.str(); err != nil {
				return err
			}
			if c, err = p.next(); err != nil {
				return err
			}
			if c != ':' {
				return errSyntax
			}
			p.out.WriteByte(':')
			if c, err = p.next(); err != nil {
				return err
			}
		}
		if err := p.value(c, depth+1); err != nil {
			return err
		}
		if c, err = p.next(); err != nil {
			return err
		}
		switch c {
		case end:
			p.out.WriteByte(end)
			return nil
		case ',':
			p.out.WriteByte(',')
			if c, err = p.next(); err != nil {
				return err
			}
		default:
			return errSyntax
		}
	}
}

// literal copies a number, true, false or null; CleanPayload's decoding
// checks it.
func (p *payloadReader) literal(c byte) error {
	p.out.WriteByte(c)
	for {
		c, err := p.in.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !(c == '-' || c == '+' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return p.in.UnreadByte()
		}
		p.out.WriteByte(c)
	}
}

// str reads a string (its opening quote read), decoding its escapes into
// a cutString, and writes it: whole when it is short, else its ends
// cleaned and the cut marked.
func (p *payloadReader) str() error {
	var s cutString
	var buf [utf8.UTFMax]byte
	for {
		// The plain bytes in the buffer, in one go.
		if chunk, _ := p.in.Peek(max(p.in.Buffered(), 1)); len(chunk) > 0 {
			i := 0
			for i < len(chunk) && chunk[i] != '"' && chunk[i] != '\\' && chunk[i] >= 0x20 {
				i++
			}
			if i > 0 {
				s.addBytes(chunk[:i])
				p.in.Discard(i)
				continue
			}
		}
		c, err := p.in.ReadByte()
		if err != nil {
			return unexpected(err)
		}
		switch {
		case c == '"':
			return p.writeString(&s)
		case c < 0x20:
			return errSyntax
		case c != '\\':
			s.add(c)
			continue
		}
		c, err = p.in.ReadByte()
		if err != nil {
			return unexpected(err)
		}
		switch c {
		case '"', '\\', '/':
			s.add(c)
		case 'b':
			s.add('\b')
		case 'f':
			s.add('\f')
		case 'n':
			s.add('\n')
		case 'r':
			s.add('\r')
		case 't':
			s.add('\t')
		case 'u':
			r, err := p.escapedRune()
			if err != nil {
				return err
			}
			n := utf8.EncodeRune(buf[:], r)
			for _, b := range buf[:n] {
				s.add(b)
			}
		default:
			return errSyntax
		}
	}
}

// escapedRune reads the XXXX of a \uXXXX escape, and of the second half
// of a surrogate pair; a lone surrogate reads as U+FFFD, as encoding/json
// reads it.
func (p *payloadReader) escapedRune() (rune, error) {
	r, err := p.hex4()
	if err != nil || !utf16.IsSurrogate(r) {
		return r, err
	}
	if b, _ := p.in.Peek(2); len(b) == 2 && b[0] == '\\' && b[1] == 'u' {
		p.in.Discard(2)
		r2, err := p.hex4()
		if err != nil {
			return 0, err
		}
		if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
			return d, nil
		}
		// Not a pair: the first half is lost, the second read as it is.
		if utf16.IsSurrogate(r2) {
			return utf8.RuneError, nil
		}
		return r2, nil
	}
	return utf8.RuneError, nil
}

func (p *payloadReader) hex4() (rune, error) {
	var r rune
	for k := 0; k < 4; k++ {
		c, err := p.in.ReadByte()
		if err != nil {
			return 0, unexpected(err)
		}
		if !isHex(c) {
			return 0, errSyntax
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (p *payloadReader) writeString(s *cutString) error {
	var v string
	if !s.cut() {
		v = string(s.head)
	} else {
		tail := ""
		if !s.tagSkipped() {
			tail = s.tailString()
		}
		v = p.r.cleanCut(string(s.head), tail, s.n-len(s.head)-len(tail))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	p.out.Write(b)
	return nil
}

// cutString holds a string as it is read: all of it while it fits in
// 2*cutRead bytes, else its first and its last cutRead bytes, and whether
// the bytes between them may open a tag.
type cutString struct {
	head []byte // the first cutRead bytes (all of a short string)
	tail []byte // a ring of the last cutRead bytes past the head
	end  int    // where the ring's next byte goes
	n    int    // bytes read

	// tagAt is where the first possible tag opening at or after
	// cutRead-tagReach starts, or -1; last holds the last three bytes
	// read, to see a look-alike '<'; ltEnd is just past the last '<' or
	// look-alike seen, or -1.
	tagAt, ltEnd int
	last         uint32
}

// tagReach is how far before the end of the head a tag that goes on past
// it may start.
const tagReach = 64

func (s *cutString) add(c byte) { s.addBytes([]byte{c}) }

func (s *cutString) addBytes(b []byte) {
	if s.n == 0 {
		s.tagAt, s.ltEnd = -1, -1
	}
	if s.tagAt < 0 && s.n+len(b) > cutRead-tagReach {
		s.watchTags(b)
	}
	if k := min(len(b), cutRead-len(s.head)); k > 0 {
		s.head = append(s.head, b[:k]...)
		s.n += k
		b = b[k:]
	}
	if k := min(len(b), cutRead-len(s.tail)); k > 0 {
		s.tail = append(s.tail, b[:k]...)
		s.n += k
		b = b[k:]
	}
	if skip := len(b) - cutRead; skip > 0 {
		s.n += skip // the ring's bytes only: the rest is skipped
		b = b[skip:]
	}
	for len(b) > 0 {
		k := copy(s.tail[s.end:], b)
		s.end = (s.end + k) % cutRead
		s.n += k
		b = b[k:]
	}
}

// watchTags notes where the first possible tag opening near or past the
// end of the head starts, in b, the bytes from s.n on: a '<' (or a
// look-alike) followed by a letter a stripped tag's name starts with, or
// by a byte past ASCII (a look-alike or invisible rune).
func (s *cutString) watchTags(b []byte) {
	for i, c := range b {
		pos := s.n + i
		if s.ltEnd == pos && (c >= utf8.RuneSelf || c|0x20 == 'p' || c|0x20 == 'm' || c|0x20 == 'c' || c|0x20 == 's') {
			s.tagAt = max(pos-utf8.UTFMax, 0)
			return
		}
		s.last = s.last<<8 | uint32(c)
		if pos < cutRead-tagReach {
			continue
		}
		if c == '<' || c >= utf8.RuneSelf && ltLookalike(s.last&0xFFFFFF) {
			s.ltEnd = pos + 1
		}
	}
}

// ltLookalike reports whether the three bytes of v are a look-alike '<'
// (ltForms).
func ltLookalike(v uint32) bool {
	for _, lt := range ltForms {
		if len(lt) == 3 && v == uint32(lt[0])<<16|uint32(lt[1])<<8|uint32(lt[2]) {
			return true
		}
	}
	return false
}

func (s *cutString) cut() bool { return s.n > 2*cutRead }

// tagSkipped reports whether a possible tag opening starts before the
// tail kept.
func (s *cutString) tagSkipped() bool { return s.tagAt >= 0 && s.tagAt < s.n-len(s.tail) }

func (s *cutString) tailString() string {
	if len(s.tail) < cutRead {
		return string(s.tail)
	}
	return string(s.tail[s.end:]) + string(s.tail[:s.end])
}
