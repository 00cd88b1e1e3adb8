package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResultsDoNotWriteOverData: export and impute, whose paths are the
// user's to choose, refuse to write over a file that data in the session
// were loaded from, or a fit file: `export m to "gss.csv"`, a slip for
// "gss_draws.csv", wrote the draws over the survey the notebook had just
// loaded, with no word of it. The refusal comes before anything is
// written (the cell's check finds the file of data already bound, and
// that of data loaded by the same cell), and the file is left
// as it was; writing over an earlier export, or a file that is neither,
// is as before.
func TestResultsDoNotWriteOverData(t *testing.T) {
	const setup = "data d = load(\"d.csv\")\n" +
		"model m { Y = d; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
		"fit m, iter = 20, warmup = 10, chains = 1, seed = 1, file = \"m.fit\"\n"
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d,%d\n", i%3, (i/2)%4)
	}
	data := b.String()
	for _, tc := range []struct {
		name, before, cell string
		// refused names the file said to be protected, "" when the cell
		// writes; protected is the file that must stay as it was.
		refused, protected string
	}{
		{"export over the data", setup, `export m to "d.csv"`, "d.csv is the file data d was loaded from", "d.csv"},
		{"export over the data in the cell that loads it", "", setup + `export m to "d.csv"`, "d.csv is the file data d is loaded from (line 1)", "d.csv"},
		{"export over the data by its absolute path", setup, `export m to "DIR/sub/../d.csv"`, "DIR/sub/../d.csv is the file data d was loaded from", "d.csv"},
		{"export whose sidecar is the data", strings.Replace(setup, "d.csv", "x.columns.csv", 1), `export m to "x.csv"`, "x.columns.csv is the file data d was loaded from", "x.columns.csv"},
		{"export over the data a model keeps", setup + "data d = load(\"e.csv\")\n", `export m to "d.csv"`, "d.csv is the file the data of model m were loaded from", "d.csv"},
		{"export over a fit file", setup, `export m to "m.fit"`, "m.fit is a copulang fit file", "m.fit"},
		{"export of a part over the data", setup, `export m.partial to "d.csv"`, "d.csv is the file data d was loaded from", "d.csv"},
		{"export of the data over their file", setup, `export d to "d.csv"`, "d.csv is the file data d was loaded from", "d.csv"},
		{"impute over the data", setup, `impute m to "d.csv"`, "d.csv is the file data d was loaded from", "d.csv"},
		{"impute's draws over the data", setup, `impute m, draws = "d.csv"`, "d.csv is the file data d was loaded from", "d.csv"},
		{"export over an earlier export", setup + "export m to \"draws.csv\"\n", `export m to "draws.csv"`, "", ""},
		{"impute over another file", setup, `impute m to "e.csv"`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range []string{"d.csv", "e.csv", "x.columns.csv"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			s := New(Options{Dir: dir})
			if tc.before != "" {
				mustRun(t, s, tc.before)
			}
			var was []byte
			if tc.protected != "" {
				var err error
				if was, err = os.ReadFile(filepath.Join(dir, tc.protected)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := s.Execute(context.Background(), strings.ReplaceAll(tc.cell, "DIR", dir), &recorder{})
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("the cell failed: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(errorText(err), strings.ReplaceAll(tc.refused, "DIR", dir)+", which this would write over: name another file") {
				t.Errorf("error %v, want one saying %q", err, tc.refused)
			}
			if now, _ := os.ReadFile(filepath.Join(dir, tc.protected)); string(now) != string(was) {
				t.Errorf("%s was written over", tc.protected)
			}
		})
	}
}
