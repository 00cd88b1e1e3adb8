package inference

import (
	"bytes"
	"encoding/gob"
	"io"
	"testing"
)

// TestCountingReaderEndsAtTheGob: a gob decoded through a CountingReader
// is read no further than its end, which Count gives, so that the raw
// bytes after it (a result's draws, a fit file's encoding) are read next
// or found at that offset, whatever the buffer's size.
func TestCountingReaderEndsAtTheGob(t *testing.T) {
	var buf bytes.Buffer
	head := struct{ Name string }{"a header"}
	if err := gob.NewEncoder(&buf).Encode(&head); err != nil {
		t.Fatal(err)
	}
	gobSize := int64(buf.Len())
	buf.WriteString("raw bytes after the gob")
	for _, size := range []int{0, 16, 1 << 16} {
		cr := NewCountingReader(bytes.NewReader(buf.Bytes()), size)
		var got struct{ Name string }
		if err := gob.NewDecoder(cr).Decode(&got); err != nil {
			t.Fatal(err)
		}
		if got != head || cr.Count() != gobSize {
			t.Errorf("buffer %d: decoded %+v after %d bytes, want %+v after %d", size, got, cr.Count(), head, gobSize)
		}
		rest, err := io.ReadAll(cr)
		if err != nil || string(rest) != "raw bytes after the gob" || cr.Count() != int64(buf.Len()) {
			t.Errorf("buffer %d: then read %q (%v), %d bytes in all, want the raw bytes, %d", size, rest, err, cr.Count(), buf.Len())
		}
	}
}
