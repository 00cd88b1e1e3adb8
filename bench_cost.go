package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
	"github.com/copulang/copulang/session"
)

// costItemLevels are the levels of a mixed setup's item columns, cycled:
// 2 to 11, as a survey's items have.
var costItemLevels = []int{2, 5, 4, 7, 3, 11, 5, 2, 6, 10, 4, 3}

// costManyLevels are the levels of a mixed setup's last columns, like a
// survey's age (78 levels) and income (1,169), at most n.
var costManyLevels = []int{78, 1169}

// mixedLevels returns the levels of the p columns of a mixed setup of n
// rows: items of 2 to 11 levels (costItemLevels), then two columns of 78
// and 1,169 levels (at most n each).
func mixedLevels(p, n int) []int {
	levels := make([]int, p)
	many := min(len(costManyLevels), p/2)
	for j := range p - many {
		levels[j] = costItemLevels[j%len(costItemLevels)]
	}
	for i := range many {
		levels[p-many+i] = min(costManyLevels[i], n)
	}
	return levels
}

// costSetup is one data configuration of `copulang bench cost`: n rows
// simulated from a copula with k factors over p columns of Levels levels
// each (nil Levels: mixedLevels), a share Missing of cells missing. K = 0
// makes the columns independent instead, each cell uniform over its
// column's levels (gibbs only: px needs k factors).
type costSetup struct {
	P, K, N int
	Levels  int // 0: mixed
	Missing float64
}

// costResult is one measurement of `copulang bench cost`.
type costResult struct {
	Method string `json:"method"`
	N      int    `json:"n"`
	P      int    `json:"p"`
	K      int    `json:"k"`
	// Levels is the columns' number of levels, or for a mixed setup the
	// list of each column's, space-separated.
	Levels  string  `json:"levels"`
	Missing float64 `json:"missing"`
	Rep     int     `json:"rep"`
	// Iters is the number of iterations timed (after the warm-up);
	// CPU and Wall are seconds per iteration of them.
	Iters int     `json:"iters"`
	CPU   float64 `json:"cpu"`
	Wall  float64 `json:"wall"`
	// RefCPU is the reference run's CPU seconds per iteration, measured
	// just before this run; Ratio is CPU/RefCPU.
	RefCPU float64 `json:"ref_cpu"`
	Ratio  float64 `json:"ratio"`
	// Predicted is IterationCost of the plan's cost, what explain shows.
	Predicted float64 `json:"predicted"`
	// Load is the 1-minute load average when the run started.
	Load float64 `json:"load"`
}

func (r costResult) cells() []string {
	levels := r.Levels
	if strings.Contains(levels, " ") {
		levels = "mixed"
	}
	return []string{r.Method, strconv.Itoa(r.N), strconv.Itoa(r.P), strconv.Itoa(r.K), levels, fmt.Sprintf("%.2f", r.Missing), strconv.Itoa(r.Rep),
		strconv.Itoa(r.Iters), fmt.Sprintf("%.3g", r.CPU), fmt.Sprintf("%.3g", r.RefCPU), fmt.Sprintf("%.2f", r.Ratio), fmt.Sprintf("%.2f", r.Predicted/r.CPU), fmt.Sprintf("load %.2f", r.Load)}
}

