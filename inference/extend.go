package inference

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// runState is what Extend needs to continue a run where it stopped: the
// checked spec, the data, and every chain's sampler and random stream.
type runState struct {
	spec     Spec
	data     *data
	samplers []chainSampler
	rngs     []*rand.Rand
	pcgs     []*rand.PCG // the sources of rngs, for Result.MarshalBinary
	failed   error       // a chain's sampler failure: such a run is not continued
}

// Extend runs every chain of r for more further post-warm-up iterations,
// each from the state and random stream where it stopped, and returns a new
// Result holding r's draws followed by theirs: its Iter is r's plus more
// (for an interrupted r, what its shortest chain ran after warm-up plus
// more), its Elapsed r's plus the time taken, and its ZMean and HeldOutProb
// cover every post-warm-up iteration. The draws are those a run with the larger
// Iter would have made: Run with Iter a+b gives the same Result, bit for
// bit, as Run with Iter a followed by Extend(b), when neither is
// interrupted (Elapsed aside), except for thinned imputations: when the
// longer run needs a coarser thinning to stay within Spec.MaxImputed, the
// extension keeps every k-th of the imputations so far and thins by k times
// as many (Result.ImputeThin), where the longer run may thin by fewer.
//
// r keeps its draws and may still be read, concurrently too, but it can no
// longer be extended: its chains have moved on and the new Result holds
// them. A run that was interrupted may be extended once every chain is past
// its warm-up: each chain continues from where it stopped, and the draws
// that were cut to make its chains equally long are not restored. A Result
// read back by UnmarshalResult extends as the one written would have. A
// Result that neither made (or read back without its chains' states), one
// whose chains did not all finish warm-up, one where a chain's sampler
// failed and one already extended cannot be extended; Extend then returns
// nil and says why.
//
// Cancelling ctx, and progress, behave as in Run (the new Result is then
// returned with Interrupted set); progress reports Done and Total over the
// whole run, AllDone, AllTotal and Elapsed over the extension.
func (r *Result) Extend(ctx context.Context, more int, progress func(Progress)) (*Result, error) {
	if err := r.extendable(more); err != nil {
		return nil, err
	}
	start := time.Now()
	nr := r.continuation()
	st := nr.run
	sp := &st.spec
	// Iter becomes what every chain will have run after warm-up: r's Iter,
	// or fewer when r was interrupted, plus more.
	sp.Iter = slices.Min(r.Iterations) - r.Warmup + more
	nr.Iter = sp.Iter
	m := len(st.samplers)
	nr.rethinImputations(m * (sp.Iter / sp.Thin))
	gate := &progressGate{fn: progress, start: start, total: sp.Warmup + sp.Iter, allTotal: m * more}
	for _, it := range nr.Iterations {
		gate.warmupLeft.Add(int64(max(0, sp.Warmup-it)))
	}
	errs := make([]error, m)
	var wg sync.WaitGroup
	for c := range st.samplers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from := nr.Iterations[c]
			errs[c] = nr.runChain(ctx, c, st.samplers[c], st.rngs[c], sp, gate, from, from+more)
		}()
	}
	wg.Wait()
	nr.finish()
	took := time.Since(start)
	nr.Elapsed += took
	st.failed = errors.Join(errs...)
	gate.final(nr, took)
	if st.failed != nil {
		return nr, st.failed
	}
	if nr.Interrupted {
		return nr, ctx.Err()
	}
	return nr, nil
}

// continuation returns a Result that Extend may append to without changing
// what r holds: per-chain slices of its own (draws are shared, never
// written), and r's chains and running sums, which r gives up.
func (r *Result) continuation() *Result {
	nr := *r
	nr.entries = new(entryMemo) // its draws will differ from r's
	nr.checks = new(checkMemo)
	nr.C, nr.Lambda, nr.WarmupC, nr.imputed = clipChains(r.C), clipChains(r.Lambda), clipChains(r.WarmupC), clipChains(r.imputed)
	nr.Iterations = slices.Clone(r.Iterations)
	nr.Stats = slices.Clone(r.Stats)
	nr.zcount = slices.Clone(r.zcount)
	nr.interrupted = make([]bool, len(r.interrupted))
	nr.Interrupted = false
	r.run, r.zsum, r.heldSum, r.moved = nil, nil, nil, true
	return &nr
}

// clipChains returns chains with every chain's slice clipped, so that
// appending to one copies it.
func clipChains[T any](chains [][][]T) [][][]T {
	if chains == nil {
		return nil
	}
	out := make([][][]T, len(chains))
	for c, ch := range chains {
		out[c] = slices.Clip(ch)
	}
	return out
}

// rethinImputations keeps the imputations within Spec.MaxImputed when the
// chains will have kept draws draws in all: if the bound needs a coarser
// thinning than r's, it takes the smallest multiple k·ImputeThin that
// suffices and keeps every k-th of the imputations so far (those of the
// kept draws that are multiples of the new thinning), copied so that the
// others' memory can go.
func (r *Result) rethinImputations(draws int) {
	need := imputeThin(len(r.Missing), draws, r.run.spec.MaxImputed)
	if len(r.Missing) == 0 || need <= r.ImputeThin {
		return
	}
	k := imputedDraws(need, r.ImputeThin)
	for c, ch := range r.imputed {
		keep := make([][]byte, 0, imputedDraws(len(ch), k))
		slab := drawSlab[byte]{size: len(r.Missing) * r.imputeWidth, left: cap(keep)}
		for d := 0; d < len(ch); d += k {
			v := slab.next()
			copy(v, ch[d])
			keep = append(keep, v)
		}
		r.imputed[c] = keep
	}
	r.ImputeThin *= k
}

// extendable says why r cannot be extended by more iterations, or nil.
func (r *Result) extendable(more int) error {
	switch {
	case more < 1:
		return fmt.Errorf("inference: extend by %d iterations, want at least 1", more)
	case r.moved:
		return errors.New("inference: this Result was extended already; extend the Result that Extend returned")
	case r.run == nil:
		return ErrNoChainStates
	case r.run.failed != nil:
		return fmt.Errorf("inference: a chain's sampler failed, so the run cannot be continued: %w", r.run.failed)
	}
	if c := slices.IndexFunc(r.Iterations, func(it int) bool { return it < r.Warmup }); c >= 0 {
		return fmt.Errorf("inference: chain %d stopped in its warm-up (%d of %d iterations), so the run cannot be continued: run it again", c+1, r.Iterations[c], r.Warmup)
	}
	return nil
}
