package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/inference"
)

// samplersSetup is one data configuration of `copulang bench samplers`.
type samplersSetup struct{ P, K, Levels int }

// samplersResult is one line of `copulang bench samplers --json`.
type samplersResult struct {
	Method string `json:"method"`
	N      int    `json:"n"`
	P      int    `json:"p"`
	K      int    `json:"k"`
	Levels int    `json:"levels"`
	Warmup int    `json:"warmup"`
	Iter   int    `json:"iter"`
	Chains int    `json:"chains"`
	// SecondsPer1000 is the wall time per 1000 iterations (warm-up included)
	// of the run (chains run in parallel).
	SecondsPer1000 float64 `json:"seconds_per_1000_iter,omitempty"`
	// ESS per second: bulk ESS of the post-warm-up draws of each C_jl,
	// j < l, divided by the run's whole wall time; minimum and median.
	MinESSPerSec    float64 `json:"min_bulk_ess_per_s,omitempty"`
	MedianESSPerSec float64 `json:"median_bulk_ess_per_s,omitempty"`
	// RMSEMean is the RMSE (upper off-diagonal entries) of the posterior
	// mean of C to the truth, RMSELast that of the last draw.
	RMSEMean float64 `json:"rmse_posterior_mean,omitempty"`
	RMSELast float64 `json:"rmse_last_draw,omitempty"`
	Bounces  float64 `json:"bounces_per_column,omitempty"`
	// ConvergedAt is the first checkpoint (50, 100, 200, ... iterations,
	// warm-up included) at which the rank-normalised split R-hat of every
	// entry of C, over the chains' draws of the checkpoint's second half, is
	// below 1.01; ConvergedSeconds is that many iterations' share of the
	// run's wall time. Zero if no checkpoint got there.
	ConvergedAt      int     `json:"converged_at_iter,omitempty"`
	ConvergedSeconds float64 `json:"converged_seconds,omitempty"`
	// Seed seeds both the simulated data and the chains.
	Seed uint64 `json:"seed"`
	// Choice is what auto ran after its Gibbs warm-up iterations: gibbs or
	// hmc (empty for the other methods).
	Choice  string `json:"auto_chose,omitempty"`
	Skipped string `json:"skipped,omitempty"`
}

