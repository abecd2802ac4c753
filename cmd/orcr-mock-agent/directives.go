package main

import (
	"strconv"
	"strings"
)

// maxDirectiveMS caps millisecond directives and knobs (one day) so that
// conversion to a time.Duration can never overflow.
const maxDirectiveMS = 24 * 60 * 60 * 1000

// maxToolGaps caps the tool_gaps directive and knob.
const maxToolGaps = 10000

// optInt is an integer that may be absent.
type optInt struct {
	v  int
	ok bool
}

// directives holds the per-prompt directives found in one prompt. Fields a
// prompt did not mention are zero (absent).
type directives struct {
	turnMS   optInt
	toolGaps optInt
	gapMS    optInt
	deafMS   optInt // deaf_ms=<n>: a permission prompt drops the keys of its first n ms
	// call_late_ms=<n>: a call that asks writes its tool_use to the transcript n ms
	// after the dialog is shown and blocked reported (claude on a loaded machine)
	callLateMS optInt
	// call_same_ms: that late write keeps the file's mtime as it was, as an append
	// within the same millisecond as the write before it does
	callSameMS bool
	block      bool
	noWorking  bool   // no_working: the turn never reports working
	digest     bool   // digest: answer with the prompt's byte count and SHA-256
	say        string // non-empty when say=<word> was given
	write      string // non-empty when write=<relpath> was given
	tool       string // non-empty when tool=<name> was given: the turn calls that tool
	limit      string // non-empty when limit=<text> was given: the turn ends at a usage-limit message ("_" read as spaces)
	// tokens=<in>,<out>[,<cache_read>,<cache_write>[,<model>]]: the turn's answer reports
	// that usage, claude's way (message.usage, message.model); nil when absent.
	tokens *mockUsage
}

// parseDirectives scans prompt for whitespace-separated directive tokens:
// turn_ms=<n>, tool_gaps=<n>, gap_ms=<n>, deaf_ms=<n>, call_late_ms=<n>, call_same_ms, block, no_working, digest, say=<word>,
// write=<relpath>, tool=<name>, limit=<text> (underscores read as spaces) and
// tokens=<in>,<out>[,<cache_read>,<cache_write>[,<model>]], each optionally prefixed with one '@'. Tokens that are not
// directives, and directives with an empty, negative or non-numeric value, are
// ignored. A later token overrides an earlier one. Numbers are clamped to
// [maxDirectiveMS] (milliseconds) and [maxToolGaps] (gaps). It never panics.
func parseDirectives(prompt string) directives {
	var d directives
	for _, tok := range strings.Fields(prompt) {
		tok = strings.TrimPrefix(tok, "@")
		switch tok {
		case "block":
			d.block = true
			continue
		case "no_working":
			d.noWorking = true
			continue
		case "digest":
			d.digest = true
			continue
		case "call_same_ms":
			d.callSameMS = true
			continue
		}
		key, val, ok := strings.Cut(tok, "=")
		if !ok || val == "" {
			continue
		}
		switch key {
		case "turn_ms":
			if n, ok := parseCount(val, maxDirectiveMS); ok {
				d.turnMS = optInt{n, true}
			}
		case "gap_ms":
			if n, ok := parseCount(val, maxDirectiveMS); ok {
				d.gapMS = optInt{n, true}
			}
		case "deaf_ms":
			if n, ok := parseCount(val, maxDirectiveMS); ok {
				d.deafMS = optInt{n, true}
			}
		case "call_late_ms":
			if n, ok := parseCount(val, maxDirectiveMS); ok {
				d.callLateMS = optInt{n, true}
			}
		case "tool_gaps":
			if n, ok := parseCount(val, maxToolGaps); ok {
				d.toolGaps = optInt{n, true}
			}
		case "say":
			d.say = val
		case "write":
			d.write = val
		case "tool":
			d.tool = val
		case "limit":
			d.limit = strings.ReplaceAll(val, "_", " ")
		case "tokens":
			if u, ok := parseTokens(val); ok {
				d.tokens = u
			}
		}
	}
	return d
}

// parseTokens parses the value of tokens=: four counts, then optionally a model.
func parseTokens(val string) (*mockUsage, bool) {
	parts := strings.Split(val, ",")
	if len(parts) == 2 { // tokens=<in>,<out>: nothing from or into the cache
		parts = append(parts, "0", "0")
	}
	if len(parts) != 4 && len(parts) != 5 {
		return nil, false
	}
	var n [4]int64
	for i := range n {
		c, ok := parseCount(parts[i], maxTokens)
		if !ok {
			return nil, false
		}
		n[i] = int64(c)
	}
	u := &mockUsage{Input: n[0], Output: n[1], CacheRead: n[2], CacheWrite: n[3]}
	if len(parts) == 5 {
		u.Model = parts[4]
	}
	return u, true
}

// maxTokens clamps each count of tokens=.
const maxTokens = 1 << 40

// parseCount parses a non-negative decimal integer, clamping it to max.
// Values too large for an int are clamped too.
func parseCount(s string, max int) (int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > max {
		// Only digits, so the one possible error is a range error.
		return max, true
	}
	return n, true
}
