package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// decodeAll feeds chunks (with pause between them) to a decoder and returns
// every event up to and including keyEOF.
func decodeAll(t *testing.T, pause time.Duration, chunks ...string) []keyEvent {
	t.Helper()
	in := make(chan inputChunk)
	go func() {
		for i, c := range chunks {
			if i > 0 {
				time.Sleep(pause) // the pause between chunks is the input under test
			}
			in <- inputChunk{data: []byte(c)}
		}
		in <- inputChunk{err: io.EOF}
	}()
	d := &decoder{in: in}
	var evs []keyEvent
	for {
		ev := d.next()
		if ev.kind == keyEOF {
			ev.err = nil
			evs = append(evs, ev)
			return evs
		}
		evs = append(evs, ev)
	}
}

func TestDecoder(t *testing.T) {
	text := func(s string) keyEvent { return keyEvent{kind: keyText, text: s} }
	enter := keyEvent{kind: keyEnter}
	esc := keyEvent{kind: keyEsc}
	eof := keyEvent{kind: keyEOF}
	tests := []struct {
		name   string
		pause  time.Duration
		chunks []string
		want   []keyEvent
	}{
		{"typed line", 0, []string{"say=hi\r"}, []keyEvent{text("say=hi"), enter, eof}},
		{"newline submits", 0, []string{"a\nb\r\n"}, []keyEvent{text("a"), enter, text("b"), enter, enter, eof}},
		{"two-call delivery", 100 * time.Millisecond, []string{"hello", "\r"}, []keyEvent{text("hello"), enter, eof}},
		{"lone esc", 0, []string{"\x1b"}, []keyEvent{esc, eof}},
		{"lone esc then later text", 100 * time.Millisecond, []string{"\x1b", "x"}, []keyEvent{esc, text("x"), eof}},
		{"double esc", 0, []string{"\x1b\x1b"}, []keyEvent{esc, esc, eof}},
		{"esc followed by text in one chunk", 0, []string{"\x1bhi"}, []keyEvent{esc, text("hi"), eof}},
		{"arrow keys ignored", 0, []string{"a\x1b[A\x1b[1;5Cb\x1bOPc"}, []keyEvent{text("a"), text("b"), text("c"), eof}},
		{"csi split across reads", 10 * time.Millisecond, []string{"\x1b", "[", "B"}, []keyEvent{eof}},
		{"bracketed paste", 0, []string{"\x1b[200~one\r\ntwo\rthree\x1b[201~\r"}, []keyEvent{text("one\ntwo\nthree"), enter, eof}},
		{"paste split", 20 * time.Millisecond, []string{"\x1b[200~par", "t\x1b[2", "01~", "\r"}, []keyEvent{text("part"), enter, eof}},
		{"paste end marker split byte by byte", 5 * time.Millisecond, []string{"\x1b[200~ab", "\x1b", "[", "2", "0", "1", "~", "\r"}, []keyEvent{text("ab"), enter, eof}},
		{"paste end outside a paste ignored", 0, []string{"\x1b[201~\x05\x15\x1b[200~a\nb\x1b[201~\r"}, []keyEvent{{kind: keyCtrlU}, text("a\nb"), enter, eof}},
		{"paste without end", 0, []string{"\x1b[200~abc"}, []keyEvent{text("abc"), eof}},
		{"controls", 0, []string{"ab\x7f\x08\x03\x04\x15\x01"}, []keyEvent{text("ab"), {kind: keyBackspace}, {kind: keyBackspace}, {kind: keyCtrlC}, {kind: keyCtrlD}, {kind: keyCtrlU}, eof}},
		{"utf8 and tab", 0, []string{"héllo\twörld"}, []keyEvent{text("héllo\twörld"), eof}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeAll(t, tt.pause, tt.chunks...)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(keyEvent{})); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecoderEOFError(t *testing.T) {
	in := make(chan inputChunk, 1)
	in <- inputChunk{data: []byte("x"), err: io.ErrUnexpectedEOF}
	d := &decoder{in: in}
	if ev := d.next(); ev.kind != keyText || ev.text != "x" {
		t.Fatalf("first event = %+v, want text x", ev)
	}
	for range 2 {
		if ev := d.next(); ev.kind != keyEOF || ev.err != io.ErrUnexpectedEOF {
			t.Fatalf("event = %+v, want EOF with error", ev)
		}
	}
}

// A paste of megabytes arriving in small reads is one text event, decoded in linear
// time.
func TestDecoderLargePaste(t *testing.T) {
	body := strings.Repeat("0123456789abcdef\n", 1<<17) // 2.1 MB
	in := make(chan inputChunk, 64)
	go func() {
		all := "\x1b[200~" + body + "\x1b[201~\r"
		for len(all) > 0 {
			n := min(4096, len(all))
			in <- inputChunk{data: []byte(all[:n])}
			all = all[n:]
		}
		in <- inputChunk{err: io.EOF}
	}()
	d := &decoder{in: in}
	start := time.Now()
	if ev := d.next(); ev.kind != keyText || ev.text != body {
		t.Fatalf("first event: kind %v, %d bytes; want the whole paste (%d bytes)", ev.kind, len(ev.text), len(body))
	}
	if ev := d.next(); ev.kind != keyEnter {
		t.Fatalf("second event: %+v, want Enter", ev)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("decoding a 2 MB paste took %v", d)
	}
}
