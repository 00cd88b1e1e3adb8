package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/copulang/copulang/compiler"
)

// recorder is an Output that keeps everything a cell shows.
type recorder struct {
	stdout, stderr strings.Builder
	displays       []MimeBundle
	updates        int
	ids            []string
	// onStream, if set, sees every stdout text as it is written.
	onStream func(text string)
}

func (r *recorder) Stream(name, text string) {
	if r.onStream != nil && name == "stdout" {
		r.onStream(text)
	}
	if name == "stderr" {
		r.stderr.WriteString(text)
		return
	}
	r.stdout.WriteString(text)
}

func (r *recorder) Display(b MimeBundle, id string) {
	r.displays = append(r.displays, b)
	r.ids = append(r.ids, id)
}

func (r *recorder) UpdateDisplay(b MimeBundle, id string) { r.updates++ }

// images counts the displays holding a PNG with an SVG alternative.
func (r *recorder) images() int {
	n := 0
	for _, d := range r.displays {
		if _, ok := d["image/png"]; ok {
			if _, ok := bundleSVG(d); ok {
				n++
			}
		}
	}
	return n
}

// text is everything shown as text, displays included.
func (r *recorder) text() string {
	var b strings.Builder
	b.WriteString(r.stdout.String())
	for _, d := range r.displays {
		if t, ok := d["text/plain"].(string); ok {
			b.WriteString(t + "\n")
		}
	}
	return b.String()
}

func newTestSession(t *testing.T) *Session {
	t.Helper()
	return New(Options{Dir: "testdata"})
}

func mustRun(t *testing.T, s *Session, code string) *recorder {
	t.Helper()
	out := &recorder{}
	if _, err := s.Execute(context.Background(), code, out); err != nil {
		var se *Error
		if errors.As(err, &se) {
			t.Fatalf("cell failed: %s\n%s\ncell:\n%s", se.Name, strings.Join(se.Traceback, "\n"), code)
		}
		t.Fatalf("cell failed: %v", err)
	}
	return out
}

// TestCellsShareBindings runs a small analysis over several cells, as a
// notebook does, and checks what each statement shows.
func TestCellsShareBindings(t *testing.T) {
	s := newTestSession(t)
	out := mustRun(t, s, `data sim = simulate(FullCopula(p = 4), n = 200, levels = 4, seed = 7, missing = 0.05)`)
	if !strings.Contains(out.stdout.String(), "data sim: 200 rows × 4 columns") {
		t.Errorf("simulate printed %q", out.stdout.String())
	}
	mustRun(t, s, "model m {\n  Y = sim\n  Z ~ GaussianCopula(C)\n  Y ordinal Z\n  C ~ InverseWishart(df = p + 2)\n}")
	out = mustRun(t, s, "explain m")
	if out.stdout.Len() == 0 {
		t.Error("explain printed nothing")
	}
	out = mustRun(t, s, "fit m with hmc, iter = 200, warmup = 100, chains = 2, seed = 3")
	if len(out.ids) == 0 || out.ids[0] == "" {
		t.Error("fit showed no live progress display")
	}
	if !strings.Contains(out.stdout.String(), "fit m with hmc: 2 chains") {
		t.Errorf("fit report %q", out.stdout.String())
	}
	out = mustRun(t, s, "summary m.C")
	if len(out.displays) != 1 {
		t.Fatalf("summary showed %d displays", len(out.displays))
	}
	html, _ := out.displays[0]["text/html"].(string)
	plain, _ := out.displays[0]["text/plain"].(string)
	if !strings.Contains(html, "<table") || !strings.HasPrefix(captionedLines(t, out.displays[0])[0], "param") {
		t.Errorf("summary bundle: html %.80q, plain %.80q", html, plain)
	}
	if got := strings.Count(plain, "\nC["); got != 6 {
		t.Errorf("summary of a 4×4 C has %d rows, want 6", got)
	}
	for _, cell := range []string{"plot trace m.C[1, 2]", "plot hist m.C[Y1, Y3]", "plot acf m.C[2, 4]", "plot rank m.C[2, 4]", "plot heatmap m.C", "plot heatmap sim", "plot rmse m vs sim", "plot pairs m.C", "plot latent m.Z[Y2]"} {
		if out := mustRun(t, s, cell); out.images() != 1 {
			t.Errorf("%s: %d images", cell, out.images())
		}
	}
	// The value of one entry of a simulated fit gives the true value beside
	// the posterior's (a teacher asked the class to compare them by eye).
	out = mustRun(t, s, "print m.C[1, 2]\nprint m.partial[1, 2]")
	if got := out.stdout.String(); strings.Count(got, "; true value ") != 2 {
		t.Errorf("print m.C[1, 2] and m.partial[1, 2] give no true value: %q", got)
	}
	// The trace of a simulated fit marks the truth, as its histogram does
	// (a lecturer's demonstration that the chains wander around it).
	for _, cell := range []string{"plot trace m.C[1, 2]", "plot hist m.C[1, 2]"} {
		out := mustRun(t, s, cell)
		if plain, _ := out.displays[0]["text/plain"].(string); !strings.Contains(plain, ", truth ") {
			t.Errorf("%s: %q names no truth", cell, plain)
		}
	}
	out = mustRun(t, s, "impute m")
	if len(out.displays) != 1 || !strings.Contains(out.text(), "imputed missing cells") {
		t.Errorf("impute showed %q", out.text())
	}
	out = mustRun(t, s, "show m")
	if !strings.Contains(out.stdout.String(), "fitted with hmc") {
		t.Errorf("show m: %q", out.stdout.String())
	}
}

