package agentpath_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// errShape is the comparable part of a protocol error.
type errShape struct {
	Code    wire.Code
	Details map[string]any
}

// shapeOf returns the code and details of err, or the zero shape for nil. A non-protocol
// error fails the test.
func shapeOf(t testing.TB, err error) errShape {
	t.Helper()
	if err == nil {
		return errShape{}
	}
	pe, ok := wire.As(err)
	if !ok {
		t.Fatalf("error %v (%T) is not a *wire.Error", err, err)
	}
	return errShape{pe.Code, pe.Details}
}

func invalid(reason string, kv ...any) errShape {
	d := map[string]any{"reason": reason}
	for i := 0; i+1 < len(kv); i += 2 {
		d[kv[i].(string)] = kv[i+1]
	}
	return errShape{wire.InvalidRequest, d}
}

func checkErr(t *testing.T, what string, err error, want errShape) {
	t.Helper()
	if diff := cmp.Diff(want, shapeOf(t, err)); diff != "" {
		t.Errorf("%s: error mismatch (-want +got):\n%s\n(err = %v)", what, diff, err)
	}
}

// fixedRand returns a rand source yielding the given tokens in turn.
func fixedRand(tokens ...string) func() string {
	i := 0
	return func() string {
		s := tokens[i%len(tokens)]
		i++
		return s
	}
}
