package session

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRankLikelihoodIgnoresMarginals pins what the extended rank likelihood
// promises and the teaching notebook shows: a strictly increasing recoding of
// a column (a cube, a log, numbers written as labels in their order) leaves
// the posterior of C unchanged. The sampler sees only each column's order,
// so with the same seed the draws are the same to the bit, not merely to
// Monte Carlo error; a sampler that let a column's values in would differ.
func TestRankLikelihoodIgnoresMarginals(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Open("testdata/gss.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	rows = rows[:301] // the header and 300 rows keep the fits short
	labels := []string{"none", "high school", "junior college", "bachelor", "graduate"}
	var recoded [][]string
	for i, r := range rows {
		r = append([]string(nil), r[:3]...) // INC, DEG, CHILD
		if i > 0 {
			if v, err := strconv.ParseFloat(r[0], 64); err == nil {
				r[0] = strconv.FormatFloat(math.Pow(v, 3)-5, 'g', -1, 64) // INC: a cube, shifted
			}
			if v, err := strconv.Atoi(r[1]); err == nil {
				r[1] = labels[v] // DEG: its levels as labels, in order
			}
			if v, err := strconv.ParseFloat(r[2], 64); err == nil {
				r[2] = strconv.FormatFloat(math.Log1p(v), 'g', -1, 64) // CHILD: a log
			}
		}
		recoded = append(recoded, r)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(recoded); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "recoded.csv"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	w = csv.NewWriter(&b)
	for _, r := range rows {
		if err := w.Write(r[:3]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if err := os.WriteFile(filepath.Join(dir, "raw.csv"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	s := New(Options{Dir: dir})
	mustRun(t, s, `data raw = load("raw.csv")
data rec = load("recoded.csv", order = {DEG: ["none", "high school", "junior college", "bachelor", "graduate"]})
model a { Y = raw; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model b { Y = rec; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }
model fa { Y = raw; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }
model fb { Y = rec; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 1) }
fit a, iter = 60, warmup = 30, chains = 2, seed = 3
fit b, iter = 60, warmup = 30, chains = 2, seed = 3
fit fa with px, iter = 60, warmup = 30, chains = 2, seed = 3
fit fb with px, iter = 60, warmup = 30, chains = 2, seed = 3
export a to "a.csv"
export b to "b.csv"
export fa to "fa.csv"
export fb to "fb.csv"`)
	for _, pair := range [][2]string{{"a.csv", "b.csv"}, {"fa.csv", "fb.csv"}} {
		x, err := os.ReadFile(filepath.Join(dir, pair[0]))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(dir, pair[1]))
		if err != nil {
			t.Fatal(err)
		}
		if len(x) < 1000 || !bytes.Equal(x, y) {
			t.Errorf("the draws of %s (%d bytes) and %s (%d bytes) differ: the recoding changed the posterior", pair[0], len(x), pair[1], len(y))
		}
	}
}
