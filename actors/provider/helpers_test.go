package provider_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// readFixture returns testdata/name.
func readFixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// fakeClock is a settable clock for the catalogue cache.
type fakeClock struct{ now atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.now.Store(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.now.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.now.Add(int64(d)) }

// fakeCatalog is a catalogue whose runner answers with testdata/fixture and counts
// its calls; the argv it received is recorded.
type fakeCatalog struct {
	*provider.CodexCatalog
	Calls atomic.Int32
	Clock *fakeClock
	Argv  atomic.Value // []string
}

func newFakeCatalog(tb testing.TB, fixture string) *fakeCatalog {
	tb.Helper()
	out := readFixture(tb, fixture)
	f := &fakeCatalog{Clock: newFakeClock()}
	f.CodexCatalog = &provider.CodexCatalog{
		Now: f.Clock.Now,
		Run: func(ctx context.Context, argv []string) ([]byte, error) {
			f.Calls.Add(1)
			f.Argv.Store(argv)
			return out, nil
		},
	}
	return f
}

// wantWireError checks that err is a protocol error with code, message and details.
// An empty wantMsg is not checked.
func wantWireError(tb testing.TB, what string, err error, code wire.Code, wantMsg string, details map[string]any) {
	tb.Helper()
	pe, ok := wire.As(err)
	if !ok {
		tb.Fatalf("%s: got error %v (%T), want a *wire.Error %s", what, err, err, code)
	}
	if pe.Code != code {
		tb.Errorf("%s: got code %s, want %s (%v)", what, pe.Code, code, err)
	}
	if wantMsg != "" && pe.Message != wantMsg {
		tb.Errorf("%s: got message\n  %q\nwant\n  %q", what, pe.Message, wantMsg)
	}
	if diff := cmp.Diff(details, pe.Details); diff != "" {
		tb.Errorf("%s: details mismatch (-want +got):\n%s", what, diff)
	}
}
