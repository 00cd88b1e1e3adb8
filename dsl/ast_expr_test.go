package dsl

import (
	"slices"
	"strings"
	"testing"
)

// TestExprStmtNeverStartsWithAKeyword keeps ExprStmt's negative lookahead
// equal to the statement keywords: a keyword alone is an incomplete
// statement (a syntax error), never a name.
func TestExprStmtNeverStartsWithAKeyword(t *testing.T) {
	for _, kw := range StatementKeywords() {
		f, err := Parse("", []byte(kw+" + 1"))
		if err == nil {
			t.Errorf("%q parsed as %T", kw+" + 1", f.Stmts[0])
		}
	}
	grammar := parser.String()
	if !strings.Contains(grammar, "ExprStmt = (?! ") {
		t.Fatal("ExprStmt lost its lookahead")
	}
	n := strings.Count(grammar[strings.Index(grammar, "ExprStmt = "):], `"`) / 2
	if n != len(StatementKeywords()) {
		t.Errorf("ExprStmt's lookahead lists %d words, want the %d statement keywords", n, len(StatementKeywords()))
	}
}

func TestValueStatements(t *testing.T) {
	tests := []struct {
		src  string
		want string // StmtString of the only statement
	}{
		{"m.C[1, 2]", "m.C[1, 2]"},
		{"1 + 2 * 3", "1 + 2 * 3"},
		{"gss", "gss"},
		{`print "hello, world", 2`, `print "hello, world", 2`},
		{"help fit", "help fit"},
		{"help", "help"},
		{"clear", "clear"},
	}
	for _, tc := range tests {
		f, err := Parse("", []byte(tc.src))
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if len(f.Stmts) != 1 || StmtString(f.Stmts[0]) != tc.want {
			t.Errorf("%q: got %d statements, first %q", tc.src, len(f.Stmts), StmtString(f.Stmts[0]))
		}
	}
}

func TestCompleteness(t *testing.T) {
	tests := []struct {
		src    string
		status string
		braces int
	}{
		{"model m {", "incomplete", 1},
		{"model m {\n  # } a brace in a comment\n", "incomplete", 1},
		{"model m {\n  Y = load(\"{\")\n", "incomplete", 1},
		{"model m {\n  Y = d[a,", "incomplete", 1},
		{"# { only a comment", "complete", 0},
		{`print "{"`, "complete", 0},
		{`print "abc`, "invalid", 0},
		{"}", "invalid", 0},
		{"fit = 3", "invalid", 0},
		{strings.Repeat("(", MaxNesting+1), "invalid", 0},
		{strings.Repeat("(", MaxNesting), "incomplete", 0},
		// Brackets inside what the lexer reads as one error do not count:
		// a string in single or curly quotes closed on its line, // to the
		// end of the line, /* to its */. The source is then invalid (a
		// console shows the error and its hint), not waiting for a ')'.
		{`data d = load('x(.csv')`, "invalid", 0},
		{"data d = load(\u201cx(.csv\u201d)", "invalid", 0},
		// A lexical error, here // for a comment, is final once its line
		// is: more lines cannot mend it, so the source is invalid, open
		// brackets or not, and the console shows the error at once.
		{"model m { // {\n", "invalid", 0},
		{"show m /* ( [ {\n still a comment */", "invalid", 0},
		{"show m /* ( [ {", "invalid", 0},
		// An unclosed single quote is one stray character, an error no
		// next line mends (brackets after it count, as for the indent).
		{`data d = load('x.csv`, "invalid", 0},
		{"data d = load(\"x.cs", "invalid", 0},
		{"data d = load(\"x.csv\", na = [\"-9\n\"])\n", "invalid", 0},
		{"model m {\n  Y = d[\"a, b]\n", "invalid", 0},
	}
	for _, tc := range tests {
		status, braces := Completeness(tc.src)
		if status != tc.status || braces != tc.braces {
			t.Errorf("Completeness(%q) = %s, %d; want %s, %d", tc.src, status, braces, tc.status, tc.braces)
		}
	}
}

func TestGrammarWords(t *testing.T) {
	words := GrammarWords()
	for _, w := range append(StatementKeywords(), "with", "to", "vs", "where", "and", "or", "not", "in", "given") {
		if !slices.Contains(words, w) {
			t.Errorf("%s missing from %v", w, words)
		}
	}
}

func TestStatementStart(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", ""},
		{"fit m, it", "fit m, it"},
		{"show m\nfit m, it", "fit m, it"},
		{"show m; fit m, it", " fit m, it"},
		{"show m\nfit m, iter = 20,\n  # more\n\n  war", "fit m, iter = 20,\n  # more\n\n  war"},
		{"data d = load(\"x.csv\",\n  sep", "data d = load(\"x.csv\",\n  sep"},
		{"model m {\n  Y = gss\n  C ~ Inv", "  C ~ Inv"},
		{"print \"a\nb\"\nfit m, ", "fit m, "},
	}
	for _, tc := range tests {
		if got := tc.src[StatementStart(tc.src):]; got != tc.want {
			t.Errorf("StatementStart(%q) leaves %q, want %q", tc.src, got, tc.want)
		}
	}
}