// TestExportLayout checks the stable CmdStan-style CSV of export.
func TestExportLayout(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = simulate(FactorCopula(p = 3, k = 1), n = 100, levels = 3, seed = 1)
model f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }
fit f with px, iter = 20, warmup = 10, chains = 2, seed = 1
export f to "draws.csv"`)
	b, err := os.ReadFile(filepath.Join(dir, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if want := "chain,draw,C.1.2,C.1.3,C.2.3,Lambda.1.1,Lambda.2.1,Lambda.3.1"; lines[0] != want {
		t.Errorf("header %q, want %q", lines[0], want)
	}
	if len(lines) != 1+2*20 {
		t.Errorf("%d rows, want 40 draws", len(lines)-1)
	}
	if !strings.HasPrefix(lines[1], "1,1,") || !strings.HasPrefix(lines[40], "2,20,") {
		t.Errorf("rows not numbered from 1: %q ... %q", lines[1], lines[40])
	}
}

// TestExportParts: export writes the draws of a part of a model — derived
// quantities above all, which summary and plot had and no file did, so a
// user wanting partial correlations in R or pandas had to recompute them
// from C. The values are the draws summary summarises, the sidecar names
// each column, and the provenance says which quantity the file holds.
func TestExportParts(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = simulate(FactorCopula(p = 3, k = 1), n = 100, levels = 3, seed = 1)
model f { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }
fit f with px, iter = 20, warmup = 10, chains = 2, seed = 1`)
	read := func(name string) []string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	tests := []struct {
		part, header, columns, quantity string
	}{
		{"f.partial", "chain,draw,partial.1.2,partial.1.3,partial.2.3",
			"param,label,row,column|partial.1.2,\"partial[Y1,Y2]\",Y1,Y2|partial.1.3,\"partial[Y1,Y3]\",Y1,Y3|partial.2.3,\"partial[Y2,Y3]\",Y2,Y3", "f.partial"},
		{"f.regress(Y3 ~ Y1 + Y2)", "chain,draw,beta.1,beta.2,R2",
			"param,label,row,column|beta.1,beta[Y1],Y3,Y1|beta.2,beta[Y2],Y3,Y2|R2,R2,Y3,", "f.regress(Y3 ~ Y1 + Y2)"},
		{"f.regress(Y3 ~ Y1 + Y2)[R2]", "chain,draw,R2", "param,label,row,column|R2,R2,Y3,", "f.regress(Y3 ~ Y1 + Y2)[R2]"},
		{"f.communality[Y2]", "chain,draw,communality.2", "param,label,row,column|communality.2,communality[Y2],Y2,", "f.communality[Y2]"},
		{"f.C[Y2]", "chain,draw,C.1.2,C.2.3", "param,label,row,column|C.1.2,\"C[Y1,Y2]\",Y1,Y2|C.2.3,\"C[Y2,Y3]\",Y2,Y3", "f.C[Y2]"},
		{"f.Lambda", "chain,draw,Lambda.1.1,Lambda.2.1,Lambda.3.1", "param,label,row,column|Lambda.1.1,\"Lambda[Y1,1]\",Y1,1|Lambda.2.1,\"Lambda[Y2,1]\",Y2,1|Lambda.3.1,\"Lambda[Y3,1]\",Y3,1", "f.Lambda"},
	}
	for _, tt := range tests {
		out := mustRun(t, s, "export "+tt.part+` to "part.csv"`).stdout.String()
		if !strings.Contains(out, "wrote 40 draws of "+tt.quantity+" to ") {
			t.Errorf("export %s printed %q", tt.part, out)
		}
		lines := read("part.csv")
		if lines[0] != tt.header {
			t.Errorf("export %s: header %q, want %q", tt.part, lines[0], tt.header)
		}
		if len(lines) != 1+2*20 || !strings.HasPrefix(lines[1], "1,1,") || !strings.HasPrefix(lines[40], "2,20,") {
			t.Errorf("export %s: %d rows from %q to %q, want 40 draws numbered from 1,1 to 2,20", tt.part, len(lines)-1, lines[1], lines[len(lines)-1])
		}
		if got := strings.Join(read("part.columns.csv"), "|"); got != tt.columns {
			t.Errorf("export %s: columns\n%s\nwant\n%s", tt.part, got, tt.columns)
		}
		if got := read("part.provenance.csv"); got[len(got)-1] != "quantity,"+csvField(tt.quantity) {
			t.Errorf("export %s: provenance ends %q, want the quantity", tt.part, got[len(got)-1])
		}
	}

	// The values are the draws summary summarises: those of the
	// derived quantity, computed from each draw of C.
	partial, err := s.models["f"].Fit.Partial()
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, `export f.partial[Y1, Y3] to "part.csv"`)
	lines := read("part.csv")
	for c := range 2 {
		for d := range 20 {
			want := fmt.Sprintf("%d,%d,%s", c+1, d+1, strconv.FormatFloat(partial[c][d][0*3+2], 'g', -1, 64))
			if got := lines[1+c*20+d]; got != want {
				t.Fatalf("row %d: %q, want %q", 1+c*20+d, got, want)
			}
		}
	}
}

// TestExportData: export DATA to "PATH" writes a data set's cells, which
// load reads back to the same values (missing cells, every digit of a
// number, the labels of a text column), and beside it where they came
// from. Simulated data existed only in the session: a class or a colleague
// could not read them with other tools.
func TestExportData(t *testing.T) {
	dir := t.TempDir()
	text := "id,answer,score\n1,agree,0.1234567890123\n2,disagree,NA\n3,,2\n4,agree,-1e-7\n"
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir, Version: "9.9.9"})
	out := mustRun(t, s, `data sim = simulate(FactorCopula(p = 3, k = 1), n = 50, levels = 4, seed = 3, missing = 0.1)
export sim to "sim.csv"
data back = load("sim.csv")
data survey = load("s.csv", order = {answer: ["disagree", "agree"]})
export survey to "t.csv"
data again = load("t.csv", order = {answer: ["disagree", "agree"]})`).stdout.String()
	if !strings.Contains(out, "wrote 50 rows of sim to "+filepath.Join(dir, "sim.csv")+", and where they came from to "+filepath.Join(dir, "sim.provenance.csv")) {
		t.Errorf("export printed %q", out)
	}
	same := func(a, b *Dataset) {
		t.Helper()
		if !slices.Equal(a.Names, b.Names) {
			t.Fatalf("columns %v read back as %v", a.Names, b.Names)
		}
		for j := range a.Columns {
			for i, v := range a.Columns[j] {
				if w := b.Columns[j][i]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
					t.Errorf("%s[%d, %s] = %v read back as %v", a.Name, i+1, a.Names[j], v, w)
				}
			}
		}
	}
	same(s.data["sim"], s.data["back"])
	same(s.data["survey"], s.data["again"])
	b, err := os.ReadFile(filepath.Join(dir, "t.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "id,answer,score\n1,agree,0.1234567890123\n2,disagree,NA\n3,NA,2\n4,agree,-1e-07\n"; string(b) != want {
		t.Errorf("t.csv:\n%s\nwant\n%s", b, want)
	}
	b, err = os.ReadFile(filepath.Join(dir, "sim.provenance.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "key,value\ncopulang,9.9.9\ndata,sim\ndata_source,\"simulate(FactorCopula(p = 3, k = 1), n = 50, levels = 4, seed = 3, missing = 0.1)\"\ndata_rows,50\ncolumns,\"Y1, Y2, Y3\"\n"
	if string(b) != want {
		t.Errorf("sim.provenance.csv:\n%s\nwant\n%s", b, want)
	}
}

// csvField quotes s as encoding/csv writes a field.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// TestExportProvenance: export writes, beside the draws and their names,
// what made them (draws.provenance.csv, key,value), and impute beside
// each file it writes: the copulang, model,
// data with the SHA-256 of the file they were loaded from, sampler and
// settings. Without it an export held no record of its seed, sampler or
// data. The file is the same when the analysis runs again, whether the fit
// is sampled or read from its fit file; after fit then extend it is that
// of one longer fit, whose draws are the same, with the extensions named.
func TestExportProvenance(t *testing.T) {
	dir := t.TempDir()
	csvText := "a,b,c\n"
	for i := range 40 {
		csvText += fmt.Sprintf("%d,%d,%d\n", i%3, (i*7)%4, (i*5)%3)
	}
	csvText += "NA,1,2\n" // a missing cell, for impute
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(csvText), 0o644); err != nil {
		t.Fatal(err)
	}
	const setup = "data d = load(\"d.csv\")\nmodel m { Y = d[a, c]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	run := func(code string) string {
		t.Helper()
		text := mustRun(t, New(Options{Dir: dir, Version: "9.9.9"}), setup+code+"\nexport m to \"draws.csv\"").stdout.String()
		if !strings.Contains(text, "and what made them to "+filepath.Join(dir, "draws.provenance.csv")) {
			t.Errorf("export does not name its provenance file:\n%s", text)
		}
		return read("draws.provenance.csv")
	}
	const fit = `fit m with gibbs, iter = 30, warmup = 10, chains = 2, seed = 7, file = "m.fit"`
	sampled := run(fit)
	want := fmt.Sprintf(`key,value
copulang,9.9.9
model,m
model_kind,"Gaussian copula, full correlation, inverse-Wishart(df = 4) prior"
columns,"a, c"
data,d
data_source,d.csv
data_sha256,%x
data_rows,41
method,gibbs
sampler,gibbs
chains,2
warmup,10
iter,30
thin,1
seed,7
interrupted,false
fit_file,m.fit
`, sha256.Sum256([]byte(csvText)))
	if sampled != want {
		t.Errorf("provenance:\n%s\nwant:\n%s", sampled, want)
	}
	if got := run(fit); got != sampled {
		t.Errorf("the fit read from its file has the provenance:\n%s\nwant that of the fit sampled:\n%s", got, sampled)
	}
	// impute's files, the cells and their draws, have the same beside them.
	mustRun(t, New(Options{Dir: dir, Version: "9.9.9"}), setup+fit+"\nimpute m to \"cells.csv\", draws = \"cell_draws.csv\"")
	for _, name := range []string{"cells.provenance.csv", "cell_draws.provenance.csv"} {
		if got := read(name); got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got, want)
		}
	}
	// Fit then extend makes the draws of one longer fit, and its
	// provenance says so, adding each extension and the iterations it ran
	// (it said nothing of them, as if the longer fit had been run); read
	// back from the fit file, the fit and its extensions have the same.
	long := run(`fit m with gibbs, iter = 100, warmup = 10, chains = 2, seed = 7`)
	longDraws := read("draws.csv")
	const extend = "\nextend m, iter = 20\nextend m"
	extended := run(`fit m with gibbs, iter = 30, warmup = 10, chains = 2, seed = 7` + extend)
	wantExtended := strings.Replace(long, "interrupted,false\n",
		"extensions,2\nextension_1,\"extend m, iter = 20\"\nextension_1_iterations,31-50\nextension_2,extend m\nextension_2_iterations,51-100\ninterrupted,false\n", 1)
	if extended != wantExtended || read("draws.csv") != longDraws {
		t.Errorf("fit then extend has the provenance:\n%s\nwant that of the one longer fit with its extensions:\n%s", extended, wantExtended)
	}
	written := run(fit + extend)
	if got := run(fit + extend); got != written || !strings.Contains(got, "extension_2_iterations,51-100\ninterrupted,false\nfit_file,m.fit\n") {
		t.Errorf("the extensions read from the fit file have the provenance:\n%s\nwant that of those sampled:\n%s", got, written)
	}
	if got := run(fit); got != sampled {
		t.Errorf("the fit read again without its extensions has the provenance:\n%s\nwant:\n%s", got, sampled)
	}
}

