package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxFrame is the largest frame accepted, counted without the newline: 16 MiB.
const MaxFrame = 16 << 20

// ErrFrameTooLarge is returned by [FrameReader.Next] when a line exceeds the limit.
// The rest of the oversized line is not consumed; callers close the connection.
var ErrFrameTooLarge = errors.New("wire: frame too large")

// FrameTooLarge is the invalid_request error for a request frame over limit bytes
// (docs/protocol.md §2.5): details {reason: "frame_too_large", limit_bytes}, plus
// frame_bytes when the frame's size is known (size > 0). A server stops reading at the
// limit, so only a client refusing its own frame knows the size.
func FrameTooLarge(limit, size int) *Error {
	if size > 0 {
		return Invalid(ReasonFrameTooLarge,
			fmt.Sprintf("request frame of %d bytes exceeds the frame limit of %d bytes", size, limit),
			"limit_bytes", limit, "frame_bytes", size)
	}
	return Invalid(ReasonFrameTooLarge, fmt.Sprintf("request frame exceeds the frame limit of %d bytes", limit),
		"limit_bytes", limit)
}

// ErrTruncatedFrame is returned when the stream ends inside a frame.
var ErrTruncatedFrame = errors.New("wire: truncated frame")

// FrameReader reads newline-delimited frames, enforcing a size cap while reading so an
// oversized line is never buffered whole. Lines of only ASCII whitespace are skipped.
type FrameReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// NewFrameReader returns a reader with the given cap (MaxFrame when max <= 0) and a
// 64 KiB read buffer.
func NewFrameReader(r io.Reader, max int) *FrameReader {
	return NewFrameReaderSize(r, max, 64<<10)
}

// NewFrameReaderSize is [NewFrameReader] with a read buffer of size bytes (a client
// reading one reply needs less than a server connection reading many requests).
func NewFrameReaderSize(r io.Reader, max, size int) *FrameReader {
	if max <= 0 {
		max = MaxFrame
	}
	return &FrameReader{r: bufio.NewReaderSize(r, size), max: max}
}

// Next returns the next non-blank frame without its newline. The slice is valid until
// the next call. io.EOF means a clean end of stream.
func (fr *FrameReader) Next() ([]byte, error) {
	for {
		fr.buf = fr.buf[:0]
		for {
			chunk, err := fr.r.ReadSlice('\n')
			n := len(chunk)
			if n > 0 && chunk[n-1] == '\n' {
				n--
			}
			if len(fr.buf)+n > fr.max {
				return nil, ErrFrameTooLarge
			}
			fr.buf = append(fr.buf, chunk[:n]...)
			if err == nil {
				break
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				if len(bytes.TrimSpace(fr.buf)) == 0 {
					return nil, io.EOF
				}
				return nil, ErrTruncatedFrame
			}
			return nil, err
		}
		if len(bytes.TrimLeft(fr.buf, " \t\r\n\v\f")) == 0 {
			continue
		}
		return fr.buf, nil
	}
}
