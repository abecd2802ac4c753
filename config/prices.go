package config

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Price is what a model charges, in US dollars per million tokens of each kind
// (docs/usage.md §3). Input is the input not read from the cache.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// CostMicros is the cost of the tokens at p, in millionths of a US dollar (a token at
// $1 per million tokens costs one millionth), rounded to the nearest.
func (p Price) CostMicros(input, output, cacheRead, cacheWrite int64) int64 {
	c := float64(input)*p.Input + float64(output)*p.Output + float64(cacheRead)*p.CacheRead +
		float64(cacheWrite)*p.CacheWrite
	if c >= math.MaxInt64 || c != c {
		return math.MaxInt64
	}
	return int64(math.Round(c))
}

// MaxPrice bounds a configured price (US dollars per million tokens).
const MaxPrice = 1e6

var priceKeys = []string{"input", "output", "cache_read", "cache_write"}

// builtinPrices are the list prices of the current claude and codex models as their
// makers publish them (docs/usage.md §3), by model name. The short names are claude's
// aliases (--model sonnet), priced as the model they stand for.
var builtinPrices = map[string]Price{
	"claude-opus-4-5":    {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
	"claude-opus-4-1":    {Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75},
	"claude-opus-4":      {Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75},
	"claude-sonnet-4-5":  {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-sonnet-4":    {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-haiku-4-5":   {Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25},
	"claude-3-5-haiku":   {Input: 0.8, Output: 4, CacheRead: 0.08, CacheWrite: 1},
	"opus":               {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
	"sonnet":             {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"haiku":              {Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25},
	"gpt-5":              {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5-codex":        {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5.1":            {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5.1-codex":      {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5.1-codex-max":  {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5-mini":         {Input: 0.25, Output: 2, CacheRead: 0.025},
	"gpt-5.1-codex-mini": {Input: 0.25, Output: 2, CacheRead: 0.025},
	"gpt-5.2":            {Input: 1.75, Output: 14, CacheRead: 0.175},
	"gpt-5.2-codex":      {Input: 1.75, Output: 14, CacheRead: 0.175},
}

// BuiltinPrices returns a copy of the built-in price table.
func BuiltinPrices() map[string]Price {
	out := make(map[string]Price, len(builtinPrices))
	for k, v := range builtinPrices {
		out[k] = v
	}
	return out
}

// PriceFor is the price of model (docs/usage.md §3): the entry named model, else the
// longest entry that model begins with followed by "-" (a dated release such as
// claude-sonnet-4-5-20250929 takes claude-sonnet-4-5's price). false: the model has no
// price, and its turns get tokens and no cost.
func (c *Config) PriceFor(model string) (Price, bool) {
	return priceIn(c.Prices, model)
}

func priceIn(prices map[string]Price, model string) (Price, bool) {
	if model == "" {
		return Price{}, false
	}
	if p, ok := prices[model]; ok {
		return p, true
	}
	best, found := "", false
	for k := range prices {
		if len(k) > len(best) && strings.HasPrefix(model, k+"-") {
			best, found = k, true
		}
	}
	return prices[best], found
}

// prices reads the prices section (docs/config.md §1.3): model name → {input, output,
// cache_read, cache_write} in US dollars per million tokens, layered over the built-in
// table; null removes a model's price. input and output are required; a missing cache
// price costs as input.
func (l *loader) prices(obj map[string]any) error {
	for _, model := range sortedKeys(obj) {
		field := "prices." + model
		if strings.TrimSpace(model) == "" {
			return invalid("`prices` keys must name a model")
		}
		if obj[model] == nil {
			delete(l.cfg.Prices, model)
			continue
		}
		entry, err := object(obj[model], field)
		if err != nil {
			return err
		}
		l.unknown(field, entry, priceKeys)
		var v [4]float64
		for i, k := range priceKeys {
			n, ok, err := numberKey(entry, k, field+"."+k)
			switch {
			case err != nil:
				return err
			case !ok && i < 2:
				return invalid("`" + field + "." + k + "` is required (US dollars per million tokens)")
			case !ok:
				n = v[0]
			}
			v[i] = n
		}
		l.cfg.Prices[model] = Price{Input: v[0], Output: v[1], CacheRead: v[2], CacheWrite: v[3]}
	}
	return nil
}

// numberKey reads obj[key] as a JSON number from 0 to [MaxPrice]; ok is false when absent.
func numberKey(obj map[string]any, key, field string) (float64, bool, error) {
	v, present := obj[key]
	if !present {
		return 0, false, nil
	}
	num, isNum := v.(json.Number)
	if !isNum {
		return 0, false, invalid("`" + field + "` must be a number")
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || f < 0 || f > MaxPrice {
		return 0, false, invalid("`" + field + "` must be a number from 0 to " + strconv.Itoa(MaxPrice))
	}
	return f, true, nil
}
