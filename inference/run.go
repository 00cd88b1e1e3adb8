package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/copulang/copulang/hough"
)

// progressInterval is the least time between two progress reports.
const progressInterval = 50 * time.Millisecond

// Run samples the posterior of spec's model given its data. It runs
// spec.Chains chains in parallel goroutines, chain c drawing from its own PCG
// stream derived from spec.Seed and c only, so results do not depend on
// GOMAXPROCS or scheduling.
//
// Run checks ctx between iterations. When ctx is cancelled it stops every
// chain and returns the draws made so far in a non-nil Result with
// Interrupted set, together with ctx.Err() (test it with errors.Is). A
// sampler failure in a chain stops that chain and is returned, joined with
// the others, alongside the partial Result. An invalid spec returns a nil
// Result and an error saying what to fix.
//
// progress, if not nil, is called from the chains' goroutines but never
// concurrently, at most every 50 ms while sampling, and once more when all
// chains have stopped.
func Run(ctx context.Context, spec Spec, progress func(Progress)) (*Result, error) {
	start := time.Now()
	sp, err := checkSpec(spec)
	if err != nil {
		return nil, err
	}
	d, err := newData(&sp)
	if err != nil {
		return nil, err
	}
	if err := checkHeldOut(d, sp.HeldOut); err != nil {
		return nil, err
	}
	res := newResult(d, &sp)
	samplers := make([]chainSampler, sp.Chains)
	rngs := make([]*rand.Rand, sp.Chains)
	pcgs := make([]*rand.PCG, sp.Chains)
	for c := range samplers {
		pcgs[c] = chainPCG(sp.Seed, c)
		rngs[c] = rand.New(pcgs[c])
		samplers[c], err = newChainSampler(d, &sp, rngs[c])
		if err != nil {
			return nil, err
		}
	}
	total := sp.Warmup + sp.Iter
	gate := &progressGate{fn: progress, start: start, total: total, allTotal: sp.Chains * total}
	gate.warmupLeft.Store(int64(sp.Chains * sp.Warmup))
	errs := make([]error, sp.Chains)
	// The chains run in phases separated by barriers: one, or two when the
	// schedule adapts (the second phase starts with the schedule chosen from
	// every chain's state at the end of the first).
	bounds := []int{0, total}
	if a := adaptAfter(&sp); a > 0 {
		bounds = []int{0, a, total}
	}
	for ph := 0; ph+1 < len(bounds); ph++ {
		var wg sync.WaitGroup
		for c := range samplers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[c] = res.runChain(ctx, c, samplers[c], rngs[c], &sp, gate, bounds[ph], bounds[ph+1])
			}()
		}
		wg.Wait()
		if errors.Join(errs...) != nil || slices.Contains(res.interrupted, true) {
			break
		}
		if ph == 0 && len(bounds) == 3 {
			res.Schedule = adaptSchedule(d, &sp, samplers, bounds[1])
			gate.schedule = res.Schedule // read by the next phase's chains, started after this
		}
	}
	res.finish()
	res.Elapsed = time.Since(start)
	res.run = &runState{spec: sp, data: d, samplers: samplers, rngs: rngs, pcgs: pcgs, failed: errors.Join(errs...)}
	gate.final(res, res.Elapsed)
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	if res.Interrupted {
		return res, ctx.Err()
	}
	return res, nil
}

// chainRNG returns chain c's random source: a PCG whose two seed words mix
// seed and c through SplitMix64, so distinct chains get unrelated states.
func chainRNG(seed uint64, c int) *rand.Rand { return rand.New(chainPCG(seed, c)) }

// chainPCG is chainRNG's source, which Result.MarshalBinary saves.
func chainPCG(seed uint64, c int) *rand.PCG {
	s1 := splitMix64(seed ^ 0x6a09e667f3bcc909)
	s2 := splitMix64(seed + uint64(c+1)*0x9e3779b97f4a7c15)
	return rand.NewPCG(s1, s2)
}

func splitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// newChainSampler builds one chain's sampler for the model of spec.
func newChainSampler(d *data, spec *Spec, rng *rand.Rand) (chainSampler, error) {
	switch spec.Model.(type) {
	case FullCorrelation:
		return newFullSampler(d, spec, rng)
	case FactorModel:
		return newFactorSampler(d, spec, rng)
	}
	return nil, fmt.Errorf("inference: unknown model %T", spec.Model)
}

// checkSpec validates spec and returns a copy with the defaults filled in:
// Names Y1..Yp, Model FullCorrelation{}, Thin 1, Chains 1. ColumnHMC, if
// set, needs one entry per column and a method that has a per-column HMC
// step: hmc (full model) or interweave (factor model).
func checkSpec(spec Spec) (Spec, error) {
	p := len(spec.Columns)
	if p < 2 {
		return spec, fmt.Errorf("inference: need at least 2 columns, have %d", p)
	}
	n := len(spec.Columns[0])
	for j, col := range spec.Columns {
		if len(col) != n {
			return spec, fmt.Errorf("inference: column %d has %d rows, column 1 has %d", j+1, len(col), n)
		}
	}
	if n < 2 {
		return spec, fmt.Errorf("inference: need at least 2 rows, have %d", n)
	}
	if spec.Names == nil {
		spec.Names = make([]string, p)
		for j := range spec.Names {
			spec.Names[j] = fmt.Sprintf("Y%d", j+1)
		}
	} else if len(spec.Names) != p {
		return spec, fmt.Errorf("inference: %d names for %d columns", len(spec.Names), p)
	}
	if spec.Model == nil {
		spec.Model = FullCorrelation{}
	}
	switch m := spec.Model.(type) {
	case FullCorrelation:
		if spec.Method != Gibbs && spec.Method != HMC {
			return spec, fmt.Errorf("inference: method %v is for the factor model; the full-correlation model takes gibbs or hmc", spec.Method)
		}
		switch pr := m.Prior.(type) {
		case nil:
		case InverseWishart:
			if pr.DF != 0 && !(pr.DF > float64(p-1)) {
				return spec, fmt.Errorf("inference: inverse-Wishart df = %v, want > p-1 = %d", pr.DF, p-1)
			}
			if pr.Scale != 0 && !(pr.Scale > 0 && !math.IsInf(pr.Scale, 0)) {
				return spec, fmt.Errorf("inference: inverse-Wishart scale = %v, want finite and > 0", pr.Scale)
			}
		case LKJ:
			if pr.Eta < 0 || math.IsNaN(pr.Eta) || math.IsInf(pr.Eta, 0) {
				return spec, fmt.Errorf("inference: LKJ eta = %v, want finite and > 0", pr.Eta)
			}
			if pr.DF != 0 && !(pr.DF > float64(p-1)) {
				return spec, fmt.Errorf("inference: LKJ proposal df = %v, want > p-1 = %d", pr.DF, p-1)
			}
		default:
			return spec, fmt.Errorf("inference: unknown correlation prior %T", m.Prior)
		}
	case FactorModel:
		if spec.Method != PX && spec.Method != Interweave {
			return spec, fmt.Errorf("inference: method %v is for the full-correlation model; the factor model takes px or interweave", spec.Method)
		}
		if m.K < 1 || m.K >= p {
			return spec, fmt.Errorf("inference: factor model with k = %d factors, want 1 <= k < p = %d", m.K, p)
		}
	default:
		return spec, fmt.Errorf("inference: unknown model %T", spec.Model)
	}
	if spec.ColumnHMC != nil {
		if spec.Method != HMC && spec.Method != Interweave {
			return spec, fmt.Errorf("inference: ColumnHMC is set but the method is %v, not hmc or interweave", spec.Method)
		}
		if len(spec.ColumnHMC) != p {
			return spec, fmt.Errorf("inference: ColumnHMC has %d entries for %d columns", len(spec.ColumnHMC), p)
		}
	}
	if spec.Adapt {
		if _, ok := spec.Model.(FullCorrelation); !ok || spec.Method != HMC {
			return spec, fmt.Errorf("inference: Adapt chooses between Gibbs and exact HMC per column; it needs method hmc on the full-correlation model, not %v on %T", spec.Method, spec.Model)
		}
	}
	if spec.BFADefect {
		if _, ok := spec.Model.(FactorModel); !ok || spec.Method != PX {
			return spec, fmt.Errorf("inference: BFADefect plants bfa's defect in PX's scale move; it needs method px on a factor model, not %v on %T", spec.Method, spec.Model)
		}
	}
	if spec.PaperSamplers {
		if _, ok := spec.Model.(FactorModel); !ok {
			return spec, fmt.Errorf("inference: PaperSamplers leaves out the factor group moves; it needs a factor model, not %T", spec.Model)
		}
	}
	if spec.Iter < 1 {
		return spec, fmt.Errorf("inference: iter = %d, want at least 1", spec.Iter)
	}
	if spec.Warmup < 0 {
		return spec, fmt.Errorf("inference: warmup = %d, want at least 0", spec.Warmup)
	}
	if spec.Thin < 0 {
		return spec, fmt.Errorf("inference: thin = %d, want at least 1", spec.Thin)
	}
	if spec.Thin == 0 {
		spec.Thin = 1
	}
	if spec.Chains < 0 {
		return spec, fmt.Errorf("inference: chains = %d, want at least 1", spec.Chains)
	}
	if spec.Chains == 0 {
		spec.Chains = 1
	}
	if spec.TravelTime < 0 || math.IsNaN(spec.TravelTime) || math.IsInf(spec.TravelTime, 0) {
		return spec, fmt.Errorf("inference: travel time = %v, want finite and > 0", spec.TravelTime)
	}
	return spec, nil
}