// benchSamplers runs `copulang bench samplers`: for each setup (p, k,
// levels) of Kalaitzis & Silva's experiments it simulates n rows from a
// copula factor model with k factors (inference.Simulate) and runs one chain
// (or --chains) of each method: gibbs, hmc and auto (the language's auto for
// a full correlation matrix: Gibbs that may move the columns to exact HMC
// after its first warm-up iterations, inference.Spec.Adapt) fit the
// full-correlation model, px and interweave the factor model with k
// factors. It reports seconds per 1000 iterations, the minimum and median
// bulk ESS per second over the entries of C, the RMSE to the true C, and
// what auto chose. --seeds repeats every run with the next seeds (data and
// chains), so that a minimum ESS is not one run's luck.
func benchSamplers(args []string, stdout io.Writer) error {
	var names []string
	for _, m := range inference.Methods() {
		names = append(names, m.String())
	}
	names = append(names, "auto")
	fs := newBenchFlags("samplers", stdout)
	iter := fs.Int("iter", 1000, "post-warm-up iterations per run")
	warmup := fs.Int("warmup", -1, "warm-up iterations per run (default iter/5)")
	methods := fs.String("methods", strings.Join(names, ","), "comma-separated methods: "+strings.Join(names, ", "))
	n := fs.Int("n", 1000, "number of rows")
	setups := fs.String("setups", "20:5:5,10:3:2,10:3:5", "comma-separated p:k:levels")
	chains := fs.Int("chains", 1, "chains per run, run in parallel")
	seeds := fs.Int("seeds", 1, "runs per setup and method, with seeds --seed, --seed+1, ...")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *iter < 1 {
		return fmt.Errorf("--iter %d: want at least 1", *iter)
	}
	if *chains < 1 {
		return fmt.Errorf("--chains %d: want at least 1", *chains)
	}
	if *seeds < 1 {
		return fmt.Errorf("--seeds %d: want at least 1", *seeds)
	}
	if *warmup < 0 {
		*warmup = *iter / 5
	}
	var ms []string
	for _, name := range strings.Split(*methods, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(names, name) {
			return fmt.Errorf("--methods: unknown method %q (want %s)", name, orList(names))
		}
		ms = append(ms, name)
	}
	sets, err := parseSetups("--setups", *setups)
	if err != nil {
		return err
	}
	table, err := newBenchTable(stdout, fs, benchColumn{"method", 10}, benchColumn{"n", 7}, benchColumn{"p", 4}, benchColumn{"k", 3},
		benchColumn{"levels", 6}, benchColumn{"iter", 6}, benchColumn{"seed", 4}, benchColumn{"s/1000 iter", 0}, benchColumn{"min ESS/s", 0},
		benchColumn{"median ESS/s", 0}, benchColumn{"R-hat<1.01 at", 0}, benchColumn{"RMSE mean", 0}, benchColumn{"RMSE last", 0}, benchColumn{"bounces/col", 0},
		benchColumn{"note", 0})
	if err != nil {
		return err
	}
	for _, set := range sets {
		for seed := fs.seed; seed < fs.seed+uint64(*seeds); seed++ {
			sim, err := inference.Simulate(inference.SimSpec{P: set.P, K: set.K, N: *n, Levels: set.Levels, Seed: seed})
			if err != nil {
				return err
			}
			for _, m := range ms {
				if err := table.write(samplersRun(sim, set, m, *n, *warmup, *iter, *chains, seed)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// cells implements benchRow.
func (r samplersResult) cells() []string {
	head := []string{r.Method, strconv.Itoa(r.N), strconv.Itoa(r.P), strconv.Itoa(r.K), strconv.Itoa(r.Levels), strconv.Itoa(r.Iter), strconv.FormatUint(r.Seed, 10)}
	if r.Skipped != "" {
		return append(head, "-", "-", "-", "-", "-", "-", "-", "skipped: "+r.Skipped)
	}
	note := ""
	if r.Choice != "" {
		note = "auto chose " + r.Choice
	}
	converged := "never"
	if r.ConvergedAt > 0 {
		converged = fmt.Sprintf("%d it, %.2f s", r.ConvergedAt, r.ConvergedSeconds)
	}
	return append(head, fmt.Sprintf("%.3f", r.SecondsPer1000), fmt.Sprintf("%.2f", r.MinESSPerSec), fmt.Sprintf("%.2f", r.MedianESSPerSec),
		converged, fmt.Sprintf("%.4f", r.RMSEMean), fmt.Sprintf("%.4f", r.RMSELast), fmt.Sprintf("%.0f", r.Bounces), note)
}

// samplersRun runs the chains of method name (a method, or auto) on sim and
// measures them.
func samplersRun(sim *inference.Simulated, set samplersSetup, name string, n, warmup, iter, chains int, seed uint64) samplersResult {
	r := samplersResult{Method: name, N: n, P: set.P, K: set.K, Levels: set.Levels, Warmup: warmup, Iter: iter, Chains: chains, Seed: seed}
	m, _ := inference.ParseMethod(name)
	spec := inference.Spec{Columns: sim.Columns, Names: sim.Names, Method: m, Warmup: warmup, Iter: iter, Chains: chains, Seed: seed, KeepWarmup: true}
	if name == "auto" {
		spec.Method, spec.Adapt = inference.HMC, true
	}
	if m == inference.PX || m == inference.Interweave {
		if set.K < 1 {
			r.Skipped = "factor methods need k >= 1"
			return r
		}
		spec.Model = inference.FactorModel{K: set.K}
	}
	res, err := inference.Run(context.Background(), spec, nil)
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	if sc := res.Schedule; sc != nil {
		r.Choice = "gibbs"
		if slices.Contains(sc.HMC, true) {
			r.Choice = "hmc"
		}
	}
	secs := res.Elapsed.Seconds()
	r.SecondsPer1000 = secs / float64(warmup+iter) * 1000
	var ess []float64
	for _, s := range res.Summary() {
		ess = append(ess, s.ESSBulk)
	}
	slices.Sort(ess)
	if len(ess) > 0 {
		r.MinESSPerSec = ess[0] / secs
		r.MedianESSPerSec = ess[len(ess)/2] / secs
		if len(ess)%2 == 0 {
			r.MedianESSPerSec = (ess[len(ess)/2-1] + ess[len(ess)/2]) / 2 / secs
		}
	}
	if at := convergedAt(res); at > 0 {
		r.ConvergedAt = at
		r.ConvergedSeconds = secs * float64(at) / float64(warmup+iter)
	}
	draws := res.C[0]
	rm := inference.RMSETrace([][]float64{res.MeanC(), draws[len(draws)-1]}, sim.C)
	r.RMSEMean, r.RMSELast = rm[0], rm[1]
	if st := res.Stats[0]; st.Iterations > 0 && st.Bounces > 0 {
		r.Bounces = float64(st.Bounces) / float64(st.Iterations) / float64(set.P)
	}
	if math.IsNaN(r.MinESSPerSec) {
		r.MinESSPerSec = 0
	}
	return r
}

// convergedAt is the first of the checkpoints 50, 100, 200, ... (and the
// run's end) at which every off-diagonal entry of C has a rank-normalised
// split R-hat below 1.01 over the second half of the draws so far, warm-up
// included, of all chains; 0 if none. It measures time to convergence from
// the default start, which a run's post-warm-up ESS does not.
func convergedAt(res *inference.Result) int {
	total := len(res.WarmupC[0]) + len(res.C[0])
	trace := make([][][]float64, len(res.C))
	for c := range trace {
		trace[c] = append(append([][]float64(nil), res.WarmupC[c]...), res.C[c]...)
	}
	p := res.P
	window := make([][]float64, len(trace))
	for t := 50; ; t *= 2 {
		t = min(t, total)
		ok := t >= 4
		for i := 0; i < p && ok; i++ {
			for j := i + 1; j < p && ok; j++ {
				for c := range trace {
					window[c] = window[c][:0]
					for _, d := range trace[c][t/2 : t] {
						window[c] = append(window[c], d[i*p+j])
					}
				}
				ok = inference.RHat(window) < 1.01
			}
		}
		if ok {
			return t
		}
		if t == total {
			return 0
		}
	}
}

// parseSetups parses a comma-separated list of p:k:levels, as the --setups
// flags of `copulang bench samplers` and `copulang bench paper` take it;
// flag names the flag in errors.
func parseSetups(flag, list string) ([]samplersSetup, error) {
	var sets []samplersSetup
	for _, s := range strings.Split(list, ",") {
		parts := strings.Split(strings.TrimSpace(s), ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s: %q is not p:k:levels", flag, s)
		}
		var v [3]int
		for i, part := range parts {
			x, err := strconv.Atoi(part)
			if err != nil || x < 0 {
				return nil, fmt.Errorf("%s: %q is not p:k:levels", flag, s)
			}
			v[i] = x
		}
		sets = append(sets, samplersSetup{P: v[0], K: v[1], Levels: v[2]})
	}
	return sets, nil
}
