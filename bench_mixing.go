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

// mixingResult is one line of `copulang bench mixing --json`.
type mixingResult struct {
	Method string  `json:"method"`
	N      int     `json:"n"`
	P      int     `json:"p"`
	Levels int     `json:"levels"`
	Rho    float64 `json:"rho"`
	R2     float64 `json:"r2"`
	Iter   int     `json:"iter"`
	Chains int     `json:"chains"`
	Seed   uint64  `json:"seed"`
	// TauMin and TauMedian are kept draws over the minimum and the median
	// bulk ESS of C's off-diagonal entries: the integrated autocorrelation
	// times of the worst-mixing and the median entry.
	TauMin    float64 `json:"tau_min"`
	TauMedian float64 `json:"tau_median"`
	// Predicted is inference.GibbsTau or HMCTau for the data's R² and p.
	Predicted float64 `json:"predicted_tau"`
	Skipped   string  `json:"skipped,omitempty"`
}

// benchMixing runs `copulang bench mixing`: the runs that auto's mixing
// model (inference.GibbsTau, HMCTau; sampling.md §9.2) is fitted to. For
// each n, p, levels and rho it draws equicorrelated data
// (inference.Equicorrelated) and runs each method, reporting the
// integrated autocorrelation time of C's worst-mixing and median entries
// next to the model's prediction. Long runs are the point: a short run
// cannot see an autocorrelation time longer than itself.
func benchMixing(args []string, stdout io.Writer) error {
	fs := newBenchFlags("mixing", stdout)
	ns := fs.String("n", "1000", "comma-separated numbers of rows")
	ps := fs.String("p", "10", "comma-separated numbers of columns")
	levels := fs.String("levels", "5", "comma-separated numbers of levels per column")
	rhos := fs.String("rho", "0.3,0.5,0.65,0.8,0.9", "comma-separated correlations between the columns")
	methods := fs.String("methods", "gibbs,hmc", "comma-separated methods: gibbs, hmc")
	iter := fs.Int("iter", 10000, "post-warm-up iterations per run (the committed runs: 10000 gibbs, 800 hmc)")
	warmup := fs.Int("warmup", 1000, "warm-up iterations per run (the committed runs: 1000 gibbs, 200 hmc)")
	chains := fs.Int("chains", 2, "chains per run, run in parallel")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *iter < 4 || *warmup < 0 || *chains < 1 {
		return fmt.Errorf("--iter %d, --warmup %d, --chains %d: want at least 4, 0 and 1", *iter, *warmup, *chains)
	}
	nList, err := parseInts(*ns, "n", false)
	if err != nil {
		return err
	}
	pList, err := parseInts(*ps, "p", false)
	if err != nil {
		return err
	}
	lList, err := parseInts(*levels, "levels", false)
	if err != nil {
		return err
	}
	var rList []float64
	for _, s := range strings.Split(*rhos, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v >= 0 && v < 1) {
			return fmt.Errorf("--rho: %q is not a correlation in [0, 1)", s)
		}
		rList = append(rList, v)
	}
	var ms []inference.Method
	for _, name := range strings.Split(*methods, ",") {
		m, ok := inference.ParseMethod(strings.TrimSpace(name))
		if !ok || (m != inference.Gibbs && m != inference.HMC) {
			return fmt.Errorf("--methods: %q is not gibbs or hmc", name)
		}
		ms = append(ms, m)
	}
	table, err := newBenchTable(stdout, fs, benchColumn{"method", 6}, benchColumn{"n", 6}, benchColumn{"p", 3}, benchColumn{"levels", 6},
		benchColumn{"rho", 5}, benchColumn{"R²", 5}, benchColumn{"iter", 6}, benchColumn{"τ worst", 0}, benchColumn{"τ median", 0},
		benchColumn{"predicted τ", 0}, benchColumn{"note", 0})
	if err != nil {
		return err
	}
	for _, n := range nList {
		for _, p := range pList {
			for _, l := range lList {
				for _, rho := range rList {
					for _, m := range ms {
						if err := table.write(mixingRun(m, n, p, l, rho, *warmup, *iter, *chains, fs.seed)); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// mixingRun runs method m on one equicorrelated data set and measures it.
func mixingRun(m inference.Method, n, p, levels int, rho float64, warmup, iter, chains int, seed uint64) mixingResult {
	r := mixingResult{Method: m.String(), N: n, P: p, Levels: levels, Rho: rho, R2: inference.EquicorrelatedR2(p, rho), Iter: iter, Chains: chains, Seed: seed}
	if m == inference.Gibbs {
		r.Predicted = inference.GibbsTau(r.R2, levels == 2)
	} else {
		r.Predicted = inference.HMCTau(r.R2)
	}
	cols, err := inference.Equicorrelated(n, p, levels, rho, seed)
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	res, err := inference.Run(context.Background(), inference.Spec{Columns: cols, Method: m, Iter: iter, Warmup: warmup, Chains: chains, Seed: seed}, nil)
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	var ess []float64
	for a := 0; a < p; a++ {
		for b := a + 1; b < p; b++ {
			ess = append(ess, inference.ESSBulk(res.Draws(a, b)))
		}
	}
	slices.Sort(ess)
	draws := float64(iter * chains)
	r.TauMin, r.TauMedian = draws/ess[0], draws/ess[len(ess)/2]
	if math.IsNaN(r.TauMin) || math.IsInf(r.TauMin, 0) {
		r.Skipped = "no finite ESS"
	}
	return r
}

// cells implements benchRow.
func (r mixingResult) cells() []string {
	head := []string{r.Method, strconv.Itoa(r.N), strconv.Itoa(r.P), strconv.Itoa(r.Levels), fmt.Sprintf("%.2f", r.Rho), fmt.Sprintf("%.3f", r.R2), strconv.Itoa(r.Iter)}
	if r.Skipped != "" {
		return append(head, "-", "-", fmt.Sprintf("%.1f", r.Predicted), "skipped: "+r.Skipped)
	}
	return append(head, fmt.Sprintf("%.1f", r.TauMin), fmt.Sprintf("%.2f", r.TauMedian), fmt.Sprintf("%.1f", r.Predicted), "")
}
