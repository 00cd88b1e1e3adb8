package session

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// reportScript fits two small seeded models to one simulation, for the
// files of summary ... to "PATH".
const reportScript = "data sim = simulate(FullCopula(p = 3), n = 150, levels = 3, seed = 2)\n" +
	"model a { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
	"model b { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }\n" +
	"fit a with gibbs, iter = 150, warmup = 50, chains = 2, seed = 1\n" +
	"fit b with gibbs, iter = 150, warmup = 50, chains = 2, seed = 2\n"

// reportSession runs reportScript in a session of a new directory.
func reportSession(t *testing.T) (*Session, string) {
	t.Helper()
	dir := t.TempDir()
	s := New(Options{Dir: dir, Version: "9.9.9"})
	mustRun(t, s, reportScript)
	return s, dir
}

// TestSummaryFilesGolden writes the table of a seeded fit's summary and
// of a difference of two fits as CSV, LaTeX and Markdown, and compares
// each with its golden file in testdata/report (go test -run
// TestSummaryFilesGolden -update-tables rewrites them). A second session
// running the same script writes the same bytes: nothing in the files
// depends on when or where they were written.
func TestSummaryFilesGolden(t *testing.T) {
	s, dir := reportSession(t)
	files := []string{"a.csv", "a.tex", "a.md", "d.csv", "d.tex", "d.md", "levels.csv",
		"matrix.tex", "matrix.md", "matrix.csv", "dmatrix.tex", "pmatrix.tex", "diagnostics.tex"}
	cell := "summary a.C to \"a.csv\"\nsummary a.C to \"a.tex\"\nsummary a.C to \"a.md\"\n" +
		"summary a.C - b.C to \"d.csv\"\nsummary a.C - b.C to \"d.tex\"\nsummary a.C - b.C to \"d.md\"\n" +
		"summary sim[Y1, Y3] to \"levels.csv\"\n" +
		"summary a.C to \"matrix.tex\", layout = matrix\nsummary a.C to \"matrix.md\", layout = matrix\nsummary a.C to \"matrix.csv\", layout = matrix\n" +
		"summary a.C - b.C to \"dmatrix.tex\", layout = matrix, prob = 0.8\nsummary a.partial to \"pmatrix.tex\", layout = matrix, columns = [q50]\n" +
		"summary a.C to \"diagnostics.tex\", columns = [ess_bulk, ess_tail, rhat, mcse_mean]"
	out := mustRun(t, s, cell)
	for _, f := range files {
		if want := "to " + filepath.Join(dir, f) + "\n"; !strings.Contains(out.stdout.String(), want) {
			t.Errorf("the cell's output does not say it wrote %s:\n%s", f, out.stdout.String())
		}
	}
	if len(out.displays) != len(files) {
		t.Errorf("%d tables shown, want %d: writing a table shows it too", len(out.displays), len(files))
	}
	s2, dir2 := reportSession(t)
	mustRun(t, s2, cell)
	checkTableGoldens(t, dir, dir2, files)
}

// checkTableGoldens compares each of files, as two sessions running the
// same cells wrote them in dir and dir2, with each other (nothing in a
// table's file depends on when or where it was written) and with its
// golden file in testdata/report (-update-tables rewrites them).
func checkTableGoldens(t *testing.T, dir, dir2 string, files []string) {
	t.Helper()
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		again, err := os.ReadFile(filepath.Join(dir2, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, again) {
			t.Errorf("%s differs between two runs of the same script:\n%s\n---\n%s", f, got, again)
		}
		golden := filepath.Join("testdata", "report", f+".golden")
		if *updateTableGolden {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -run %s -update-tables to create it)", err, t.Name())
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", f, golden, got, want)
		}
	}
}

