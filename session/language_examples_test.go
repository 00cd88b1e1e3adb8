package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copulang/copulang/dsl"
)

// samplingWatcher is a recorder that cancels a fit once it has spent
// keep in its sampling phase, so that a fit written for minutes of
// sampling still runs as written (same data, model, method and settings)
// and leaves post-warm-up draws behind, while the test stays short.
type samplingWatcher struct {
	recorder
	keep   time.Duration
	cancel context.CancelFunc
	once   sync.Once
}

func (w *samplingWatcher) UpdateDisplay(b MimeBundle, id string) {
	w.recorder.UpdateDisplay(b, id)
	if text, _ := b["text/plain"].(string); strings.Contains(text, ", sampling,") {
		w.once.Do(func() { time.AfterFunc(w.keep, w.cancel) })
	}
}

// TestLanguageExamples runs every example of docs/language.md as written
// (compiler/testdata/language_examples.cop collects them verbatim, which
// compiler's tests check), one statement per cell, against the shipped GSS
// data and the small files of testdata named as in the document. Every
// statement must succeed.
//
// Run in full, the first session's fit (interweaved HMC on p = 20,
// n = 1000, four chains of 2,500 iterations) takes about 14 minutes on two
// cores, so by default each fit gets a budget: it may run for 10 s, or until
// one second after its warm-up ended, and is then interrupted. A fit
// interrupted after its warm-up must keep its draws for the statements that
// follow; one interrupted during warm-up leaves its model unfitted, and the
// statements that need its draws must then say exactly that. A compare,
// which refits its models, has the same 10 s and may be interrupted too.
// With COPULANG_LONG=1 every fit and compare runs to the end and every
// statement must succeed.
func TestLanguageExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example of docs/language.md with fits of 10 s each; skipped under -short")
	}
	long := os.Getenv("COPULANG_LONG") == "1"
	src, err := os.ReadFile("../compiler/testdata/language_examples.cop")
	if err != nil {
		t.Fatal(err)
	}
	file, err := dsl.Parse("language_examples.cop", src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{
		"../notebooks/data/gss_hoff2007.csv": "data/gss_hoff2007.csv", // the shipped data, as the notebooks see it
		"testdata/x.csv":                     "x.csv",
		"testdata/survey.csv":                "survey.csv",
		"testdata/respondents.csv":           "respondents.csv", // survey.csv with an identifier column, for drop
	} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := New(Options{Dir: dir})
	unfitted := map[string]bool{} // models whose fit stopped during warm-up
	for _, st := range file.Stmts {
		start, end := st.Span()
		cell := strings.TrimSpace(string(src[start.Offset:end.Offset]))
		ctx, cancel := context.WithCancel(context.Background())
		out := &samplingWatcher{keep: time.Second, cancel: cancel}
		if long {
			out.keep = time.Duration(1 << 62)
		} else {
			time.AfterFunc(10*time.Second, cancel)
		}
		began := time.Now()
		result, err := s.Execute(ctx, cell, out)
		cancel()
		took := time.Since(began).Round(time.Millisecond)
		var se *Error
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("%s failed: %v", cell, err)
		}
		fit, isFit := st.(*dsl.FitStmt)
		_, isCompare := st.(*dsl.CompareStmt)
		_, isExtend := st.(*dsl.ExtendStmt)
		switch {
		case err == nil:
			if strings.TrimSpace(out.text()) == "" && len(out.displays) == 0 && len(result) == 0 {
				t.Errorf("%s showed nothing", cell)
			}
			if isFit {
				delete(unfitted, fit.Model.Name)
			}
			t.Logf("%s: %s", firstLine(cell), took)
		case !long && isFit && se.Name == "KeyboardInterrupt":
			if strings.Contains(se.Value, "during warm-up") {
				unfitted[fit.Model.Name] = true
			}
			t.Logf("%s: stopped after %s: %s", cell, took, se.Value)
		case !long && (isCompare || isExtend) && se.Name == "KeyboardInterrupt":
			t.Logf("%s: stopped after %s: %s", firstLine(cell), took, se.Value)
		case se.Name == "CheckError" && needsUnfitted(se, unfitted):
			t.Logf("%s: refused as its model's fit stopped in warm-up: %s", firstLine(cell), se.Value)
		default:
			t.Fatalf("%s failed: %s\n%s", cell, se.Name, strings.Join(se.Traceback, "\n"))
		}
	}
	if long || !unfitted["m"] {
		b, err := os.ReadFile(filepath.Join(dir, "draws.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "chain,draw,") {
			t.Errorf("draws.csv starts %.40q", b)
		}
	}
}

// needsUnfitted reports whether e is the check error for a model in
// unfitted that has no draws yet.
func needsUnfitted(e *Error, unfitted map[string]bool) bool {
	for m := range unfitted {
		if strings.Contains(e.Value, "model "+m+" is not fitted yet") {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
