package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
	"github.com/copulang/copulang/session"
)

// samplersSetup is a setup (p, k, levels) of Kalaitzis & Silva's
// experiments, as `copulang bench paper` runs them.
type samplersSetup struct{ P, K, Levels int }

// samplersCase is one data configuration of `copulang bench samplers`:
// n rows simulated from a copula with k factors (0: a full correlation
// matrix, a Wishart truth) over p columns of the given number of levels
// (0: continuous, every row its own value), with a share of cells missing
// completely at random; or the shipped GSS extract (GSS set, P, Levels and
// N unused), fitted with k factors by the factor methods.
type samplersCase struct {
	samplersSetup
	N       int
	Missing float64
	GSS     bool
	// Methods, Iter and Warmup, when set, replace the flags' for this case
	// (the suite's large cases run fewer iterations or methods).
	Methods      []string
	Iter, Warmup int
}

// samplersSuite is the efficiency suite of `copulang bench samplers
// --suite` (issue 14, sampling.md §9.3): Kalaitzis & Silva's setups and
// the truth where auto chooses wrong, 2, 5, 10 and 60 levels and
// continuous columns, n from 300 to 10⁵, p up to 50, missing cells, and
// the shipped GSS with a full and a two-factor model. Interweave, whose
// step costs 30× to 100× PX's, runs on the paper's setups and GSS only;
// the n = 10⁵ setup runs 300 iterations.
func samplersSuite() []samplersCase {
	full := []string{"gibbs", "hmc", "auto"}
	all := []string{"gibbs", "hmc", "auto", "px", "interweave"}
	fullPX := []string{"gibbs", "hmc", "auto", "px"}
	return []samplersCase{
		{samplersSetup: samplersSetup{P: 20, K: 5, Levels: 5}, N: 1000, Methods: all},
		{samplersSetup: samplersSetup{P: 10, K: 3, Levels: 5}, N: 1000, Methods: all},
		{samplersSetup: samplersSetup{P: 10, K: 3, Levels: 2}, N: 1000, Methods: all},
		{samplersSetup: samplersSetup{P: 10, K: 0, Levels: 5}, N: 1000, Methods: full},
		{samplersSetup: samplersSetup{P: 10, K: 0, Levels: 2}, N: 1000, Methods: full},
		{samplersSetup: samplersSetup{P: 10, K: 3, Levels: 10}, N: 1000, Methods: fullPX},
		{samplersSetup: samplersSetup{P: 5, K: 1, Levels: 60}, N: 1000, Methods: fullPX},
		{samplersSetup: samplersSetup{P: 5, K: 1, Levels: 0}, N: 300, Methods: fullPX},
		{samplersSetup: samplersSetup{P: 10, K: 3, Levels: 5}, N: 300, Methods: fullPX},
		{samplersSetup: samplersSetup{P: 10, K: 3, Levels: 5}, N: 10_000, Methods: fullPX},
		{samplersSetup: samplersSetup{P: 5, K: 1, Levels: 5}, N: 100_000, Methods: full, Iter: 300, Warmup: 150},
		{samplersSetup: samplersSetup{P: 50, K: 5, Levels: 5}, N: 1000, Methods: fullPX},
		{samplersSetup: samplersSetup{P: 20, K: 5, Levels: 5}, N: 1000, Missing: 0.2, Methods: fullPX},
		{samplersSetup: samplersSetup{K: 2}, GSS: true, Methods: all},
	}
}

