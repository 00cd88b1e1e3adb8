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
const DefaultPredictReps = 200

// MaxPredictReps is the most GHK replicates per draw a prediction takes:
// each costs a Φ per level of the target, per draw.
const MaxPredictReps = 100_000

// PredictGiven fixes column Col (0-based, model order) of the new row at
// its observed level Level (an index into the column's observed values,
// ascending).
type PredictGiven struct{ Col, Level int }

// PredictSpec asks for the distribution of column Target given Given.
type PredictSpec struct {
	Target int
	Given  []PredictGiven
	// Reps is the number of GHK replicates per draw (two or more given
	// columns), rounded up to a multiple of PredictShifts; 0 means
	// DefaultPredictReps.
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
	// replicates add to the posterior mean of Probs[ℓ] (over the draws in
	// it, those of p, not those cut with the draws left out), and RepSEDraw the root mean square of the one they add to a single
	// draw's probability, the largest over levels (both 0 when exact).
	RepSE     []float64
	RepSEDraw float64
	// Draws is the number of kept draws of C; Skipped of them are left
	// out because the given values have probability 0 in floating point
	// under them (too far in the tails together), and Used are the draws
	// in Probs: each chain without those, cut to the shortest chain that
	// has any (so that the chains' diagnostics apply). Used is Draws when
	// none is skipped.
	Draws, Skipped, Used int
}