// benchCost runs `copulang bench cost`: the CPU time per iteration of one
// chain on one core (GOMAXPROCS is set to 1) of gibbs (full correlation)
// and px (k factors) as fit plans them, after a warm-up, on simulated data,
// each run preceded by a fixed reference run (gibbs at n = 1000, p = 20, 5
// levels) whose time it is also given as a ratio, so that a change in the
// machine's speed or load shows. It reports IterationCost's prediction
// beside (inference/testdata/cost_measured.csv holds such measurements).
func benchCost(args []string, stdout io.Writer) error {
	fs := newBenchFlags("cost", stdout)
	methods := fs.String("methods", "gibbs,px", "comma-separated methods: gibbs, px (px fits k factors)")
	setups := fs.String("setups", "20:4:5:5000", "comma-separated p:k:levels:n[:missing] (levels mixed: items of 2 to 11 levels and two of 78 and 1,169; k 0: independent columns, gibbs only)")
	reps := fs.Int("reps", 3, "measurements of each setup and method")
	target := fs.Float64("target", 0.5, "CPU seconds to time per run, at least (as the cost model estimates them)")
	warmup := fs.Int("warmup", 5, "warm-up iterations, not timed")
	if err := fs.parse(args); err != nil {
		return err
	}
	sets, err := parseCostSetups(*setups)
	if err != nil {
		return err
	}
	ms := strings.Split(*methods, ",")
	for _, m := range ms {
		if m != "gibbs" && m != "px" {
			return fmt.Errorf("--methods: unknown method %q (want gibbs or px)", m)
		}
		for _, set := range sets {
			if m == "px" && set.K == 0 {
				return fmt.Errorf("--setups: px fits k factors: k = 0 (independent columns) is for gibbs only (--methods gibbs)")
			}
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // the process's own setting afterwards (the tests share it)
	table, err := newBenchTable(stdout, fs, benchColumn{"method", 6}, benchColumn{"n", 6}, benchColumn{"p", 3}, benchColumn{"k", 2}, benchColumn{"levels", 6},
		benchColumn{"missing", 0}, benchColumn{"rep", 0}, benchColumn{"iters", 5}, benchColumn{"cpu s/iter", 0}, benchColumn{"ref", 0}, benchColumn{"ratio", 0},
		benchColumn{"predicted/cpu", 0}, benchColumn{"note", 0})
	if err != nil {
		return err
	}
	ref, err := costData(costSetup{P: 20, K: 5, N: 1000, Levels: 5}, 1)
	if err != nil {
		return err
	}
	for _, set := range sets {
		d, err := costData(set, fs.seed)
		if err != nil {
			return err
		}
		for rep := 1; rep <= *reps; rep++ {
			for _, m := range ms {
				refCPU, _, _, err := costRun(ref, "gibbs", 5, *warmup, *target, fs.seed)
				if err != nil {
					return err
				}
				load := loadAverage()
				cpu, wall, iters, err := costRun(d, m, set.K, *warmup, *target, fs.seed)
				if err != nil {
					return fmt.Errorf("%s on %+v: %w", m, set, err)
				}
				r := costResult{Method: m, N: set.N, P: set.P, K: set.K, Levels: costLevelsText(set), Missing: set.Missing, Rep: rep,
					Iters: iters, CPU: cpu, Wall: wall, RefCPU: refCPU, Ratio: cpu / refCPU, Load: load}
				if pl, err := costPlan(d, m, set.K); err == nil {
					r.Predicted = inference.IterationCost(pl.Cost()).Seconds()
				}
				if err := table.write(r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// costLevelsText is a setup's levels as costResult gives them.
func costLevelsText(set costSetup) string {
	if set.Levels > 0 {
		return strconv.Itoa(set.Levels)
	}
	var s []string
	for _, l := range mixedLevels(set.P, set.N) {
		s = append(s, strconv.Itoa(l))
	}
	return strings.Join(s, " ")
}

// costData simulates a setup's data: Simulate's columns cut at their own
// quantiles into each column's levels, or for K = 0 independent columns,
// each cell uniform over its column's levels.
func costData(set costSetup, seed uint64) (*session.Dataset, error) {
	if set.K == 0 {
		return independentCostData(set, seed), nil
	}
	levels := set.Levels
	if levels == 0 {
		levels = set.N // every row its own value, cut below
	}
	sim, err := inference.Simulate(inference.SimSpec{P: set.P, K: set.K, N: set.N, Levels: levels, Missing: set.Missing, Seed: seed})
	if err != nil {
		return nil, err
	}
	if set.Levels == 0 {
		for j, l := range mixedLevels(set.P, set.N) {
			for i, v := range sim.Columns[j] {
				if !math.IsNaN(v) {
					sim.Columns[j][i] = float64(1 + (int(v)-1)*l/set.N)
				}
			}
		}
	}
	return &session.Dataset{Name: "sim", Names: sim.Names, Columns: sim.Columns}, nil
}

// independentCostData is costData for K = 0: every cell uniform over its
// column's levels, independently, and missing with probability
// set.Missing.
func independentCostData(set costSetup, seed uint64) *session.Dataset {
	levels := mixedLevels(set.P, set.N)
	if set.Levels > 0 {
		for j := range levels {
			levels[j] = set.Levels
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x1d))
	names := make([]string, set.P)
	cols := make([][]float64, set.P)
	for j, l := range levels {
		names[j] = fmt.Sprintf("Y%d", j+1)
		cols[j] = make([]float64, set.N)
		for i := range cols[j] {
			cols[j][i] = float64(1 + rng.IntN(l))
			if rng.Float64() < set.Missing {
				cols[j][i] = math.NaN()
			}
		}
	}
	return &session.Dataset{Name: "sim", Names: names, Columns: cols}
}

// costPlan plans a fit of method (gibbs: the full correlation; px: k
// factors) on d as fit does.
func costPlan(d *session.Dataset, method string, k int) (*compiler.InferencePlan, error) {
	model := inference.Model(inference.FullCorrelation{})
	if method == "px" {
		model = inference.FactorModel{K: k}
	}
	decl := &compiler.DeclareModel{Name: "m", Data: d.Name, Columns: d.Names, Model: model}
	fit := &compiler.Fit{Model: "m", Method: method, TravelTime: compiler.DefaultTravelTime, Iter: 100, Warmup: 5, Chains: 1, Thin: 1, Seed: 1}
	return compiler.Plan(decl, d.Info(), fit)
}

// costRun fits method to d on one chain and returns the CPU and wall
// seconds per iteration after warmup warm-up iterations, over enough
// iterations to take target CPU seconds (as IterationCost estimates them)
// and at least one progress report, and how many iterations were timed.
func costRun(d *session.Dataset, method string, k, warmup int, target float64, seed uint64) (cpu, wall float64, iters int, err error) {
	pl, err := costPlan(d, method, k)
	if err != nil {
		return 0, 0, 0, err
	}
	per := inference.IterationCost(pl.Cost()).Seconds()
	iters = int(math.Ceil(target / per))
	iters = min(max(iters, 4), 1<<16)
	model := inference.Model(inference.FullCorrelation{})
	if method == "px" {
		model = inference.FactorModel{K: k}
	}
	type mark struct {
		done      int
		cpu, wall float64
	}
	// Run reports progress at most every 50 ms: a run too short for a
	// report after the warm-up and before the last is run again, twice as
	// long.
	for ; iters <= 1<<20; iters *= 2 {
		spec := inference.Spec{Columns: d.Columns, Names: d.Names, Model: model, Method: pl.Method, ColumnHMC: pl.ColumnHMC,
			Warmup: warmup, Iter: iters, Chains: 1, Seed: seed, TravelTime: pl.TravelTime}
		var first, last *mark
		progress := func(p inference.Progress) {
			m := &mark{p.Done, processCPUSeconds(), p.Elapsed.Seconds()}
			if first == nil && p.Done >= warmup {
				first = m
			}
			last = m
		}
		if _, err := inference.Run(context.Background(), spec, progress); err != nil {
			return 0, 0, 0, err
		}
		if first != nil && last.done > first.done {
			n := float64(last.done - first.done)
			return (last.cpu - first.cpu) / n, (last.wall - first.wall) / n, last.done - first.done, nil
		}
	}
	return 0, 0, 0, fmt.Errorf("no progress reported after the warm-up")
}

// loadAverage is the 1-minute load average (Linux), or 0.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// parseCostSetups parses the --setups of `copulang bench cost`: a
// comma-separated list of p:k:levels:n[:missing], levels a count or mixed.
func parseCostSetups(list string) ([]costSetup, error) {
	var sets []costSetup
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		bad := fmt.Errorf("--setups: %q is not p:k:levels:n[:missing]", s)
		parts := strings.Split(s, ":")
		if len(parts) < 4 || len(parts) > 5 {
			return nil, bad
		}
		var v [4]int
		for i, part := range parts[:4] {
			if i == 2 && part == "mixed" {
				continue
			}
			x, err := strconv.Atoi(part)
			if err != nil || x < 0 || (i != 1 && x < 2) {
				return nil, bad
			}
			v[i] = x
		}
		set := costSetup{P: v[0], K: v[1], Levels: v[2], N: v[3]}
		if len(parts) == 5 {
			miss, err := strconv.ParseFloat(parts[4], 64)
			if err != nil || miss < 0 || miss >= 1 {
				return nil, bad
			}
			set.Missing = miss
		}
		if set.K >= set.P {
			return nil, fmt.Errorf("--setups: %q: k must be below p (the simulated truth, and px's factors)", s)
		}
		sets = append(sets, set)
	}
	return sets, nil
}
