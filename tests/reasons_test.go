package tests

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// wireDir is the package that declares every reason and cause (wire/reasons.go).
const wireDir = "socketapi/api/wire"

// reasonArg names, for each error constructor of package wire, the argument that is a
// reason or a cause.
var reasonArg = map[string]int{"Invalid": 0, "Env": 0, "Internal": 0, "From": 1, "Is": 2}

// reasonConst matches a constant named like a reason or a cause.
var reasonConst = regexp.MustCompile(`^(?i:reason|cause)[A-Z_]`)

// TestRepoReasonsFromTable fails when non-test Go code writes a reason or a cause as a
// string literal, or declares its own constant for one: every value that goes into an
// error's details.reason or details.cause is a constant of the one table in
// socketapi/api/wire/reasons.go, which docs/protocol.md §9.3 is generated from, so a
// reason cannot reach the wire undocumented.
func TestRepoReasonsFromTable(t *testing.T) {
	found := 0
	walkGoFiles(t, func(string) bool { return false }, func(fset *token.FileSet, rel string, f *ast.File) {
		inWire := strings.HasPrefix(rel, wireDir+"/") && !strings.Contains(strings.TrimPrefix(rel, wireDir+"/"), "/")
		literal := func(e ast.Expr, what string) {
			lit, ok := e.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return
			}
			if s, _ := strconv.Unquote(lit.Value); s != "" {
				t.Errorf("%s: %s %q is a string literal; use its constant from %s/reasons.go", fset.Position(lit.Pos()), what, s, wireDir)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok != token.CONST || (inWire && strings.HasSuffix(rel, "/reasons.go")) {
					return true
				}
				for _, spec := range n.Specs {
					for _, name := range spec.(*ast.ValueSpec).Names {
						if reasonConst.MatchString(name.Name) {
							t.Errorf("%s: constant %s declares a reason or cause outside %s/reasons.go", fset.Position(name.Pos()), name.Name, wireDir)
						}
					}
				}
			case *ast.CallExpr:
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.SelectorExpr:
					if x, ok := fn.X.(*ast.Ident); ok && x.Name == "wire" {
						name = fn.Sel.Name
					}
				case *ast.Ident:
					if inWire {
						name = fn.Name
					}
				}
				if i, ok := reasonArg[name]; ok && i < len(n.Args) {
					found++
					literal(n.Args[i], "the reason or cause of wire."+name)
				}
				keyValues(n.Args, literal)
			case *ast.CompositeLit:
				keyValues(n.Elts, literal)
			}
			return true
		})
	})
	if found < 100 {
		t.Fatalf("found %d calls of wire's error constructors; expected the repository's", found)
	}
}

// keyValues hands check every value that follows a "reason" or "cause" key in a list of
// details' key/value pairs.
func keyValues(args []ast.Expr, check func(ast.Expr, string)) {
	for i := 0; i+1 < len(args); i++ {
		lit, ok := args[i].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			continue
		}
		if k, _ := strconv.Unquote(lit.Value); k == "reason" || k == "cause" {
			check(args[i+1], "details."+k)
		}
	}
}
