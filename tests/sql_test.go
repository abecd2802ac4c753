package tests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlText matches a string literal that is (or starts) an SQL statement.
var sqlText = regexp.MustCompile(`(?is)^\s*(SELECT\s.+\sFROM\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(TABLE|INDEX|UNIQUE)\s|ALTER\s+TABLE\s|DROP\s+TABLE\s|PRAGMA\s|SAVEPOINT\s|BEGIN\s+IMMEDIATE)`)

// TestNoSQLOutsideStore fails when non-test Go code outside store/ holds SQL text: the
// store owns every statement, behind named operations, so a reader finds every query
// (and every rule written in one) in one package.
func TestNoSQLOutsideStore(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "store" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked %d Go files; expected the whole repository", checked)
	}
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
