package config

import (
	"fmt"
	"strings"
	"time"
)

// Retention defaults and floor (docs/config.md §1.3, docs/lifecycle.md §12.4): an ended
// agent is forgotten once it ended more than a week ago, or once ten thousand newer
// ended agents are kept.
const (
	DefaultEndedFor = 7 * 24 * time.Hour
	DefaultEndedMax = 10000
	MinEndedFor     = time.Second
)

// RetentionOff is the value that switches either limit of `retention` off.
const RetentionOff = "off"

// Retention is the `retention` section: how long, and how many, ended agents are kept
// before the gc forgets them (docs/lifecycle.md §12.4). A zero field is off.
type Retention struct {
	// EndedFor is how long an ended agent is kept after it ended (0: no age limit).
	EndedFor time.Duration
	// EndedMax is how many ended agents are kept, the newest ones (0: no count limit).
	EndedMax int
}

var retentionKeys = []string{"ended_for", "ended_max"}

func (l *loader) retention(obj map[string]any) error {
	l.unknown("retention", obj, retentionKeys)
	r := &l.cfg.Retention
	if v, ok := obj["ended_for"]; ok {
		if s, isStr := v.(string); isStr && strings.TrimSpace(s) == RetentionOff {
			r.EndedFor = 0
		} else if d, _, err := durationKey(obj, "ended_for", "retention.ended_for"); err != nil {
			return err
		} else if d < MinEndedFor {
			return invalid(fmt.Sprintf("retention.ended_for must be at least %s or \"off\" (got %q)", formatFloor(MinEndedFor),
				strings.TrimSpace(s)))
		} else {
			r.EndedFor = d
		}
	}
	if v, ok := obj["ended_max"]; ok {
		if s, isStr := v.(string); isStr && strings.TrimSpace(s) == RetentionOff {
			r.EndedMax = 0
			return nil
		}
		n, _, err := intKey(obj, "ended_max", "retention.ended_max", max32)
		if err != nil || n < 1 {
			return invalid(fmt.Sprintf("`retention.ended_max` must be an integer from 1 to %d, or \"off\"", max32))
		}
		r.EndedMax = int(n)
	}
	return nil
}
