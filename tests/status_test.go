package tests

import (
	"go/ast"
	"go/token"
	"path"
	"strings"
	"testing"
)

// TestRepoRulesCompareTypedStatuses fails when a pure rule of actors/ (the *rule.go
// files: turn, stall, start, limit, repair) compares a status with a string literal:
// the rules compare api.Status constants and the store's named sets, so a misspelt
// status fails to compile instead of never matching.
func TestRepoRulesCompareTypedStatuses(t *testing.T) {
	rules := 0
	walkGoFiles(t, func(string) bool { return false }, func(fset *token.FileSet, rel string, f *ast.File) {
		if path.Dir(rel) != "actors" || !strings.HasSuffix(rel, "rule.go") {
			return
		}
		rules++
		isStatus := func(e ast.Expr) bool {
			s, ok := e.(*ast.SelectorExpr)
			return ok && s.Sel.Name == "Status"
		}
		isString := func(e ast.Expr) bool {
			l, ok := e.(*ast.BasicLit)
			return ok && l.Kind == token.STRING
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) &&
					(isStatus(n.X) && isString(n.Y) || isString(n.X) && isStatus(n.Y)) {
					t.Errorf("%s: a status compared with a string literal", fset.Position(n.Pos()))
				}
			case *ast.SwitchStmt:
				if n.Tag == nil || !isStatus(n.Tag) {
					return true
				}
				for _, c := range n.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						if isString(e) {
							t.Errorf("%s: a status switch with a string literal case", fset.Position(e.Pos()))
						}
					}
				}
			}
			return true
		})
	})
	if rules < 5 {
		t.Fatalf("found %d rule files in actors/; expected the turn, stall, start, limit and repair rules", rules)
	}
}
