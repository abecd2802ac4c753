package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// Webhook headers (docs/notify.md §4.1).
const (
	HeaderSignature = "X-Orcr-Signature" // sha256=<hex HMAC-SHA256 over "<timestamp>.<body>">
	HeaderTimestamp = "X-Orcr-Timestamp" // Unix seconds of the attempt
	HeaderDelivery  = "X-Orcr-Delivery"  // the delivery id, the same on every attempt
	HeaderEvent     = "X-Orcr-Event"     // the rule event name
)

// Sign returns the X-Orcr-Signature value of body sent at Unix second ts:
// "sha256=" and the hex HMAC-SHA256, keyed by secret, of the decimal ts, ".", and body.
func Sign(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify checks a received signature in constant time: what a receiver does with the
// X-Orcr-Timestamp and X-Orcr-Signature headers (it should also refuse old timestamps).
func Verify(secret, ts string, body []byte, signature string) bool {
	n, err := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
	if err != nil {
		return false
	}
	return hmac.Equal([]byte(Sign(secret, n, body)), []byte(signature))
}