// TestSummaryCSVReadsBackAsShown reads the CSV of a summary and of a
// difference back and rounds each number as the table shown rounds it:
// the same cells, row by row, with the labels and the columns each is of.
func TestSummaryCSVReadsBackAsShown(t *testing.T) {
	s, dir := reportSession(t)
	for _, tc := range []struct{ cell, file string }{
		{`summary a.C to "a.csv", prob = 0.8, sort = ess_bulk`, "a.csv"},
		{`summary a.C - b.C to "d.csv"`, "d.csv"},
		{`summary a.partial to "p.csv"`, "p.csv"},
	} {
		out := mustRun(t, s, tc.cell)
		shown := strings.Split(strings.TrimSpace(out.displays[0]["text/plain"].(string)), "\n")[2:] // after the caption and header
		f, err := os.Open(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		header := rows[0]
		if len(rows)-1 != len(shown) {
			t.Fatalf("%s: %d rows, the table %d", tc.file, len(rows)-1, len(shown))
		}
		formats := []string{"%.3f", "%.3f", "%.3f", "%.3f", "%.3f", "%.0f", "%.0f", "%.3f", "%.4f", "%.4f", "%.3f"}
		for i, r := range rows[1:] {
			cells := strings.Fields(shown[i])
			if r[0] != cells[0] {
				t.Errorf("%s row %d: label %q, the table's %q", tc.file, i+1, r[0], cells[0])
			}
			if r[1] == "" || r[2] == "" || !strings.Contains(r[0], r[1]) || !strings.Contains(r[0], r[2]) {
				t.Errorf("%s row %d: row %q and column %q do not name the columns of %s", tc.file, i+1, r[1], r[2], r[0])
			}
			for k, v := range r[3:] {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s row %d, %s: %v", tc.file, i+1, header[3+k], err)
				}
				if got := tableNum(formats[k], x); got != cells[1+k] {
					t.Errorf("%s row %d, %s: %s rounds to %s, the table shows %s", tc.file, i+1, header[3+k], v, got, cells[1+k])
				}
			}
		}
		if tc.file == "a.csv" && !strings.HasPrefix(strings.Join(header, ","), "label,row,column,mean,sd,q10,q50,q90,") {
			t.Errorf("header %v: the interval's columns are named by prob", header)
		}
		if tc.file == "d.csv" && header[len(header)-1] != "p_positive" {
			t.Errorf("header %v ends without p_positive", header)
		}
	}
}

// TestSummaryFileNamesTheStatementAsWritten: the comment of a table's
// file names the statement that wrote it, its indices as written, a
// regression's formula and a data set's columns, so that a reader of
// the paper's sources can run it again. It read summary a.C[1,3],
// summary a.regress and summary sim for the first three, and left out
// columns = and layout =.
func TestSummaryFileNamesTheStatementAsWritten(t *testing.T) {
	s, dir := reportSession(t)
	for _, stmt := range []string{
		`summary a.C[Y1, 3] to "one.tex"`,
		`summary a.C[Y2, Y1] to "swapped.tex"`,
		`summary a.regress(Y1 ~ Y2 + Y3)[R2] to "r2.md", prob = 0.8`,
		`summary a.regress(Y1 ~ Y2 + Y3) to "reg.tex"`,
		`summary sim[Y1, Y3] to "levels.md"`,
		`summary a.C[Y1] - b.C[Y1] to "d.tex", sort = rhat`,
		`summary a.partial to "pm.md", prob = 0.8, columns = [q50, interval], layout = matrix`,
		`summary a.C to "diagnostics.tex", columns = [rhat, ess_bulk]`,
	} {
		mustRun(t, s, stmt)
		path := strings.Split(stmt, `"`)[1]
		got, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), "written by "+stmt+"\n") {
			t.Errorf("%s does not say it was written by %s:\n%s", path, stmt, got)
		}
	}
}