// ErrGivenImpossible is the error of a prediction whose given values have
// probability 0 in floating point under every draw of C.
var ErrGivenImpossible = errors.New("inference: predict: the given values have probability 0 in floating point")

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
// weighted means over Reps replicates: PredictShifts random shifts of a
// Korobov lattice of Reps/PredictShifts points, whose spread is the
// Monte Carlo error stated. A draw under which the given values have
// probability 0 in floating point is left out and counted (Skipped);
// under every draw, the error is ErrGivenImpossible.
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
	if len(spec.Given) > 1 {
		q.lattice = korobov(PredictPoints(reps), len(spec.Given))
	}
	switch len(spec.Given) {
	case 0:
		pr.Method = PredictMarginal
	case 1:
		pr.Method = PredictBivariate
	default:
		pr.Method, pr.Reps = PredictGHK, PredictShifts*PredictPoints(reps)
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
	skipped := make([]bool, len(jobs))     // the given values have probability 0 under the job's draw
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
				if math.IsNaN(probs[0]) {
					skipped[k] = true
					continue
				}
				for l, p := range probs {
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
	pr.Draws = len(jobs)
	for k, jb := range jobs {
		if skipped[k] {
			pr.Skipped++
			for l := range pr.Probs {
				pr.Probs[l][jb.c][jb.d] = math.NaN()
			}
		}
	}
	if pr.Skipped > 0 {
		if pr.Skipped == len(jobs) {
			return nil, fmt.Errorf("%w under every one of the fit's %d draws of C: they are too far in the tails together for the model to condition on them", ErrGivenImpossible, len(jobs))
		}
		// Each chain without the draws left out, cut to the shortest that
		// has any, as the summaries of an interrupted fit are.
		for l := range pr.Probs {
			for c, chain := range pr.Probs[l] {
				pr.Probs[l][c] = slices.DeleteFunc(chain, math.IsNaN)
			}
			pr.Probs[l] = NonEmptyShortest(pr.Probs[l])
		}
	}
	for _, chain := range pr.Probs[0] {
		pr.Used += len(chain)
	}
	if pr.Method == PredictGHK && pr.Used > 0 {
		// The errors are of the draws in Probs, whose mean p is: each
		// chain's first draws not left out, as many as Probs keeps.
		inProbs := make([]bool, len(jobs))
		perChain := make([]int, len(r.C))
		for k, jb := range jobs {
			if !skipped[k] && (pr.Skipped == 0 || perChain[jb.c] < len(pr.Probs[0][0])) {
				inProbs[k] = true
				perChain[jb.c]++
			}
		}
		used := float64(pr.Used)
		worst := 0.0
		for l := range nl {
			s := 0.0
			for k, v := range repVar {
				if inProbs[k] {
					s += v[l]
				}
			}
			pr.RepSE[l] = math.Sqrt(s) / used
			worst = max(worst, s/used)
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
	p       int
	target  int
	cuts    []float64 // Φ⁻¹(F_ℓ), ℓ = 0..L: −∞ first, +∞ last
	given   []int     // given columns, in GHK's order
	lo, hi  []float64 // their boxes
	lattice []float64 // GHK's lattice, z/n: a generator per given column
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
	shifts, points int       // GHK: random shifts × lattice points per shift
	l              []float64 // m×m Cholesky factor of C_gg
	beta           []float64 // L⁻¹ C_gt
	e              []float64 // a replicate's standardised given values
	shift          []float64 // a shift of the lattice, one per given column
	q              []float64 // a replicate's target probabilities
	shiftW         []float64 // per shift: Σw
	shiftWQ        []float64 // per shift and level: Σw q_ℓ
}

// PredictShifts is the number of independent random shifts of GHK's
// lattice per draw: the replicates of a draw are PredictShifts shifts of
// Reps/PredictShifts lattice points each, and the spread of the shifts'
// estimates is the Monte Carlo error stated (sampling.md §10.5).
const PredictShifts = 10

// PredictPoints is the number of lattice points per shift that reps
// replicates give: reps/PredictShifts rounded up (at least 1).
func PredictPoints(reps int) int { return max((reps+PredictShifts-1)/PredictShifts, 1) }

func (q *predictQuery) workspace(reps int) *predictWorkspace {
	m, nl := len(q.given), len(q.cuts)-1
	return &predictWorkspace{shifts: PredictShifts, points: PredictPoints(reps),
		l: make([]float64, m*m), beta: make([]float64, m), e: make([]float64, m), shift: make([]float64, m),
		q: make([]float64, nl), shiftW: make([]float64, PredictShifts), shiftWQ: make([]float64, PredictShifts*nl)}
}

// korobov is the generating vector (1, a, a², …) mod n of an n-point
// Korobov rank-1 lattice in m dimensions, point i being frac(i·z/n), with
// a chosen among up to 500 candidates to minimise the worst-case error P₂
// of periodic integrands of smoothness 2 (Sloan & Joe, "Lattice methods
// for multiple integration", 1994): P₂ = −1 + (1/n) Σ_i Π_j (1 + 2π²
// B₂({i·z_j/n})), B₂(x) = x² − x + 1/6.
func korobov(n, m int) []float64 {
	z := make([]float64, m)
	best, bestP := 1, math.Inf(1)
	step := max((n/2)/500, 1)
	zs := make([]int, m)
	for a := 1; a <= n/2; a += step {
		zs[0] = 1
		for j := 1; j < m; j++ {
			zs[j] = zs[j-1] * a % n
		}
		p := -1.0
		for i := range n {
			prod := 1.0
			for _, zj := range zs {
				x := float64(i*zj%n) / float64(n)
				prod *= 1 + 2*math.Pi*math.Pi*(x*x-x+1.0/6)
			}
			p += prod / float64(n)
		}
		if p < bestP {
			best, bestP = a, p
		}
	}
	k := 1
	for j := range z {
		z[j] = float64(k) / float64(n)
		k = k * best % n
	}
	return z
}

// truncNormalByInverse returns the mass Φ(b) − Φ(a) of [a, b] and the
// point of it whose conditional CDF is u (Φ⁻¹(Φ(a) + u(Φ(b) − Φ(a))),
// computed on the upper tail's side when a > 0 so that neither tail loses
// its digits). With mass 0 it returns the finite end nearer 0.
func truncNormalByInverse(a, b, u float64) (mass, x float64) {
	if a > 0 {
		qa, qb := stdNormalUpper(a), stdNormalUpper(b)
		mass = qa - qb
		if !(mass > 0) {
			return 0, a
		}
		x = -stdNormalQuantile(qb + u*mass)
	} else {
		pa, pb := stdNormalCDF(a), stdNormalCDF(b)
		mass = pb - pa
		if !(mass > 0) {
			if math.IsInf(b, 1) {
				return 0, a
			}
			return 0, b
		}
		x = stdNormalQuantile(pa + u*mass)
	}
	return mass, min(max(x, a), b)
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
		if !normalise(dst) {
			dst[0] = math.NaN() // the rectangles vanished in floating point
		}
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
	// Randomised quasi-Monte Carlo: each shift Δ of the lattice gives the
	// points x = frac(i·g + Δ), folded by the tent |2x − 1| (which keeps
	// them uniform and makes the rule converge faster on integrands that
	// are not periodic); a point's coordinates are the conditional CDFs of
	// the given columns' standardised values, drawn one after another.
	clear(ws.shiftW)
	clear(ws.shiftWQ)
	for s := range ws.shifts {
		for i := range ws.shift {
			ws.shift[i] = rng.Float64()
		}
		wq := ws.shiftWQ[s*nl : (s+1)*nl]
		for pt := 1; pt <= ws.points; pt++ {
			w := 1.0
			for i := range m {
				mu := 0.0
				for k := range i {
					mu += ws.l[i*m+k] * ws.e[k]
				}
				d := ws.l[i*m+i]
				x := float64(pt)*q.lattice[i] + ws.shift[i]
				u := math.Abs(2*(x-math.Floor(x)) - 1)
				mass, e := truncNormalByInverse((q.lo[i]-mu)/d, (q.hi[i]-mu)/d, u)
				if i > 0 || mass == 0 {
					// The first column's mass is the same at every
					// point: the ratio needs it not, and the weight
					// underflows later without it.
					w *= mass
				}
				ws.e[i] = e
			}
			if w == 0 {
				continue
			}
			mu := 0.0
			for i := range m {
				mu += ws.beta[i] * ws.e[i]
			}
			ws.shiftW[s] += w
			q.targetProbs(ws.q, mu, sigma)
			for l, pl := range ws.q {
				wq[l] += w * pl
			}
		}
	}
	sw := 0.0
	for _, w := range ws.shiftW {
		sw += w
	}
	if !(sw > 0) {
		// Every replicate's box had probability 0 in floating point: the
		// given values are too far in the tails together to condition on.
		for l := range dst {
			dst[l], vars[l] = math.NaN(), 0
		}
		return true
	}
	// The estimate is the ratio of the means over every point, and its
	// variance the delta method's over the shifts' independent estimates:
	// Σ_s (N_s − p̂ D_s)² / (S(S − 1) D̄²), N_s and D_s a shift's sums.
	nShifts := float64(ws.shifts)
	for l := range nl {
		swq := 0.0
		for s := range ws.shifts {
			swq += ws.shiftWQ[s*nl+l]
		}
		pl := swq / sw
		dst[l] = pl
		// Each shift's residual divided by D̄ first: D̄² may underflow.
		mean := sw / nShifts
		v := 0.0
		for s := range ws.shifts {
			r := ws.shiftWQ[s*nl+l]/mean - pl*(ws.shiftW[s]/mean)
			v += r * r
		}
		vars[l] = v / (nShifts * (nShifts - 1))
	}
	return true
}

// targetProbs writes the target's level probabilities given that its
// latent value is N(mu, sigma²) into dst: Φ at each interior cut once,
// P(level ℓ) = F_{ℓ+1} − F_ℓ.
func (q *predictQuery) targetProbs(dst []float64, mu, sigma float64) {
	nl := len(dst)
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
		dst[l] = max(upto-below, 0)
		below = upto
	}
}

// normalise scales x to sum to 1 (rounding of the rectangles); it
// reports false when x sums to 0.
func normalise(x []float64) bool {
	s := 0.0
	for _, v := range x {
		s += v
	}
	if !(s > 0) {
		return false
	}
	for i := range x {
		x[i] /= s
	}
	return true
}
