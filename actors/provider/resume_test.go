package provider_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/orcr-go/orcr/actors/provider"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

func TestResumeArgv(t *testing.T) {
	opts := provider.Options{AllowMock: true, MockBin: "/usr/local/bin/orcr-mock-agent"}
	const (
		claudeID = "0f6d1c9e-3b7a-4c21-9e55-7a2b8c4d1e0f"
		codexID  = "019a3c5e-7b21-7d40-a1f3-5c2e9b8d4a61"
	)
	full := provider.Route{Model: "opus", Effort: "high"}
	tests := []struct {
		name        string
		prov        string
		route       provider.Route
		kind, value string
		want        []string
	}{
		{"claude id", "claude", full, "id", claudeID,
			[]string{"claude", "--dangerously-skip-permissions", "--model", "opus", "--effort", "high", "--resume", claudeID}},
		{"claude id without flags", "claude", provider.Route{}, "id", "abc_DEF-123",
			[]string{"claude", "--dangerously-skip-permissions", "--resume", "abc_DEF-123"}},
		{"claude path", "claude", provider.Route{Model: "sonnet"}, "path",
			"/home/u/.claude/projects/-srv-code-app/" + claudeID + ".jsonl",
			[]string{"claude", "--dangerously-skip-permissions", "--model", "sonnet", "--resume", claudeID}},
		{"claude relative path", "claude", provider.Route{}, "path", claudeID + ".jsonl",
			[]string{"claude", "--dangerously-skip-permissions", "--resume", claudeID}},
		{"codex id", "codex", provider.Route{Model: "gpt-5.6-luna", Effort: "high"}, "id", codexID,
			[]string{"codex", "resume", codexID, "--dangerously-bypass-approvals-and-sandbox", "--model", "gpt-5.6-luna", "-c", "model_reasoning_effort=high"}},
		{"codex id without flags", "codex", provider.Route{}, "id", codexID,
			[]string{"codex", "resume", codexID, "--dangerously-bypass-approvals-and-sandbox"}},
		{"codex rollout path", "codex", provider.Route{Effort: "low"}, "path",
			"/home/u/.codex/sessions/2026/11/02/rollout-2026-11-02T10-11-12-" + codexID + ".jsonl",
			[]string{"codex", "resume", codexID, "--dangerously-bypass-approvals-and-sandbox", "-c", "model_reasoning_effort=low"}},
		{"codex upper-case uuid", "codex", provider.Route{}, "path", "rollout-x-019A3C5E-7B21-7D40-A1F3-5C2E9B8D4A61.jsonl",
			[]string{"codex", "resume", "019A3C5E-7B21-7D40-A1F3-5C2E9B8D4A61", "--dangerously-bypass-approvals-and-sandbox"}},
		{"mock path", "mock", full, "path", "/srv/orcr/agents/a1/transcript.jsonl",
			[]string{"/usr/local/bin/orcr-mock-agent", "--skip-permissions", "--resume", "/srv/orcr/agents/a1/transcript.jsonl"}},
		{"claude with approvals", "claude", provider.Route{Model: "opus", Approvals: true}, "id", claudeID,
			[]string{"claude", "--model", "opus", "--resume", claudeID}},
		{"codex with approvals", "codex", provider.Route{Effort: "low", Approvals: true}, "id", codexID,
			[]string{"codex", "resume", codexID, "-c", "model_reasoning_effort=low"}},
		{"codex with approvals and no flags", "codex", provider.Route{Approvals: true}, "id", codexID,
			[]string{"codex", "resume", codexID}},
		{"mock with approvals", "mock", provider.Route{Approvals: true}, "path", "/srv/orcr/agents/a1/transcript.jsonl",
			[]string{"/usr/local/bin/orcr-mock-agent", "--resume", "/srv/orcr/agents/a1/transcript.jsonl"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mustLookup(t, tc.prov, opts).ResumeArgv(tc.route, tc.kind, tc.value)
			if err != nil {
				t.Fatalf("%s ResumeArgv(%+v, %q, %q): %v", tc.prov, tc.route, tc.kind, tc.value, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s ResumeArgv(%+v, %q, %q) mismatch (-want +got):\n%s", tc.prov, tc.route, tc.kind, tc.value, diff)
			}
		})
	}
}

func TestResumeArgvNotResumable(t *testing.T) {
	opts := provider.Options{AllowMock: true, MockBin: "/usr/local/bin/orcr-mock-agent"}
	const uuid = "019a3c5e-7b21-7d40-a1f3-5c2e9b8d4a61"
	tests := []struct {
		name        string
		prov        string
		kind, value string
		wantMsg     string // checked when not empty
	}{
		{"claude no pointer", "claude", "", "",
			"cannot resume a Claude conversation from agent_session {kind: ``, value: ``}: herdr reports no agent_session for the agent"},
		{"claude unknown kind", "claude", "url", "https://example.com/s",
			"cannot resume a Claude conversation from agent_session {kind: `url`, value: `https://example.com/s`}: the kind must be `id` or `path`"},
		{"claude empty id", "claude", "id", "", ""},
		{"claude id with a slash", "claude", "id", "../etc/passwd", ""},
		{"claude id with a dot", "claude", "id", "abc.def", ""},
		{"claude id with a space", "claude", "id", "abc def", ""},
		{"claude id like a flag", "claude", "id", "--help", ""},
		{"claude non-ASCII id", "claude", "id", "séance", ""},
		{"claude path not jsonl", "claude", "path", "/home/u/.claude/projects/p/" + uuid + ".json", ""},
		{"claude path without a stem", "claude", "path", "/home/u/.claude/projects/p/.jsonl", ""},
		{"claude path with a bad stem", "claude", "path", "/tmp/my session.jsonl", ""},
		{"claude path of a directory", "claude", "path", "/home/u/.claude/projects/p/", ""},
		{"claude empty path", "claude", "path", "", ""},
		{"codex no pointer", "codex", "", "", ""},
		{"codex unknown kind", "codex", "thread", uuid, ""},
		{"codex empty id", "codex", "id", "", ""},
		{"codex id like a flag", "codex", "id", "-c", ""},
		{"codex id with a slash", "codex", "id", "a/b", ""},
		{"codex path not jsonl", "codex", "path", "/x/rollout-2026-11-02T10-11-12-" + uuid + ".json", ""},
		{"codex path without a uuid", "codex", "path", "/x/rollout-2026-11-02T10-11-12.jsonl",
			"cannot resume a Codex conversation from agent_session {kind: `path`, value: `/x/rollout-2026-11-02T10-11-12.jsonl`}: a Codex rollout is named rollout-<timestamp>-<uuid>.jsonl"},
		{"codex path that is only a uuid", "codex", "path", "/x/" + uuid + ".jsonl", ""},
		{"codex path with a bad uuid", "codex", "path", "/x/rollout-t-019a3c5e-7b21-7d40-a1f3-5c2e9b8d4a6g.jsonl", ""},
		{"codex path with misplaced dashes", "codex", "path", "/x/rollout-t-019a3c5e7-b21-7d40-a1f3-5c2e9b8d4a61.jsonl", ""},
		{"codex path of a claude transcript", "codex", "path", "/home/u/.claude/projects/p/abc.jsonl", ""},
		{"mock no pointer", "mock", "", "", ""},
		{"mock id", "mock", "id", "mock_session",
			"cannot resume a mock conversation from agent_session {kind: `id`, value: `mock_session`}: the mock resumes only from a transcript path (kind `path`)"},
		{"mock relative path", "mock", "path", "agents/a1/transcript.jsonl", ""},
		{"mock empty path", "mock", "path", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv, err := mustLookup(t, tc.prov, opts).ResumeArgv(provider.Route{Model: "m", Effort: "e"}, tc.kind, tc.value)
			if argv != nil {
				t.Errorf("%s ResumeArgv(%q, %q): got argv %q with the error", tc.prov, tc.kind, tc.value, argv)
			}
			what := tc.prov + " ResumeArgv(" + tc.kind + ", " + tc.value + ")"
			wantWireError(t, what, err, wire.InvalidRequest, tc.wantMsg,
				map[string]any{"reason": "not_resumable", "kind": tc.kind, "value": tc.value})
		})
	}
}

func TestResumeArgvMockBinUnset(t *testing.T) {
	p := mustLookup(t, "mock", provider.Options{AllowMock: true, Getenv: func(string) string { return "" }})
	_, err := p.ResumeArgv(provider.Route{}, "path", "/srv/orcr/agents/a1/transcript.jsonl")
	wantWireError(t, "mock ResumeArgv", err, wire.ServerError, "", map[string]any{"cause": "mock_bin_unset"})
}

func TestResumeArgvIsFresh(t *testing.T) {
	p := mustLookup(t, "codex", provider.Options{})
	a, _ := p.ResumeArgv(provider.Route{Model: "m"}, "id", "s1")
	a[0], a[2] = "mutated", "mutated"
	b, _ := p.ResumeArgv(provider.Route{Model: "m"}, "id", "s1")
	if b[0] != "codex" || b[2] != "s1" {
		t.Errorf("ResumeArgv shares its slice: got %q", b)
	}
}
