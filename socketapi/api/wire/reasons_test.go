package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// TestReasonTable checks the reason table against the constants of reasons.go: each
// constant is one row, a Reason constant of a code whose details key is reason and a
// Cause constant of one whose key is cause, and no row is there twice or without a
// meaning. A constant added without its row, or a row without its constant, fails.
func TestReasonTable(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "reasons.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{} // value by name
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				v, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatalf("%s: %v", n.Name, err)
				}
				consts[n.Name] = v
			}
		}
	}
	rows := map[string]ReasonInfo{} // by key and name
	for _, r := range Reasons {
		if !r.Code.Known() {
			t.Errorf("%s: unknown code %q", r.Name, r.Code)
		}
		if strings.TrimSpace(r.Meaning) == "" {
			t.Errorf("%s: no meaning", r.Name)
		}
		k := r.Key() + " " + r.Name
		if _, dup := rows[k]; dup {
			t.Errorf("%s is in the table twice", k)
		}
		rows[k] = r
	}
	for name, v := range consts {
		key := "cause"
		if strings.HasPrefix(name, "Reason") {
			key = "reason"
		} else if !strings.HasPrefix(name, "Cause") {
			t.Errorf("constant %s is named neither Reason… nor Cause…", name)
		}
		if _, ok := rows[key+" "+v]; !ok {
			t.Errorf("%s = %q has no row of a code whose details key is %s", name, v, key)
		}
		delete(rows, key+" "+v)
	}
	for k := range rows {
		t.Errorf("row %s has no constant", k)
	}
}
