package herdr

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// EscapedLen agrees with encoding/json on every byte, on runes from every range that
// escapes differently, and on random strings.
func TestEscapedLenMatchesJSON(t *testing.T) {
	var cases []string
	for b := 0; b < 256; b++ {
		cases = append(cases, string([]byte{byte(b)}))
	}
	for r := rune(0); r < 0x3000; r++ {
		cases = append(cases, string(r))
	}
	cases = append(cases, "\U0001F600", "\uFFFD", "\uFEFF", "\xe2\x82", "€\xff€", "a\x00b<>&\u2028\u2029\"\\")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		cases = append(cases, randomText(rng, 1+rng.IntN(300)))
	}
	for _, s := range cases {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := EscapedLen(s), len(b)-2; got != want {
			t.Errorf("EscapedLen(%q): got %d, want %d (json %s)", s, got, want, b)
		}
	}
}

// randomText mixes ASCII, characters JSON escapes, multi-byte runes and (rarely)
// invalid bytes.
func randomText(rng *rand.Rand, n int) string {
	pieces := []string{"a", "Z", " ", "\n", "\t", "\r", "\x01", "\x1b", "<", ">", "&", `"`, `\`,
		"é", "€", "😀", "\u2028", "\u0085", "\xff"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func TestChunkTextEdges(t *testing.T) {
	cases := []struct {
		name   string
		s      string
		budget int
		want   []string
	}{
		{"empty", "", 10, []string{""}},
		{"exactly the budget", "abcdefghij", 10, []string{"abcdefghij"}},
		{"one byte over", "abcdefghijk", 10, []string{"abcdefghij", "k"}},
		{"twice the budget", "abcdefghijABCDEFGHIJ", 10, []string{"abcdefghij", "ABCDEFGHIJ"}},
		{"a rune is never split", "€€€", 7, []string{"€€", "€"}},
		{"a rune exactly at the edge", "a€€", 7, []string{"a€€"}},
		{"a rune one byte past the edge", "ab€€", 7, []string{"ab€", "€"}},
		{"four-byte runes", "😀😀😀", 8, []string{"😀😀", "😀"}},
		{"escapes count escaped", "<<<", 12, []string{"<<", "<"}},
		{"short escapes", "\n\n\n\n\n", 4, []string{"\n\n", "\n\n", "\n"}},
		{"an escape exactly at the edge", "ab\n", 4, []string{"ab\n"}},
		{"an escape one byte past the edge", "abc\n", 4, []string{"abc", "\n"}},
		{"a budget below one rune still progresses", "€€", 2, []string{"€", "€"}},
	}
	for _, c := range cases {
		got := chunkText(c.s, c.budget)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("%s: chunkText(%q, %d): got %q, want %q", c.name, c.s, c.budget, got, c.want)
		}
	}
}

// On random text every chunk fits, holds whole runes, is as long as it can be, and the
// chunks put together are the text.
func TestChunkTextProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		s := randomText(rng, rng.IntN(2000))
		budget := 6 + rng.IntN(200)
		chunks := chunkText(s, budget)
		if strings.Join(chunks, "") != s {
			t.Fatalf("chunkText(%q, %d) does not reassemble: %q", s, budget, chunks)
		}
		for i, c := range chunks {
			if EscapedLen(c) > budget {
				t.Fatalf("chunk %d of %q: escaped %d > budget %d", i, s, EscapedLen(c), budget)
			}
			if i > 0 && !utf8.RuneStart(c[0]) {
				t.Fatalf("chunk %d of %q starts inside a rune: %q", i, s, c)
			}
			if i < len(chunks)-1 {
				r, size := utf8.DecodeRuneInString(chunks[i+1])
				if EscapedLen(c)+escapedRuneLen(r, size) <= budget {
					t.Fatalf("chunk %d of %q could have taken the next rune: %q (budget %d)", i, s, c, budget)
				}
			}
		}
	}
}

// The budget of a pane.send_text request is exact: text of that escaped length makes a
// request line of exactly MaxRequest bytes with the longest possible id, one byte more
// is refused.
func TestSendTextBudgetIsTheLimit(t *testing.T) {
	const pane = "w12:p345"
	b := sendTextBudget(pane)
	if b < MaxRequest-200 {
		t.Fatalf("budget %d: too much overhead", b)
	}
	line, err := encodeRequestID(maxRequestID, MethodPaneSendText, map[string]any{"pane_id": pane, "text": strings.Repeat("z", b)})
	if err != nil || len(line) != MaxRequest {
		t.Fatalf("a text of the budget: %d bytes, %v; want exactly %d", len(line), err, MaxRequest)
	}
	if _, err := encodeRequestID(maxRequestID, MethodPaneSendText, map[string]any{"pane_id": pane, "text": strings.Repeat("z", b+1)}); err == nil {
		t.Fatalf("a text one byte over the budget was not refused")
	}
}

// Submit resets the input box, types the text as one bracketed paste in several
// requests each within the limit (markers whole, runes whole), pauses and presses Enter.
func TestSubmitPasteClearAndChunks(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string {
		if req["method"] == "pane.list" {
			return ok(req, `{"type":"pane_list","panes":[{"pane_id":"w2:p1","terminal_id":"term_1","workspace_id":"w2","tab_id":"w2:t1","focused":false,"agent_status":"idle","revision":0}]}`)
		}
		return ok(req, `{"type":"ok"}`)
	})
	r := NewRemote(s.path)
	var b strings.Builder
	for b.Len() < 3*MaxRequest {
		b.WriteString("line <é€😀> \"quoted\"\tand\\\n")
	}
	text := b.String()
	err := r.Submit(context.Background(), "term_1", Submission{Text: text, Paste: true, Clear: []string{"ctrl+e", "ctrl+u"}})
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	reqs, sizes := s.requests(), s.lineSizes()
	var calls []string
	var texts []string
	for i, q := range reqs {
		if sizes[i] > MaxRequest {
			t.Errorf("request %d (%s): %d bytes, over the %d limit", i, q["method"], sizes[i], MaxRequest)
		}
		p := q["params"].(map[string]any)
		switch q["method"] {
		case "pane.send_text":
			calls = append(calls, "text")
			texts = append(texts, p["text"].(string))
		case "pane.send_keys":
			keys, _ := json.Marshal(p["keys"])
			calls = append(calls, "keys"+string(keys))
		default:
			calls = append(calls, q["method"].(string))
		}
	}
	n := len(calls) - 4 // the paste's calls
	wantCalls := `pane.list,text,keys["ctrl+e","ctrl+u"],` + strings.Repeat("text,", max(n, 0)) + `keys["Enter"]`
	if got := strings.Join(calls, ","); got != wantCalls || n < 4 {
		t.Fatalf("calls: got %s, want %s with at least 4 paste calls", got, wantCalls)
	}
	if texts[0] != PasteEnd {
		t.Errorf("the reset text: got %q, want the paste end marker", texts[0])
	}
	paste := texts[1:]
	if got := strings.Join(paste, ""); got != PasteStart+text+PasteEnd {
		t.Errorf("the pasted text does not reassemble (%d bytes, want %d)", len(got), len(text)+12)
	}
	for i, c := range paste {
		if i > 0 && !utf8.RuneStart(c[0]) {
			t.Errorf("chunk %d starts inside a rune", i)
		}
		if strings.Count(c, "\x1b") != strings.Count(c, PasteStart)+strings.Count(c, PasteEnd) {
			t.Errorf("chunk %d holds a split marker", i)
		}
	}
	if !strings.HasPrefix(paste[0], PasteStart) || !strings.HasSuffix(paste[len(paste)-1], PasteEnd) {
		t.Errorf("markers: the first chunk must open the paste and the last close it")
	}
	// The text requests were filled: all but the last within a few bytes of the limit.
	for i := 3; i < len(sizes)-2; i++ {
		if sizes[i] < MaxRequest-64 {
			t.Errorf("request %d: %d bytes, want it filled close to %d", i, sizes[i], MaxRequest)
		}
	}
}

// Without Clear and Paste, Submit is the plain two-call delivery; an empty paste types
// nothing.
func TestSubmitPlainAndEmpty(t *testing.T) {
	s := newScripted(t, func(req map[string]any) string { return ok(req, `{"type":"ok"}`) })
	r := NewRemote(s.path)
	if err := r.Submit(context.Background(), "w1:p1", Submission{Text: "hi\nthere"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Submit(context.Background(), "w1:p1", Submission{Paste: true}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range s.requests() {
		p, _ := json.Marshal(q["params"])
		got = append(got, q["method"].(string)+string(p))
	}
	want := []string{
		`pane.send_text{"pane_id":"w1:p1","text":"hi\nthere"}`,
		`pane.send_keys{"keys":["Enter"],"pane_id":"w1:p1"}`,
		`pane.send_keys{"keys":["Enter"],"pane_id":"w1:p1"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// With Shows, the screen is read before the text and then until Shows holds; the Enter
// comes after that read (and after the pause), and the result says the text was seen.
// A screen that never shows it gets its Enter once ShowBudget is over, not shown.
func TestSubmitHoldsEnterUntilTheTextShows(t *testing.T) {
	var mu sync.Mutex
	reads, typed := 0, false
	s := newScripted(t, func(req map[string]any) string {
		mu.Lock()
		defer mu.Unlock()
		switch req["method"] {
		case "pane.read":
			reads++
			text := "> "
			if typed && reads > 3 { // drawn on the third read after the text
				text += "hello"
			}
			b, _ := json.Marshal(text)
			return ok(req, `{"type":"pane_read","read":{"pane_id":"w1:p1","source":"visible","format":"text","text":`+string(b)+`,"revision":1}}`)
		case "pane.send_text":
			typed = true
		}
		return ok(req, `{"type":"ok"}`)
	})
	r := NewRemote(s.path)
	shows := func(before, now string) bool { return strings.Count(now, "hello") > strings.Count(before, "hello") }
	sub := Submission{Text: "hello", Shows: shows, ShowBudget: 5 * time.Second, ShowPoll: time.Millisecond, ShowGap: time.Millisecond}
	got, err := r.SubmitAt(context.Background(), "w1:p1", sub)
	if err != nil || !got.Shown || got.Entered.IsZero() {
		t.Fatalf("SubmitAt: %+v, %v; want shown and entered", got, err)
	}
	var calls []string
	for _, q := range s.requests() {
		calls = append(calls, q["method"].(string))
	}
	want := "pane.read,pane.send_text,pane.read,pane.read,pane.read,pane.send_keys"
	if strings.Join(calls, ",") != want {
		t.Errorf("calls: %s, want %s", strings.Join(calls, ","), want)
	}

	never := func(before, now string) bool { return false }
	sub = Submission{Text: "hello", Shows: never, ShowBudget: 50 * time.Millisecond, ShowPoll: 10 * time.Millisecond}
	start := time.Now()
	got, err = r.SubmitAt(context.Background(), "w1:p1", sub)
	if err != nil || got.Shown || got.Entered.Sub(start) < 40*time.Millisecond {
		t.Fatalf("SubmitAt never shown: %+v after %v, %v; want not shown, Enter after the budget", got, got.Entered.Sub(start), err)
	}
	if last := s.requests()[len(s.requests())-1]; last["method"] != "pane.send_keys" {
		t.Errorf("the last call: %v, want the Enter", last["method"])
	}
}