// samplersResult is one line of `copulang bench samplers --json`.
type samplersResult struct {
	Method string `json:"method"`
	// Data is "simulated" or "gss"; Levels 0 means continuous.
	Data    string  `json:"data"`
	Missing float64 `json:"missing,omitempty"`
	N       int     `json:"n"`
	P       int     `json:"p"`
	K       int     `json:"k"`
	Levels  int     `json:"levels"`
	Warmup  int     `json:"warmup"`
	Iter    int     `json:"iter"`
	Chains  int     `json:"chains"`
	// SecondsPer1000 is the wall time per 1000 iterations (warm-up included)
	// of the run (chains run in parallel).
	SecondsPer1000 float64 `json:"seconds_per_1000_iter,omitempty"`
	// ESS per second: bulk ESS of the post-warm-up draws of each C_jl,
	// j < l, divided by the run's whole wall time; minimum and median.
	MinESSPerSec    float64 `json:"min_bulk_ess_per_s,omitempty"`
	MedianESSPerSec float64 `json:"median_bulk_ess_per_s,omitempty"`
	// MinESSPerCPUSec is the minimum bulk ESS divided by the CPU time the
	// process spent on the run (all chains, user and system): unlike wall
	// time it hardly moves when other work shares the machine. CPUSeconds is
	// that time. Both are zero where CPU time is not measured (non-Unix).
	MinESSPerCPUSec float64 `json:"min_bulk_ess_per_cpu_s,omitempty"`
	CPUSeconds      float64 `json:"cpu_seconds,omitempty"`
	// MinESS and MedianESS are the same bulk ESS, not divided by time.
	MinESS    float64 `json:"min_bulk_ess,omitempty"`
	MedianESS float64 `json:"median_bulk_ess,omitempty"`
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
	// hmc; or, where it did not adapt (no eligible column, too many rows),
	// the method its plan ran throughout. Empty for the other methods.
	Choice string `json:"auto_chose,omitempty"`
	// VsBest is, on the row of auto (on a factor model, of px, which is
	// auto's choice there), its min bulk ESS/s over the best explicit
	// method's of the same model, setup and seed; Best names that method.
	// When auto kept Gibbs its draws are Gibbs's, bit for bit (SameAs
	// "gibbs"), and a second's difference in their timing is noise on this
	// machine (sub-second runs vary up to 2×): VsBest is then Gibbs's own
	// ratio, the same work timed once.
	VsBest float64 `json:"auto_vs_best,omitempty"`
	// VsBestCPU is VsBest by min bulk ESS per CPU-second, against the
	// best explicit method by that measure.
	VsBestCPU float64 `json:"auto_vs_best_cpu,omitempty"`
	Best      string  `json:"best,omitempty"`
	SameAs    string  `json:"same_draws_as,omitempty"`
	Skipped   string  `json:"skipped,omitempty"`
}

