package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/config"
)

// ChangedKeys names what a restart would apply: second-level keys, whole sections that
// appear or go, nothing for a reformatted file.
func TestChangedKeys(t *testing.T) {
	src := func(doc string) config.Source {
		if doc == "" {
			return config.Source{Missing: true}
		}
		return config.Source{Data: []byte(doc)}
	}
	for _, tt := range []struct {
		name, was, now string
		want           []string
	}{
		{"reformatted", `{"timings":{"idle_after":"1h"}}`, "{\n  \"timings\": {\"idle_after\": \"1h\"}\n}", []string{}},
		{"section added", `{"timings":{"idle_after":"1h"}}`, `{"timings":{"idle_after":"1h"},"remote":{"listen":"127.0.0.1:0"}}`, []string{"remote"}},
		{"file created", "", `{"remote":{"listen":"127.0.0.1:0"}}`, []string{"remote"}},
		{"keys changed", `{"timings":{"idle_after":"1h","gc_tick":"1s"}}`, `{"timings":{"idle_after":"2h","kill_after":"1d","gc_tick":"1s"}}`,
			[]string{"timings.idle_after", "timings.kill_after"}},
		{"not an object", `{}`, `[1]`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := config.ChangedKeys(src(tt.was), src(tt.now))
			if tt.want != nil && got == nil {
				got = []string{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ChangedKeys(%s, %s) (-want +got):\n%s", tt.was, tt.now, diff)
			}
		})
	}
}

// ReadSource reads what Load reads: its digest changes with the bytes, a missing file is
// no error and has no digest.
func TestReadSource(t *testing.T) {
	home := t.TempDir()
	missing, err := config.ReadSource(home)
	if err != nil || !missing.Missing || missing.Digest() != "" {
		t.Fatalf("ReadSource without a file: %+v, %v", missing, err)
	}
	path := filepath.Join(home, config.ConfigName)
	os.WriteFile(path, []byte(`{}`), 0o600)
	a, err := config.ReadSource(home)
	if err != nil || a.Missing || a.Digest() == "" || a.Path != path {
		t.Fatalf("ReadSource: %+v, %v", a, err)
	}
	os.WriteFile(path, []byte(`{"timings":{}}`), 0o600)
	b, _ := config.ReadSource(home)
	if a.Same(b) || a.Digest() == b.Digest() || a.Same(missing) {
		t.Errorf("two different files compare the same: %s %s", a.Digest(), b.Digest())
	}
}
