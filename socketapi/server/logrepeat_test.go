package server_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi/server"
)

// logStep is one action on a logger: log msg (with attrs, at level) after waiting
// after, or flush the handler.
type logStep struct {
	after time.Duration
	level slog.Level
	msg   string
	attrs []any
	with  []any // logger attributes (slog.Logger.With)
	flush bool
}

func TestRepeatHandler(t *testing.T) {
	t.Parallel()
	const window = 5 * time.Second
	warn := func(after time.Duration, msg string, attrs ...any) logStep {
		return logStep{after: after, level: slog.LevelWarn, msg: msg, attrs: attrs}
	}
	cases := []struct {
		name  string
		steps []logStep
		want  []string
	}{
		{
			"distinct lines all pass",
			[]logStep{warn(0, "a"), warn(0, "b"), warn(0, "c")},
			[]string{"level=WARN msg=a", "level=WARN msg=b", "level=WARN msg=c"},
		},
		{
			"repeats in the window collapse into one summary",
			[]logStep{warn(0, "accept failed", "err", "EMFILE"), warn(time.Millisecond, "accept failed", "err", "EMFILE"),
				warn(time.Millisecond, "accept failed", "err", "EMFILE"), warn(time.Second, "accept failed", "err", "EMFILE")},
			[]string{"level=WARN msg=\"accept failed\" err=EMFILE", "level=WARN msg=\"accept failed\" err=EMFILE repeated=3"},
		},
		{
			"other attributes are other lines",
			[]logStep{warn(0, "conn closed", "id", 1), warn(0, "conn closed", "id", 2), warn(0, "conn closed", "id", 1)},
			[]string{"level=WARN msg=\"conn closed\" id=1", "level=WARN msg=\"conn closed\" id=2", "level=WARN msg=\"conn closed\" id=1 repeated=1"},
		},
		{
			"other levels are other lines",
			[]logStep{warn(0, "x"), {level: slog.LevelError, msg: "x"}},
			[]string{"level=WARN msg=x", "level=ERROR msg=x"},
		},
		{
			"other logger attributes are other lines",
			[]logStep{{msg: "x", with: []any{"conn", 1}}, {msg: "x", with: []any{"conn", 2}}, {msg: "x", with: []any{"conn", 1}}},
			[]string{"level=INFO msg=x conn=1", "level=INFO msg=x conn=2", "level=INFO msg=x conn=1 repeated=1"},
		},
		{
			"a copy after the window is written again",
			[]logStep{warn(0, "a"), warn(6*time.Second, "a")},
			[]string{"level=WARN msg=a", "level=WARN msg=a"},
		},
		{
			"a steady flood writes two lines per window", // windows open at 1 s, 6 s and 11 s
			func() []logStep {
				var s []logStep
				for range 12 {
					s = append(s, warn(time.Second, "a"))
				}
				return s
			}(),
			[]string{"level=WARN msg=a", "level=WARN msg=a repeated=4", "level=WARN msg=a", "level=WARN msg=a repeated=4",
				"level=WARN msg=a", "level=WARN msg=a repeated=1"},
		},
		{
			"flush writes the pending summaries",
			[]logStep{warn(0, "a"), warn(0, "a"), warn(0, "a"), {flush: true}, warn(0, "a")},
			[]string{"level=WARN msg=a", "level=WARN msg=a repeated=2", "level=WARN msg=a"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var buf bytes.Buffer
				text := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
					if a.Key == slog.TimeKey && len(groups) == 0 {
						return slog.Attr{}
					}
					return a
				}})
				h, flush := server.NewRepeatHandler(text, window)
				for _, s := range tc.steps {
					time.Sleep(s.after) // fake time: advances the bubble's clock
					synctest.Wait()
					if s.flush {
						flush()
						continue
					}
					slog.New(h).With(s.with...).Log(t.Context(), s.level, s.msg, s.attrs...)
				}
				time.Sleep(2 * window) // every open window closes
				synctest.Wait()
				got := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("log lines (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// The server log collapses a burst of identical lines, and closing the file writes the
// summary still pending.
func TestFileLogCollapsesRepeats(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "server.log")
	log, closeLog, err := server.OpenFileLog(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		log.Warn("accept failed; retrying", "err", "accept4: too many open files")
	}
	if err := closeLog(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"repeated":999`) {
		t.Errorf("1000 identical lines were written as %d:\n%s", len(lines), b)
	}
}
