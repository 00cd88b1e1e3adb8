package inference

// predict: the model's conditional distribution of one column, on its
// observed levels, given chosen values of others, for a new row.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/copulang/copulang/hough"
)

// DefaultPredictReps is the number of GHK replicates per kept draw of C
// when a prediction is given two or more columns.
const DefaultPredictReps = 1000

// PredictGiven fixes column Col (0-based, model order) of the new row at
// its observed level Level (an index into the column's observed values,
// ascending).
type PredictGiven struct{ Col, Level int }

// PredictSpec asks for the distribution of column Target given Given.
type PredictSpec struct {
	Target int
	Given  []PredictGiven
	// Reps is the number of GHK replicates per draw (two or more given
	// columns); 0 means DefaultPredictReps.
	Reps int
	// Seed seeds the replicates: draw d of chain c uses its own stream,
	// so that the result depends on neither the number of cores nor the
	// order the draws are visited.
	Seed uint64
}

// Prediction methods: how each draw's probabilities were computed.
const (
	PredictMarginal  = "marginal"         // no given values: the column's shares, exactly
	PredictBivariate = "bivariate normal" // one given column: exact rectangle probabilities
	PredictGHK       = "GHK"              // several: sequential conditioning, target Rao-Blackwellised
)

// Prediction is the posterior of P(target = v_ℓ | given) for every
// observed value v_ℓ of the target column.
type Prediction struct {
	Target int
	Given  []PredictGiven
	// Values are the target's observed values, ascending (level codes of
	// a text column).
	Values []float64
	// Probs[ℓ][chain][draw] is P(target = Values[ℓ] | given, C) at each
	// kept draw of C.
	Probs [][][]float64
	// Marginal[ℓ] is the share of Values[ℓ] among the target's observed
	// cells: the prediction given nothing.
	Marginal []float64
	// Matching counts the rows of the data whose cells equal every given
	// value and whose target is observed; MatchingCounts[ℓ] those of them
	// whose target is Values[ℓ].
	Matching       int
	MatchingCounts []int
	// Method is PredictMarginal, PredictBivariate or PredictGHK; Reps the
	// replicates per draw of GHK (0 otherwise).
	Method string
	Reps   int
	// RepSE[ℓ] is the Monte Carlo standard deviation that the GHK
	// replicates add to the posterior mean of Probs[ℓ] (over every draw),
	// and RepSEDraw the root mean square of the one they add to a single
	// draw's probability, the largest over levels (both 0 when exact).
	RepSE     []float64
	RepSEDraw float64
}

// Levels returns the observed values of column j, ascending (nil for a
// Result without its data).
func (r *Result) Levels(j int) []float64 {
	if j < 0 || j >= len(r.levels) || r.levels[j] == nil {
		return nil
	}
	return r.levels[j].Values
}

