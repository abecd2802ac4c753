package api

import (
	"encoding/json"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// FuzzDecodeParams: for every method of the table, params from the wire either decode
// (and re-encode to an object) or are refused as invalid_request wrong_type naming a
// field; nothing panics.
func FuzzDecodeParams(f *testing.F) {
	for _, seed := range []string{`{}`, `null`, `[1]`, `"x"`, `{"tail":"3"}`, `{"targets":["a",7]}`,
		`{"all":"yes"}`, `{"since_seq":1e400}`, `{"tail":-1}`, `{"client_pid":1.5}`, `{"caller_id":{"a":1}}`,
		`{"name":"a","path":"b","prompt":"\u00ff\ud800"}`, `{"max_concurrency":99999999999999999999}`,
		`{"TARGET":"x"}`, `{"command":[null,"a"]}`} {
		for i := range Methods {
			f.Add(uint8(i), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		if !json.Valid(raw) {
			return // the frame decoder refuses it before any method sees params
		}
		m := Methods[int(which)%len(Methods)]
		v, err := m.Decode(raw)
		if err != nil {
			pe, ok := wire.As(err)
			if !ok || pe.Code != wire.InvalidRequest || pe.Reason() != "wrong_type" || pe.Details["field"] == "" {
				t.Fatalf("%s %s: got %v, want invalid_request wrong_type with a field", m.Info().Name, raw, err)
			}
			return
		}
		b, err := json.Marshal(v)
		if err != nil || len(b) == 0 || b[0] != '{' {
			t.Fatalf("%s %s: decoded params re-encode as %s (%v)", m.Info().Name, raw, b, err)
		}
	})
}

// FuzzParseBudget: a budget amount either parses to exactly one positive amount that
// reads back the same, or is refused as invalid_request invalid_budget.
func FuzzParseBudget(f *testing.F) {
	for _, seed := range []string{"2usd", "0.5usd", "$3", "500k", "1.5m", "20000", "", "-1", "1e3", "usd", "0x10", "90%", "100.004%", "0.001%"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseBudget(s)
		if err != nil {
			if pe, ok := wire.As(err); !ok || pe.Reason() != wire.ReasonInvalidBudget {
				t.Fatalf("ParseBudget(%q): %v", s, err)
			}
			return
		}
		set := 0
		for _, n := range []int64{l.CostMicros, l.Tokens, l.Centipercent} {
			if n > 0 {
				set++
			}
		}
		if set != 1 || l.CostMicros < 0 || l.Tokens < 0 || l.Centipercent < 0 || l.Centipercent > 10000 {
			t.Fatalf("ParseBudget(%q) = %+v", s, l)
		}
		if back, err := ParseBudget(l.String()); err != nil || back != l {
			t.Fatalf("ParseBudget(%q) = %+v reads back as %+v, %v", s, l, back, err)
		}
	})
}