// newData builds the constraint structure of every column.
func newData(spec *Spec) (*data, error) {
	p := len(spec.Columns)
	d := &data{n: len(spec.Columns[0]), p: p, columns: spec.Columns, levels: make([]*hough.Levels, p), names: spec.Names}
	for j, col := range spec.Columns {
		lv, err := hough.NewLevels(col)
		if err != nil {
			return nil, fmt.Errorf("inference: column %s: %w", d.name(j), err)
		}
		if lv.NumLevels() == 0 {
			return nil, fmt.Errorf("inference: column %s has no observed values", d.name(j))
		}
		d.levels[j] = lv
	}
	return d, nil
}

// progressGate serialises and throttles progress reports.
type progressGate struct {
	fn              func(Progress)
	start           time.Time
	total, allTotal int
	allDone         atomic.Int64
	lastNanos       atomic.Int64 // time of the last report, since start
	// warmupLeft counts the warm-up iterations still to run over all
	// chains: a report is of warm-up while any chain warms up. It took the
	// phase of the chain whose iteration it followed, so that with chains
	// at different stages a line read "968/6000 iterations (16%),
	// sampling", then "1039/6000 (17%), warm-up", then "sampling" again.
	warmupLeft atomic.Int64
	// schedule is the adaptive run's choice, once made (Progress.Schedule).
	schedule *Schedule
	mu       sync.Mutex
}

// tick records one finished iteration of chain and reports if the last
// report is old enough.
func (g *progressGate) tick(chain, done int, warmup bool) {
	all := g.allDone.Add(1)
	if warmup {
		g.warmupLeft.Add(-1)
	}
	if g.fn == nil {
		return
	}
	el := time.Since(g.start)
	if int64(el)-g.lastNanos.Load() < int64(progressInterval) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if int64(el)-g.lastNanos.Load() < int64(progressInterval) {
		return
	}
	g.lastNanos.Store(int64(el))
	g.fn(Progress{Chain: chain, Done: done, Total: g.total, Warmup: g.warmupLeft.Load() > 0, Elapsed: el, AllDone: int(all), AllTotal: g.allTotal, Schedule: g.schedule})
}

