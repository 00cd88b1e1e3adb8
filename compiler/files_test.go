package compiler

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/copulang/copulang/dsl"
)

// filesEnv is a fakeEnv that can read the data files of load statements
// and says which paths cannot be written, as the session's env does.
type filesEnv struct {
	fakeEnv
	data     map[string]*DataInfo // by path
	readOnly map[string]bool      // paths that cannot be written
	fitFiles map[string]bool      // paths of files that exist (fit files)
	reads    []string             // the paths read, in order
}

func (e *filesEnv) ReadData(x *LoadData) (*DataInfo, error) {
	e.reads = append(e.reads, x.Path)
	if x.Path == "texts.csv" { // two text columns without an order
		return nil, errors.Join(errors.New(`column smoker: cannot read "yes" as a number`), errors.New(`column q1: cannot read "agree" as a number`))
	}
	d, ok := e.data[x.Path]
	if !ok {
		return nil, fmt.Errorf("open %s: no such file or directory", x.Path)
	}
	return d, nil
}

func (e *filesEnv) Writable(path string) error {
	if e.readOnly[path] {
		return errors.New("permission denied")
	}
	return nil
}

func (e *filesEnv) FitFile(path string) error {
	if e.fitFiles[path] {
		return nil
	}
	return e.Writable(path)
}

func newFilesEnv() *filesEnv {
	survey := &DataInfo{N: 1002}
	for _, name := range []string{"income", "degree", "children", "age"} {
		survey.Columns = append(survey.Columns, ColumnInfo{Name: name, Levels: 5})
	}
	return &filesEnv{fakeEnv: newFakeEnv(), data: map[string]*DataInfo{"survey.csv": survey},
		readOnly: map[string]bool{"/ro/draws.csv": true, "/ro/m.fit": true, "/ro/kept.fit": true},
		fitFiles: map[string]bool{"/ro/kept.fit": true}}
}

// checkErrors checks src against env and returns its formatted errors.
func checkErrors(t *testing.T, src string, env Env) (string, dsl.ErrorList) {
	t.Helper()
	f, err := dsl.Parse("", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	_, err = Check(f, env)
	var list dsl.ErrorList
	if err != nil && !errors.As(err, &list) {
		t.Fatalf("error %T is not an ErrorList", err)
	}
	return list.Format([]byte(src)), list
}

// TestTypoInLastLineBeforeTheFit is issue 17's case: a script loads a file,
// fits a model on it and misspells a column in its last line. With an env
// that reads files, Check reads the header at check time and reports the
// typo with its position and hint, so the script fails before its fit.
// Without Files the statement is left partial (checked again before it
// runs, that is after the fit).
func TestTypoInLastLineBeforeTheFit(t *testing.T) {
	src := "data gss = load(\"survey.csv\")\nmodel m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m with gibbs, iter = 100000\nsummary m.C[incom, degree]\n"
	env := newFilesEnv()
	got, list := checkErrors(t, src, env)
	want := "4:13: model m has no column incom\nsummary m.C[incom, degree]\n            ^\nhint: did you mean income?\n"
	if got != want {
		t.Errorf("errors:\n%s\nwant:\n%s", got, want)
	}
	if len(list) != 1 {
		t.Errorf("%d errors, want 1", len(list))
	}
	if strings.Join(env.reads, ",") != "survey.csv" {
		t.Errorf("read %v, want survey.csv once", env.reads)
	}

	// The env without Files: no error now, the summary is partial.
	prog := mustCheck(t, src, newFakeEnv())
	if !prog.Stmts[3].Partial() {
		t.Error("without Files the summary on data loaded in the same file should be partial")
	}
}

// TestFilesAtCheckTime: a file that cannot be read is a DataError at the
// load's path; a path that cannot be written is an error at the export's
// path; a file an earlier statement writes is not read before it exists.
func TestFilesAtCheckTime(t *testing.T) {
	tests := []struct {
		name, src, want string
		reads           string
	}{
		{"missing file", `data d = load("nope.csv")` + "\nshow d\n",
			"1:15: nope.csv: open nope.csv: no such file or directory\ndata d = load(\"nope.csv\")\n              ^\n", "nope.csv"},
		{"unwritable export", `export hoff to "/ro/draws.csv"`,
			"1:16: cannot write /ro/draws.csv: permission denied\nexport hoff to \"/ro/draws.csv\"\n               ^\n", ""},
		{"unwritable impute draws", `impute hoff to "cells.csv", draws = "/ro/draws.csv"`,
			"1:37: cannot write /ro/draws.csv: permission denied\nimpute hoff to \"cells.csv\", draws = \"/ro/draws.csv\"\n                                    ^\n", ""},
		{"load what an export writes", "export hoff to \"d.csv\"\ndata d = load(\"d.csv\")\nshow d\n", "", ""},
		// A fit file: one that exists may be read from a directory that
		// cannot be written; one that does not will be written there.
		{"fit file that cannot be written", `fit hoff, file = "/ro/m.fit"`,
			"1:18: cannot keep the fit in /ro/m.fit: permission denied\nfit hoff, file = \"/ro/m.fit\"\n                 ^\nhint: name a fit file, or a new file in a directory that exists and can be written, as in file = \"m.fit\"\n", ""},
		{"fit file to read in a read-only directory", `fit hoff, file = "/ro/kept.fit"`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newFilesEnv()
			got, list := checkErrors(t, tt.src, env)
			if got != tt.want {
				t.Errorf("errors:\n%s\nwant:\n%s", got, tt.want)
			}
			if strings.Join(env.reads, ",") != tt.reads {
				t.Errorf("read %v, want %q", env.reads, tt.reads)
			}
			if tt.name == "missing file" && list[0].Kind != "DataError" {
				t.Errorf("kind %q, want DataError", list[0].Kind)
			}
		})
	}
}

// TestLoadReportsEachColumnError: a file whose columns cannot be read
// (joined errors, one per column) gives one error per column, each at the
// path, so that a survey's text columns without an order are all named at
// once.
func TestLoadReportsEachColumnError(t *testing.T) {
	got, list := checkErrors(t, `data s = load("texts.csv")`, newFilesEnv())
	if len(list) != 2 || list[0].Kind != "DataError" || list[1].Kind != "DataError" {
		t.Fatalf("errors:\n%s\nwant one DataError per column", got)
	}
	for k, want := range []string{`1:15: texts.csv: column smoker: cannot read "yes"`, `1:15: texts.csv: column q1: cannot read "agree"`} {
		if msg := fmt.Sprintf("%d:%d: %s", list[k].Pos.Line, list[k].Pos.Column, list[k].Msg); !strings.HasPrefix(msg, want) {
			t.Errorf("error %d: %s, want %s", k+1, msg, want)
		}
	}
}
