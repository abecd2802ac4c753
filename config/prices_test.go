package config_test

import (
	"strings"
	"testing"

	"github.com/orcr-go/orcr/config"
)

// The price table: built-in prices, a dated release priced as its model, config entries
// over the built-ins (a missing cache price as input, null removing one), an unknown
// model with no price, and bad entries refused with the field named.
func TestPrices(t *testing.T) {
	cfg, warns, err := parse(t, `{"prices": {"my-model": {"input": 2, "output": 8, "cache_read": 0.5, "bogus": 1},
		"claude-sonnet-4-5": {"input": 1, "output": 2}, "gpt-5": null}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "prices.my-model.bogus") {
		t.Errorf("warnings %q, want the unknown key", warns)
	}
	for _, tc := range []struct {
		model string
		want  config.Price
		ok    bool
	}{
		{"claude-haiku-4-5", config.Price{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}, true},
		{"claude-haiku-4-5-20251001", config.Price{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}, true},
		{"my-model", config.Price{Input: 2, Output: 8, CacheRead: 0.5, CacheWrite: 2}, true},
		{"claude-sonnet-4-5-20250929", config.Price{Input: 1, Output: 2, CacheRead: 1, CacheWrite: 1}, true},
		{"gpt-5", config.Price{}, false},
		{"gpt-5-codex", config.Price{Input: 1.25, Output: 10, CacheRead: 0.125}, true},
		{"claude-opus-5-5", config.Price{}, false},
		{"", config.Price{}, false},
	} {
		if got, ok := cfg.PriceFor(tc.model); got != tc.want || ok != tc.ok {
			t.Errorf("PriceFor(%q) = %+v, %v; want %+v, %v", tc.model, got, ok, tc.want, tc.ok)
		}
	}
	if got := (config.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}).CostMicros(1000, 100, 10000, 2000); got != 3000+1500+3000+7500 {
		t.Errorf("CostMicros = %d", got)
	}
	for src, want := range map[string]string{
		`{"prices": {"m": {"input": 1}}}`:                "`prices.m.output` is required",
		`{"prices": {"m": {"input": -1, "output": 1}}}`:  "`prices.m.input` must be a number from 0",
		`{"prices": {"m": {"input": "1", "output": 1}}}`: "`prices.m.input` must be a number",
		`{"prices": {"m": 3}}`:                           "`prices.m` must be a JSON object",
		`{"prices": {" ": {"input": 1, "output": 1}}}`:   "keys must name a model",
		`{"prices": {"m": {"input": 1e9, "output": 1}}}`: "from 0 to 1000000",
	} {
		if _, _, err := parse(t, src, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}
