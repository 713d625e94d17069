package idtype

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
)

// defaultRandomBuffer is how many bytes the default generators read from
// crypto/rand at a time. crypto/rand costs about 45 ns per call plus about
// 2 ns per byte here, so one 4 KiB read serves ~1000 IDs.
const defaultRandomBuffer = 4096

// randomSource hands out random bits from an io.Reader. With a buffer it
// reads ahead in blocks; without one it reads exactly the bytes each draw
// needs, so an injected reader's bytes map one to one onto ID fields.
// It is not safe for concurrent use; generators guard it with their lock.
type randomSource struct {
	r       io.Reader
	buf     []byte
	pos     int
	scratch [4]byte // unbuffered reads land here, so they do not allocate
}

func newRandomSource(r io.Reader, bufSize int) *randomSource {
	if r == nil {
		r = rand.Reader
	}
	s := &randomSource{r: r}
	if bufSize > 0 {
		s.buf = make([]byte, bufSize)
		s.pos = bufSize
	}
	return s
}

// bytes returns n random bytes (n <= 4) as a big-endian integer.
func (s *randomSource) bytes(n int) (uint32, error) {
	if s.buf == nil {
		s.scratch = [4]byte{}
		if _, err := io.ReadFull(s.r, s.scratch[4-n:]); err != nil {
			return 0, fmt.Errorf("%w: %w", ErrRandomSource, err)
		}
		return binary.BigEndian.Uint32(s.scratch[:]), nil
	}
	if s.pos+n > len(s.buf) {
		if _, err := io.ReadFull(s.r, s.buf); err != nil {
			return 0, fmt.Errorf("%w: %w", ErrRandomSource, err)
		}
		s.pos = 0
	}
	var v uint32
	for _, b := range s.buf[s.pos : s.pos+n] {
		v = v<<8 | uint32(b)
	}
	s.pos += n
	return v, nil
}

// bits returns a uniformly random integer of the given width (<= 32 bits),
// reading the fewest whole bytes that cover it.
func (s *randomSource) bits(width int) (uint32, error) {
	v, err := s.bytes((width + 7) / 8)
	return v & (1<<width - 1), err
}

// below returns a uniformly random integer in [0, n), n >= 1, by drawing
// the fewest bits that cover n-1 and redrawing those at or above n.
func (s *randomSource) below(n uint32) (uint32, error) {
	width := bits.Len32(n - 1)
	for {
		v, err := s.bits(width)
		if err != nil || v < n {
			return v, err
		}
	}
}
