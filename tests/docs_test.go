package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/orcr-go/orcr/socketapi/api"
)

// docFiles reads the repository's Markdown: README.md and docs/*.md, by path from the
// root.
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, n := range append(names, "../README.md") {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		docs[strings.TrimPrefix(n, "../")] = string(b)
	}
	if len(docs) < 10 {
		t.Fatalf("read %d Markdown files; expected README.md and docs/", len(docs))
	}
	return docs
}

var (
	heading     = regexp.MustCompile("(?m)^#{1,6} +(.+?) *#*$")
	fence       = regexp.MustCompile("(?ms)^```.*?^```")
	sectionNum  = regexp.MustCompile(`^(\d+(?:\.\d+)*[a-z]?)\.? `)
	mdLink      = regexp.MustCompile(`\[([^\[\]]*)\]\(([^()\s#]*\.md)?#([^()\s]+)\)`)
	linkSection = regexp.MustCompile(`§\s?(\d+(?:\.\d+)*[a-z]?)`)
)

// unfenced is doc with its fenced code blocks blanked (their lines kept, so line numbers
// hold): a heading or a link inside one is an example.
func unfenced(doc string) string {
	return fence.ReplaceAllStringFunc(doc, func(b string) string { return strings.Repeat("\n", strings.Count(b, "\n")) })
}

// anchors maps each heading's GitHub anchor in doc to the heading's section number
// ("" when it has none).
func anchors(doc string) map[string]string {
	out := map[string]string{}
	for _, m := range heading.FindAllStringSubmatch(unfenced(doc), -1) {
		text := m[1]
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		for i := 1; ; i++ {
			if _, dup := out[slug]; !dup {
				break
			}
			slug = b.String() + "-" + strconv.Itoa(i)
		}
		num := ""
		if n := sectionNum.FindStringSubmatch(text); n != nil {
			num = n[1]
		}
		out[slug] = num
	}
	return out
}

// TestDocsLinkAnchors fails on a Markdown link [text](file.md#anchor) (or [text](#anchor))
// whose anchor is no heading of that file, or whose text names a section (§N.M) other
// than the one the anchor points at: a renumbered or renamed section leaves no dangling
// reference behind.
func TestDocsLinkAnchors(t *testing.T) {
	t.Parallel()
	docs := docFiles(t)
	heads := map[string]map[string]string{}
	for name, doc := range docs {
		heads[name] = anchors(doc)
	}
	links := 0
	for name, doc := range docs {
		text := unfenced(doc)
		for _, m := range mdLink.FindAllStringSubmatchIndex(text, -1) {
			label, file, anchor := text[m[2]:m[3]], "", text[m[6]:m[7]]
			target := name
			if m[4] >= 0 {
				file = text[m[4]:m[5]]
				target = filepath.ToSlash(filepath.Join(filepath.Dir(name), file))
			}
			line := strings.Count(text[:m[0]], "\n") + 1
			hs, ok := heads[target]
			if !ok {
				t.Errorf("%s:%d: link to %s, which is not a Markdown file of the repository", name, line, target)
				continue
			}
			links++
			num, ok := hs[anchor]
			if !ok {
				t.Errorf("%s:%d: [%s](%s#%s): %s has no heading with that anchor", name, line, label, file, anchor, target)
				continue
			}
			if s := linkSection.FindAllStringSubmatch(label, -1); len(s) == 1 && s[0][1] != num {
				t.Errorf("%s:%d: [%s](%s#%s) names §%s, but the anchor is §%s", name, line, label, file, anchor, s[0][1], num)
			}
		}
	}
	if links < 100 {
		t.Fatalf("checked %d anchored links; expected the docs' hundreds", links)
	}
}

// methodCount matches a count of methods in prose ("all 31 methods").
var methodCount = regexp.MustCompile(`\b(\d+) methods\b`)

// TestDocsMethodCount fails when the docs count the methods differently from the method
// table (api.Methods).
func TestDocsMethodCount(t *testing.T) {
	want := strconv.Itoa(len(api.Methods))
	found := 0
	for name, doc := range docFiles(t) {
		for _, m := range methodCount.FindAllStringSubmatchIndex(doc, -1) {
			found++
			if got := doc[m[2]:m[3]]; got != want {
				t.Errorf("%s:%d: %s methods; the method table has %s", name, strings.Count(doc[:m[0]], "\n")+1, got, want)
			}
		}
	}
	if found == 0 {
		t.Fatal("no method count found in the docs; the README and docs/README.md give one")
	}
}
