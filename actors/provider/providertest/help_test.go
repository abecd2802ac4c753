package providertest

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Excerpts in the two help styles: claude's (commander: two-column, aliases joined by
// ", ", descriptions wrapped at column 40 or on their own line at column 6) and
// codex's (clap: flags at column 2 or 6, descriptions at 10, prose lists with "- ").
const claudeStyleHelp = `Usage: claude [options] [command] [prompt]

Options:
  --add-dir <directories...>            More directories Claude can access
  --allowedTools, --allowed-tools <tools...>
      Comma or space-separated list of tool names to allow (e.g. "Bash(git *)
      Edit")
  -c, --continue                        Continue the most recent conversation in
                                        the current directory
  --dangerously-skip-permissions        Bypass all permission checks.
  -d, --debug [filter]                  Enable debug mode with optional category
                                        filtering (e.g., --debug=hooks,mcp or
                                        --debug='!hooks,!mcp')
                                        --system-prompt[-file], --not-declared
  --effort <level>                      Effort level for the current session
  -r, --resume [value]                  Resume a conversation by session ID
  --tmux                                Create a tmux session

Commands:
  plugin|plugins                        Manage Claude Code plugins
`

const codexStyleHelp = `Usage: codex [OPTIONS] [PROMPT]

Options:
  -c, --config <key=value>
          Override a configuration value

      --enable <FEATURE>
          Enable a feature (repeatable). Equivalent to ` + "`-c features.<name>=true`" + `

  -m, --model <MODEL>
          Model the agent should use

  -a, --ask-for-approval <APPROVAL_POLICY>
          Possible values:
          - on-request: The model decides when to ask the user for approval
          - never:      Never ask for user approval

      --dangerously-bypass-approvals-and-sandbox
          Skip all confirmation prompts

      --color[=<WHEN>]
          Colour

  -h, --help
          Print help (see a summary with '-h')
`

func TestHelpFlags(t *testing.T) {
	tests := []struct {
		name string
		help string
		want []string
	}{
		{"claude style", claudeStyleHelp, []string{
			"--add-dir", "--allowedTools", "--allowed-tools", "-c", "--continue",
			"--dangerously-skip-permissions", "-d", "--debug", "--effort", "-r", "--resume", "--tmux",
		}},
		{"codex style", codexStyleHelp, []string{
			"-c", "--config", "--enable", "-m", "--model", "-a", "--ask-for-approval",
			"--dangerously-bypass-approvals-and-sandbox", "--color", "-h", "--help",
		}},
		{"empty", "", nil},
		{"prose only", "Usage: x\n\n- a list item\n-- not a flag\n-xy not one either\n", nil},
		{"tabs and CRLF are not option lines", "\t--tabbed\r\n  --crlf\r\n", []string{"--crlf"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for f := range HelpFlags(tc.help) {
				got = append(got, f)
			}
			sort.Strings(got)
			want := slices.Clone(tc.want)
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("HelpFlags mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArgvFlags(t *testing.T) {
	tests := []struct {
		argv []string
		want []string
	}{
		{[]string{"claude", "--dangerously-skip-permissions", "--model", "opus", "--effort", "max"},
			[]string{"--dangerously-skip-permissions", "--model", "--effort"}},
		{[]string{"codex", "resume", "019a", "--model", "m", "-c", "model_reasoning_effort=high"},
			[]string{"--model", "-c"}},
		{[]string{"x", "--a=1", "--a", "-", "-b", "-b"}, []string{"--a", "-b"}},
		{[]string{"codex"}, nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, ArgvFlags(tc.argv)); diff != "" {
			t.Errorf("ArgvFlags(%q) mismatch (-want +got):\n%s", tc.argv, diff)
		}
	}
}

func TestCheckFlags(t *testing.T) {
	cli := CLI{Name: "claude", Version: "9.9.9 (Claude Code)", Path: "/x/claude"}
	help := []string{"--help"}
	tests := []struct {
		name    string
		text    string
		argv    []string
		missing []string // nil: no error
		wantErr string   // a non-drift error containing this
	}{
		{name: "all declared", text: claudeStyleHelp,
			argv: []string{"claude", "--dangerously-skip-permissions", "--effort", "high", "--resume", "abc"}},
		{name: "one missing", text: claudeStyleHelp,
			argv:    []string{"claude", "--dangerously-skip-permissions", "--model", "opus"},
			missing: []string{"--model"}},
		{name: "named only in a description", text: claudeStyleHelp,
			argv: []string{"claude", "--not-declared", "--system-prompt"}, missing: []string{"--not-declared", "--system-prompt"}},
		{name: "unparsable help", text: "Usage: claude\nno options here\n",
			argv: []string{"claude"}, wantErr: "declares no flag"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckFlags(cli, help, tc.text, tc.argv)
			var drift *FlagDrift
			switch {
			case tc.wantErr != "":
				if err == nil || errors.As(err, &drift) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("CheckFlags: got %v, want an error containing %q", err, tc.wantErr)
				}
			case tc.missing == nil:
				if err != nil {
					t.Fatalf("CheckFlags: %v", err)
				}
			default:
				if !errors.As(err, &drift) {
					t.Fatalf("CheckFlags: got %v, want a *FlagDrift", err)
				}
				if diff := cmp.Diff(tc.missing, drift.Missing); diff != "" {
					t.Errorf("missing flags mismatch (-want +got):\n%s", diff)
				}
				for _, f := range tc.missing {
					want := "claude 9.9.9 (Claude Code): flag " + f + " that orcr launches"
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message %q does not contain %q", err, want)
					}
				}
			}
		})
	}
}
