package herdrtest

import (
	"fmt"
	"time"
)

// idAlphabet is herdr's bijective base-32 digit alphabet (digit values 1..32).
const idAlphabet = "123456789ABCDEFGHJKMNPQRSTVWXYZ0"

// encodeID renders n ≥ 1 in herdr's bijective base-32: 1→"1", 32→"0", 33→"11".
func encodeID(n uint64) string {
	if n == 0 {
		return "0"
	}
	var buf []byte
	for n > 0 {
		n--
		buf = append(buf, idAlphabet[n%32])
		n /= 32
	}
	for i, j := 0, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	return string(buf)
}

// newTerminalID returns a terminal id in herdr's `term_<hex micros><hex counter>` form.
func newTerminalID(counter uint64) string {
	return fmt.Sprintf("term_%x%x", time.Now().UnixMicro(), counter)
}
