package provider_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestParseCodexModelList(t *testing.T) {
	tests := []struct {
		fixture string
		want    provider.CodexModels
		wantErr string
	}{
		{fixture: "codex_model_list.jsonl", want: provider.CodexModels{
			{Model: "gpt-5.6-luna", Efforts: []string{"low", "medium", "high", "xhigh"}},
			{Model: "gpt-5.5-codex", Efforts: []string{"low", "medium", "high"}},
			{Model: "codex-mini"},
		}},
		{fixture: "codex_model_list_error.jsonl", wantErr: "no result.data"},
		{fixture: "codex_model_list_empty.jsonl", wantErr: "catalogue is empty"},
		{fixture: "codex_model_list_no_answer.jsonl", wantErr: "no answer to model/list"},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			got, err := provider.ParseCodexModelList(readFixture(t, tc.fixture))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseCodexModelList: got (%v, %v), want error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseCodexModelList: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseCodexModelList mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCodexModelListEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // model names; nil = error
	}{
		{"empty input", "", nil},
		{"CRLF lines", "{\"id\":1}\r\n{\"id\":2,\"result\":{\"data\":[{\"model\":\"a\"}]}}\r\n", []string{"a"}},
		{"no trailing newline", `{"id":2,"result":{"data":[{"model":"a"},{"model":"b"}]}}`, []string{"a", "b"}},
		{"id 2.0 is 2", `{"id":2.0,"result":{"data":[{"model":"a"}]}}`, []string{"a"}},
		{"string id is not 2", `{"id":"2","result":{"data":[{"model":"a"}]}}`, nil},
		{"null data", `{"id":2,"result":{"data":null}}`, nil},
		{"first answer wins even if broken", "{\"id\":2,\"result\":{}}\n{\"id\":2,\"result\":{\"data\":[{\"model\":\"a\"}]}}\n", nil},
		{"non-string model skips line", `{"id":2,"result":{"data":[{"model":5}]}}`, nil},
		{"empty model dropped", `{"id":2,"result":{"data":[{"model":""},{"model":"x"}]}}`, []string{"x"}},
	}
	for _, tc := range tests {
		got, err := provider.ParseCodexModelList([]byte(tc.in))
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: got %v, want an error", tc.name, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got.Names()); diff != "" {
			t.Errorf("%s: names mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestCodexRequests(t *testing.T) {
	want := `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"orcr","version":"9.9.9"},"capabilities":{"experimentalApi":true}}}
{"method":"initialized"}
{"id":2,"method":"model/list","params":{"includeHidden":true,"limit":100}}
`
	if got := string(provider.CodexRequests("9.9.9")); got != want {
		t.Errorf("CodexRequests:\n got %s\nwant %s", got, want)
	}
}

func TestCodexCatalogArgv(t *testing.T) {
	cat := newFakeCatalog(t, "codex_model_list.jsonl")
	if _, err := cat.Models(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"codex", "app-server", "--stdio"}, cat.Argv.Load()); diff != "" {
		t.Errorf("catalogue argv mismatch (-want +got):\n%s", diff)
	}
	custom := &provider.CodexCatalog{Bin: "/opt/codex"}
	if diff := cmp.Diff([]string{"/opt/codex", "app-server", "--stdio"}, custom.Argv()); diff != "" {
		t.Errorf("custom argv mismatch (-want +got):\n%s", diff)
	}
}

func TestCodexCatalogCache(t *testing.T) {
	cat := newFakeCatalog(t, "codex_model_list.jsonl")
	ctx := context.Background()
	fetch := func(step string, wantCalls int32) {
		t.Helper()
		m, err := cat.Models(ctx)
		if err != nil {
			t.Fatalf("%s: Models: %v", step, err)
		}
		if len(m) != 3 {
			t.Errorf("%s: got %d models, want 3", step, len(m))
		}
		if got := cat.Calls.Load(); got != wantCalls {
			t.Errorf("%s: runner called %d times, want %d", step, got, wantCalls)
		}
	}
	fetch("first", 1)
	cat.Clock.Advance(299 * time.Second)
	fetch("at 299s", 1)
	cat.Clock.Advance(time.Second)
	fetch("at 300s", 2)
	cat.Clock.Advance(100 * time.Second)
	fetch("100s after refresh", 2)
	cat.Invalidate()
	fetch("after Invalidate", 3)
}

func TestCodexCatalogCustomTTL(t *testing.T) {
	cat := newFakeCatalog(t, "codex_model_list.jsonl")
	cat.TTL = time.Minute
	cat.Models(context.Background())
	cat.Clock.Advance(time.Minute)
	cat.Models(context.Background())
	if got := cat.Calls.Load(); got != 2 {
		t.Errorf("runner calls with TTL 1m after 1m: got %d, want 2", got)
	}
}

func TestCodexCatalogFailureNotCached(t *testing.T) {
	clock := newFakeClock()
	var calls int
	fail := true
	good := readFixture(t, "codex_model_list.jsonl")
	cat := &provider.CodexCatalog{Now: clock.Now, Run: func(ctx context.Context, argv []string) ([]byte, error) {
		calls++
		if fail {
			return nil, errors.New(`exec: "codex": executable file not found in $PATH`)
		}
		return good, nil
	}}
	_, err := cat.Models(context.Background())
	wantWireError(t, "Models", err, wire.EnvironmentError, "", map[string]any{"cause": "model_catalog_unavailable"})
	if !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("Models error %q does not carry the cause", err)
	}
	fail = false
	if _, err := cat.Models(context.Background()); err != nil {
		t.Fatalf("Models after recovery: %v", err)
	}
	if calls != 2 {
		t.Errorf("runner calls: got %d, want 2 (failures are not cached)", calls)
	}
	// After expiry a failing refresh is an error again: no stale fallback.
	fail = true
	clock.Advance(301 * time.Second)
	_, err = cat.Models(context.Background())
	wantWireError(t, "Models after expiry", err, wire.EnvironmentError, "", map[string]any{"cause": "model_catalog_unavailable"})
}

