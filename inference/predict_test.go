package inference

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/copulang/copulang/hough"
)

// predictFixture is a Result holding one draw of a fixed C over four
// columns of uneven level counts, with their empirical CDFs.
func predictFixture(t *testing.T) (*Result, []float64) {
	t.Helper()
	c := []float64{
		1, 0.6, -0.3, 0.2,
		0.6, 1, 0.25, 0.5,
		-0.3, 0.25, 1, -0.4,
		0.2, 0.5, -0.4, 1,
	}
	// Column j has the counts counts[j] of its levels 1, 2, ...
	counts := [][]int{{30, 50, 15, 5}, {10, 20, 40, 20, 10}, {60, 40}, {5, 25, 45, 25}}
	levels := make([]*hough.Levels, 4)
	for j, cs := range counts {
		var y []float64
		for l, n := range cs {
			for range n {
				y = append(y, float64(l+1))
			}
		}
		y = append(y, math.NaN()) // a missing cell is not in the CDF
		var err error
		if levels[j], err = hough.NewLevels(y); err != nil {
			t.Fatal(err)
		}
	}
	return &Result{P: 4, C: [][][]float64{{c}}, levels: levels}, c
}

// bruteForcePredict draws n rows z ~ N(0, C), maps every column to its
// level through its empirical quantiles as impute does, and returns the
// shares of the target's levels among the rows whose given columns have
// the given levels, with the number of such rows.
func bruteForcePredict(r *Result, c []float64, target int, given []PredictGiven, n int, seed uint64) ([]float64, int) {
	p := r.P
	l := append([]float64(nil), c...)
	if !cholLower(l, p) {
		panic("not positive definite")
	}
	cuts := make([][]float64, p)
	for j := range p {
		cuts[j] = levelCuts(r.levels[j])
	}
	level := func(j int, z float64) int {
		for k := 1; k < len(cuts[j]); k++ {
			if z <= cuts[j][k] {
				return k - 1
			}
		}
		return len(cuts[j]) - 2
	}
	rng := rand.New(rand.NewPCG(seed, 17))
	e, z := make([]float64, p), make([]float64, p)
	counts := make([]float64, r.levels[target].NumLevels())
	matched := 0
rows:
	for range n {
		for i := range p {
			e[i] = rng.NormFloat64()
		}
		for i := range p {
			s := 0.0
			for k := 0; k <= i; k++ {
				s += l[i*p+k] * e[k]
			}
			z[i] = s
		}
		for _, g := range given {
			if level(g.Col, z[g.Col]) != g.Level {
				continue rows
			}
		}
		matched++
		counts[level(target, z[target])]++
	}
	for k := range counts {
		counts[k] /= float64(matched)
	}
	return counts, matched
}

