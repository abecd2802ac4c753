package modeltest

import (
	"strconv"
	"strings"
)

// maxMS caps every millisecond and second value (one day) so that no conversion to a
// time.Duration can overflow.
const maxMS = 24 * 60 * 60 * 1000

// maxTokens caps the token counts of tokens=.
const maxTokens = 1 << 30

// Directives is what one user text asks of the model (docs/providers.md §10.1). Fields
// the text did not mention are zero.
type Directives struct {
	Say       string // say=<word>: the answer's text (default "ok")
	Think     string // think=<word>: a thinking block before the answer
	Tool      string // tool=bash:<cmd>: the command of a shell tool call ("_" read as spaces)
	Escalate  bool   // escalate: the tool call asks to run outside codex's sandbox (codex asks for approval)
	StreamMS  int    // stream_ms=<n>: pause between stream events
	Stall     bool   // stall: headers sent, then silence until the client leaves or Release
	StallMS   int    // stall_ms=<n>: headers sent, then silence for n ms, then the stream
	Limit     bool   // limit=429: a rate-limit answer until ResetS seconds after the first
	ResetS    int    // reset=<seconds>: when the limit lifts, from the first request (default 60)
	Overload  int    // overloaded[=<n>]: the first n requests answer 529/overloaded (-1: all)
	TokensIn  int    // tokens=<in>,<out>[,<cache read>[,<cache write>[,<reasoning>]]]
	TokensOut int
	CacheRead int
	CacheNew  int
	Reasoning int  // the part of TokensOut spent reasoning (the OpenAI API reports it)
	Tokens    bool // tokens= was given
	// quota=<primary %>[,<secondary %>]: an answer within the limits carries the quota
	// windows' headers (codex's x-codex-primary/secondary-*, claude's
	// anthropic-ratelimit-unified-5h/7d-*), the windows used that many percent (0–100),
	// resetting ResetS seconds (default 60) after the answer.
	QuotaPrimary, QuotaSecondary int
	Quota                        bool // quota= was given
}

// ParseDirectives scans text for whitespace-separated directive tokens, each optionally
// prefixed with one '@': say=, think=, tool=bash:<cmd>, escalate, stream_ms=, stall, stall_ms=,
// limit=429, reset=, overloaded, overloaded=<n>, tokens= and quota=. Tokens that are not
// directives, and directives with a value they do not take, are ignored; a later token
// overrides an earlier one; numbers are clamped. It never panics.
func ParseDirectives(text string) Directives {
	var d Directives
	for _, tok := range strings.Fields(text) {
		tok = strings.TrimPrefix(tok, "@")
		switch tok {
		case "stall":
			d.Stall = true
			continue
		case "overloaded":
			d.Overload = -1
			continue
		case "escalate":
			d.Escalate = true
			continue
		}
		key, val, ok := strings.Cut(tok, "=")
		if !ok || val == "" {
			continue
		}
		switch key {
		case "say":
			d.Say = val
		case "think":
			d.Think = val
		case "tool":
			if cmd, ok := strings.CutPrefix(val, "bash:"); ok && cmd != "" {
				d.Tool = strings.ReplaceAll(cmd, "_", " ")
			}
		case "stream_ms":
			if n, ok := count(val, maxMS); ok {
				d.StreamMS = n
			}
		case "stall_ms":
			if n, ok := count(val, maxMS); ok {
				d.StallMS = n
			}
		case "limit":
			if val == "429" {
				d.Limit = true
			}
		case "reset":
			if n, ok := count(val, maxMS/1000); ok {
				d.ResetS = n
			}
		case "overloaded":
			if n, ok := count(val, maxMS); ok {
				d.Overload = n
			}
		case "quota":
			p, sec, two := strings.Cut(val, ",")
			a, okA := count(p, 100)
			b, okB := count(sec, 100)
			if okA && (!two || okB) {
				d.Quota, d.QuotaPrimary, d.QuotaSecondary = true, a, b
			}
		case "tokens":
			parts := strings.Split(val, ",")
			if len(parts) < 2 || len(parts) > 5 {
				continue
			}
			var n [5]int
			good := true
			for i, p := range parts {
				v, ok := count(p, maxTokens)
				if !ok {
					good = false
					break
				}
				n[i] = v
			}
			if good && n[4] <= n[1] {
				d.Tokens = true
				d.TokensIn, d.TokensOut, d.CacheRead, d.CacheNew, d.Reasoning = n[0], n[1], n[2], n[3], n[4]
			}
		}
	}
	return d
}

// count parses a non-negative decimal integer, clamping it to max.
func count(s string, max int) (int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > max {
		return max, true // only digits: the one possible error is a range error
	}
	return n, true
}