// TestErrors checks the class, position and hint of errors, and that the
// session stays usable after each.
func TestErrors(t *testing.T) {
	cases := []struct {
		name, code, ename string
		want              []string
	}{
		{"syntax", "fit m with", "SyntaxError", []string{"1:"}},
		{"unknown distribution", "data d = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1)\nmodel m {\n  Y = d\n  Z ~ GausianCopula(C)\n  Y ordinal Z\n}", "CheckError", []string{"4:7", "did you mean GaussianCopula?"}},
		{"unknown binding", "explain mm", "CheckError", []string{"1:9"}},
		{"missing file", `data g = load("nope.csv")`, "DataError", []string{"1:15", "nope.csv: cannot load data"}},
		{"text column without order", `data g = load("x.csv")`, "DataError", []string{`column sex: cannot read "m" as a number`}},
		{"summary before fit", "data d = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1)\nmodel m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\nsummary m.C", "CheckError", []string{"3:9", "run fit m first"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSession(t)
			_, err := s.Execute(context.Background(), c.code, &recorder{})
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *session.Error", err)
			}
			tb := strings.Join(se.Traceback, "\n")
			if se.Name != c.ename {
				t.Errorf("ename %s, want %s\n%s", se.Name, c.ename, tb)
			}
			for _, w := range c.want {
				if !strings.Contains(tb, w) {
					t.Errorf("traceback does not contain %q:\n%s", w, tb)
				}
			}
			mustRun(t, s, "data ok = simulate(FullCopula(p = 2), n = 10, levels = 2, seed = 1)")
		})
	}
}

// TestLoadWithOrder runs language.md's load example with a text column.
func TestLoadWithOrder(t *testing.T) {
	s := newTestSession(t)
	out := mustRun(t, s, `data x = load("x.csv", order = {sex: ["m", "f"]})`)
	if !strings.Contains(out.stdout.String(), "data x: 8 rows × 3 columns") {
		t.Errorf("load printed %q", out.stdout.String())
	}
	if d := s.data["x"]; d.Columns[0][1] != 2 || d.Labels[0][1] != "f" {
		t.Errorf("sex column %v labels %v", d.Columns[0], d.Labels[0])
	}
}

// TestInterruptKeepsDraws cancels a long fit: the cell ends with a
// KeyboardInterrupt within a second, the draws so far are kept and the
// session answers the next cell.
func TestInterruptKeepsDraws(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 5), n = 300, levels = 4, seed = 1)\nmodel m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	_, err := s.Execute(ctx, "fit m with gibbs, iter = 1000000, warmup = 10, chains = 2, seed = 1", &recorder{})
	var se *Error
	if !errors.As(err, &se) || se.Name != "KeyboardInterrupt" {
		t.Fatalf("error %v, want KeyboardInterrupt", err)
	}
	// The fit stopped where it was interrupted, not at its end (no bound on
	// how soon: a loaded machine is slow, and speed belongs in benchmarks).
	if kept := s.models["m"].Fit.KeptDraws(); kept <= 0 || kept >= 2*1000000 {
		t.Errorf("%d draws kept, want some and fewer than the 2,000,000 asked for", kept)
	}
	out := mustRun(t, s, "summary m.C[1, 2]")
	if !strings.Contains(out.text(), "C[Y1,Y2]") {
		t.Errorf("summary after interrupt: %q", out.text())
	}
}

func TestIsComplete(t *testing.T) {
	s := newTestSession(t)
	cases := []struct{ code, status, indent string }{
		{"explain m", "complete", ""},
		{"model m {\n  Y = d", "incomplete", "  "},
		{"fit m with hmc(T = pi", "incomplete", ""},
		{"fit m with )", "invalid", ""},
		// A line that ends with a comma goes on, indented.
		{"fit m, iter = 20,", "incomplete", "  "},
		{"fit m, iter = 20,\n  warmup = 10,  ", "incomplete", "  "},
		{"fit m, iter = 20,\n  warmup = 10", "complete", ""},
		// So does one that ends with + - * /, as in R.
		{"summary a.C -", "incomplete", "  "},
		{"summary a.C[x, y] -  ", "incomplete", "  "},
		{"print 1 +\n  2", "complete", ""},
		// The last token decides, not the line's last character: a
		// comment after it or not, and a condition or given left open.
		{"summary a.C - # then b.C", "incomplete", "  "},
		{"fit m, iter = 20,  # more", "incomplete", "  "},
		{"model m {\n  # Y, Z,", "incomplete", "  "},
		{"predict m[degree] given", "incomplete", "  "},
		{"data d = gss where age >= 50 and", "incomplete", "  "},
	}
	for _, c := range cases {
		st, in := s.IsComplete(c.code)
		if st != c.status || in != c.indent {
			t.Errorf("IsComplete(%q) = %q, %q; want %q, %q", c.code, st, in, c.status, c.indent)
		}
	}
}