// final sends the last report, for the chain that did the fewest
// iterations, with the elapsed time of the run (or of the extension).
func (g *progressGate) final(r *Result, elapsed time.Duration) {
	if g.fn == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c := 0
	for k, it := range r.Iterations {
		if it < r.Iterations[c] {
			c = k
		}
	}
	done := r.Iterations[c]
	g.fn(Progress{Chain: c, Done: done, Total: g.total, Warmup: done < r.Warmup, Elapsed: elapsed,
		AllDone: int(g.allDone.Load()), AllTotal: g.allTotal, Schedule: r.Schedule})
}

// runChain runs iterations from (0-based, warm-up included) up to to of
// chain c, or until ctx is cancelled or the sampler fails, storing its draws
// into r's per-chain slots (no other goroutine touches them).
func (r *Result) runChain(ctx context.Context, c int, cs chainSampler, rng *rand.Rand, sp *Spec, gate *progressGate, from, to int) (err error) {
	// A panic in the sampler (a bug) ends this chain with an error, like a
	// sampler's failure, instead of the whole process: the kernel must not
	// die, and the draws made so far are kept.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("chain %d: internal error in the sampler: %v", c+1, p)
		}
	}()
	p, k := r.P, r.K
	keep := sp.Iter / sp.Thin
	cslab := drawSlab[float64]{size: p * p, left: keep}
	lslab := drawSlab[float64]{size: p * k, left: keep}
	wslab := drawSlab[float64]{size: p * p, left: sp.Warmup / sp.Thin}
	nm := len(r.Missing)
	islab := drawSlab[byte]{size: nm * r.imputeWidth, left: imputedDraws(keep, r.ImputeThin)}
	zsum := r.zsum[c]
	imp := newImputer(r.levels, r.Missing, r.imputeWidth)
	var held *heldOutScorer
	if len(r.HeldOut) > 0 {
		held = newHeldOutScorer(r.levels, r.HeldOut)
	}
	st := &r.Stats[c]
	done := ctx.Done()
loop:
	for it := from; it < to; it++ {
		select {
		case <-done:
			r.interrupted[c] = true
			break loop
		default:
		}
		warm := it < sp.Warmup
		if err = cs.iterate(rng, warm, st); err != nil {
			err = fmt.Errorf("chain %d, iteration %d: %w", c+1, it+1, err)
			break
		}
		if warm {
			if sp.KeepWarmup && (it+1)%sp.Thin == 0 {
				dst := wslab.next()
				cs.corr(dst)
				r.WarmupC[c] = append(r.WarmupC[c], dst)
			}
		} else {
			z := cs.latent()
			for j, col := range z {
				axpy(1, col, zsum[j])
			}
			r.zcount[c]++
			if held != nil && !held.add(r.heldSum[c], cs) {
				err = fmt.Errorf("chain %d, iteration %d: C is not positive definite", c+1, it+1)
				break
			}
			if t := it - sp.Warmup + 1; t%sp.Thin == 0 {
				dst := cslab.next()
				cs.corr(dst)
				r.C[c] = append(r.C[c], dst)
				if k > 0 {
					ld := lslab.next()
					cs.loadings(ld)
					r.Lambda[c] = append(r.Lambda[c], ld)
				}
				if nm > 0 && (len(r.C[c])-1)%r.ImputeThin == 0 {
					id := islab.next()
					imp.impute(id, cs)
					r.imputed[c] = append(r.imputed[c], id)
				}
			}
		}
		r.Iterations[c] = it + 1
		gate.tick(c, it+1, warm)
	}
	return err
}

// drawSlab hands out storage for draws of a fixed size from chunks, so that
// storing a draw allocates only once per chunk and never more than the run
// can keep (left draws) even if Iter is huge and the run is interrupted.
type drawSlab[T float64 | byte] struct {
	size, left int
	buf        []T
}

// next returns storage for one draw.
func (s *drawSlab[T]) next() []T {
	if len(s.buf) < s.size {
		chunk := max(64, (1<<16)/max(s.size, 1))
		chunk = max(1, min(chunk, s.left))
		s.buf = make([]T, chunk*s.size)
	}
	d := s.buf[:s.size:s.size]
	s.buf = s.buf[s.size:]
	s.left--
	return d
}
