package actors

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// bareSystem is a System with only an environment and the default config: enough for
// the transcript wiring of the providers (no store, no herdr).
func bareSystem(env map[string]string) *System {
	return &System{cfg: SystemConfig{Config: config.Default()}, getenv: func(k string) string { return env[k] }}
}

// TestPiTranscriptUnderAgentDir: pi's sessions are found under PI_CODING_AGENT_DIR when
// the server's (so the pane's) environment sets it, else under HOME/.pi/agent.
func TestPiTranscriptUnderAgentDir(t *testing.T) {
	const id = "0198c0de-7a1e-7000-8000-000000000001"
	cwd := "/tmp/proj"
	write := func(dir string) string {
		p := filepath.Join(dir, "sessions", transcript.PiSessionDir(cwd), "2026-01-02T03-04-05-000Z_"+id+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"type":"session","version":3,"id":"`+id+`","cwd":"/tmp/proj"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home, moved := t.TempDir(), t.TempDir()
	inHome, inMoved := write(filepath.Join(home, ".pi", "agent")), write(moved)
	target := TranscriptTarget{Provider: "pi", SessionKind: "id", SessionValue: id, Cwd: cwd}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": home}, inHome},
		{map[string]string{"HOME": home, EnvPiAgentDir: moved}, inMoved},
	} {
		got, err := transcripts{bareSystem(tc.env)}.Locate(target)
		if err != nil || got != tc.want {
			t.Errorf("Locate with %v = %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
}

func TestContractProvidersNeedAgentSession(t *testing.T) {
	p := systemProviders{tr: transcripts{bareSystem(nil)}}
	for name, want := range map[string]bool{"pi": false, "qwen": true, "opencode": true, "gemini": false, "claude": true} {
		if got := p.NeedsAgentSession(name); got != want {
			t.Errorf("NeedsAgentSession(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestOpencodeExportAtLocate: locating opencode's transcript runs `opencode export
// <session>` into the data dir, at most once a second, and the settled check also
// waits for its last answer to close.
func TestOpencodeExportAtLocate(t *testing.T) {
	open, err := os.ReadFile(filepath.Join("transcript", "testdata", "opencode", "turns.export.json"))
	if err != nil {
		t.Fatal(err)
	}
	bin, data := t.TempDir(), t.TempDir()
	runs := filepath.Join(bin, "runs")
	doc := filepath.Join(bin, "doc.json")
	if err := os.WriteFile(doc, open, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n[ \"$1\" = export ] || exit 2\necho \"$2\" >> " + runs + "\ncat " + doc + "\n"
	if err := os.WriteFile(filepath.Join(bin, "opencode"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	tr := transcripts{bareSystem(map[string]string{"HOME": t.TempDir()})}
	target := TranscriptTarget{Provider: "opencode", DataDir: data, SessionKind: "id", SessionValue: "ses_abc"}

	if _, err := tr.Locate(TranscriptTarget{Provider: "opencode", DataDir: data}); !wire.Is(err, wire.TranscriptUnavailable, wire.CauseNoSession) {
		t.Errorf("Locate without a session: %v", err)
	}
	path, err := tr.Locate(target)
	if err != nil || path != filepath.Join(data, transcript.OpencodeExportFile) {
		t.Fatalf("Locate = %q, %v", path, err)
	}
	if _, err := tr.Locate(target); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(runs); string(got) != "ses_abc\n" {
		t.Errorf("export runs %q, want one within a second", got)
	}
	later := time.Now().Add(time.Hour)
	if !tr.Settled(path, time.Millisecond, later) {
		t.Error("a quiet export with its last answer closed is not settled")
	}
	// An answer still being written (no time.completed) is not settled, however quiet.
	unfinished := strings.Replace(string(open), `"completed"`, `"completed_not"`, -1)
	if err := os.WriteFile(path, []byte(unfinished), 0o600); err != nil {
		t.Fatal(err)
	}
	if !transcript.OpencodeTurnOpen([]byte(unfinished)) || tr.Settled(path, time.Millisecond, later) {
		t.Error("an open opencode turn settled")
	}
}
