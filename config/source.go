package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
)

// Source is config.json as read at one moment: the bytes a server started from, or the
// file on disk now (docs/config.md §1.9). A server keeps the Source it loaded so that
// server.status can say when the file changed since (a change applies at the next
// start).
type Source struct {
	// Path is <home>/config.json.
	Path string
	// Data is the file's content; nil when the file is missing.
	Data []byte
	// Missing reports that there was no file (all defaults).
	Missing bool
}

// ReadSource reads <home>/config.json as [Load] does. A missing file is a Source with
// Missing set, not an error; any other failure is config_invalid.
func ReadSource(home string) (Source, error) {
	src := Source{Path: filepath.Join(home, ConfigName)}
	data, err := readConfig(src.Path)
	if errors.Is(err, fs.ErrNotExist) {
		src.Missing = true
		return src, nil
	}
	if err != nil {
		return src, invalid(fmt.Sprintf("cannot read %s: %v", src.Path, err)).Wrap(err)
	}
	src.Data = data
	return src, nil
}

// Load parses the source as [Load] does (all defaults when the file was missing).
func (s Source) Load(getenv func(string) string) (*Config, []string, error) {
	if s.Missing {
		cfg := Default()
		applyEnv(cfg, getenv)
		return cfg, nil, nil
	}
	return Parse(s.Data, getenv)
}

// Digest is the hex SHA-256 of the file's bytes; "" when the file was missing.
func (s Source) Digest() string {
	if s.Missing {
		return ""
	}
	sum := sha256.Sum256(s.Data)
	return hex.EncodeToString(sum[:])
}

// Same reports whether both sources have the same bytes (or are both missing).
func (s Source) Same(o Source) bool {
	return s.Missing == o.Missing && bytes.Equal(s.Data, o.Data)
}

// ChangedKeys lists the keys whose values differ between the sources, as dotted paths
// to the second level (`remote.listen`, `timings.idle_after`; a whole section when it
// was added or removed, or is not an object), sorted. A missing file counts as {}. It
// returns nil when either side is not a JSON object (the digests still differ).
func ChangedKeys(was, now Source) []string {
	a, okA := topObject(was)
	b, okB := topObject(now)
	if !okA || !okB {
		return nil
	}
	var keys []string
	for _, k := range unionKeys(a, b) {
		va, inA := a[k]
		vb, inB := b[k]
		if inA && inB && reflect.DeepEqual(va, vb) {
			continue
		}
		oa, objA := va.(map[string]any)
		ob, objB := vb.(map[string]any)
		if !inA || !inB || !objA || !objB {
			keys = append(keys, k)
			continue
		}
		for _, sub := range unionKeys(oa, ob) {
			sa, inSA := oa[sub]
			sb, inSB := ob[sub]
			if inSA != inSB || !reflect.DeepEqual(sa, sb) {
				keys = append(keys, k+"."+sub)
			}
		}
	}
	return keys
}

// topObject decodes the source's top-level object ({} for a missing file).
func topObject(s Source) (map[string]any, bool) {
	if s.Missing {
		return map[string]any{}, true
	}
	dec := json.NewDecoder(bytes.NewReader(s.Data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
