package zktest

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"testing"
)

// Issue 26.11: an Example without an output comment is only compiled by go test, never run, so
// a broken example goes unnoticed. Every Example of this package must say what it prints. On the
// old code all four had none.
func TestExamplesHaveOutput(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	exs := doc.Examples([]*ast.File{f}...)
	if len(exs) == 0 {
		t.Fatal("no examples found in example_test.go")
	}
	for _, ex := range exs {
		if ex.Output == "" && !ex.EmptyOutput {
			t.Errorf("Example%s has no // Output: comment: go test compiles it but never runs it", ex.Name)
		}
	}
}
