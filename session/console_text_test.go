package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/copulang/copulang/compiler"
)

// TestConsoleTextOfLongTables: in the kernel, the text/plain of a table of
// more than KernelTextRows rows (what jupyter console prints) shows its
// first textHead and last textTail rows, or its first textHead + textTail
// for the imputed cells and a summary sorted worst first, and says how many
// rows are left out and which statement gives them all; its text/html
// still has every row (up to KernelTableRows), as a notebook shows it.
// jupyter console printed all 632 imputed cells of the GSS, and would print
// the 780 rows of a 40-column C's summary. Tables of up to KernelTextRows
// rows, and those that are short by design (a check's 60 pairs, compare),
// are printed whole. The texts are pinned in
// testdata/console_long_tables.golden (go test -run
// TestConsoleTextOfLongTables -update-tables rewrites it).
func TestConsoleTextOfLongTables(t *testing.T) {
	s := New(Options{Dir: t.TempDir(), TableRows: KernelTableRows, TextRows: KernelTextRows})
	mustRun(t, s, "data d = simulate(FullCopula(p = 13), n = 120, levels = 3, seed = 5, missing = 0.05)\n"+
		"data wide = simulate(FullCopula(p = 70), n = 30, levels = 3, seed = 1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 20, warmup = 10, chains = 2, seed = 1\n"+
		"model f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 5) }\n"+
		"fit f, iter = 20, warmup = 10, chains = 2, seed = 1")
	var golden strings.Builder
	for _, c := range []struct {
		stmt string
		// rows is the rows of the whole table; cut, whether its text is cut.
		rows int
		cut  bool
	}{
		{"summary m.C", 78, true},
		{"summary m.C, sort = rhat", 78, true},
		{"impute m", 0, true}, // rows: however many cells are missing
		{"summary wide", 70, true},
		{"summary m.partial", 78, true},
		{"summary f.Lambda", 65, true},
		{"summary f.C - m.C", 78, true},
		{"summary m.C[Y1]", 12, false},
		{"summary d", 13, false},
		{"check m", 60, false}, // 78 pairs, the 60 with the least p shown
	} {
		out := mustRun(t, s, c.stmt)
		var b MimeBundle // the first table shown (check's progress comes first)
		for _, d := range out.displays {
			if h, _ := d["text/html"].(string); b == nil && strings.Contains(h, "<table>") {
				b = d
			}
		}
		if b == nil {
			t.Fatalf("%s shows no table", c.stmt)
		}
		html, _ := b["text/html"].(string)
		rows := strings.Count(html, "<tr>") - 1
		if c.rows > 0 && rows != c.rows {
			t.Errorf("%s: %d rows of HTML, want every one of %d", c.stmt, rows, c.rows)
		}
		lines := captionedLines(t, b)
		switch {
		case !c.cut && len(lines) != 1+rows:
			t.Errorf("%s: %d lines of text, want its header and %d rows", c.stmt, len(lines), rows)
		case c.cut && len(lines) != 1+textHead+textTail+1+1:
			t.Errorf("%s: %d lines of text, want its header, %d rows, a row of … and what was left out", c.stmt, len(lines), textHead+textTail)
		case c.cut && !strings.HasPrefix(lines[len(lines)-1], fmt.Sprintf("(%d of %d rows shown", textHead+textTail, rows)) &&
			!strings.HasPrefix(lines[len(lines)-1], fmt.Sprintf("(the first %d of %d rows shown", textHead+textTail, rows)):
			t.Errorf("%s: the text ends %q", c.stmt, lines[len(lines)-1])
		}
		plain, _ := b["text/plain"].(string)
		fmt.Fprintf(&golden, "--- %s\n%s", c.stmt, plain)
	}
	// The first rows of a data set of many columns: its text shows the
	// first columns and the last two in textWidth runes, its HTML all.
	out := mustRun(t, s, "show wide")
	head := out.displays[0]
	if h, _ := head["text/html"].(string); strings.Count(h, "<th>") != 1+70 {
		t.Errorf("show wide: %d header cells of HTML, want the row's and 70 columns'", strings.Count(h, "<th>"))
	}
	lines := captionedLines(t, head)
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > textWidth && !strings.HasPrefix(l, "(") {
			t.Errorf("show wide: a line of %d runes, wider than %d: %q", n, textWidth, l)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "(") || !strings.Contains(last, "of 70 columns shown") {
		t.Errorf("show wide: the text ends %q", last)
	}
	plain, _ := head["text/plain"].(string)
	fmt.Fprintf(&golden, "--- show wide\n%s", plain)

	// The list of posterior means m.C is plain text only: cut the same way.
	out = mustRun(t, s, "print m.C")
	if n := strings.Count(out.text(), "(sd "); n != textHead+textTail {
		t.Errorf("print m.C shows %d of 78 means, want %d", n, textHead+textTail)
	}
	fmt.Fprintf(&golden, "--- print m.C\n%s", out.text())

	// The statements the texts name run.
	for _, stmt := range []string{`summary m.C[Y1]`, `export m to "draws.csv"`, `impute m to "cells.csv"`,
		`summary m.partial[Y1]`, `export m.partial to "partial.csv"`, `summary f.Lambda[Y1]`, `export wide to "wide.csv"`, `summary f.C[Y1] - m.C[Y1]`} {
		mustRun(t, s, stmt)
	}

	path := filepath.Join("testdata", "console_long_tables.golden")
	if *updateTableGolden {
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestConsoleTextOfLongTables -update-tables writes it)", err)
	}
	if golden.String() != string(want) {
		t.Errorf("the console's text of long tables differs from %s:\n%s", path, golden.String())
	}
}

