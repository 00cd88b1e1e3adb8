package inference

import (
	"bufio"
	"io"
)

// A CountingReader reads through a buffer, counting the bytes read. It is
// an io.ByteReader, so a gob.Decoder reading it reads no further than the
// value it decodes, and Count then says where that value ends: a result's
// encoding (and a fit file, which holds one after a gob of its own) is a gob
// followed by raw bytes, which are read from the same CountingReader or
// found at that offset.
type CountingReader struct {
	r *bufio.Reader
	n int64
}

// NewCountingReader returns a CountingReader of r with a buffer of size
// bytes (bufio's default when size is 0 or less).
func NewCountingReader(r io.Reader, size int) *CountingReader {
	if size <= 0 {
		return &CountingReader{r: bufio.NewReader(r)}
	}
	return &CountingReader{r: bufio.NewReaderSize(r, size)}
}

// Count is the number of bytes read so far.
func (c *CountingReader) Count() int64 { return c.n }

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ReadByte reads one byte, counted when it is read.
func (c *CountingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}