func TestCodexCatalogTimeout(t *testing.T) {
	var deadline time.Duration
	cat := &provider.CodexCatalog{
		Timeout: 50 * time.Millisecond,
		Run: func(ctx context.Context, argv []string) ([]byte, error) {
			d, _ := ctx.Deadline()
			deadline = time.Until(d)
			<-ctx.Done()
			return []byte(`{"id":1,"result":{}}` + "\n"), ctx.Err()
		},
	}
	start := time.Now()
	_, err := cat.Models(context.Background())
	wantWireError(t, "Models", err, wire.EnvironmentError, "", map[string]any{"cause": "model_catalog_unavailable"})
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("timeout took %v", el)
	}
	if deadline <= 0 || deadline > 50*time.Millisecond {
		t.Errorf("runner deadline: got %v, want (0, 50ms]", deadline)
	}
	if !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("timeout error: got %q", err)
	}
}

func TestCodexCatalogDefaultTimeout(t *testing.T) {
	var got time.Duration
	cat := &provider.CodexCatalog{Run: func(ctx context.Context, argv []string) ([]byte, error) {
		d, _ := ctx.Deadline()
		got = time.Until(d)
		return nil, errors.New("boom")
	}}
	cat.Models(context.Background())
	if got <= 4*time.Second || got > 5*time.Second {
		t.Errorf("default fetch deadline: got %v, want about 5s", got)
	}
}

func TestCodexCatalogConcurrent(t *testing.T) {
	cat := newFakeCatalog(t, "codex_model_list.jsonl")
	p := mustLookup(t, "codex", provider.Options{CodexCatalog: cat.CodexCatalog})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%4 == 0 {
				cat.Invalidate()
			}
			if _, err := p.Route(nil, "", ""); err != nil {
				t.Errorf("Route: %v", err)
			}
		}()
	}
	wg.Wait()
	if n := cat.Calls.Load(); n < 1 || n > 5 {
		t.Errorf("runner calls: got %d, want 1..5", n)
	}
}

