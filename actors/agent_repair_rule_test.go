package actors

import (
	"testing"
	"time"
)

func TestJudgeCutDelivery(t *testing.T) {
	idle := cutDelivery{Readable: true, Watched: true} // a later prompt, nothing seen anywhere, the window over
	with := func(edit func(*cutDelivery)) cutDelivery {
		c := idle
		edit(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		in   cutDelivery
		want cutVerdict
	}{
		{"typed into a busy TUI: undone though herdr works", with(func(c *cutDelivery) { c.FromWorking, c.HerdrBusy = true, true }), cutUndoBusy},
		{"typed into a busy TUI, the transcript ends with it: still undone",
			with(func(c *cutDelivery) { c.FromWorking, c.InTranscript = true, true }), cutUndoBusy},
		{"herdr working: submitted", with(func(c *cutDelivery) { c.HerdrBusy = true }), cutSubmitted},
		{"herdr working, screen unreadable: submitted", with(func(c *cutDelivery) { c.HerdrBusy, c.Readable = true, false }), cutSubmitted},
		{"screen unreadable: left open", with(func(c *cutDelivery) { c.Readable, c.First = false, true }), cutLeaveOpen},
		{"transcript ends with the prompt: submitted", with(func(c *cutDelivery) { c.InTranscript = true }), cutSubmitted},
		{"transcript ends with it and the screen shows it (history): submitted",
			with(func(c *cutDelivery) { c.InTranscript, c.InBox = true, true }), cutSubmitted},
		{"first prompt in the box: typed again", with(func(c *cutDelivery) { c.InBox, c.First = true, true }), cutRedeliver},
		{"first prompt nowhere (a start-up transcript is no evidence): typed again", with(func(c *cutDelivery) { c.First = true }), cutRedeliver},
		{"later prompt in the box: undone", with(func(c *cutDelivery) { c.InBox = true }), cutUndo},
		{"later prompt nowhere: undone", idle, cutUndo},
		{"first prompt in the box, the window not over: look again",
			with(func(c *cutDelivery) { c.InBox, c.First, c.Watched = true, true, false }), cutWait},
		{"later prompt nowhere, the window not over: look again", with(func(c *cutDelivery) { c.Watched = false }), cutWait},
		{"herdr working before the window is over: submitted", with(func(c *cutDelivery) { c.HerdrBusy, c.Watched = true, false }), cutSubmitted},
		{"the transcript ends with it before the window is over: submitted",
			with(func(c *cutDelivery) { c.InTranscript, c.First, c.Watched = true, true, false }), cutSubmitted},
		{"screen unreadable before the window is over: left open",
			with(func(c *cutDelivery) { c.Readable, c.Watched = false, false }), cutLeaveOpen},
		{"typed into a busy TUI before the window is over: undone at once",
			with(func(c *cutDelivery) { c.FromWorking, c.Watched = true, false }), cutUndoBusy},
	} {
		if got := judgeCutDelivery(tc.in); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestJudgeRedelivery(t *testing.T) {
	const window, blankWindow = 1500 * time.Millisecond, 8 * time.Second
	const enter = int64(1_000_000)
	w, bw := window.Milliseconds(), blankWindow.Milliseconds()
	for _, tc := range []struct {
		name string
		r    redelivery
		now  int64
		want redeliveryVerdict
	}{
		{"evidence at once", redelivery{EnterAt: enter, Evidence: true, Attempts: 1}, enter, redeliverySubmitted},
		{"evidence after the window", redelivery{EnterAt: enter, Evidence: true, Attempts: maxRedeliveries}, enter + 10*w, redeliverySubmitted},
		{"nothing yet, inside the window", redelivery{EnterAt: enter, Attempts: 1}, enter + w - 1, redeliveryWait},
		{"a clock that went back: wait", redelivery{EnterAt: enter, Attempts: 1}, enter - 5, redeliveryWait},
		{"window over exactly, attempts left: again", redelivery{EnterAt: enter, Attempts: 1}, enter + w, redeliveryAgain},
		{"window over, attempts left: again", redelivery{EnterAt: enter, Attempts: maxRedeliveries - 1}, enter + 3*w, redeliveryAgain},
		{"window over, attempts spent: undo", redelivery{EnterAt: enter, Attempts: maxRedeliveries}, enter + w, redeliveryUndo},
		{"last attempt, inside its window: wait", redelivery{EnterAt: enter, Attempts: maxRedeliveries}, enter + w/2, redeliveryWait},
		{"nothing drawn yet, past the window: wait (the text waits in the terminal)",
			redelivery{EnterAt: enter, Blank: true, Attempts: 1}, enter + w, redeliveryWait},
		{"nothing drawn until the blank window ends: again", redelivery{EnterAt: enter, Blank: true, Attempts: 1}, enter + bw, redeliveryAgain},
		{"nothing drawn, attempts spent: undo at the blank window", redelivery{EnterAt: enter, Blank: true, Attempts: maxRedeliveries},
			enter + bw, redeliveryUndo},
		{"nothing drawn but evidence: submitted", redelivery{EnterAt: enter, Blank: true, Evidence: true, Attempts: 1}, enter, redeliverySubmitted},
	} {
		if got := judgeRedelivery(tc.r, tc.now, window, blankWindow); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
