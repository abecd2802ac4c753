package actors

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// MaxPromptBytes bounds a prompt (agent.run, agent.ask, agent.send): 8 MiB, half the
// socket's 16 MiB frame, so the bound is the same for every face and a prompt near it
// still fits a frame after JSON escaping (docs/decisions.md D9).
const MaxPromptBytes = 8 << 20

// CheckPrompt is the prompt check of agent.run, agent.ask and agent.send
// (docs/decisions.md D9). It returns the prompt to deliver: CRLF and lone CR turned
// into LF, and bytes that are not UTF-8 replaced by U+FFFD as the socket's JSON
// decoding replaces them, so every face gets the same answer. Any other control
// character — C0 but tab and newline, DEL, C1 — is refused with invalid_request,
// reason control_characters, details {offset, code}: the byte offset in prompt and the
// code point of the first one. A prompt over [MaxPromptBytes] is refused with reason
// prompt_too_large, details {limit_bytes, prompt_bytes}. A prompt typed into a
// terminal must not carry keys: ^C or ^D would stop the agent, ESC would interrupt it
// or end the bracketed paste the prompt is typed in.
func CheckPrompt(prompt string) (string, error) {
	if len(prompt) > MaxPromptBytes {
		return "", wire.Invalid(wire.ReasonPromptTooLarge,
			fmt.Sprintf("the prompt is %d bytes; at most %d are allowed", len(prompt), MaxPromptBytes),
			"limit_bytes", MaxPromptBytes, "prompt_bytes", len(prompt))
	}
	clean := true
	for i := 0; i < len(prompt); {
		c := prompt[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				if c == '\r' {
					clean = false
				} else if c != '\n' && c != '\t' {
					return "", controlCharacter(i, rune(c))
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(prompt[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			clean = false
		case r >= 0x80 && r <= 0x9f:
			return "", controlCharacter(i, r)
		}
		i += size
	}
	if clean {
		return prompt, nil
	}
	var b strings.Builder
	b.Grow(len(prompt))
	for i := 0; i < len(prompt); {
		r, size := utf8.DecodeRuneInString(prompt[i:])
		switch {
		case r == '\r':
			b.WriteByte('\n')
			if i+1 < len(prompt) && prompt[i+1] == '\n' {
				size = 2
			}
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError) // one per byte, as encoding/json does
		default:
			b.WriteString(prompt[i : i+size])
		}
		i += size
	}
	return b.String(), nil
}

func controlCharacter(offset int, r rune) error {
	return wire.Invalid(wire.ReasonControlCharacters,
		fmt.Sprintf("the prompt holds the control character U+%04X at byte %d; only newline and tab are allowed", r, offset),
		"offset", offset, "code", int(r))
}