// TestSummaryFilesEscapeColumnNames: column names that mean something
// to LaTeX (a_b & 50%: _, &, %; | is an em dash in its default font) or
// end a Markdown cell (x|y) are written as text, so that the table still
// compiles and has its columns; the straight quotes of a quoted name are
// straight quotes in typewriter type (LaTeX's default encoding, OT1, set
// " as a closing curly quote, and \textquotedbl is an error there).
func TestSummaryFilesEscapeColumnNames(t *testing.T) {
	dir := t.TempDir()
	var data strings.Builder
	data.WriteString("\"a_b & 50%\",x|y {z}\n")
	for i := range 60 {
		data.WriteString(strconv.Itoa(i%3) + "," + strconv.Itoa((i/2)%3) + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "odd.csv"), []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir, Version: "9.9.9"})
	mustRun(t, s, "data odd = load(\"odd.csv\")\nmodel m { Y = odd; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\n"+
		"summary m.C to \"c.tex\"\nsummary m.C to \"c.md\"\nsummary odd to \"odd.tex\"")
	tex, _ := os.ReadFile(filepath.Join(dir, "c.tex"))
	if !strings.Contains(string(tex), `C[\texttt{"}a\_b \& 50\%\texttt{"},\texttt{"}x\textbar{}y \{z\}\texttt{"}] & `) {
		t.Errorf("c.tex does not escape the column names:\n%s", tex)
	}
	oddTeX, _ := os.ReadFile(filepath.Join(dir, "odd.tex"))
	if !strings.Contains(string(oddTeX), "\na\\_b \\& 50\\% & 3 & 0 & 0 & 2 \\\\\n") {
		t.Errorf("odd.tex does not escape the column name in its row:\n%s", oddTeX)
	}
	for _, line := range strings.Split(string(tex), "\n") {
		if strings.HasPrefix(line, "%") {
			continue
		}
		if strings.Contains(line, "\\begin{tabular}") && line != "\\begin{tabular}{@{}lrrrrr@{}}" {
			t.Errorf("column spec %q, want the label left and the 5 numbers of a paper's table right", line)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "c.md"))
	if !strings.Contains(string(md), `| C["a\_b & 50%","x\|y {z}"] | `) {
		t.Errorf("c.md does not escape the column names:\n%s", md)
	}
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "| C[") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 7 {
			t.Errorf("row %q does not have the 6 cells of a paper's table", line)
		}
	}
}

// TestPlotToFile writes a heatmap and a trace plot as PDF and SVG: whole
// files (a PDF's header, cross-reference table and trailer; an SVG that
// parses as XML), of a figure's size, the same bytes from another session
// running the same script; a notebook shows the figure too, and the CLI
// (an output that writes figures as files) writes only the file named.
func TestPlotToFile(t *testing.T) {
	s, dir := reportSession(t)
	cell := "plot heatmap a.C to \"h.pdf\"\nplot trace a.C[1, 2] to \"t.pdf\"\nplot heatmap a.C to \"h.svg\"\nplot trace a.C[1, 2] to \"t.svg\"\nplot hist a.C[1, 2] - b.C[1, 2] to \"d.png\""
	out := mustRun(t, s, cell)
	if out.images() != 5 {
		t.Errorf("%d figures shown, want 5: a notebook shows the figure it writes", out.images())
	}
	s2, dir2 := reportSession(t)
	cli := &figureFiles{}
	if _, err := s2.Execute(context.Background(), cell, cli); err != nil {
		t.Fatal(err)
	}
	if len(cli.names) != 0 || cli.images() != 0 {
		t.Errorf("the CLI wrote figures %v and showed %d besides the files named", cli.names, cli.images())
	}
	for _, f := range []string{"h.pdf", "t.pdf", "h.svg", "t.svg", "d.png"} {
		if want := "wrote " + filepath.Join(dir, f) + " ("; !strings.Contains(out.stdout.String(), want) {
			t.Errorf("the output does not say %q:\n%s", want, out.stdout.String())
		}
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		again, err := os.ReadFile(filepath.Join(dir2, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, again) {
			t.Errorf("%s differs between two runs of the same script", f)
		}
		if len(got) < 4<<10 {
			t.Errorf("%s is %d bytes, too small for a figure", f, len(got))
		}
		switch filepath.Ext(f) {
		case ".pdf":
			if !bytes.HasPrefix(got, []byte("%PDF-1.")) || !bytes.HasSuffix(bytes.TrimSpace(got), []byte("%%EOF")) || !bytes.Contains(got, []byte("\ntrailer\n")) {
				t.Errorf("%s is not a whole PDF", f)
			}
			if !bytes.Contains(got, []byte("/FontFile2")) {
				t.Errorf("%s does not embed its font", f)
			}
		case ".svg":
			dec := xml.NewDecoder(bytes.NewReader(got))
			for {
				_, err := dec.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("%s is not XML: %v", f, err)
				}
			}
		case ".png":
			if !bytes.HasPrefix(got, []byte("\x89PNG")) {
				t.Errorf("%s is not a PNG", f)
			}
		}
	}
}