// TestPredictMatchesBruteForce: for a fixed C and fixed empirical CDFs,
// the predicted probabilities equal the shares of a brute-force Monte
// Carlo of impute's map (4·10⁶ rows, conditioning by rejection) within 4
// standard errors: the binomial se √(p(1−p)/matched) of each share
// (0.001 to 0.004 here), and for two given columns the replicates' own
// (RepSEDraw, 20,000 replicates) added in quadrature. The probabilities
// sum to 1.
func TestPredictMatchesBruteForce(t *testing.T) {
	r, c := predictFixture(t)
	cases := []struct {
		name   string
		target int
		given  []PredictGiven
	}{
		{"one given", 0, []PredictGiven{{Col: 1, Level: 3}}},
		{"one given, negative correlation", 2, []PredictGiven{{Col: 3, Level: 0}}},
		{"two given", 0, []PredictGiven{{Col: 1, Level: 3}, {Col: 2, Level: 0}}},
		{"two given, target binary", 2, []PredictGiven{{Col: 0, Level: 1}, {Col: 3, Level: 2}}},
		{"three given", 1, []PredictGiven{{Col: 0, Level: 0}, {Col: 2, Level: 1}, {Col: 3, Level: 1}}},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := r.Predict(context.Background(), PredictSpec{Target: tc.target, Given: tc.given, Reps: 20000, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			want, matched := bruteForcePredict(r, c, tc.target, tc.given, 4_000_000, uint64(k+1))
			sum := 0.0
			for l, w := range want {
				got := pr.Probs[l][0][0]
				sum += got
				se := math.Sqrt(math.Max(w*(1-w), 1e-4)/float64(matched) + pr.RepSEDraw*pr.RepSEDraw)
				if math.Abs(got-w) > 4*se {
					t.Errorf("level %d: predicted %.4f, brute force %.4f of %d rows (se %.4f)", l+1, got, w, matched, se)
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("probabilities sum to %.15f", sum)
			}
			if len(tc.given) > 1 && !(pr.RepSEDraw > 0 && pr.RepSEDraw < 0.005) {
				t.Errorf("replicate error %g per draw, want in (0, 0.005) at 20,000 replicates", pr.RepSEDraw)
			}
		})
	}
}

// With nothing given a draw's probabilities are the column's shares, to
// rounding, whatever C is.
func TestPredictWithNothingGivenIsTheMarginal(t *testing.T) {
	r, _ := predictFixture(t)
	for target, want := range [][]float64{{0.3, 0.5, 0.15, 0.05}, {0.1, 0.2, 0.4, 0.2, 0.1}, {0.6, 0.4}} {
		pr, err := r.Predict(context.Background(), PredictSpec{Target: target})
		if err != nil {
			t.Fatal(err)
		}
		if pr.Method != PredictMarginal {
			t.Errorf("method %q", pr.Method)
		}
		for l, w := range want {
			if got := pr.Probs[l][0][0]; math.Abs(got-w) > 1e-12 || math.Abs(pr.Marginal[l]-w) > 1e-15 {
				t.Errorf("column %d level %d: %.15f (marginal %.15f), want %g", target+1, l+1, got, pr.Marginal[l], w)
			}
		}
	}
}

// The same seed gives the same numbers; the stream of each draw is its own,
// so the number of workers does not matter.
func TestPredictIsDeterministic(t *testing.T) {
	r, c := predictFixture(t)
	r.C = [][][]float64{{c, c, c}, {c, c}}
	spec := PredictSpec{Target: 0, Given: []PredictGiven{{Col: 1, Level: 2}, {Col: 3, Level: 1}}, Reps: 200, Seed: 9}
	a, err := r.Predict(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Predict(context.Background(), spec)
	for l := range a.Probs {
		for ch := range a.Probs[l] {
			for d := range a.Probs[l][ch] {
				if a.Probs[l][ch][d] != b.Probs[l][ch][d] {
					t.Fatalf("level %d chain %d draw %d differs between runs", l, ch, d)
				}
			}
		}
	}
	if a.Probs[0][0][0] == a.Probs[0][0][1] {
		t.Errorf("two draws of one C share their replicates")
	}
}

func TestPredictRejectsBadSpecs(t *testing.T) {
	r, _ := predictFixture(t)
	for _, spec := range []PredictSpec{
		{Target: 4},
		{Target: 0, Given: []PredictGiven{{Col: 0, Level: 0}}},
		{Target: 0, Given: []PredictGiven{{Col: 1, Level: 0}, {Col: 1, Level: 1}}},
		{Target: 0, Given: []PredictGiven{{Col: 2, Level: 2}}},
	} {
		if _, err := r.Predict(context.Background(), spec); err == nil {
			t.Errorf("%+v: no error", spec)
		}
	}
}

// A cancelled context stops a prediction with its error.
func TestPredictStopsWhenCancelled(t *testing.T) {
	r, c := predictFixture(t)
	r.C = [][][]float64{{c, c, c, c}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := r.Predict(ctx, PredictSpec{Target: 0, Given: []PredictGiven{{Col: 1, Level: 2}, {Col: 3, Level: 1}}})
	if err == nil || ctx.Err() == nil {
		t.Errorf("Predict after cancel: %v", err)
	}
}

// The Monte Carlo error GHK states is the error it has: with 400 draws of
// one C, each draw's probabilities from 200 replicates of its own stream,
// two seeds' per-draw probabilities differ by √2 times the stated per-draw
// error (RepSE·√draws) of each level, within 20% (the spread of 400
// differences is known to about 3.5%, so 20% is over 5 of its standard
// errors; the delta method's bias at 200 replicates is far smaller).
func TestPredictStatesItsReplicateError(t *testing.T) {
	r, c := predictFixture(t)
	const draws = 400
	chain := make([][]float64, draws)
	for d := range chain {
		chain[d] = c
	}
	r.C = [][][]float64{chain}
	spec := PredictSpec{Target: 0, Given: []PredictGiven{{Col: 1, Level: 3}, {Col: 2, Level: 0}, {Col: 3, Level: 2}}, Reps: 200, Seed: 1}
	a, err := r.Predict(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Seed = 2
	b, err := r.Predict(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	for l := range a.Probs {
		ss := 0.0
		for d := range draws {
			diff := a.Probs[l][0][d] - b.Probs[l][0][d]
			ss += diff * diff
		}
		observed := math.Sqrt(ss / draws / 2)
		stated := (a.RepSE[l] + b.RepSE[l]) / 2 * math.Sqrt(draws)
		if ratio := observed / stated; ratio < 0.8 || ratio > 1.25 {
			t.Errorf("level %d: per-draw replicate error %.5f observed, %.5f stated (ratio %.2f)", l+1, observed, stated, ratio)
		}
	}
}
