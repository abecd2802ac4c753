package service_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/config/service"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var (
	plain = service.Values{Orcr: "/usr/local/bin/orcr", Home: "/home/ada/.orcr", HerdrBin: "/usr/local/bin/herdr",
		Path: "/home/ada/.npm-global/bin:/usr/local/bin:/usr/bin:/bin"}
	// special carries what the unit formats escape: white space, specifiers, "$",
	// quotes, backslashes and XML's markup characters. systemd cannot run an executable
	// whose path holds quotes or backslashes, so the Linux binary path has none.
	special = service.Values{
		Orcr:     `/opt/my tools/100% <orcr> & $HOME/orcr`,
		Home:     `/home/a b/it's "%h" \ $HOME & <x>`,
		HerdrBin: `/opt/herdr & co/bin/her'dr`,
		Path:     `/opt/my tools/100% bin:/home/a b/"x"/bin:/usr/bin`,
	}
	specialMac = service.Values{Orcr: `/Applications/My "orcr" & <co>/it's/orcr`, Home: special.Home, HerdrBin: special.HerdrBin, Path: special.Path}
)

// The rendered units are promised output: reviewed as golden files (-update rewrites
// them).
func TestRenderGolden(t *testing.T) {
	for _, tc := range []struct {
		goos, golden string
		v            service.Values
	}{
		{"linux", "orcr.service.golden", plain},
		{"linux", "special.service.golden", special},
		{"linux", "noherdr.service.golden", service.Values{Orcr: plain.Orcr, Home: plain.Home}},
		{"darwin", "dev.orchestratr.orcr.plist.golden", plain},
		{"darwin", "special.plist.golden", specialMac},
		{"darwin", "noherdr.plist.golden", service.Values{Orcr: plain.Orcr, Home: plain.Home}},
	} {
		got, err := service.Manager{GOOS: tc.goos, Getenv: env("HOME", "/home/ada")}.Render(tc.v)
		if err != nil {
			t.Fatalf("Render(%s, %+v): %v", tc.goos, tc.v, err)
		}
		path := filepath.Join("testdata", tc.golden)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("Render(%s) differs from %s (-want +got):\n%s", tc.goos, path, diff)
		}
	}
}

// The plist parses as XML and gives back every value exactly, in the order of
// docs/loops.md §12.2.
func TestPlistCarriesValues(t *testing.T) {
	for _, v := range []service.Values{plain, specialMac, {Orcr: plain.Orcr, Home: plain.Home}} {
		out, err := service.Manager{GOOS: "darwin", Getenv: env("HOME", "/Users/ada")}.Render(v)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			"key:Label", "string:dev.orchestratr.orcr",
			"key:ProgramArguments", "string:" + v.Orcr, "string:server", "string:start", "string:--foreground",
			"key:EnvironmentVariables", "key:ORCR_HOME", "string:" + v.Home,
		}
		if v.HerdrBin != "" {
			want = append(want, "key:ORCR_HERDR_BIN", "string:"+v.HerdrBin)
		}
		if v.Path != "" {
			want = append(want, "key:PATH", "string:"+v.Path)
		}
		want = append(want, "key:RunAtLoad", "true:", "key:KeepAlive", "key:Crashed", "true:",
			"key:StandardOutPath", "string:"+v.Home+"/logs/service.out.log",
			"key:StandardErrorPath", "string:"+v.Home+"/logs/service.err.log")
		if diff := cmp.Diff(want, plistLeaves(t, out)); diff != "" {
			t.Errorf("plist for %+v (-want +got):\n%s", v, diff)
		}
	}
}

// plistLeaves lists the plist's key, string and true elements as "<element>:<text>".
func plistLeaves(t *testing.T, doc []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	var out []string
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("the plist is not XML: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			text.Reset()
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			switch tok.Name.Local {
			case "key", "string", "true":
				out = append(out, tok.Name.Local+":"+text.String())
			}
		}
	}
}

// Read back with systemd's quoting rules, the unit's ExecStart and Environment lines
// give every value exactly.
func TestSystemdUnitCarriesValues(t *testing.T) {
	for _, v := range []service.Values{plain, special} {
		out, err := service.Manager{GOOS: "linux", Getenv: env("HOME", "/home/ada")}.Render(v)
		if err != nil {
			t.Fatal(err)
		}
		var exec []string
		envs := map[string]string{}
		for _, line := range strings.Split(string(out), "\n") {
			key, value, _ := strings.Cut(line, "=")
			switch key {
			case "ExecStart":
				exec = systemdWords(t, value)
			case "Environment":
				words := systemdWords(t, value)
				if len(words) != 1 {
					t.Errorf("%q: got %d assignments, want 1", line, len(words))
					continue
				}
				k, v, _ := strings.Cut(words[0], "=")
				envs[k] = v
			}
		}
		if diff := cmp.Diff([]string{v.Orcr, "server", "start", "--foreground"}, exec); diff != "" {
			t.Errorf("ExecStart for %+v (-want +got):\n%s", v, diff)
		}
		if diff := cmp.Diff(map[string]string{"ORCR_HOME": v.Home, "ORCR_HERDR_BIN": v.HerdrBin, "PATH": v.Path}, envs); diff != "" {
			t.Errorf("Environment for %+v (-want +got):\n%s", v, diff)
		}
	}
}

// systemdWords splits a unit value as systemd does for ExecStart and Environment: words
// separated by blanks, double or single quotes group, a backslash escapes the next
// character, "%%" is a percent sign. Only what the renderer emits is handled.
func systemdWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '%':
			if i+1 >= len(rs) || rs[i+1] != '%' {
				t.Fatalf("%q: a lone %% is a specifier", s)
			}
			i++
			w.WriteRune('%')
			inWord = true
		case r == '\\':
			if i+1 >= len(rs) {
				t.Fatalf("%q: a trailing backslash continues the line", s)
			}
			i++
			w.WriteRune(rs[i])
			inWord = true
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote = r
			inWord = true
		case quote == 0 && (r == ' ' || r == '\t'):
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("%q: unterminated quote", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// systemd's own parser accepts the unit: `systemd-analyze verify` reads it without a
// running systemd and checks that ExecStart names an executable file, so the binary is
// created at the (awkward) path the unit names.
func TestSystemdAnalyzeVerify(t *testing.T) {
	tool, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian package systemd): the unit is not checked by systemd")
	}
	for _, tc := range []struct {
		name string
		v    service.Values
	}{{"plain", plain}, {"special", special}, {"noherdr", service.Values{Home: plain.Home}}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.v.Orcr = filepath.Join(dir, "bin dir 100%h", "orcr $x")
			if err := os.MkdirAll(filepath.Dir(tc.v.Orcr), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(tc.v.Orcr, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := service.Manager{GOOS: "linux", Getenv: env("HOME", dir)}.Render(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			unit := filepath.Join(dir, service.SystemdUnitName)
			if err := os.WriteFile(unit, out, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(tool, "verify", unit)
			cmd.Env = append(os.Environ(), "SYSTEMD_LOG_COLOR=0", "SYSTEMD_PAGER=")
			got, err := cmd.CombinedOutput()
			if strings.Contains(string(got), "Failed to initialize manager") {
				t.Skipf("systemd-analyze cannot run here: %s", got)
			}
			if err != nil || len(bytes.TrimSpace(got)) > 0 {
				t.Errorf("systemd-analyze verify: %v\n%s\nunit:\n%s", err, got, out)
			}
		})
	}
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}
