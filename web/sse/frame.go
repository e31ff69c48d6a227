package sse

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/mneme-dev/mneme/models"
)

// AppendFrame appends ev as one Server-Sent Events frame,
// "id: <id>\nevent: <kind>\ndata: <data>\n\n", to dst. Event data is JSON
// and has no line breaks; should it have some, each line becomes its own
// data: line, which a client joins back with "\n". An event without an id
// (one never logged, like import_progress) has no id line, so the client's
// Last-Event-ID stays where the log is.
func AppendFrame(dst []byte, ev models.Event) []byte {
	dst = slices.Grow(dst, len(ev.Data)+len(ev.Kind)+40)
	if ev.ID != 0 {
		dst = append(dst, "id: "...)
		dst = strconv.AppendInt(dst, ev.ID, 10)
		dst = append(dst, '\n')
	}
	dst = append(dst, "event: "...)
	dst = append(dst, ev.Kind...)
	dst = append(dst, "\ndata: "...)
	data := []byte(ev.Data)
	for bytes.IndexByte(data, '\n') >= 0 || bytes.IndexByte(data, '\r') >= 0 {
		i := bytes.IndexAny(data, "\r\n")
		dst = append(dst, data[:i]...)
		dst = append(dst, "\ndata: "...)
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	dst = append(dst, data...)
	return append(dst, "\n\n"...)
}
