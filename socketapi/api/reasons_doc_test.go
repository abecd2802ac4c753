package api_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// reasonsDoc is the document whose §9.3 lists the reasons and causes.
const reasonsDoc = "../../docs/protocol.md"

// reasonBlock matches one generated table of docs/protocol.md §9.3: the rows of one code,
// between an opening marker that names the code and a closing marker.
var reasonBlock = regexp.MustCompile(`(?s)(<!-- reasons ([a-z_]+): generated from socketapi/api/wire/reasons.go -->\n)(.*?)(<!-- /reasons -->)`)

// TestReasonsDoc keeps docs/protocol.md §9.3 true: each code's table of reasons or causes
// is the rows of wire.Reasons for that code, and every code that has rows has its table.
// A reason added to the table shows up as a diff of the doc (regenerate with -update and
// review it); one written into the doc by hand is overwritten.
func TestReasonsDoc(t *testing.T) {
	doc, err := os.ReadFile(reasonsDoc)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[wire.Code]bool{}
	got := reasonBlock.ReplaceAllStringFunc(string(doc), func(block string) string {
		m := reasonBlock.FindStringSubmatch(block)
		code := wire.Code(m[2])
		if !code.Known() || seen[code] {
			t.Errorf("%s: a reasons block names %q, which is no code or has a block already", reasonsDoc, m[2])
		}
		seen[code] = true
		return m[1] + reasonTable(code) + m[4]
	})
	for _, r := range wire.Reasons {
		if !seen[r.Code] {
			t.Errorf("%s has no reasons block for %s (it has %s %q)", reasonsDoc, r.Code, r.Key(), r.Name)
			seen[r.Code] = true
		}
	}
	if *update {
		if err := os.WriteFile(reasonsDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != string(doc) {
		t.Errorf("%s §9.3 differs from wire.Reasons; run `go test ./socketapi/api -run TestReasonsDoc -update` and review the diff", reasonsDoc)
	}
}

// reasonTable renders the rows of code as a Markdown table: adjacent rows with one
// meaning share a line.
func reasonTable(code wire.Code) string {
	var b strings.Builder
	var names []string
	var meaning, key string
	flush := func() {
		if len(names) > 0 {
			b.WriteString("| `" + strings.Join(names, "`, `") + "` | " + meaning + " |\n")
		}
		names = nil
	}
	for _, r := range wire.Reasons {
		if r.Code != code {
			continue
		}
		if key == "" {
			key = r.Key()
			b.WriteString("| " + key + " | meaning |\n| --- | --- |\n")
		}
		if r.Meaning != meaning {
			flush()
		}
		names, meaning = append(names, r.Name), r.Meaning
	}
	flush()
	return b.String()
}