func TestCompleteAndInspect(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data gss = load("gss.csv")
data sim = simulate(FullCopula(p = 3), n = 50, levels = 3)
model m { Y = gss[INC, DEG, AGE]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }`)
	cases := []struct {
		code string
		want string
	}{
		{"expl", "explain"},
		{"model n { C ~ Inv", "InverseWishart"},
		{"fit m with inter", "interweave"},
		{"plot hea", "heatmap"},
		{"plot gr", "graph"},
		{"plot graph m.partial, ", "prob"},
		{"plot trace m.C, ", "m"}, // no setting: prob is plot graph's alone
		{"summary m.", "C"},
		{"summary m.C[I", "INC"},
		{"data y = gss[DE", "DEG"},
		{"show gs", "gss"},
		{"fit m, it", "iter"},
		{"fit m with gibbs, iter = 10, ", "ess"},
		{"extend m, ", "ess"},
		{"explain fit m, wa", "warmup"},
		{"summary m.C, ", "prob"},
		{"compare m, ", "m"},
		{"compare m, ", "folds"},
		{`data d = load("x.csv", `, "sep"},
		{"data d = simulate(FactorCopula(", "k"},
		{"fit m with hmc(", "T"},
		{"model n { C ~ InverseWishart(df = 3, ", "scale"},
		// A list is not an index: show [m1, m2] takes bindings.
		{"show [", "m"},
		{"show [m, g", "gss"},
		// A formula names the model's columns.
		{"summary m.regress(", "INC"},
		{"summary m.regress(INC ~ ", "DEG"},
		{"summary m.regress(INC ~ DEG + A", "AGE"},
		// simulate's first argument, its spec, is given without its name.
		{"data d = simulate(", "FactorCopula"},
		{"data d = simulate(Fu", "FullCopula"},
		{"data d = simulate(", "n"},
		// A setting's words, and a statement's targets.
		{"summary m.C, sort = ", "ess_bulk"},
		{"summary m.C, sort = ess_t", "ess_tail"},
		{"check m, stat = ", "kendall"},
		{"model n { C ~ FactorModel(k = 2, loadings = ", "GDP"},
		{"explain ", "m"},
		{"explain ", "fit"},
		{"explain fit ", "m"},
		{"fit ", "m"},
		{"extend ", "m"},
		{"plot trace ", "m"},
		{"plot heatmap ", "sim"},
		{"plot rmse m vs ", "sim"},
		{"summary ", "gss"},
		{"export ", "gss"},
		{"export ", "m"},
		{"help ", "iter"},
		{"help ", "fit"},
		// A statement goes on after a trailing comma, and inside brackets.
		{"fit m, iter = 20,\n  war", "warmup"},
		{"summary m.C,\n  so", "sort"},
		{"data d = load(\"x.csv\",\n  se", "sep"},
		{"fit m with hmc(\n  ", "T"},
	}
	// Where only some bindings or words fit, the others are not offered.
	wrong := map[string][]string{
		"compare m, ":          {"gss", "sim"},
		"fit ":                 {"gss", "sim", "iter"},
		"explain ":             {"gss"},
		"plot rmse m vs ":      {"gss", "m"},
		"summary m.C, sort = ": {"kendall", "m", "fit"},
		"check m, stat = ":     {"rhat", "m"},
		"plot trace m.C, ":     {"prob"},
	}
	for _, c := range cases {
		matches, start, end := s.Complete(c.code, len(c.code))
		if !slices.Contains(matches, c.want) {
			t.Errorf("Complete(%q) = %v, want %s among them", c.code, matches, c.want)
		}
		for _, w := range wrong[c.code] {
			if slices.Contains(matches, w) {
				t.Errorf("Complete(%q) = %v offers %s", c.code, matches, w)
			}
		}
		if end != len(c.code) || start > end {
			t.Errorf("Complete(%q) replaces [%d, %d)", c.code, start, end)
		}
	}
	// A comment is prose: nothing is offered in it; a # in a string is not
	// one, and the next line is code again.
	for _, code := range []string{"summary m.C # m.", "# fit m with inter", "model n {\n  # C ~ Inv"} {
		if matches, _, _ := s.Complete(code, len(code)); len(matches) > 0 {
			t.Errorf("Complete(%q) in a comment offers %v", code, matches)
		}
	}
	for _, c := range [][2]string{{"# a comment\nsummary m.", "C"}, {`data d = load("#x", `, "sep"}} {
		if matches, _, _ := s.Complete(c[0], len(c[0])); !slices.Contains(matches, c[1]) {
			t.Errorf("Complete(%q) = %v, want %s among them", c[0], matches, c[1])
		}
	}
	// Where no setting can come, the usual completions apply.
	for _, code := range []string{"print 1, ", "plot trace m.C[1, ", "fit m with "} {
		if matches, _, _ := s.Complete(code, len(code)); slices.Contains(matches, "iter") {
			t.Errorf("Complete(%q) offers the setting iter: %v", code, matches)
		}
	}
	for _, word := range []string{"fit", "GaussianCopula", "interweave", "gss", "m", "heatmap", "iter", "sort", "seed", "holdout", "T"} {
		b, ok := s.Inspect(word, 1, 0)
		if !ok || b["text/plain"] == "" {
			t.Errorf("Inspect(%q) found nothing", word)
		}
	}
	if _, ok := s.Inspect("   ", 1, 0); ok {
		t.Error("Inspect of blanks found something")
	}
}

// TestCompleteColumnNames: a column whose name is not an identifier
// ("my col", "1st", "âge") is offered as a string, which an index takes,
// and inside a string in an index the column names are offered as its
// text. Such names were offered bare, and choosing one made a syntax error.
func TestCompleteColumnNames(t *testing.T) {
	dir := t.TempDir()
	csv := "âge,my col,1st,ok,\"q\"\"x\"\n1,2,3,1,1\n2,1,3,2,2\n3,3,1,1,1\n"
	if err := os.WriteFile(filepath.Join(dir, "u.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, `data u = load("u.csv")
model m { Y = u; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }`)
	for _, tc := range []struct {
		code string
		want []string
	}{
		{`u[`, []string{`"1st"`, `"my col"`, `"q\"x"`, `"âge"`, "ok"}},
		{`m.C[ok, `, []string{`"1st"`, `"my col"`, `"q\"x"`, `"âge"`}},
		{`u[o`, []string{"ok"}},
		{`u["`, []string{"1st", "my col", "ok", `q\"x`, "âge"}},
		{`m.C["âge", "my`, []string{"my col"}},
		{`m.C[ok, "q\"`, []string{`q\"x`}},
		{`m.C[ok, "â`, []string{"âge"}},
		{`u["zz`, nil},
		// A formula takes quoted names too (it offered only "ok", and
		// a string in it completed file paths).
		{`summary m.regress(`, []string{`"1st"`, `"my col"`, `"q\"x"`, `"âge"`, "ok"}},
		{`summary m.regress(ok ~ "my`, []string{"my col"}},
	} {
		matches, start, end := s.Complete(tc.code, len(tc.code))
		if !slices.Equal(matches, tc.want) {
			t.Errorf("Complete(%q) = %q, want %q", tc.code, matches, tc.want)
		}
		if end != len(tc.code) || start > end {
			t.Errorf("Complete(%q) replaces [%d, %d)", tc.code, start, end)
		}
		// Every match, put in place, makes an index that parses.
		for _, m := range matches {
			code := tc.code[:start] + m
			if (strings.Count(code, `"`)-strings.Count(code, `\"`))%2 == 1 { // close the string
				code += `"`
			}
			code = "print " + code + "]"
			if strings.HasPrefix(tc.code, "summary") {
				code = strings.TrimSuffix(code[len("print "):], "]") + ")"
			}
			if st, _ := s.IsComplete(code); st != "complete" {
				t.Errorf("Complete(%q) offers %q, which makes %q: %s", tc.code, m, code, st)
			}
		}
	}
}

// TestCompleteLeavesOutListedColumns: inside an index, completion offers
// the columns it does not list yet, named or as strings: it offered income
// again after gss[income, (found in a console session), which Y = and
// summary of data refuse as a column listed twice and which in m.C is the
// diagonal. A number is a position, not the column named by it. A regress
// formula likewise offers the columns it does not name yet.
func TestCompleteLeavesOutListedColumns(t *testing.T) {
	dir := t.TempDir()
	csv := "income,degree,age,\"my, col\",2\n1,2,3,1,1\n2,1,3,2,2\n3,3,1,1,2\n"
	if err := os.WriteFile(filepath.Join(dir, "g.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, `data g = load("g.csv")
model m { Y = g; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }`)
	checkCompletions(t, s, []completionCase{
		{`g[income, `, []string{`"2"`, `"my, col"`, "age", "degree"}},
		{`summary m.C[income, "my, col", `, []string{`"2"`, "age", "degree"}},
		{`model n { Y = g[age, degree, in`, []string{"income"}},
		{`model n { Y = g[age, income, in`, nil},
		{`check m[degree, "`, []string{"2", "age", "income", "my, col"}},
		{`check m[2, "`, []string{"2", "age", "degree", "income", "my, col"}},
		{"summary m.C[income,\n  ", []string{`"2"`, `"my, col"`, "age", "degree"}},
		// A regress formula names each column once, on one side.
		{`summary m.regress(income ~ `, []string{`"2"`, `"my, col"`, "age", "degree"}},
		{`summary m.regress(income ~ degree + "`, []string{"2", "age", "my, col"}},
		{`summary m.regress(age ~ income + de`, []string{"degree"}},
	})
}

// TestCompleteLoadColumns: inside load(...), where drop and order take
// column names, completion offers the file's columns, read from its
// header row (as load reads it: past a byte order mark, with CRLF line
// ends, quoted names, the call's sep), as an index offers a data set's:
// quoted where they are not identifiers, escaped inside a string. It
// offered every word of the language there, so the columns of a survey
// had to be copied from the file by hand.
func TestCompleteLoadColumns(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"s.csv": "\ufeffid,smoker,\"income, household\",q1\r\nR1,yes,1,agree\r\n",
		"t.csv": "id;q1;q2\nR1;agree;agree\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := New(Options{Dir: dir})
	all := []string{`"income, household"`, "id", "q1", "smoker"}
	checkCompletions(t, s, []completionCase{
		{`data d = load("s.csv", drop = [`, all},
		{`data d = load("s.csv", drop = `, all},
		{`data d = load("s.csv", drop = [id, s`, []string{"smoker"}},
		{`data d = load("s.csv", drop = ["inc`, []string{"income, household"}},
		{`data d = load("s.csv", na = ["-99"], order = {`, all},
		{`data d = load("s.csv", order = {sm`, []string{"smoker"}},
		{`data d = load("s.csv", order = {smoker: ["no", "yes"], [`, all},
		{`data d = load("s.csv", order = {smoker: ["no", "yes"], [q1, "in`, []string{"income, household"}},
		{"data d = load(\"s.csv\",\n  order = {smoker: [\"no\", \"yes\"],\n    q", []string{"q1"}},
		{`data d = load("t.csv", sep = ";", drop = [`, []string{"id", "q1", "q2"}},
	})
	// Not where a column goes (a label, another setting, a file that is
	// not there): no column is offered.
	for _, code := range []string{
		`data d = load("s.csv", order = {smoker: [s`,
		`data d = load("s.csv", order = {smoker: ["s`,
		`data d = load("s.csv", na = [s`,
		`data d = load("nofile.csv", drop = [s`,
		`data d = load("s.csv") # drop = [s`,
	} {
		if matches, _, _ := s.Complete(code, len(code)); slices.Contains(matches, "smoker") {
			t.Errorf("Complete(%q) = %q offers a column", code, matches)
		}
	}
}

// TestCompleteOrderLabels: inside the list of labels of a load call's
// order = {COL: [...]}, completion offers the column's cells (of the key
// list's columns, or of every column for *), trimmed, without the empty
// and NA cells and those the list has already: a survey's answers had to be
// copied from the file by hand, and "Strongly agree" against "strongly
// agree" failed the load.
func TestCompleteOrderLabels(t *testing.T) {
	dir := t.TempDir()
	text := "id,q1,\"q 2\",n\n" +
		"1,Agree,  Strongly agree ,3\n" +
		"2,Disagree,NA,5\n" +
		"3,,\"Neither, nor\",5\n" +
		"4,Agree,Disagree,7\n"
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	checkCompletions(t, s, []completionCase{
		{`data d = load("s.csv", order = {q1: [`, []string{`"Agree"`, `"Disagree"`}},
		{`data d = load("s.csv", order = {q1: ["Disagree", `, []string{`"Agree"`}},
		{`data d = load("s.csv", order = {q1: ["Dis`, []string{"Disagree"}},
		{`data d = load("s.csv", order = {"q 2": ["`, []string{"Disagree", "Neither, nor", "Strongly agree"}},
		{`data d = load("s.csv", order = {[q1, "q 2"]: ["`, []string{"Agree", "Disagree", "Neither, nor", "Strongly agree"}},
		{`data d = load("s.csv", order = {*: ["A`, []string{"Agree"}},
		{`data d = load("s.csv", order = {n: ["`, []string{"3", "5", "7"}},
		{"data d = load(\"s.csv\", order = {q1: [\"Agree\", \"Disagree\"],\n  \"q 2\": [\"S", []string{"Strongly agree"}},
	})
	// At a key, columns; elsewhere, no labels.
	for _, code := range []string{
		`data d = load("s.csv", order = {q1: ["Agree"], `,
		`data d = load("s.csv", na = ["`,
		`data d = load("s.csv", order = {nosuch: ["`,
		`data d = load("s.csv", drop = ["`,
	} {
		if matches, _, _ := s.Complete(code, len(code)); slices.Contains(matches, "Agree") || slices.Contains(matches, `"Agree"`) {
			t.Errorf("Complete(%q) = %q offers a label", code, matches)
		}
	}
}

// completionCase is a cell's text, completed at its end, and the
// completions wanted.
type completionCase struct {
	code string
	want []string
}

// checkCompletions completes each case's code at its end and checks the
// matches and that they replace text up to the end.
func checkCompletions(t *testing.T, s *Session, cases []completionCase) {
	t.Helper()
	for _, tc := range cases {
		matches, _, end := s.Complete(tc.code, len(tc.code))
		if !slices.Equal(matches, tc.want) {
			t.Errorf("Complete(%q) = %q, want %q", tc.code, matches, tc.want)
		}
		if end != len(tc.code) {
			t.Errorf("Complete(%q) ends at %d", tc.code, end)
		}
	}
}

// TestNoPanics runs malformed and unusual cells: each must end in an error
// or succeed, never panic (Execute turns a panic into InternalError, which
// this test treats as a failure).
func TestNoPanics(t *testing.T) {
	s := newTestSession(t)
	cells := []string{
		"", "   \n\n", "#only a comment", "}", "model {", "data = load()", `data d = load("")`,
		"fit", "summary", "plot", "plot trace", "plot trace 1", "summary 1 + 2", "show 3",
		"data d = simulate(FullCopula(p = 1), n = 0, levels = 1, seed = -1)",
		"data d = simulate(FactorCopula(p = 3, k = 5), n = 10, levels = 2, seed = 1)",
		"model m { Y = nothing }", "model m { C ~ FactorModel(k = 1); C ~ InverseWishart() }",
		"export x to \"\"", "impute 5", "plot rmse x vs y", "summary m.C[100, 200]",
	}
	for _, c := range cells {
		_, err := s.Execute(context.Background(), c, &recorder{})
		var se *Error
		if errors.As(err, &se) && se.Name == "InternalError" {
			t.Errorf("cell %q panicked: %s", c, strings.Join(se.Traceback, "\n"))
		}
	}
}

// TestCompletePaths checks file path completion inside strings: data files
// and folders in load(...), fit files after file =, any file in other
// strings, folders walked into, hidden files only when asked for, and none
// in a comment or after the string closed.
func TestCompletePaths(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.csv", "b.fit", "c.png", ".hidden.csv", "data/g.csv", "data/h.fit", `q"x.csv`, "real/r.csv", "t.tex", "f.pdf"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	for _, tc := range []struct {
		code string
		want []string
	}{
		{`data d = load("`, []string{"a.csv", "data/", "link/", `q\"x.csv`, "real/"}},
		{`data d = load("q\"`, []string{`q\"x.csv`}},
		{`data d = load("q\`, nil}, // an escape being typed
		{`data d = load("li`, []string{"link/"}},
		{`data d = load("link/`, []string{"link/r.csv"}},
		{`data d = load("da`, []string{"data/"}},
		{`data d = load("data/`, []string{"data/g.csv"}},
		{`data d = load(".`, []string{".hidden.csv"}},
		{`fit m, iter = 10, file = "`, []string{"b.fit", "data/", "link/", "real/"}},
		{`fit m, file = "data/`, []string{"data/h.fit"}},
		{`export m to "`, []string{"a.csv", "b.fit", "c.png", "data/", "f.pdf", "link/", `q\"x.csv`, "real/", "t.tex"}},
		// summary and plot: the files of their formats.
		{`summary m.C to "`, []string{"a.csv", "data/", "link/", `q\"x.csv`, "real/", "t.tex"}},
		{"summary a.C -\n  b.C to \"", []string{"a.csv", "data/", "link/", `q\"x.csv`, "real/", "t.tex"}},
		{`plot heatmap m.C to "`, []string{"c.png", "data/", "f.pdf", "link/", "real/"}},
		{`plot trace m.C[1, 2] to "f`, []string{"f.pdf"}},
		{`impute m to "cells.csv", draws = "d`, []string{"data/"}},
		{`print "a`, nil},                       // a message, not a path
		{`data d = load("a.csv", sep = "`, nil}, // a separator
		{`data d = load("nowhere/`, nil},
	} {
		matches, start, end := s.Complete(tc.code, len(tc.code))
		if !slices.Equal(matches, tc.want) {
			t.Errorf("Complete(%q) = %v, want %v", tc.code, matches, tc.want)
		}
		if tc.want != nil && (end != len(tc.code) || tc.code[start-1] != '"') {
			t.Errorf("Complete(%q) replaces [%d, %d), want from after the quote to the end", tc.code, start, end)
		}
	}
	// A quote in a comment, or a string already closed, opens nothing.
	for _, code := range []string{`# data d = load("`, `print "x" # "`, `data d = load("a.csv", `} {
		if matches, _, _ := s.Complete(code, len(code)); slices.Contains(matches, "a.csv") {
			t.Errorf("Complete(%q) offers paths: %v", code, matches)
		}
	}
}

// TestCompletePathsLeaveOutFilesTheyWouldRefuse: after the to of a
// statement that writes a file, completion does not offer the file the
// session's data were loaded from, nor a fit file, which the statement
// would refuse to write over; load still offers the data file. It offered
// both, so that summary m.C to "<Tab> led to an error.
func TestCompletePathsLeaveOutFilesTheyWouldRefuse(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "survey.csv"), []byte("a,b\n1,2\n2,1\n1,1\n2,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, "data d = load(\"survey.csv\")\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1, file = \"m.fit.csv\"")
	for _, tc := range []struct {
		code string
		want []string
	}{
		{`summary m.C to "`, []string{"other.csv"}},
		{`export m to "`, []string{"other.csv"}},
		{`impute m to "`, []string{"other.csv"}},
		{`impute m to "cells.csv", draws = "`, []string{"other.csv"}},
		{`data e = load("`, []string{"m.fit.csv", "other.csv", "survey.csv"}},
	} {
		if matches, _, _ := s.Complete(tc.code, len(tc.code)); !slices.Equal(matches, tc.want) {
			t.Errorf("Complete(%q) = %v, want %v", tc.code, matches, tc.want)
		}
	}
}

// exitRecorder is a recorder whose frontend can be asked to end.
type exitRecorder struct {
	recorder
	asked int
}

func (r *exitRecorder) AskExit() { r.asked++ }

// TestExitAsksFrontend checks that a cell of only exit or quit asks the
// frontend to end, unless a binding has that name, and that elsewhere the
// word is an unknown name whose hint says what it does.
func TestExitAsksFrontend(t *testing.T) {
	s := newTestSession(t)
	for _, code := range []string{"exit", "quit", " exit() ", "quit # bye\n", "\ufeffexit"} {
		out := &exitRecorder{}
		if _, err := s.Execute(context.Background(), code, out); err != nil || out.asked != 1 {
			t.Errorf("%q: asked %d times, error %v; want once, no error", code, out.asked, err)
		}
	}
	for _, code := range []string{"exit\nexit", "summary exit", "exitx", "# exit"} {
		out := &exitRecorder{}
		s.Execute(context.Background(), code, out)
		if out.asked != 0 {
			t.Errorf("%q asked the frontend to end", code)
		}
	}
	// Without a frontend to ask (the CLI), exit is an unknown name.
	_, err := s.Execute(context.Background(), "exit", &recorder{})
	var se *Error
	if !errors.As(err, &se) || !strings.Contains(strings.Join(se.Traceback, "\n"), "exit alone in a cell ends jupyter console") {
		t.Errorf("exit without a frontend: %v, want an unknown name with a hint", err)
	}
	// A data set named exit is shown, not an exit.
	mustRun(t, s, "data exit = simulate(FullCopula(p = 2), n = 20, levels = 2, seed = 1)")
	out := &exitRecorder{}
	if _, err := s.Execute(context.Background(), "exit", out); err != nil || out.asked != 0 {
		t.Errorf("exit bound to data: asked %d, error %v; want it shown", out.asked, err)
	}
}

// TestProgressIDsUniqueAcrossSessions runs the same fit in two sessions, as
// a kernel does before and after a restart: their progress displays must
// have different ids. Frontends update every output shown under a display
// id they have seen; Notebook 6 forgets them only when it restarts the
// kernel itself, so after the server restarted a kernel that had died, a
// new fit's progress was drawn over the old fit's output in another cell
// (found in Notebook 6 in Chromium). Within a session every fit has its own.
func TestProgressIDsUniqueAcrossSessions(t *testing.T) {
	const cell = "data d = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1)\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1\n" +
		"fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 2"
	seen := map[string]bool{}
	for range 2 {
		out := mustRun(t, newTestSession(t), cell)
		var ids []string
		for _, id := range out.ids {
			if id != "" {
				ids = append(ids, id)
			}
		}
		if len(ids) != 2 {
			t.Fatalf("display ids of two fits: %q, want two", ids)
		}
		for _, id := range ids {
			if seen[id] {
				t.Errorf("progress display id %q used twice, within a session or by two", id)
			}
			seen[id] = true
		}
	}
}

// cancelOnceWritten is a context that is cancelled once the temporary
// file beside path that a statement writes path with holds bytes: an
// interrupt that arrives while a statement writes path.
type cancelOnceWritten struct {
	context.Context
	path string
}

func (c cancelOnceWritten) Err() error {
	tmps, _ := filepath.Glob(c.path + ".tmp-*")
	for _, tmp := range tmps {
		if fi, err := os.Stat(tmp); err == nil && fi.Size() > 0 {
			return context.Canceled
		}
	}
	return nil
}

// TestExportStopsOnInterrupt interrupts export and impute while they write
// their files: each must stop with a KeyboardInterrupt and remove the
// unfinished file. They ignored the interrupt and wrote on to the end
// (found interrupting an export of 12,000 draws of 860 columns from
// jupyter_client: the reply came 2.2 s later, status ok), which at survey
// scale is minutes.
func TestExportStopsOnInterrupt(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, "data d = simulate(FullCopula(p = 6), n = 200, levels = 3, seed = 1, missing = 0.2)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit m with gibbs, iter = 500, warmup = 20, chains = 4, seed = 1")
	dir := t.TempDir()
	for _, tc := range []struct{ code, file string }{
		{`export m to "%s"`, "draws.csv"},
		{`impute m, draws = "%s"`, "imputed.csv"},
		{`impute m to "%s"`, "cells.csv"},
	} {
		path := filepath.Join(dir, tc.file)
		code := fmt.Sprintf(tc.code, path)
		_, err := s.Execute(cancelOnceWritten{context.Background(), path}, code, &recorder{})
		var se *Error
		if !errors.As(err, &se) || se.Name != "KeyboardInterrupt" {
			t.Errorf("%s interrupted while writing: %v, want a KeyboardInterrupt", code, err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s interrupted: the unfinished %s is still there (%v)", code, tc.file, err)
		}
		// Not interrupted, it writes the whole file.
		mustRun(t, s, code)
		whole, err := os.ReadFile(path)
		if err != nil || len(whole) < 8<<10 {
			t.Errorf("%s: %v, size %d; want a file of more than 8 KB, so that its writing can be interrupted", code, err, len(whole))
		}
		// Interrupted again, it leaves the whole file as it was (it
		// truncated it and removed it) and no temporary file.
		if _, err := s.Execute(cancelOnceWritten{context.Background(), path}, code, &recorder{}); err == nil {
			t.Errorf("%s interrupted again: no error", code)
		}
		if again, err := os.ReadFile(path); err != nil || !bytes.Equal(again, whole) {
			t.Errorf("%s interrupted over the whole file: %v, %d bytes, want the %d it had", code, err, len(again), len(whole))
		}
		if tmps, _ := filepath.Glob(path + ".tmp-*"); len(tmps) > 0 {
			t.Errorf("%s interrupted: temporary files left: %q", code, tmps)
		}
	}
}

// TestSimulatedDataNameTheirSettings: the source of simulated data, which
// their description and an export's provenance show, names every setting
// the data depend on; it left out missing =, so data with and without
// missing cells were said to come from the same simulate call.
func TestSimulatedDataNameTheirSettings(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"simulate(FullCopula(p = 3), n = 50, levels = 4, seed = 2)", "from simulate(FullCopula(p = 3), n = 50, levels = 4, seed = 2);"},
		{"simulate(FactorCopula(p = 4, k = 1), n = 50, levels = 3, seed = 2, missing = 0.25)", "from simulate(FactorCopula(p = 4, k = 1), n = 50, levels = 3, seed = 2, missing = 0.25);"},
	} {
		if text := mustRun(t, New(Options{}), "data d = "+tc.code).stdout.String(); !strings.Contains(text, tc.want) {
			t.Errorf("data d = %s printed %q, want %q", tc.code, text, tc.want)
		}
	}
}

// TestPlotLatentNamesTextLevels plots the latent column of a text column:
// its levels are named by their labels on the x axis and in the text, as
// every table names them, not by their codes 1, 2, … (the Likert items of
// a survey read 1 to 5).
func TestPlotLatentNamesTextLevels(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data x = load("x.csv", order = {sex: ["m", "f"]})
model m { Y = x; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }
fit m, iter = 20, warmup = 10, chains = 1, seed = 1`)
	out := mustRun(t, s, "plot latent m.Z[sex]")
	if out.images() != 1 {
		t.Fatalf("%d images", out.images())
	}
	svg, _ := bundleSVG(out.displays[0])
	for _, label := range []string{">m</text>", ">f</text>"} {
		if !strings.Contains(svg, label) {
			t.Errorf("the latent plot of sex does not name the level %s", label)
		}
	}
}

// TestPlotPairsTitleNamesColumns checks that a pairs plot's title names the
// row it shows by its column, as its panels and summary's caption do: plot
// pairs m.C[Y2] was titled "pairs of m.C[2]", and m.C["Trust in …"] of a
// survey "pairs of m.C[4]".
func TestPlotPairsTitleNamesColumns(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data sim = simulate(FullCopula(p = 4), n = 100, levels = 3, seed = 1)
model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }
fit m, iter = 20, warmup = 10, chains = 1, seed = 1`)
	for _, tc := range []struct{ cell, title string }{
		{"plot pairs m.C[Y2]", "pairs of m.C[Y2]"},
		{"plot pairs m.regress(Y1 ~ Y2 + Y3)", "pairs of m.regress(Y1 ~ Y2 + Y3)"},
	} {
		out := mustRun(t, s, tc.cell)
		if out.images() != 1 {
			t.Fatalf("%s: %d images", tc.cell, out.images())
		}
		if svg, _ := bundleSVG(out.displays[0]); !strings.Contains(svg, ">"+tc.title+"</text>") {
			t.Errorf("%s: the title is not %q", tc.cell, tc.title)
		}
	}
}

// TestPlotRMSESaysWhichChain checks that plot rmse of a fit of several
// chains says that its line is the first chain's: the legend read "m
// (gibbs)", as if the chains were pooled.
func TestPlotRMSESaysWhichChain(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data sim = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 1)
model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }
fit m with gibbs, iter = 20, warmup = 10, chains = 3, seed = 1`)
	out := mustRun(t, s, "plot rmse m vs sim")
	if out.images() != 1 {
		t.Fatalf("%d images", out.images())
	}
	svg, _ := bundleSVG(out.displays[0])
	if want := "m (gibbs, chain 1 of 3)"; !strings.Contains(svg, ">"+want+"</text>") || !strings.Contains(out.text(), want) {
		t.Errorf("plot rmse does not say its line is %q: %q", want, out.text())
	}
}

// TestPlotsOfThinnedFitsCountIterations checks that the trace and RMSE
// plots of a fit thinned by 5 put draw i at iteration 5i: a fit of 1500
// iterations (500 warm-up) read as 300 iterations (first 100 warm-up), its
// trace's 1000 iterations as 200.
func TestPlotsOfThinnedFitsCountIterations(t *testing.T) {
	s := newTestSession(t)
	mustRun(t, s, `data sim = simulate(FullCopula(p = 3), n = 100, levels = 3, seed = 1)
model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }
fit m with gibbs, iter = 100, warmup = 50, chains = 1, seed = 1, thin = 5`)
	for _, tc := range []struct {
		cell, text        string
		draws, iterations int
	}{
		{"plot rmse m vs sim", "1 series over 150 iterations (a draw every 5th) (first 50 warmup)", 30, 150},
		{"plot trace m.C[1, 2]", "1 chain × 20 draws (every 5th iteration)", 20, 100},
	} {
		out := mustRun(t, s, tc.cell)
		if !strings.Contains(out.text(), tc.text) {
			t.Errorf("%s: %q does not say %q", tc.cell, out.text(), tc.text)
		}
		// The largest whole-number tick label is on the iteration axis
		// (the y axis holds correlations or RMSEs below 1).
		svg, _ := bundleSVG(out.displays[0])
		largest := 0
		for _, m := range regexp.MustCompile(`>(\d+)</text>`).FindAllStringSubmatch(svg, -1) {
			v, _ := strconv.Atoi(m[1])
			largest = max(largest, v)
		}
		if largest <= tc.draws || largest > tc.iterations {
			t.Errorf("%s: the x axis reaches %d, want iterations (%d) rather than draws (%d)", tc.cell, largest, tc.iterations, tc.draws)
		}
	}
}

// TestLoadOptionsInProvenance: an export's provenance gives the options of
// the load call beside the file's digest, since they too fix the values (an
// na marker, an order, a column dropped); it gave the path alone.
func TestLoadOptionsInProvenance(t *testing.T) {
	for _, tc := range []struct {
		x    compiler.LoadData
		want string
	}{
		{compiler.LoadData{}, ""},
		{compiler.LoadData{Sep: ','}, ""},
		{compiler.LoadData{Sep: ';', NA: []string{"-99", "refused"}}, `sep = ";", na = ["-99", "refused"]`},
		{compiler.LoadData{Order: map[string][]string{"z": {"lo", "hi"}, "my col": {"no", "yes"}}, OrderAll: []string{"a", "b"}, Drop: []string{"id", "free text"}},
			`order = {"my col": ["no", "yes"], z: ["lo", "hi"], *: ["a", "b"]}, drop = [id, "free text"]`},
	} {
		if got := loadOptionsText(&tc.x); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.x, got, tc.want)
		}
	}
	dir := t.TempDir()
	csvText := "id,a,b\n"
	for i := range 30 {
		csvText += fmt.Sprintf("r%d,%d,%d\n", i, i%3, (i*7)%4)
	}
	csvText += "r99,-99,1\n"
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(csvText), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, New(Options{Dir: dir}), `data d = load("d.csv", na = ["-99"], drop = [id])
model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }
fit m with gibbs, iter = 10, warmup = 5, chains = 1, seed = 1
export m to "draws.csv"`)
	b, err := os.ReadFile(filepath.Join(dir, "draws.provenance.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "data_source,d.csv\ndata_options,\"na = [\"\"-99\"\"], drop = [id]\"\ndata_sha256,"; !strings.Contains(string(b), want) {
		t.Errorf("provenance:\n%s\nwant it to hold %q", b, want)
	}
}

// TestHelpIndexShowsAModelWhole: help alone gave the model statement as
// its first line, "model NAME {", which tells a newcomer nothing of what
// goes inside (found by the teaching review); it gives the whole skeleton
// on one line, and every word it offers to help with has help.
func TestHelpIndexShowsAModelWhole(t *testing.T) {
	index := helpIndex()
	if !strings.Contains(index, "\n  model NAME { Y = DATA; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n") {
		t.Errorf("help alone does not give the model's skeleton:\n%s", index)
	}
	for _, m := range regexp.MustCompile(`help (\w+)[),]`).FindAllStringSubmatch(index, -1) {
		if _, ok := compiler.Doc(m[1]); !ok && m[1] != "WORD" {
			t.Errorf("help alone offers help %s, which has none", m[1])
		}
	}
	if !strings.Contains(index, "help regress") {
		t.Errorf("help alone names no parts of a fitted model:\n%s", index)
	}
}

// TestRebindingToAnotherKindWarns: a data set's name reused for a model,
// or a model's for data, replaced the binding without a word (model gss
// { Y = gss ... } left the data set without a name; data m = load(...)
// dropped the model m and its fit). It warns with both positions, and the
// earlier one's cell when it was another: by its execution count, as the
// notebook shows it (In [12]), which the kernel passes with each cell (the
// warning said only "of an earlier cell", leaving the user to search the
// notebook), or, for a cell run without one (silent), as an earlier cell.
// A name bound again as the same kind (a load cell run again) does not warn.
func TestRebindingToAnotherKindWarns(t *testing.T) {
	const model = "; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }"
	s := newTestSession(t)
	cells := []struct {
		count         int // the execution count the kernel gives the cell; 0 for none
		code, warning string
	}{
		{12, "data sim = simulate(FullCopula(p = 3), n = 60, levels = 3, seed = 2)\ndata sim = simulate(FullCopula(p = 3), n = 60, levels = 3, seed = 3)", ""},
		{13, "model sim { Y = sim" + model,
			"warning: 1:1: model sim replaces data sim (bound in cell [12] at 2:1): sim names the model now, and the data set can no longer be used by name (the model keeps it as its data); give the model another name to keep both\n"},
		{15, "data d = simulate(FullCopula(p = 3), n = 60, levels = 3)\nmodel m { Y = d" + model + "\nmodel m { Y = d" + model, ""},
		{16, "fit m, iter = 20, warmup = 10, chains = 1", ""},
		{17, "data m = simulate(FullCopula(p = 3), n = 60, levels = 3)",
			"warning: 1:1: data m replaces model m (declared in cell [15] at 3:1): m names the data set now, and the model and its fit are gone; give the data another name to keep both\n"},
		{18, "model d2 { Y = m" + model + "\n\ndata d2 = simulate(FullCopula(p = 3), n = 60, levels = 3)",
			"warning: 3:1: data d2 replaces model d2 (declared at 1:1): d2 names the data set now, and the model is gone; give the data another name to keep both\n"},
		{0, "model d3 { Y = m" + model, ""},
		{19, "data d3 = simulate(FullCopula(p = 3), n = 60, levels = 3)",
			"warning: 1:1: data d3 replaces model d3 (declared at 1:1 of an earlier cell): d3 names the data set now, and the model is gone; give the data another name to keep both\n"},
	}
	for _, c := range cells {
		out := &recorder{}
		if _, err := s.ExecuteCell(context.Background(), c.count, c.code, out); err != nil {
			t.Fatalf("cell [%d] failed: %v\n%s", c.count, err, c.code)
		}
		got := ""
		for _, line := range strings.SplitAfter(out.stderr.String(), "\n") {
			if strings.Contains(line, "replaces") {
				got += line
			}
		}
		if got != c.warning {
			t.Errorf("cell [%d]:\n%s\nstderr %q\nwant   %q", c.count, c.code, got, c.warning)
		}
	}
}

// TestRebindingInAScriptGivesLines: a script has no cells; the warning
// gives the earlier statement's line and column in the file.
func TestRebindingInAScriptGivesLines(t *testing.T) {
	s := newTestSession(t)
	out := &recorder{}
	src := "data sim = simulate(FullCopula(p = 3), n = 60, levels = 3)\n\nmodel sim { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }\n"
	if err := s.RunScript(context.Background(), "a.cop", []byte(src), out); err != nil {
		t.Fatal(err)
	}
	want := "warning: a.cop:3:1: model sim replaces data sim (bound at 1:1): "
	if !strings.Contains(out.stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", out.stderr.String(), want)
	}
}

// TestExportsWrittenIntoPlace: export, its columns and provenance
// sidecars, export of data and impute ... to were written in place with
// os.Create, so that a crash left a partial CSV that read as whole (a
// shorter fit). Each is now written as a fit file is: to a temporary file
// beside it, synced, renamed over it, and its directory synced.
func TestExportsWrittenIntoPlace(t *testing.T) {
	dir := t.TempDir()
	files := &recordingFiles{}
	s := New(Options{Dir: dir})
	s.files = files
	mustRun(t, s, "data d = simulate(FullCopula(p = 3), n = 50, levels = 3, seed = 1, missing = 0.1)\n"+
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart() }\n"+
		"fit m with gibbs, iter = 20, warmup = 10, chains = 1, seed = 1")
	temporary := regexp.MustCompile(`\S+\.tmp-\d+-\d+`)
	written := func(name string) []string {
		return []string{"create tmp", "write", "sync tmp", "close tmp", "rename tmp " + name, "sync dir " + filepath.Base(dir)}
	}
	for _, tc := range []struct {
		code  string
		files []string
	}{
		{`export m to "draws.csv"`, []string{"draws.csv", "draws.columns.csv", "draws.provenance.csv"}},
		{`export m.C[1] to "row.csv"`, []string{"row.csv", "row.columns.csv", "row.provenance.csv"}},
		{`export d to "d.csv"`, []string{"d.csv", "d.provenance.csv"}},
		{`impute m to "cells.csv"`, []string{"cells.csv", "cells.provenance.csv"}},
		{`impute m, draws = "imputed.csv"`, []string{"imputed.csv", "imputed.provenance.csv"}},
	} {
		files.ops = nil
		mustRun(t, s, tc.code)
		var want []string
		for _, f := range tc.files {
			want = append(want, written(f)...)
		}
		got := make([]string, len(files.ops))
		for i, op := range files.ops {
			got[i] = temporary.ReplaceAllString(op, "tmp")
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s did\n%s\nwant\n%s", tc.code, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// A Sync that fails leaves the file as it was and no temporary file.
	before, err := os.ReadFile(filepath.Join(dir, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	files.failSync = true
	if _, err := s.Execute(context.Background(), `export m to "draws.csv"`, &recorder{}); err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Errorf("export whose Sync failed: %v", err)
	}
	if after, err := os.ReadFile(filepath.Join(dir, "draws.csv")); err != nil || !bytes.Equal(after, before) {
		t.Errorf("an export whose Sync failed changed the file (%v)", err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*")); len(tmps) > 0 {
		t.Errorf("an export whose Sync failed left %q", tmps)
	}
}
