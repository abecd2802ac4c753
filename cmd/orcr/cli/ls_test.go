package cli_test

import (
	"testing"
	"time"

	"github.com/orcr-go/orcr/cmd/orcr/cli"
)

func TestRenderLs(t *testing.T) {
	now := time.UnixMilli(1_000_000_000)
	claude := "claude"
	changed := now.Add(-125 * time.Second).UnixMilli()
	rows := []cli.LsRow{
		{UUID: "0190abcd-1111-7000-8000-000000000000", Path: "review/worker", Status: "working", Agent: &claude,
			CreatedAt: now.Add(-3 * time.Hour).UnixMilli(), LastStatusChangeAt: &changed},
		{UUID: "0190abce-2222", Path: "review/queued", Status: "queued", CreatedAt: now.Add(-7 * time.Second).UnixMilli(), LastStatusChangeAt: &changed},
	}
	got := cli.RenderLs(rows, now)
	want := "PATH                                     UUID     STATUS    AGENT      AGE\n" +
		"review/worker                            0190abcd working   claude   2m05s\n" +
		"review/queued                            0190abce queued    -           7s\n"
	if got != want {
		t.Errorf("renderLs:\ngot:\n%s\nwant:\n%s", got, want)
	}
	if got := cli.RenderLs(nil, now); got != "no agents\n" {
		t.Errorf("empty: got %q", got)
	}
	for d, want := range map[time.Duration]string{59 * time.Second: "59s", time.Minute: "1m", 3 * time.Hour: "3h", 50 * time.Hour: "2d"} {
		if got := cli.FormatAge(d); got != want {
			t.Errorf("cli.FormatAge(%v): got %q, want %q", d, got, want)
		}
	}
}