// writeScript writes an executable shell script and returns its path.
func writeScript(t *testing.T, body string) string {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	p := filepath.Join(t.TempDir(), "fake-codex")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunAppServerExchange(t *testing.T) {
	dir := t.TempDir()
	stdinCopy := filepath.Join(dir, "stdin")
	answer := string(readFixture(t, "codex_model_list.jsonl"))
	// Reads the three requests, answers, then stays alive like the real app-server
	// (a grandchild keeps stdout open too); RunAppServer must kill and reap it.
	script := writeScript(t, `
read a; read b; read c
printf '%s\n%s\n%s\n' "$a" "$b" "$c" > "`+stdinCopy+`"
echo 'not json'
cat <<'EOF'
`+answer+`EOF
sleep 30 &
sleep 30
`)
	cat := &provider.CodexCatalog{Bin: script, Version: "1.2.3"}
	start := time.Now()
	models, err := cat.Models(context.Background())
	if err != nil {
		t.Fatalf("Models: %v", err)
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("exchange took %v; the child was not stopped after the answer", el)
	}
	if diff := cmp.Diff([]string{"gpt-5.6-luna", "gpt-5.5-codex", "codex-mini"}, models.Names()); diff != "" {
		t.Errorf("models mismatch (-want +got):\n%s", diff)
	}
	got, err := os.ReadFile(stdinCopy)
	if err != nil {
		t.Fatal(err)
	}
	if want := string(provider.CodexRequests("1.2.3")); string(got) != want {
		t.Errorf("stdin seen by the app-server:\n got %s\nwant %s", got, want)
	}
}

func TestRunAppServerTimeout(t *testing.T) {
	script := writeScript(t, "read a; read b; read c\necho '{\"id\":1,\"result\":{}}'\nsleep 30\n")
	cat := &provider.CodexCatalog{Bin: script, Timeout: 300 * time.Millisecond}
	start := time.Now()
	_, err := cat.Models(context.Background())
	wantWireError(t, "Models", err, wire.EnvironmentError, "", map[string]any{"cause": "model_catalog_unavailable"})
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("timeout took %v", el)
	}
}

func TestRunAppServerExitWithoutAnswer(t *testing.T) {
	script := writeScript(t, "echo '{\"id\":1,\"result\":{}}'\nexit 3\n")
	start := time.Now()
	out, err := provider.RunAppServer(context.Background(), []string{script}, provider.CodexRequests("x"))
	if err == nil {
		t.Fatalf("RunAppServer: got output %q and no error", out)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("exit detection took %v", el)
	}
	if !strings.Contains(string(out), `"id":1`) {
		t.Errorf("RunAppServer output: got %q", out)
	}
}

func TestRunAppServerAnswerWithoutNewlineThenExit(t *testing.T) {
	script := writeScript(t, "printf '%s' '{\"id\":2,\"result\":{\"data\":[{\"model\":\"m\"}]}}'\n")
	out, err := provider.RunAppServer(context.Background(), []string{script}, provider.CodexRequests("x"))
	if err != nil {
		t.Fatalf("RunAppServer: %v", err)
	}
	if m, err := provider.ParseCodexModelList(out); err != nil || m.Names()[0] != "m" {
		t.Errorf("parse: got %v, %v", m, err)
	}
}

func TestRunAppServerSpawnFailure(t *testing.T) {
	cat := &provider.CodexCatalog{Bin: filepath.Join(t.TempDir(), "no-such-codex")}
	_, err := cat.Models(context.Background())
	wantWireError(t, "Models", err, wire.EnvironmentError, "", map[string]any{"cause": "model_catalog_unavailable"})
}