// TestHelpSaysWhatTheConsoleShows: help summary and help impute say how
// much of a long table jupyter console prints; they said only what a
// notebook shows, the first and last 500 rows.
func TestHelpSaysWhatTheConsoleShows(t *testing.T) {
	for _, c := range []struct{ word, says string }{
		{"summary", fmt.Sprintf("jupyter console the first %d and last %d of more than %d (the first %d when sorted)", textHead, textTail, KernelTextRows, textHead+textTail)},
		{"impute", fmt.Sprintf("jupyter console the first %d of more than %d and copulang run the first %d", textHead+textTail, KernelTextRows, CLIImputeRows)},
	} {
		doc, ok := compiler.Doc(c.word)
		if !ok {
			t.Fatalf("no help for %s", c.word)
		}
		if text := strings.Join(strings.Fields(doc), " "); !strings.Contains(text, c.says) {
			t.Errorf("help %s does not say %q:\n%s", c.word, c.says, doc)
		}
	}
}

// TestConsoleTextOfALongDifferenceNamesAStatementThatRuns: the value of a
// long difference (f.C - m.C alone in a cell, as jupyter console prints
// it) says which statement shows more of it, as summary's table does. It
// said "summary f.C − m.C shows every row": its minus was the caption's
// U+2212, which the parser refuses (copied, the statement fails), and the
// console cuts that summary as well.
func TestConsoleTextOfALongDifferenceNamesAStatementThatRuns(t *testing.T) {
	s := New(Options{Dir: t.TempDir(), TableRows: KernelTableRows, TextRows: KernelTextRows})
	mustRun(t, s, "data d = simulate(FullCopula(p = 13), n = 120, levels = 3, seed = 5)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 20, warmup = 10, chains = 2, seed = 1\n"+
		"model f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n"+
		"fit f, iter = 20, warmup = 10, chains = 2, seed = 1\n"+
		"model g { Y = d[Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit g with gibbs, iter = 20, warmup = 10, chains = 2, seed = 2\n"+
		"model h { Y = d[Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit h with gibbs, iter = 20, warmup = 10, chains = 2, seed = 3")
	for _, c := range []struct {
		value, names string
		means        int
	}{
		{"print f.C - m.C", "summary f.C[Y1] - m.C[Y1] shows one column's", 78},
		{"print f.partial - m.partial", "summary f.partial[Y1] - m.partial[Y1] shows one column's", 78},
		// A column of both models: h has no Y1 (g.C - h.C named
		// summary g.C[Y1] - h.C[Y1], which fails).
		{"print g.C - h.C", "summary g.C[Y2] - h.C[Y2] shows one column's", 66},
	} {
		text := mustRun(t, s, c.value).text()
		if n := strings.Count(text, "(sd "); n != textHead+textTail {
			t.Errorf("%s shows %d of %d means, want %d", c.value, n, c.means, textHead+textTail)
		}
		if !strings.Contains(text, c.names) {
			t.Errorf("%s does not say %q:\n%s", c.value, c.names, text)
			continue
		}
		stmt := strings.TrimSuffix(c.names, " shows one column's")
		if n := strings.Count(mustRun(t, s, stmt).text(), "\n"); n == 0 {
			t.Errorf("%s, named by %s, shows nothing", stmt, c.value)
		}
		// The summary's cut table names the same.
		summary := "summary " + strings.TrimPrefix(c.value, "print ")
		if text := mustRun(t, s, summary).text(); !strings.Contains(text, c.names) {
			t.Errorf("%s does not say %q:\n%s", summary, c.names, text)
		}
	}
}