// Predict returns the posterior of the target column's distribution given
// the given columns' levels, for a new row. On the standardised latent
// scale z ~ N(0, C) at each kept draw of C (for a factor model C is the
// correlation of ΛΛᵀ + I); the column's level v_ℓ is z ∈ (Φ⁻¹(F_{ℓ−1}),
// Φ⁻¹(F_ℓ)], F the empirical CDF of its observed values, the map impute
// and compare use. A given level puts its column's z in that box, and
//
//	P(target = v_ℓ | given, C) = P(z_t ∈ I_ℓ, z_g ∈ box | C) / P(z_g ∈ box | C),
//
// exactly the column's shares with nothing given, by bivariate normal
// rectangle probabilities with one given column, and with more by GHK
// (Geweke–Hajivassiliou–Keane sequential conditioning: the given columns'
// latent values drawn one after another within their boxes, each draw
// weighted by the probability of its box given those before, and the
// target's probability given them computed exactly), as the ratio of the
// weighted means over Reps replicates.
func (r *Result) Predict(ctx context.Context, spec PredictSpec) (*Prediction, error) {
	if r.levels == nil {
		return nil, errors.New("inference: predict: the fit has no data")
	}
	t := spec.Target
	if t < 0 || t >= r.P {
		return nil, fmt.Errorf("inference: predict: target column %d out of range 1..%d", t+1, r.P)
	}
	seen := map[int]bool{t: true}
	for _, g := range spec.Given {
		if g.Col < 0 || g.Col >= r.P || seen[g.Col] {
			return nil, fmt.Errorf("inference: predict: given column %d is out of range, repeated or the target", g.Col+1)
		}
		seen[g.Col] = true
		if g.Level < 0 || g.Level >= r.levels[g.Col].NumLevels() {
			return nil, fmt.Errorf("inference: predict: level %d of column %d out of range", g.Level+1, g.Col+1)
		}
	}
	reps := spec.Reps
	if reps <= 0 {
		reps = DefaultPredictReps
	}
	lvT := r.levels[t]
	nl := lvT.NumLevels()
	pr := &Prediction{Target: t, Given: slices.Clone(spec.Given), Values: lvT.Values,
		Marginal: make([]float64, nl), MatchingCounts: make([]int, nl), RepSE: make([]float64, nl)}
	nObs := float64(len(lvT.Order))
	for l := range nl {
		pr.Marginal[l] = float64(lvT.Start[l+1]-lvT.Start[l]) / nObs
	}
	for i, l := range lvT.Level {
		if l < 0 {
			continue
		}
		match := true
		for _, g := range spec.Given {
			if int(r.levels[g.Col].Level[i]) != g.Level {
				match = false
				break
			}
		}
		if match {
			pr.Matching++
			pr.MatchingCounts[l]++
		}
	}
	q := newPredictQuery(r.levels, r.P, t, spec.Given)
	switch len(spec.Given) {
	case 0:
		pr.Method = PredictMarginal
	case 1:
		pr.Method = PredictBivariate
	default:
		pr.Method, pr.Reps = PredictGHK, reps
	}
	pr.Probs = make([][][]float64, nl)
	for l := range pr.Probs {
		pr.Probs[l] = make([][]float64, len(r.C))
		for c, chain := range r.C {
			pr.Probs[l][c] = make([]float64, len(chain))
		}
	}
	type job struct{ c, d int }
	var jobs []job
	for c, chain := range r.C {
		for d := range chain {
			jobs = append(jobs, job{c, d})
		}
	}
	repVar := make([][]float64, len(jobs)) // per job, per level
	workers := min(runtime.GOMAXPROCS(0), max(len(jobs), 1))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := q.workspace(reps)
			probs := make([]float64, nl)
			for i, k := 0, w; k < len(jobs); i, k = i+1, k+workers {
				if i%64 == 0 && ctx.Err() != nil {
					errs[w] = ctx.Err()
					return
				}
				jb := jobs[k]
				rng := rand.New(rand.NewPCG(splitMix64(spec.Seed^0x6a09e667f3bcc909),
					splitMix64(spec.Seed+uint64(jb.c+1)<<40+uint64(jb.d+1)*0x9e3779b97f4a7c15)))
				vars := make([]float64, nl)
				if !q.probs(probs, vars, r.C[jb.c][jb.d], ws, rng) {
					errs[w] = fmt.Errorf("inference: predict: draw %d of chain %d is not positive definite", jb.d+1, jb.c+1)
					return
				}
				for l, p := range probs {
					if math.IsNaN(p) {
						errs[w] = fmt.Errorf("inference: predict: the given values have probability 0 in floating point under draw %d of chain %d", jb.d+1, jb.c+1)
						return
					}
					pr.Probs[l][jb.c][jb.d] = p
				}
				repVar[k] = vars
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if pr.Method == PredictGHK && len(jobs) > 0 {
		worst := 0.0
		for l := range nl {
			s := 0.0
			for _, v := range repVar {
				s += v[l]
			}
			pr.RepSE[l] = math.Sqrt(s) / float64(len(jobs))
			worst = max(worst, s/float64(len(jobs)))
		}
		pr.RepSEDraw = math.Sqrt(worst)
	}
	return pr, nil
}

// predictQuery is what every draw of one prediction shares: the target's
// cut points and the given columns' boxes on the standardised latent
// scale, the given columns ordered by their boxes' probabilities, the
// narrowest first (GHK's variance is smallest when the most constraining
// columns come first).
type predictQuery struct {
	p      int
	target int
	cuts   []float64 // Φ⁻¹(F_ℓ), ℓ = 0..L: −∞ first, +∞ last
	given  []int     // given columns, in GHK's order
	lo, hi []float64 // their boxes
}

func newPredictQuery(levels []*hough.Levels, p, target int, given []PredictGiven) *predictQuery {
	q := &predictQuery{p: p, target: target}
	q.cuts = levelCuts(levels[target])
	order := slices.Clone(given)
	box := func(g PredictGiven) (float64, float64) {
		cuts := levelCuts(levels[g.Col])
		return cuts[g.Level], cuts[g.Level+1]
	}
	mass := func(g PredictGiven) float64 { a, b := box(g); return normalMass(a, b) }
	slices.SortStableFunc(order, func(a, b PredictGiven) int {
		ma, mb := mass(a), mass(b)
		switch {
		case ma < mb:
			return -1
		case ma > mb:
			return 1
		}
		return a.Col - b.Col
	})
	for _, g := range order {
		a, b := box(g)
		q.given, q.lo, q.hi = append(q.given, g.Col), append(q.lo, a), append(q.hi, b)
	}
	return q
}

// levelCuts are a column's cut points Φ⁻¹(F_ℓ) on the standardised latent
// scale: level ℓ is (cuts[ℓ], cuts[ℓ+1]].
func levelCuts(lv *hough.Levels) []float64 {
	nl := lv.NumLevels()
	cuts := make([]float64, nl+1)
	nObs := float64(len(lv.Order))
	for l := range cuts {
		cuts[l] = normalQuantile(float64(lv.Start[l]) / nObs)
	}
	cuts[0], cuts[nl] = math.Inf(-1), math.Inf(1)
	return cuts
}

// predictWorkspace is one worker's scratch space.
type predictWorkspace struct {
	reps             int
	l                []float64 // m×m Cholesky factor of C_gg
	beta             []float64 // L⁻¹ C_gt
	e                []float64 // a replicate's standardised given values
	swq, sw2q, sw2q2 []float64
}

func (q *predictQuery) workspace(reps int) *predictWorkspace {
	m, nl := len(q.given), len(q.cuts)-1
	return &predictWorkspace{reps: reps, l: make([]float64, m*m), beta: make([]float64, m), e: make([]float64, m),
		swq: make([]float64, nl), sw2q: make([]float64, nl), sw2q2: make([]float64, nl)}
}

// probs writes P(target = v_ℓ | given, C) into dst and, for GHK, the
// variance the replicates leave in each (by the delta method for a ratio
// of means) into vars; it reports false if C_gg is not positive definite.
func (q *predictQuery) probs(dst, vars []float64, c []float64, ws *predictWorkspace, rng *rand.Rand) bool {
	p, t := q.p, q.target
	nl := len(dst)
	switch len(q.given) {
	case 0:
		for l := range dst {
			dst[l] = normalMass(q.cuts[l], q.cuts[l+1])
		}
		return true
	case 1:
		g := q.given[0]
		r := c[t*p+g]
		den := normalMass(q.lo[0], q.hi[0])
		for l := range dst {
			dst[l] = bvnRectangle(q.cuts[l], q.cuts[l+1], q.lo[0], q.hi[0], r) / den
		}
		normalise(dst)
		return true
	}
	m := len(q.given)
	for i, gi := range q.given {
		for j, gj := range q.given {
			ws.l[i*m+j] = c[gi*p+gj]
		}
	}
	if !cholLower(ws.l, m) {
		return false
	}
	// β = L⁻¹ c_gt: z_t = βᵀe + σ_t ε with z_g = L e.
	ss := 0.0
	for i := range m {
		s := c[t*p+q.given[i]]
		for k := range i {
			s -= ws.l[i*m+k] * ws.beta[k]
		}
		ws.beta[i] = s / ws.l[i*m+i]
		ss += ws.beta[i] * ws.beta[i]
	}
	sigma := math.Sqrt(max(1-ss, 0))
	sw, sw2 := 0.0, 0.0
	clear(ws.swq)
	clear(ws.sw2q)
	clear(ws.sw2q2)
	for range ws.reps {
		w := 1.0
		for i := range m {
			mu := 0.0
			for k := range i {
				mu += ws.l[i*m+k] * ws.e[k]
			}
			d := ws.l[i*m+i]
			a, b := (q.lo[i]-mu)/d, (q.hi[i]-mu)/d
			w *= normalMass(a, b)
			ws.e[i] = truncNormal(rng, 0, 1, a, b)
		}
		mu := 0.0
		for i := range m {
			mu += ws.beta[i] * ws.e[i]
		}
		sw += w
		sw2 += w * w
		// Φ at each interior cut once: P(level ℓ) = F_{ℓ+1} − F_ℓ.
		below := 0.0
		for l := range nl {
			upto := 1.0
			if l+1 < nl {
				if sigma > 1e-12 {
					upto = stdNormalCDF((q.cuts[l+1] - mu) / sigma)
				} else if mu > q.cuts[l+1] {
					upto = 0
				}
			}
			pl := max(upto-below, 0)
			below = upto
			ws.swq[l] += w * pl
			ws.sw2q[l] += w * w * pl
			ws.sw2q2[l] += w * w * pl * pl
		}
	}
	if !(sw > 0) {
		// Every replicate's box had probability 0 in floating point: the
		// given values are too far in the tails together to condition on.
		for l := range dst {
			dst[l], vars[l] = math.NaN(), 0
		}
		return true
	}
	for l := range nl {
		pl := ws.swq[l] / sw
		dst[l] = pl
		v := (ws.sw2q2[l] - 2*pl*ws.sw2q[l] + pl*pl*sw2) / (sw * sw)
		vars[l] = max(v, 0)
	}
	return true
}

// normalise scales x to sum to 1 (rounding of the rectangles).
func normalise(x []float64) {
	s := 0.0
	for _, v := range x {
		s += v
	}
	if s > 0 {
		for i := range x {
			x[i] /= s
		}
	}
}