// benchSamplers runs `copulang bench samplers`: for each setup it simulates
// data from a copula (inference.Simulate: a full correlation matrix for
// k = 0, a factor model with k factors otherwise) or loads the shipped GSS,
// and runs each method as `fit` would plan it (compiler.Plan): gibbs, hmc
// and auto (for a full correlation matrix, Gibbs that may move the
// columns of 3 to 10 levels to exact HMC after its first warm-up
// iterations, inference.Spec.Adapt) fit the full-correlation model, px and
// interweave the factor model with k factors (auto's choice for a factor
// model is px). It reports seconds per 1000 iterations, the minimum and
// median bulk ESS per second over the entries of C, the iterations until
// every entry's split R-hat is below 1.01, the RMSE to the true C, what
// auto chose and how its min ESS/s compares with the best explicit
// method's. --seeds repeats every run with the next seeds (data and
// chains), so that a minimum ESS is not one run's luck; --suite runs the
// efficiency suite (samplersSuite).
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
	n := fs.Int("n", 1000, "number of rows (of setups that do not give it)")
	setups := fs.String("setups", "20:5:5,10:3:2,10:3:5", "comma-separated p:k:levels[:n[:missing]] (levels c: continuous), or gss[:k]")
	suite := fs.Bool("suite", false, "run the efficiency suite instead of --setups (each setup with its own methods)")
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
	sets := samplersSuite()
	if !*suite {
		var err error
		if sets, err = parseSamplersSetups("--setups", *setups); err != nil {
			return err
		}
	}
	table, err := newBenchTable(stdout, fs, benchColumn{"method", 10}, benchColumn{"data", 9}, benchColumn{"n", 7}, benchColumn{"p", 4}, benchColumn{"k", 3},
		benchColumn{"levels", 6}, benchColumn{"iter", 6}, benchColumn{"seed", 4}, benchColumn{"s/1000 iter", 0}, benchColumn{"min ESS/s", 0},
		benchColumn{"min ESS/CPU-s", 0}, benchColumn{"median ESS/s", 0}, benchColumn{"R-hat<1.01 at", 0}, benchColumn{"RMSE mean", 0}, benchColumn{"RMSE last", 0}, benchColumn{"bounces/col", 0},
		benchColumn{"note", 0})
	if err != nil {
		return err
	}
	var gss *session.Dataset
	for _, set := range sets {
		run := samplersRunSettings{iter: *iter, warmup: *warmup, chains: *chains}
		if set.Iter > 0 {
			run.iter, run.warmup = set.Iter, set.Warmup
		}
		if set.N == 0 {
			set.N = *n
		}
		setMethods := ms
		if *suite && set.Methods != nil {
			setMethods = set.Methods
		}
		for seed := fs.seed; seed < fs.seed+uint64(*seeds); seed++ {
			var d samplersData
			switch {
			case set.GSS:
				if gss == nil {
					if gss, err = loadGSS(); err != nil {
						return err
					}
				}
				d = samplersData{Dataset: gss}
				set.P, set.N = len(gss.Columns), gss.N()
			default:
				levels := set.Levels
				if levels == 0 {
					levels = set.N
				}
				sim, err := inference.Simulate(inference.SimSpec{P: set.P, K: set.K, N: set.N, Levels: levels, Missing: set.Missing, Seed: seed})
				if err != nil {
					return err
				}
				d = samplersData{Dataset: &session.Dataset{Name: "sim", Names: sim.Names, Columns: sim.Columns}, truth: sim.C}
			}
			rows := make([]samplersResult, 0, len(setMethods))
			for _, m := range setMethods {
				rows = append(rows, samplersRun(d, set, m, run, seed))
			}
			compareWithBest(rows)
			for _, r := range rows {
				if err := table.write(r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// samplersData is the data of one setup and seed, with the true C when
// it is simulated.
type samplersData struct {
	*session.Dataset
	truth []float64
}

// samplersRunSettings are the iterations and chains of one run.
type samplersRunSettings struct{ iter, warmup, chains int }

// loadGSS loads the shipped GSS extract (notebooks/data), from the
// working directory, which is the repository's when the suite runs.
func loadGSS() (*session.Dataset, error) {
	f, err := os.Open(filepath.Join("notebooks", "data", "gss_hoff2007.csv"))
	if err != nil {
		return nil, fmt.Errorf("the gss setup reads the shipped data from the repository's root: %w", err)
	}
	defer f.Close()
	d, _, err := session.LoadCSV(f, session.CSVOptions{})
	if err != nil {
		return nil, err
	}
	d.Name = "gss"
	return d, nil
}

// compareWithBest sets, on the row that ran auto's choice for each model,
// its min bulk ESS/s over the best explicit method's for the same model:
// auto against gibbs and hmc for a full correlation matrix, px (auto's
// choice for a factor model) against interweave.
func compareWithBest(rows []samplersResult) {
	compare := func(autoMethod string, explicit ...string) {
		ai := slices.IndexFunc(rows, func(r samplersResult) bool { return r.Method == autoMethod && r.Skipped == "" })
		if ai < 0 {
			return
		}
		best, bestName, others, bestCPU := 0.0, "", 0, 0.0
		for i, r := range rows {
			if r.Skipped != "" || !slices.Contains(explicit, r.Method) {
				continue
			}
			if i != ai {
				others++
			}
			if r.MinESSPerSec > best {
				best, bestName = r.MinESSPerSec, r.Method
			}
			bestCPU = max(bestCPU, r.MinESSPerCPUSec)
		}
		if best == 0 || others == 0 {
			return
		}
		a := &rows[ai]
		a.VsBest, a.Best = a.MinESSPerSec/best, bestName
		if bestCPU > 0 {
			a.VsBestCPU = a.MinESSPerCPUSec / bestCPU
		}
		for _, r := range rows {
			if r.Method != a.Method && r.Skipped == "" && slices.Contains(explicit, r.Method) && a.Choice == r.Method &&
				r.MinESS == a.MinESS && r.MedianESS == a.MedianESS {
				a.SameAs, a.VsBest = r.Method, r.MinESSPerSec/best
				if bestCPU > 0 {
					a.VsBestCPU = r.MinESSPerCPUSec / bestCPU
				}
			}
		}
	}
	compare("auto", "gibbs", "hmc")
	compare("px", "px", "interweave")
}

// cells implements benchRow.
func (r samplersResult) cells() []string {
	levels := strconv.Itoa(r.Levels)
	switch {
	case r.Data == "gss":
		levels = "mixed"
	case r.Levels == 0:
		levels = "c"
	}
	data := r.Data
	if r.Missing > 0 {
		data += fmt.Sprintf(" %.0f%%NA", 100*r.Missing)
	}
	head := []string{r.Method, data, strconv.Itoa(r.N), strconv.Itoa(r.P), strconv.Itoa(r.K), levels, strconv.Itoa(r.Iter), strconv.FormatUint(r.Seed, 10)}
	if r.Skipped != "" {
		return append(head, "-", "-", "-", "-", "-", "-", "-", "skipped: "+r.Skipped)
	}
	var notes []string
	if r.Choice != "" {
		notes = append(notes, "auto chose "+r.Choice)
	}
	if r.Best != "" {
		who := "auto"
		if r.Method == "px" {
			who = "px (auto's choice)"
		}
		if r.SameAs != "" {
			who = "same draws as " + r.SameAs + ":"
		}
		note := fmt.Sprintf("%s %.2f× best (%s)", who, r.VsBest, r.Best)
		if r.VsBestCPU > 0 {
			note += fmt.Sprintf(", %.2f× by CPU time", r.VsBestCPU)
		}
		notes = append(notes, note)
	}
	converged := "never"
	if r.ConvergedAt > 0 {
		converged = fmt.Sprintf("%d it, %.2f s", r.ConvergedAt, r.ConvergedSeconds)
	}
	rmseMean, rmseLast := "-", "-"
	if r.RMSEMean > 0 {
		rmseMean, rmseLast = fmt.Sprintf("%.4f", r.RMSEMean), fmt.Sprintf("%.4f", r.RMSELast)
	}
	return append(head, fmt.Sprintf("%.3f", r.SecondsPer1000), fmt.Sprintf("%.2f", r.MinESSPerSec), fmt.Sprintf("%.2f", r.MinESSPerCPUSec), fmt.Sprintf("%.2f", r.MedianESSPerSec),
		converged, rmseMean, rmseLast, fmt.Sprintf("%.0f", r.Bounces), strings.Join(notes, "; "))
}

// samplersRun runs the chains of method name (a method, or auto) on d, as
// `fit` plans them, and measures them.
func samplersRun(d samplersData, set samplersCase, name string, run samplersRunSettings, seed uint64) samplersResult {
	r := samplersResult{Method: name, Data: "simulated", Missing: set.Missing, N: set.N, P: set.P, K: set.K, Levels: set.Levels,
		Warmup: run.warmup, Iter: run.iter, Chains: run.chains, Seed: seed}
	if set.GSS {
		r.Data, r.Levels = "gss", 0
	}
	model := inference.Model(inference.FullCorrelation{})
	if name == "px" || name == "interweave" {
		if set.K < 1 {
			r.Skipped = "factor methods need k >= 1"
			return r
		}
		model = inference.FactorModel{K: set.K}
	}
	decl := &compiler.DeclareModel{Name: "m", Data: d.Name, Columns: d.Names, Model: model}
	info := d.Info()
	fit := &compiler.Fit{Model: "m", Method: name, TravelTime: compiler.DefaultTravelTime, Iter: run.iter, Warmup: run.warmup,
		Chains: run.chains, Thin: 1, Seed: seed}
	plan, err := compiler.Plan(decl, info, fit)
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	spec := inference.Spec{Columns: d.Columns, Names: d.Names, Model: model, Method: plan.Method, ColumnHMC: plan.ColumnHMC, Adapt: plan.Adapt,
		Warmup: run.warmup, Iter: run.iter, Chains: run.chains, Seed: seed, TravelTime: plan.TravelTime, KeepWarmup: true}
	cpu0 := processCPUSeconds()
	res, err := inference.Run(context.Background(), spec, nil)
	cpu := processCPUSeconds() - cpu0
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	if sc := res.Schedule; sc != nil {
		r.Choice = "gibbs"
		if slices.Contains(sc.HMC, true) {
			r.Choice = "hmc"
		}
	} else if name == "auto" {
		r.Choice = plan.Method.String() // auto did not adapt: the plan's method ran throughout
	}
	secs := res.Elapsed.Seconds()
	r.SecondsPer1000 = secs / float64(run.warmup+run.iter) * 1000
	var ess []float64
	for _, s := range res.Summary() {
		ess = append(ess, s.ESSBulk)
	}
	slices.Sort(ess)
	if len(ess) > 0 {
		r.MinESS, r.MedianESS = ess[0], ess[len(ess)/2]
		if len(ess)%2 == 0 {
			r.MedianESS = (ess[len(ess)/2-1] + ess[len(ess)/2]) / 2
		}
		r.MinESSPerSec, r.MedianESSPerSec = r.MinESS/secs, r.MedianESS/secs
		if cpu > 0 {
			r.CPUSeconds, r.MinESSPerCPUSec = cpu, r.MinESS/cpu
		}
	}
	if at := convergedAt(res); at > 0 {
		r.ConvergedAt = at
		r.ConvergedSeconds = secs * float64(at) / float64(run.warmup+run.iter)
	}
	if d.truth != nil {
		draws := res.C[0]
		rm := inference.RMSETrace([][]float64{res.MeanC(), draws[len(draws)-1]}, d.truth)
		r.RMSEMean, r.RMSELast = rm[0], rm[1]
	}
	if st := res.Stats[0]; st.Iterations > 0 && st.Bounces > 0 {
		r.Bounces = float64(st.Bounces) / float64(st.Iterations) / float64(set.P)
	}
	if math.IsNaN(r.MinESSPerSec) {
		r.MinESSPerSec, r.MinESS, r.MinESSPerCPUSec = 0, 0, 0
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

// parseSamplersSetups parses the --setups of `copulang bench samplers`: a
// comma-separated list of p:k:levels[:n[:missing]], levels being a count or
// c for continuous columns and missing the share of cells made missing, or
// gss[:k] for the shipped GSS extract (k factors for px and interweave,
// default 2); flag names the flag in errors.
func parseSamplersSetups(flag, list string) ([]samplersCase, error) {
	var sets []samplersCase
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		bad := fmt.Errorf("%s: %q is not p:k:levels[:n[:missing]] or gss[:k]", flag, s)
		parts := strings.Split(s, ":")
		if parts[0] == "gss" {
			set := samplersCase{samplersSetup: samplersSetup{K: 2}, GSS: true}
			if len(parts) > 2 {
				return nil, bad
			}
			if len(parts) == 2 {
				k, err := strconv.Atoi(parts[1])
				if err != nil || k < 0 {
					return nil, bad
				}
				set.K = k
			}
			sets = append(sets, set)
			continue
		}
		if len(parts) < 3 || len(parts) > 5 {
			return nil, bad
		}
		var v [4]int
		for i, part := range parts[:min(len(parts), 4)] {
			if i == 2 && part == "c" {
				continue // continuous: Levels 0
			}
			x, err := strconv.Atoi(part)
			if err != nil || x < 0 || (i == 2 && x < 2) || (i == 3 && x < 2) {
				return nil, bad
			}
			v[i] = x
		}
		set := samplersCase{samplersSetup: samplersSetup{P: v[0], K: v[1], Levels: v[2]}, N: v[3]}
		if len(parts) == 5 {
			miss, err := strconv.ParseFloat(parts[4], 64)
			if err != nil || miss < 0 || miss >= 1 {
				return nil, bad
			}
			set.Missing = miss
		}
		sets = append(sets, set)
	}
	return sets, nil
}

// parseSetups parses a comma-separated list of p:k:levels, as the --setups
// flag of `copulang bench paper` takes it;
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
