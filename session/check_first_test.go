package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCellIsCheckedBeforeItRuns: issue 17's scripts found a typo in a
// later statement only after a long fit. The whole cell is checked first,
// the CSV it loads included, so nothing runs (no data line, no fit
// progress) and the error has its position and hint.
func TestCellIsCheckedBeforeItRuns(t *testing.T) {
	prefix := "data gss = load(\"gss.csv\")\nmodel m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m with gibbs, iter = 1000000, chains = 1\n"
	// A relative path's missing directory is named as the cell gives it
	// and as the path it was looked for at (a notebook moved without its
	// folder of fit files).
	noDir, err := filepath.Abs(filepath.Join("testdata", "no", "such", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, last, ename string
		want              []string
	}{
		{"column typo", "summary m.C[INCC, DEG]", "CheckError", []string{"4:13: model m has no column INCC", "hint: did you mean INC?"}},
		{"unwritable export", `export m to "no/such/dir/draws.csv"`, "CheckError", []string{"4:13: cannot write no/such/dir/draws.csv: the directory testdata/no/such/dir does not exist (looked for " + noDir + ")"}},
		{"summary to no directory", `summary m.C to "no/such/dir/C.tex"`, "CheckError", []string{"4:16: cannot write no/such/dir/C.tex: the directory testdata/no/such/dir does not exist (looked for " + noDir + ")"}},
		{"plot to no directory", `plot heatmap m.C to "no/such/dir/C.pdf"`, "CheckError", []string{"4:21: cannot write no/such/dir/C.pdf: the directory testdata/no/such/dir does not exist (looked for " + noDir + ")"}},
		{"summary to an unknown extension", `summary m.C to "C.docx"`, "CheckError", []string{"4:16: summary writes a table as .csv, .tex or .md, by the file's extension; not .docx"}},
		{"bad setting", "summary m.C, prob = 2", "CheckError", []string{"4:21: prob must be between 0 and 1"}},
		{"thin beyond iter", "fit m, iter = 10, thin = 20", "CheckError", []string{"4:26: thin = 20 keeps no draw of iter = 10"}},
		{"unreadable data", `data x2 = load("x.csv")`, "DataError", []string{`4:16: x.csv: line 2: column sex: cannot read "m" as a number`}},
		{"fit file in no directory", `fit m, file = "no/such/dir/m.fit"`, "CheckError", []string{"4:15: cannot keep the fit in no/such/dir/m.fit: the directory testdata/no/such/dir does not exist (looked for " + noDir + ")"}},
		{"fit file that is not a fit file", `fit m, file = "x.csv"`, "CheckError", []string{"4:15: cannot keep the fit in x.csv: x.csv is not a copulang fit file, so fit will not overwrite it"}},
		{"fit file that is a directory", `fit m, file = "."`, "CheckError", []string{"4:15: cannot keep the fit in .: testdata is a directory"}},
		// Devices are not read: /dev/zero never ends.
		{"data from a device", `data z = load("/dev/zero")`, "DataError", []string{"4:15: /dev/zero: cannot load data: /dev/zero is a device, not a file"}},
		{"fit file that is a device", `fit m, file = "/dev/zero"`, "CheckError", []string{"4:15: cannot keep the fit in /dev/zero: /dev/zero is not a regular file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat("/dev/zero"); err != nil && strings.Contains(c.last, "/dev/zero") {
				t.Skip("no /dev/zero here")
			}
			s := newTestSession(t)
			out := &recorder{}
			_, err := s.Execute(context.Background(), prefix+c.last, out)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *session.Error", err)
			}
			tb := strings.Join(se.Traceback, "\n")
			if se.Name != c.ename {
				t.Errorf("ename %s, want %s:\n%s", se.Name, c.ename, tb)
			}
			for _, w := range c.want {
				if !strings.Contains(tb, w) {
					t.Errorf("traceback lacks %q:\n%s", w, tb)
				}
			}
			if out.stdout.Len() > 0 || len(out.displays) > 0 || out.updates > 0 {
				t.Errorf("the cell ran before the error: %q", out.text())
			}
			if len(s.names) != 0 || len(s.preloaded) != 0 {
				t.Errorf("bindings %v and preloaded files %d after a cell that did not run", s.names, len(s.preloaded))
			}
		})
	}
}

// TestModelOfAnEmptyColumnIsRefused: a column with no observed value was
// let through, with a plan's note that its latent values would be drawn
// from the conditional normal, and then failed the fit ("inference: column
// d has no observed values"). The check refuses the model before anything
// runs and says which columns it can use.
func TestModelOfAnEmptyColumnIsRefused(t *testing.T) {
	s := newTestSession(t)
	out := &recorder{}
	_, err := s.Execute(context.Background(), "data e = load(\"emptycol.csv\")\n"+
		"model me { Y = e; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\nfit me, iter = 20, chains = 1", out)
	var se *Error
	if !errors.As(err, &se) || se.Name != "CheckError" {
		t.Fatalf("error %v, want a CheckError", err)
	}
	tb := strings.Join(se.Traceback, "\n")
	for _, w := range []string{"2:16: column d of e has no observed values: every cell is missing",
		"hint: leave it out, as in Y = e[a, b, c]"} {
		if !strings.Contains(tb, w) {
			t.Errorf("traceback lacks %q:\n%s", w, tb)
		}
	}
	if out.stdout.Len() > 0 || len(out.displays) > 0 {
		t.Errorf("the cell ran before the error: %q", out.text())
	}
	// Without the column the model is fine.
	mustRun(t, s, "data e = load(\"emptycol.csv\")\nmodel ok { Y = e[a, b, c]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
}

// TestFitFileIsCheckedByItsHeader: the check refuses a fit's file that is
// there but does not start as a fit file does (empty or cut short
// included), as the fit itself would, and accepts one that does whatever
// follows (the fit decides whether it holds this fit). Such a file used to
// be found only when its fit ran, after the statements before it.
func TestFitFileIsCheckedByItsHeader(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	env := sessionEnv{s, context.Background()}
	for name, text := range map[string]string{"empty.fit": "", "hello.fit": "hello\n", "short.fit": fitFileMagic[:5]} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		err := env.FitFile(name)
		if err == nil || err.Error() != name+" is not a copulang fit file, so fit will not overwrite it: choose another file name, or remove the file" {
			t.Errorf("FitFile(%s) = %v, want the file refused", name, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "old.fit"), []byte(fitFileMagic+"anything"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"old.fit", "new.fit"} {
		if err := env.FitFile(name); err != nil {
			t.Errorf("FitFile(%s) = %v, want nil", name, err)
		}
	}
}
