package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDirectives(t *testing.T) {
	tests := []struct {
		in   string
		want directives
	}{
		{"", directives{}},
		{"just a prompt", directives{}},
		{"say=hello", directives{say: "hello"}},
		{"do it @say=hi @write=out/a.txt", directives{say: "hi", write: "out/a.txt"}},
		{"turn_ms=250 tool_gaps=2 gap_ms=100", directives{turnMS: optInt{250, true}, toolGaps: optInt{2, true}, gapMS: optInt{100, true}}},
		{"@turn_ms=0", directives{turnMS: optInt{0, true}}},
		{"block", directives{block: true}},
		{"@block please", directives{block: true}},
		{"blocked blocking Block", directives{}},
		{"no_working say=x", directives{noWorking: true, say: "x"}},
		{"@no_working", directives{noWorking: true}},
		{"digest say=x", directives{digest: true, say: "x"}},
		{"@digest", directives{digest: true}},
		{"digests digest=1 Digest", directives{}},
		{"no_workings no-working no_working=1", directives{}},
		{"turn_ms=-5 gap_ms=x tool_gaps= say= write=", directives{}},
		{"turn_ms=+5 turn_ms=1e3", directives{}},
		{"turn_ms=1 turn_ms=2", directives{turnMS: optInt{2, true}}},
		{"turn_ms=99999999999999999999999", directives{turnMS: optInt{maxDirectiveMS, true}}},
		{"tool_gaps=1000000", directives{toolGaps: optInt{maxToolGaps, true}}},
		{"say=a=b", directives{say: "a=b"}},
		{"@@say=x", directives{}},
		{"line one\nsay=two\tturn_ms=3", directives{say: "two", turnMS: optInt{3, true}}},
		{"tool=Bash", directives{tool: "Bash"}},
		{"tool=Bash call_late_ms=800 deaf_ms=5", directives{tool: "Bash", callLateMS: optInt{800, true}, deafMS: optInt{5, true}}},
		{"tool=Bash call_late_ms=4000 call_same_ms", directives{tool: "Bash", callLateMS: optInt{4000, true}, callSameMS: true}},
		{"limit=usage_limit_reached,_resets_3pm", directives{limit: "usage limit reached, resets 3pm"}},
		{"limit=", directives{}},
		{"tokens=1,2,3,4", directives{tokens: &mockUsage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4}}},
		{"tokens=10,20,0,0,mock-1", directives{tokens: &mockUsage{Input: 10, Output: 20, Model: "mock-1"}}},
		{"tokens=1,2,3", directives{}},
		{"tokens=1,2,x,4", directives{}},
		{"clean up @tool=Bash say=done", directives{tool: "Bash", say: "done"}},
		{"tool=Read tool=Write", directives{tool: "Write"}},
		{"tool= tool tools=Bash Tool=Bash", directives{}},
		{"tool=mcp__srv__do=it", directives{tool: "mcp__srv__do=it"}},
	}
	for _, tt := range tests {
		got := parseDirectives(tt.in)
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(directives{}, optInt{})); diff != "" {
			t.Errorf("parseDirectives(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func FuzzParseDirectives(f *testing.F) {
	for _, s := range []string{
		"", "say=hello", "@block", "turn_ms=10 tool_gaps=2 gap_ms=5",
		"write=../../etc/passwd", "turn_ms=99999999999999999999", "@=@", "say=\x00\xff", "@tool=Bash",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := parseDirectives(s)
		for _, n := range []optInt{d.turnMS, d.gapMS} {
			if n.ok && (n.v < 0 || n.v > maxDirectiveMS) {
				t.Fatalf("ms out of range: %+v", d)
			}
		}
		if d.toolGaps.ok && (d.toolGaps.v < 0 || d.toolGaps.v > maxToolGaps) {
			t.Fatalf("tool_gaps out of range: %+v", d)
		}
		if strings.ContainsAny(d.say, " \t\n") || strings.ContainsAny(d.write, " \t\n") || strings.ContainsAny(d.tool, " \t\n") {
			t.Fatalf("value spans tokens: %+v", d)
		}
		_ = response(s, turnParams{say: d.say, digest: d.digest})
	})
}
