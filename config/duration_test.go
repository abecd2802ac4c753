package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/config"
)

func TestParseDurationValid(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"1ms", time.Millisecond},
		{"250ms", 250 * time.Millisecond},
		{"30s", 30 * time.Second},
		{"5m", 5 * time.Minute},
		{"2h", 2 * time.Hour},
		{"1d", 24 * time.Hour},
		{"7d", 7 * 24 * time.Hour},
		{" 5m ", 5 * time.Minute},
		{"\t10s\n", 10 * time.Second},
		{"05s", 5 * time.Second},
	}
	for _, tt := range tests {
		got, err := config.ParseDuration(tt.in)
		if err != nil {
			t.Errorf("ParseDuration(%q): got error %v, want %v", tt.in, err, tt.want)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseDuration(%q): got %v, want %v", tt.in, got, tt.want)
		}
	}
	// The largest value that fits.
	maxMS := "9223372036854ms"
	if got, err := config.ParseDuration(maxMS); err != nil || got != 9223372036854*time.Millisecond {
		t.Errorf("ParseDuration(%q): got (%v, %v), want (%v, nil)", maxMS, got, err, 9223372036854*time.Millisecond)
	}
}

func TestParseDurationInvalid(t *testing.T) {
	tests := []struct {
		name, in, reason string
	}{
		{"empty", "", "empty"},
		{"blank", "   ", "empty"},
		{"zero", "0s", "must be greater than zero"},
		{"zero ms", "000ms", "must be greater than zero"},
		{"bare zero", "0", "missing unit"},
		{"no unit", "5", "missing unit"},
		{"unit only", "s", "must start with a positive integer"},
		{"word", "five s", "must start with a positive integer"},
		{"negative", "-5s", "a sign is not allowed"},
		{"plus", "+5s", "a sign is not allowed"},
		{"decimal", "1.5s", "decimals are not allowed"},
		{"leading dot", ".5s", "decimals are not allowed"},
		{"comma decimal", "1,5s", "decimals are not allowed"},
		{"compound", "1h30m", "compound durations are not allowed"},
		{"compound ms", "1s500ms", "compound durations are not allowed"},
		{"inner space", "5 s", `unknown unit " s"`},
		{"upper case", "5S", `unknown unit "S"`},
		{"minutes word", "5min", `unknown unit "min"`},
		{"weeks", "2w", `unknown unit "w"`},
		{"micro", "5us", `unknown unit "us"`},
		{"exponent", "1e3s", `unknown unit "e3s"`},
		{"overflow u64", "99999999999999999999s", "too large"},
		{"overflow duration", "300000d", "too large"},
		{"overflow ms", "9223372036855ms", "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.ParseDuration(tt.in)
			if err == nil {
				t.Fatalf("ParseDuration(%q): got %v, want error %q", tt.in, got, tt.reason)
			}
			var de *config.DurationError
			if !errors.As(err, &de) {
				t.Fatalf("ParseDuration(%q): got %T, want *config.DurationError", tt.in, err)
			}
			if de.Value != tt.in || de.Reason != tt.reason {
				t.Errorf("ParseDuration(%q): got {Value %q, Reason %q}, want {%q, %q}", tt.in, de.Value, de.Reason, tt.in, tt.reason)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("ParseDuration(%q).Error() = %q, want it to contain %q", tt.in, err, tt.reason)
			}
		})
	}
}
