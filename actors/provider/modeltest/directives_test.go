package modeltest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDirectives(t *testing.T) {
	tests := []struct {
		in   string
		want Directives
	}{
		{"", Directives{}},
		{"just a prompt", Directives{}},
		{"say=hello", Directives{Say: "hello"}},
		{"please @say=hi think=hmm", Directives{Say: "hi", Think: "hmm"}},
		{"tool=bash:echo_orcr-ok say=done", Directives{Tool: "echo orcr-ok", Say: "done"}},
		{"tool=bash: tool=python:x tool=Bash", Directives{}},
		{"tool=bash:touch_x escalate", Directives{Tool: "touch x", Escalate: true}},
		{"stream_ms=40 stall", Directives{StreamMS: 40, Stall: true}},
		{"@stall_ms=500", Directives{StallMS: 500}},
		{"limit=429 reset=30", Directives{Limit: true, ResetS: 30}},
		{"limit=500 limit=x", Directives{}},
		{"overloaded", Directives{Overload: -1}},
		{"overloaded=2", Directives{Overload: 2}},
		{"tokens=10,20", Directives{Tokens: true, TokensIn: 10, TokensOut: 20}},
		{"tokens=1,2,3,4", Directives{Tokens: true, TokensIn: 1, TokensOut: 2, CacheRead: 3, CacheNew: 4}},
		{"tokens=1,9,3,4,5", Directives{Tokens: true, TokensIn: 1, TokensOut: 9, CacheRead: 3, CacheNew: 4, Reasoning: 5}},
		{"tokens=1 tokens=1,2,3,4,5 tokens=1,x tokens=,", Directives{}},
		{"quota=96", Directives{Quota: true, QuotaPrimary: 96}},
		{"quota=96,40 reset=600", Directives{Quota: true, QuotaPrimary: 96, QuotaSecondary: 40, ResetS: 600}},
		{"quota=250,x quota=,3 quota=-1", Directives{}},
		{"quota=250,3", Directives{Quota: true, QuotaPrimary: 100, QuotaSecondary: 3}},
		{"stream_ms=-1 stream_ms=1e3 reset=+3 stall_ms=", Directives{}},
		{"stream_ms=99999999999999999999999", Directives{StreamMS: maxMS}},
		{"reset=99999999999", Directives{ResetS: maxMS / 1000}},
		{"say=a say=b", Directives{Say: "b"}},
		{"@@say=x Say=y", Directives{}},
		{"line one\nsay=two\tstream_ms=3", Directives{Say: "two", StreamMS: 3}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParseDirectives(tt.in)); diff != "" {
			t.Errorf("ParseDirectives(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func FuzzParseDirectives(f *testing.F) {
	for _, s := range []string{
		"", "say=hello", "tool=bash:ls_-la say=x", "limit=429 reset=5", "tokens=1,2,3", "quota=96,40",
		"stream_ms=99999999999999999999", "@=@", "say=\x00\xff", "overloaded=3 stall",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := ParseDirectives(s)
		for _, n := range []int{d.StreamMS, d.StallMS, d.ResetS * 1000} {
			if n < 0 || n > maxMS {
				t.Fatalf("a duration out of range: %+v", d)
			}
		}
		for _, n := range []int{d.TokensIn, d.TokensOut, d.CacheRead, d.CacheNew, d.Reasoning} {
			if n < 0 || n > maxTokens {
				t.Fatalf("a token count out of range: %+v", d)
			}
		}
		if d.Overload < -1 {
			t.Fatalf("overloaded out of range: %+v", d)
		}
		if strings.ContainsAny(d.Say, " \t\n") || strings.ContainsAny(d.Think, " \t\n") {
			t.Fatalf("a value spans tokens: %+v", d)
		}
	})
}
