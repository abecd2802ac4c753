package actors

import (
	"testing"
	"time"
)

func TestParseLimitReset(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal("no zone database (actors/schedule embeds time/tzdata):", err)
	}
	now := time.Date(2026, 3, 10, 14, 20, 0, 0, time.UTC) // a Tuesday, 14:20 UTC
	at := func(d time.Duration) time.Time { return now.Add(d) }
	tests := []struct {
		name string
		text string
		want time.Time // zero: none
	}{
		{"codex relative hours", "You've hit your usage limit. Try again in 2 hours.", at(2 * time.Hour)},
		{"relative compound", "Rate limit reached; try again in 1 hour 30 minutes", at(90 * time.Minute)},
		{"relative with and", "available again in 1 day and 2 hours", at(26 * time.Hour)},
		{"relative short units", "retry in 1h 5m 10s", at(time.Hour + 5*time.Minute + 10*time.Second)},
		{"resets in", "5-hour limit reached ∙ resets in 45 min", at(45 * time.Minute)},
		{"claude resets 3pm", "5-hour limit reached ∙ resets 3pm", time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)},
		{"resets at with minutes am", "Your limit will reset at 9:05 AM", time.Date(2026, 3, 11, 9, 5, 0, 0, time.UTC)},
		{"24-hour with UTC", "Usage limit reached. Resets 15:30 (UTC)", time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC)},
		{"a passed time is tomorrow", "limit reached, resets at 2pm", time.Date(2026, 3, 11, 14, 0, 0, 0, time.UTC)},
		{"named zone", "Claude usage limit reached. Your limit will reset at 4pm (Europe/Berlin).",
			time.Date(2026, 3, 10, 16, 0, 0, 0, berlin)},
		{"unknown zone: local", "resets at 4pm (Mars/Olympus)", time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)},
		{"epoch suffix", "Claude AI usage limit reached|1773157200", time.Unix(1773157200, 0)},
		// codex names the day when the reset is not today (seen from the real CLI).
		{"codex dated", "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage " +
			"to purchase more credits or try again at Mar 11th, 2026 12:08 AM.", time.Date(2026, 3, 11, 0, 8, 0, 0, time.UTC)},
		{"dated, no year", "try again at March 12 3:30 pm", time.Date(2026, 3, 12, 15, 30, 0, 0, time.UTC)},
		{"dated with a zone", "resets on Mar 11, 2026 9:00 AM (Europe/Berlin)", time.Date(2026, 3, 11, 9, 0, 0, 0, berlin)},
		{"dated in the past", "try again at Mar 9th, 2026 12:08 AM", time.Time{}},
		{"dated, no such day", "try again at Feb 30th, 2026 1:00 PM", time.Time{}},
		{"the last one wins", "resets in 5 hours\n...\ntry again in 10 minutes", at(10 * time.Minute)},
		{"bare hour is not read", "resets 3", time.Time{}},
		{"no reset", "usage limit reached", time.Time{}},
		{"beyond a week is not believed", "try again in 30 days", time.Time{}},
		{"zero is not a reset", "try again in 0 minutes", time.Time{}},
		{"bad clock", "resets at 25:00 and at 13pm and 3:75", time.Time{}},
		{"epoch in the past", "usage limit reached|1000000000", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseLimitReset(tt.text, now)
			if ok != !tt.want.IsZero() || (ok && !got.Equal(tt.want)) {
				t.Errorf("ParseLimitReset(%q): got %v %v, want %v", tt.text, got, ok, tt.want)
			}
		})
	}
}

// FuzzParseLimitReset: the parser reads text from outside orcr. It never panics, and a
// reset it returns lies after now and within maxLimitReset.
func FuzzParseLimitReset(f *testing.F) {
	for _, s := range []string{
		"Try again in 2 hours.", "resets 3pm", "Resets 15:30 (UTC)", "reset at 9:05 a.m. (america/new_york)",
		"usage limit reached|1773157200", "available again in 1 day and 2 hours, 3 minutes", "resets at 99:99 (../../etc)",
		"again in 9999 days", "", "\xff\xfe resets at 12am",
	} {
		f.Add(s, int64(1773152400))
	}
	f.Fuzz(func(t *testing.T, text string, sec int64) {
		now := time.Unix(sec%(1<<34), 0).UTC()
		got, ok := ParseLimitReset(text, now)
		if !ok {
			return
		}
		if !got.After(now) || got.Sub(now) > maxLimitReset {
			t.Errorf("ParseLimitReset(%q, %v) = %v: outside (now, now+%v]", text, now, got, maxLimitReset)
		}
	})
}
