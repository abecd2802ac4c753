package tests

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"testing"
)

// sqlText matches a string literal that is (or starts) an SQL statement.
var sqlText = regexp.MustCompile(`(?is)^\s*(SELECT\s.+\sFROM\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(TABLE|INDEX|UNIQUE)\s|ALTER\s+TABLE\s|DROP\s+TABLE\s|PRAGMA\s|SAVEPOINT\s|BEGIN\s+IMMEDIATE)`)

// TestNoSQLOutsideStore fails when non-test Go code outside store/ holds SQL text: the
// store owns every statement, behind named operations, so a reader finds every query
// (and every rule written in one) in one package.
func TestNoSQLOutsideStore(t *testing.T) {
	walkGoFiles(t, func(rel string) bool { return rel == "store" }, func(fset *token.FileSet, _ string, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && sqlText.MatchString(s) {
				t.Errorf("%s: SQL outside store/: %.60q", fset.Position(lit.Pos()), s)
			}
			return true
		})
	})
}

// TestSQLPatternMatches keeps the detector honest: it must recognise the statement
// shapes the store writes, and leave prose alone.
func TestSQLPatternMatches(t *testing.T) {
	for _, s := range []string{"SELECT uuid FROM agents WHERE x = ?", "\n\tINSERT INTO turns (a) VALUES (?)",
		"UPDATE agents SET status = ?", "DELETE FROM events WHERE seq <= ?", "SAVEPOINT orcr_op"} {
		if !sqlText.MatchString(s) {
			t.Errorf("not detected: %q", s)
		}
	}
	for _, s := range []string{"select an agent", "update the row", "a kill of `%s` is in progress"} {
		if sqlText.MatchString(s) {
			t.Errorf("prose detected as SQL: %q", s)
		}
	}
}
