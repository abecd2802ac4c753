package actors_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/orcr-go/orcr/actors"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// refused reports whether CheckPrompt refuses r: C0 but tab, newline and CR, DEL, C1.
func refused(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (r >= 0x7f && r <= 0x9f)
}

// CheckPrompt either refuses the first control character, naming it exactly, or
// returns valid UTF-8 holding no control character but newline and tab, which it
// returns unchanged when checked again; and a prompt that went through the socket's
// JSON (invalid bytes replaced) gets the same answer.
func FuzzCheckPrompt(f *testing.F) {
	for _, s := range []string{
		"", "say=hello", "a\r\nb\rc\n\td", "\r", "\r\r\n\n", "say=x^C\x03\x04", "\x1b[200~paste\x1b[201~",
		"del\x7f", "é\u009b0m", "\u0085next line", "\xff\xfe", "ok\xe2\x82", "€😀 <&> \"q\" \\",
		"\x00", "tab\tok", "\u2028\u2029", "a\r\xffb",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := actors.CheckPrompt(in)
		if err != nil {
			pe, ok := wire.As(err)
			if !ok || pe.Code != wire.InvalidRequest || pe.Details["reason"] != wire.ReasonControlCharacters {
				t.Fatalf("CheckPrompt(%q): got %v, want invalid_request control_characters", in, err)
			}
			off, code := pe.Details["offset"].(int), pe.Details["code"].(int)
			for i, r := range in {
				if i == off {
					if rune(code) != r || !refused(r) {
						t.Fatalf("CheckPrompt(%q): names U+%04X at %d, but the rune there is U+%04X", in, code, off, r)
					}
					break
				}
				if refused(r) {
					t.Fatalf("CheckPrompt(%q): names offset %d, but U+%04X at %d comes first", in, off, r, i)
				}
			}
			return
		}
		if !utf8.ValidString(out) {
			t.Fatalf("CheckPrompt(%q) = %q: not UTF-8", in, out)
		}
		for _, r := range out {
			if refused(r) || r == '\r' {
				t.Fatalf("CheckPrompt(%q) = %q: holds U+%04X", in, out, r)
			}
		}
		if strings.Count(out, "\n") != strings.Count(in, "\n")+strings.Count(in, "\r")-strings.Count(in, "\r\n") {
			t.Fatalf("CheckPrompt(%q) = %q: line ends not one for one", in, out)
		}
		if again, err := actors.CheckPrompt(out); err != nil || again != out {
			t.Fatalf("CheckPrompt(CheckPrompt(%q)) = %q, %v; want it unchanged", in, again, err)
		}
		b, _ := json.Marshal(in)
		var wired string
		if err := json.Unmarshal(b, &wired); err != nil {
			t.Fatal(err)
		}
		if viaJSON, err := actors.CheckPrompt(wired); err != nil || viaJSON != out {
			t.Fatalf("CheckPrompt through JSON of %q = %q, %v; want %q", in, viaJSON, err, out)
		}
	})
}
