package inference

import (
	"context"
	"errors"
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
	const draws = 400
	_, _, a, b := twoSeedPredictions(t, draws, 200, []PredictGiven{{Col: 1, Level: 3}, {Col: 2, Level: 0}, {Col: 3, Level: 2}})
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

// iidGHK is GHK with independent replicates (truncated normals drawn by
// rejection), the estimator predict used before its lattice: the
// reference TestPredictLatticeBeatsIndependentReplicates measures against.
func iidGHK(q *predictQuery, c []float64, reps int, rng *rand.Rand) []float64 {
	p, t, m := q.p, q.target, len(q.given)
	l := make([]float64, m*m)
	for i, gi := range q.given {
		for j, gj := range q.given {
			l[i*m+j] = c[gi*p+gj]
		}
	}
	if !cholLower(l, m) {
		panic("not positive definite")
	}
	beta, e := make([]float64, m), make([]float64, m)
	ss := 0.0
	for i := range m {
		s := c[t*p+q.given[i]]
		for k := range i {
			s -= l[i*m+k] * beta[k]
		}
		beta[i] = s / l[i*m+i]
		ss += beta[i] * beta[i]
	}
	sigma := math.Sqrt(1 - ss)
	nl := len(q.cuts) - 1
	swq, qs := make([]float64, nl), make([]float64, nl)
	sw := 0.0
	for range reps {
		w := 1.0
		for i := range m {
			mu := 0.0
			for k := range i {
				mu += l[i*m+k] * e[k]
			}
			d := l[i*m+i]
			a, b := (q.lo[i]-mu)/d, (q.hi[i]-mu)/d
			w *= normalMass(a, b)
			e[i] = truncNormal(rng, 0, 1, a, b)
		}
		mu := 0.0
		for i := range m {
			mu += beta[i] * e[i]
		}
		q.targetProbs(qs, mu, sigma)
		sw += w
		for k, v := range qs {
			swq[k] += w * v
		}
	}
	for k := range swq {
		swq[k] /= sw
	}
	return swq
}

// The randomly shifted lattice does what it is for: at 1000 replicates
// per draw, the per-draw error of the three-given case of the fixture (the
// spread between two seeds over 400 draws, known to about 3.5%) is under
// half that of 1000 independent replicates (their spread over 400
// independent estimates, likewise known to about 3.5%). Measured: 0.03 to
// 0.24 times, by level (at 200 replicates 0.14 to 0.66: this case's
// integrand is rougher than the GSS's, where the gain is 3 to 30 times).
func TestPredictLatticeBeatsIndependentReplicates(t *testing.T) {
	const draws, reps = 400, 1000
	given := []PredictGiven{{Col: 1, Level: 3}, {Col: 2, Level: 0}, {Col: 3, Level: 2}}
	r, c, a, b := twoSeedPredictions(t, draws, reps, given)
	q := newPredictQuery(r.levels, r.P, 0, given)
	rng := rand.New(rand.NewPCG(5, 6))
	iid := make([][]float64, draws)
	for d := range iid {
		iid[d] = iidGHK(q, c, reps, rng)
	}
	for l := range a.Probs {
		ss := 0.0
		for d := range draws {
			diff := a.Probs[l][0][d] - b.Probs[l][0][d]
			ss += diff * diff
		}
		lattice := math.Sqrt(ss / draws / 2)
		mean, ss2 := 0.0, 0.0
		for d := range draws {
			mean += iid[d][l] / draws
		}
		for d := range draws {
			ss2 += (iid[d][l] - mean) * (iid[d][l] - mean)
		}
		independent := math.Sqrt(ss2 / (draws - 1))
		t.Logf("level %d: per-draw error %.6f with the lattice, %.6f with independent replicates (%.2f)", l+1, lattice, independent, lattice/independent)
		if lattice > independent/2 {
			t.Errorf("level %d: per-draw error %.6f with the lattice, %.6f with independent replicates", l+1, lattice, independent)
		}
	}
}

// extremeFixture is a Result over three columns whose given columns 1 and
// 2 are at opposite ends (the lowest level of one, the highest of the
// other, each about 2.3 standard deviations out), with chains of draws of
// C that are either mild (those two columns correlated 0.3) or extreme
// (correlated 0.9999, under which z₂ given z₁ ≤ −2.3 has standard deviation
// 0.014 and its box is over 300 of them away: probability 0 in floating
// point).
func extremeFixture(t *testing.T, chains [][]bool) *Result {
	t.Helper()
	mild := []float64{1, 0.3, 0.3, 0.3, 1, 0.3, 0.3, 0.3, 1}
	extreme := []float64{1, 0.3, 0.3, 0.3, 1, 0.9999, 0.3, 0.9999, 1}
	levels := make([]*hough.Levels, 3)
	for j := range levels {
		var y []float64
		for l, n := range []int{1, 98, 1} {
			for range n {
				y = append(y, float64(l+1))
			}
		}
		var err error
		if levels[j], err = hough.NewLevels(y); err != nil {
			t.Fatal(err)
		}
	}
	r := &Result{P: 3, levels: levels}
	for _, chain := range chains {
		var draws [][]float64
		for _, isExtreme := range chain {
			if isExtreme {
				draws = append(draws, extreme)
			} else {
				draws = append(draws, mild)
			}
		}
		r.C = append(r.C, draws)
	}
	return r
}

// A draw under which the given values have probability 0 in floating
// point is left out and counted, not the end of the prediction; the
// chains keep their other draws, cut to the shortest; and when every draw
// is such, the error says so (ErrGivenImpossible).
func TestPredictSkipsDrawsWhereTheGivenValuesAreImpossible(t *testing.T) {
	given := []PredictGiven{{Col: 1, Level: 0}, {Col: 2, Level: 2}}
	r := extremeFixture(t, [][]bool{{false, true, false, false}, {true, true, false, false, false}})
	pr, err := r.Predict(context.Background(), PredictSpec{Target: 0, Given: given, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Draws != 9 || pr.Skipped != 3 || pr.Used != 6 {
		t.Errorf("draws %d, skipped %d, used %d; want 9, 3 and 6 (two chains of 3)", pr.Draws, pr.Skipped, pr.Used)
	}
	for c := range pr.Probs[0] {
		sum := 0.0
		for l := range pr.Probs {
			if len(pr.Probs[l][c]) != 3 {
				t.Fatalf("level %d chain %d has %d draws, want 3", l+1, c+1, len(pr.Probs[l][c]))
			}
			p := pr.Probs[l][c][0]
			if math.IsNaN(p) || p < 0 {
				t.Errorf("level %d chain %d: %v", l+1, c+1, p)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("chain %d: the probabilities sum to %v", c+1, sum)
		}
	}
	if !(pr.RepSEDraw >= 0) || math.IsNaN(pr.RepSE[0]) {
		t.Errorf("replicate errors %v, %v", pr.RepSE, pr.RepSEDraw)
	}
	// Correlated 0.992 instead, the given values' probability is about
	// 10⁻³⁰⁰, not 0: the draw is kept, and its stated error is a number
	// (the square of the weights' mean underflows).
	r = extremeFixture(t, [][]bool{{false}})
	r.C[0][0] = []float64{1, 0.3, 0.3, 0.3, 1, 0.992, 0.3, 0.992, 1}
	pr, err = r.Predict(context.Background(), PredictSpec{Target: 0, Given: given, Seed: 1})
	if err != nil || pr.Skipped != 0 || math.IsNaN(pr.RepSEDraw) || math.IsNaN(pr.Probs[0][0][0]) {
		t.Errorf("correlated 0.992: %v; skipped %v, p %v, replicate error %v", err, pr.Skipped, pr.Probs[0][0][0], pr.RepSEDraw)
	}
	r = extremeFixture(t, [][]bool{{true, true}, {true}})
	if _, err := r.Predict(context.Background(), PredictSpec{Target: 0, Given: given, Seed: 1}); !errors.Is(err, ErrGivenImpossible) {
		t.Errorf("every draw impossible: %v, want ErrGivenImpossible", err)
	}
}

// TestPredictReplicateErrorIsOfTheDrawsKept: when draws are left out and
// the chains cut to the shortest, the stated replicate error is that of
// the mean over the draws kept in Probs. It was summed over every draw
// not left out and divided by their number, so that a chain of 6 draws
// cut to 1 stated about √(2/7) of the error of the mean of the 2 kept.
// The same draws at the same places (so the same replicates) without the
// cut draws give the same errors.
func TestPredictReplicateErrorIsOfTheDrawsKept(t *testing.T) {
	given := []PredictGiven{{Col: 1, Level: 0}, {Col: 2, Level: 2}}
	spec := PredictSpec{Target: 0, Given: given, Seed: 1}
	cut, err := extremeFixture(t, [][]bool{{false, false, false, false, false, false}, {true, false}}).Predict(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if cut.Skipped != 1 || cut.Used != 2 {
		t.Fatalf("skipped %d, used %d; want 1 and 2", cut.Skipped, cut.Used)
	}
	// Chain 1's first draw and chain 2's second, as in cut.
	kept, err := extremeFixture(t, [][]bool{{false}, {true, false}}).Predict(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if kept.Used != 2 {
		t.Fatalf("used %d, want 2", kept.Used)
	}
	for l := range cut.Probs {
		if cut.Probs[l][0][0] != kept.Probs[l][0][0] || cut.Probs[l][1][0] != kept.Probs[l][1][0] {
			t.Fatalf("level %d: the kept draws differ: %v, %v", l+1, cut.Probs[l], kept.Probs[l])
		}
		if math.Abs(cut.RepSE[l]-kept.RepSE[l]) > 1e-12*kept.RepSE[l] {
			t.Errorf("level %d: replicate error %.4g stated with the cut draws, %.4g of the 2 draws kept", l+1, cut.RepSE[l], kept.RepSE[l])
		}
	}
	if math.Abs(cut.RepSEDraw-kept.RepSEDraw) > 1e-12*kept.RepSEDraw {
		t.Errorf("per-draw replicate error %.4g with the cut draws, %.4g of the 2 draws kept", cut.RepSEDraw, kept.RepSEDraw)
	}
}

// twoSeedPredictions predicts column 0 of predictFixture given the given
// columns under draws copies of its C, with reps replicates, once with
// seed 1 and once with seed 2.
func twoSeedPredictions(t *testing.T, draws, reps int, given []PredictGiven) (r *Result, c []float64, a, b *Prediction) {
	t.Helper()
	r, c = predictFixture(t)
	chain := make([][]float64, draws)
	for d := range chain {
		chain[d] = c
	}
	r.C = [][][]float64{chain}
	spec := PredictSpec{Target: 0, Given: given, Reps: reps, Seed: 1}
	a, err := r.Predict(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Seed = 2
	if b, err = r.Predict(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	return r, c, a, b
}