// TestReportFilesKeepPermissions: a table or figure written over a file
// keeps its permission bits, as export's files do.
func TestReportFilesKeepPermissions(t *testing.T) {
	s, dir := reportSession(t)
	for _, f := range []string{"a.tex", "h.pdf"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, s, "summary a.C to \"a.tex\"\nplot heatmap a.C to \"h.pdf\"")
	for _, f := range []string{"a.tex", "h.pdf"} {
		info, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 || info.Size() < 100 {
			t.Errorf("%s: mode %v, %d bytes; want 0600 and the new contents", f, info.Mode().Perm(), info.Size())
		}
	}
}

// TestReportRefusesADataFile: summary and plot refuse to write over the
// file data bound in the session were loaded from, at check time, with
// the position of the path, as export does.
func TestReportRefusesADataFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte("x,y\n1,2\n2,1\n1,1\n2,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = load("d.csv")`)
	_, err := s.Execute(context.Background(), "summary d\nsummary d to \"d.csv\"", &recorder{})
	var se *Error
	if !errors.As(err, &se) || se.Name != "CheckError" {
		t.Fatalf("error %v, want a CheckError", err)
	}
	if tb := strings.Join(se.Traceback, "\n"); !strings.Contains(tb, "2:14: cannot write d.csv: d.csv is the file data d was loaded from, which this would write over: name another file") {
		t.Errorf("traceback:\n%s", tb)
	}
}

// TestReportRefusesADataFileLoadedInTheSameCell: summary, export and
// impute (and plot, whose files cannot be data) refuse to write over a file that a load earlier in the same
// cell reads, by any spelling of its path, when the cell is checked: with
// the position of the path, before anything runs (the model of the cell
// is not fitted). They were refused only when the statement ran, after
// the fit.
func TestReportRefusesADataFileLoadedInTheSameCell(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	var data strings.Builder
	data.WriteString("x,y\n")
	for i := range 30 {
		fmt.Fprintf(&data, "%d,%d\n", i%3, (i/3)%3)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const setup = "data d = load(\"d.csv\")\nmodel m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m, iter = 20, warmup = 10, chains = 1, seed = 1\n"
	for _, tc := range []struct{ stmt, at string }{
		{`summary m.C to "d.csv"`, "4:16"},
		{`summary d to "./sub/../d.csv"`, "4:14"},
		{`export m to "DIR/d.csv"`, "4:13"},
		{`impute m, draws = "d.csv"`, "4:19"},
	} {
		s := New(Options{Dir: dir})
		stmt := strings.ReplaceAll(tc.stmt, "DIR", dir)
		out := &recorder{}
		_, err := s.Execute(context.Background(), setup+stmt, out)
		var se *Error
		if !errors.As(err, &se) || se.Name != "CheckError" {
			t.Fatalf("%s: error %v, want a CheckError", stmt, err)
		}
		path := regexp.MustCompile(`"([^"]*)"`).FindStringSubmatch(stmt)[1]
		want := tc.at + ": cannot write " + path + ": " + path + " is the file data d is loaded from (line 1), which this would write over: name another file"
		if tb := strings.Join(se.Traceback, "\n"); !strings.Contains(tb, want) {
			t.Errorf("%s: traceback\n%s\nwant %q", stmt, tb, want)
		}
		if _, fitted := s.models["m"]; fitted || out.stdout.Len() > 0 {
			t.Errorf("%s: the cell ran before the refusal:\n%s", stmt, out.stdout.String())
		}
	}
}

// TestMatrixCSVSaysWhatItWrote: summary ..., layout = matrix to a .csv
// file writes the p × p matrix of point estimates, diagonal included, so
// the line that says what was written counts its rows, not the p − 1 rows
// of the lower triangle shown (it said "the table (2 rows)" of a 3 × 3
// matrix).
func TestMatrixCSVSaysWhatItWrote(t *testing.T) {
	s, dir := reportSession(t)
	for _, tc := range []struct{ cell, file, want string }{
		{`summary a.C to "m.csv", layout = matrix`, "m.csv", "wrote the 3 × 3 matrix of posterior means to "},
		{`summary a.partial to "q.csv", layout = matrix, columns = [q50]`, "q.csv", "wrote the 3 × 3 matrix of posterior medians to "},
		{`summary a.C to "m.tex", layout = matrix`, "m.tex", "wrote the table (2 rows) to "},
	} {
		out := mustRun(t, s, tc.cell)
		if want := tc.want + filepath.Join(dir, tc.file) + "\n"; !strings.Contains(out.stdout.String(), want) {
			t.Errorf("%s: output\n%s\nwant it to say %q", tc.cell, out.stdout.String(), want)
		}
		if tc.file == "m.csv" {
			rows, err := readCSVFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 4 || len(rows[0]) != 4 {
				t.Errorf("m.csv: %d rows of %d fields, want a header and 3 rows of 4", len(rows), len(rows[0]))
			}
		}
	}
}

// TestTeXSaysHowManyTabulars: a .tex table split into tabulars (a
// matrix too wide for the text, or more rows than a page holds) says how
// many it wrote, since each must be placed: on the 20 columns of a
// simulation, the matrix of C said only "wrote the table (19 rows)" of its 6
// tabulars. One tabular is not mentioned.
func TestTeXSaysHowManyTabulars(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, "data sim = simulate(FullCopula(p = 10), n = 100, levels = 3, seed = 2)\n"+
		"model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1")
	for _, tc := range []struct{ cell, file, want string }{
		{`summary m.C to "m.tex", layout = matrix`, "m.tex", "wrote the table (9 rows) as 3 tabulars, one above the other, to "},
		{`summary m.C to "long.tex"`, "long.tex", "wrote the table (45 rows) as 2 tabulars, one above the other, to "},
		{`summary m.C to "m.md", layout = matrix`, "m.md", "wrote the table (9 rows) to "},
		{`summary m.C[Y1] to "one.tex", layout = long`, "one.tex", "wrote the table (9 rows) to "},
	} {
		out := mustRun(t, s, tc.cell)
		if want := tc.want + filepath.Join(dir, tc.file) + "\n"; !strings.Contains(out.stdout.String(), want) {
			t.Errorf("%s: output\n%s\nwant it to say %q", tc.cell, out.stdout.String(), want)
		}
		if strings.HasSuffix(tc.file, ".tex") {
			tex, _ := os.ReadFile(filepath.Join(dir, tc.file))
			n := strings.Count(string(tex), `\begin{tabular}`)
			if says := strings.Contains(tc.want, " as "); says != (n > 1) || says && !strings.Contains(tc.want, fmt.Sprintf(" as %d tabulars", n)) {
				t.Errorf("%s: the file holds %d tabulars; the output says %q", tc.cell, n, tc.want)
			}
		}
	}
}

func readCSVFile(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return csv.NewReader(f).ReadAll()
}
