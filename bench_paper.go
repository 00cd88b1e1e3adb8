package main

// `copulang bench paper`: Kalaitzis & Silva's (2013, §5) experiment, rerun
// with interweaved exact HMC, a correct PX sampler and PX with the defect of
// the R package bfa planted. Runs write one JSON file each (so that a long
// experiment can be split across processes and resumed); --report reads them
// back and compares the arms (bench_paper_report.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/inference"
)

// paperArm is one sampler of the experiment: interweave, px, or bfa (PX
// with bfa's defect: the scale move does not rescale Z).
type paperArm struct {
	name      string
	method    inference.Method
	bfaDefect bool
}

// paperArms lists the arms, in the order the report shows them.
var paperArms = [...]paperArm{
	{"interweave", inference.Interweave, false},
	{"px", inference.PX, false},
	{"bfa", inference.PX, true},
}

// parseArms parses the comma-separated arm names of --arms.
func parseArms(list string) ([]paperArm, error) {
	names := make([]string, len(paperArms))
	for i, a := range paperArms {
		names[i] = a.name
	}
	var arms []paperArm
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		i := slices.Index(names, name)
		if i < 0 {
			return nil, fmt.Errorf("--arms: unknown arm %q (want %s)", name, orList(names))
		}
		arms = append(arms, paperArms[i])
	}
	return arms, nil
}

// paperSummary is what `copulang bench paper` prints per run (a table row,
// or a JSON line with --json); paperRun adds the per-entry and per-iteration
// records stored in the run's file.
type paperSummary struct {
	Arm       string `json:"arm"`
	Method    string `json:"method"`
	BFADefect bool   `json:"bfa_defect"`
	P         int    `json:"p"`
	K         int    `json:"k"`
	Levels    int    `json:"levels"`
	N         int    `json:"n"`
	Seed      uint64 `json:"seed"`
	// Iter counts every iteration, the first Burn of them burn-in (the
	// run's warm-up).
	Iter int `json:"iter"`
	Burn int `json:"burn"`
	// TravelTime is the exact-HMC travel time T of interweave's joint
	// (λ_j, z_j) steps (inference's default, π/2 as in the paper); 0 for px.
	TravelTime float64 `json:"travel_time,omitempty"`
	// GOMAXPROCS is the number of cores the process could use.
	GOMAXPROCS int `json:"gomaxprocs"`
	// ElapsedSeconds is the wall time of the whole run (burn-in included).
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	// Bulk ESS of each post-burn-in C_jl, j < l, per second of the run.
	MinESSPerSec    float64 `json:"min_bulk_ess_per_s"`
	MedianESSPerSec float64 `json:"median_bulk_ess_per_s"`
	// RMSEMean is the mean of the post-burn-in RMSE-to-truth trace, RMSEESS
	// the trace's ESS and RMSEMCSE the Monte Carlo standard error of
	// RMSEMean through it.
	RMSEMean float64 `json:"rmse_mean"`
	RMSEESS  float64 `json:"rmse_ess"`
	RMSEMCSE float64 `json:"rmse_mcse"`
	// Bounces and Rejections are interweave's exact-HMC wall reflections
	// and rejected trajectories over the run.
	Bounces    int64 `json:"bounces,omitempty"`
	Rejections int64 `json:"rejections,omitempty"`
	// Skipped says why the run was not made (its file existed) or failed.
	Skipped string `json:"skipped,omitempty"`
}

// paperRun is the file DIR/results/<p>-<k>-<levels>-seed<s>-<arm>.json.
type paperRun struct {
	paperSummary
	// Entries name the upper off-diagonal entries C.j.l (1-based, j < l) in
	// row-major order; the slices below follow it.
	Entries []string  `json:"entries"`
	Truth   []float64 `json:"truth"`
	// Posterior mean, sd and bulk ESS of each entry after burn-in.
	Mean    []float64 `json:"mean"`
	SD      []float64 `json:"sd"`
	ESSBulk []float64 `json:"ess_bulk"`
	// RMSE is the RMSE of C's upper off-diagonal entries to the truth at
	// every iteration, burn-in included (rounded to 1e-6).
	RMSE []float64 `json:"rmse"`
}

// paperFile is the name of a run's file under DIR/results.
func paperFile(set samplersSetup, seed uint64, arm string) string {
	return fmt.Sprintf("%d-%d-%d-seed%d-%s.json", set.P, set.K, set.Levels, seed, arm)
}

// benchPaper runs `copulang bench paper`.
func benchPaper(args []string, stdout io.Writer) error {
	fs := newBenchFlags("paper", stdout)
	setups := fs.String("setups", "20:5:5,20:5:2,10:3:5,10:3:2", "comma-separated p:k:levels")
	iter := fs.Int("iter", 10000, "iterations per run, burn-in included")
	burn := fs.Int("burn", 1000, "burn-in iterations")
	seeds := fs.Int("seeds", 5, "number of seeds, from --seed on")
	n := fs.Int("n", 1000, "number of rows")
	armList := fs.String("arms", "interweave,px,bfa", "comma-separated arms: interweave, px, bfa (px with bfa's defect)")
	out := fs.String("out", "", "directory: write DIR/results/<p>-<k>-<levels>-seed<s>-<arm>.json per run, skipping runs whose file exists")
	report := fs.String("report", "", "directory: do not sample; read DIR/results/*.json and write DIR/report.md and the figures")
	doc := fs.String("doc", "", "with --report: replace the report section of this Markdown file")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *report != "" {
		return paperReport(*report, *doc, stdout)
	}
	if *doc != "" {
		return errors.New("--doc needs --report")
	}
	if *burn < 0 {
		return fmt.Errorf("--burn %d: want at least 0", *burn)
	}
	if *iter <= *burn+3 {
		return fmt.Errorf("--iter %d: want more than --burn + 3 = %d", *iter, *burn+3)
	}
	if *seeds < 1 {
		return fmt.Errorf("--seeds %d: want at least 1", *seeds)
	}
	sets, err := parseSetups("--setups", *setups)
	if err != nil {
		return err
	}
	for _, s := range sets {
		if s.K < 1 || s.K >= s.P {
			return fmt.Errorf("--setups: %d:%d:%d: the factor model needs 1 <= k < p", s.P, s.K, s.Levels)
		}
	}
	arms, err := parseArms(*armList)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := os.MkdirAll(filepath.Join(*out, "results"), 0o755); err != nil {
			return err
		}
	}
	table, err := newBenchTable(stdout, fs, benchColumn{"arm", 10}, benchColumn{"p", 3}, benchColumn{"k", 2}, benchColumn{"levels", 6},
		benchColumn{"seed", 4}, benchColumn{"iter", 6}, benchColumn{"minutes", 8}, benchColumn{"min ESS/s", 9},
		benchColumn{"median ESS/s", 12}, benchColumn{"RMSE mean", 9}, benchColumn{"± MCSE", 8}, benchColumn{"note", 0})
	if err != nil {
		return err
	}
	for _, set := range sets {
		for s := 0; s < *seeds; s++ {
			seed := fs.seed + uint64(s)
			var sim *inference.Simulated
			for _, arm := range arms {
				sum := paperSummary{Arm: arm.name, Method: arm.method.String(), BFADefect: arm.bfaDefect, P: set.P, K: set.K,
					Levels: set.Levels, N: *n, Seed: seed, Iter: *iter, Burn: *burn}
				path := ""
				if *out != "" {
					path = filepath.Join(*out, "results", paperFile(set, seed, arm.name))
					if _, err := os.Stat(path); err == nil {
						sum.Skipped = "file exists"
						if err := table.write(sum); err != nil {
							return err
						}
						continue
					} else if !errors.Is(err, os.ErrNotExist) {
						return err
					}
				}
				if sim == nil {
					sim, err = inference.Simulate(inference.SimSpec{P: set.P, K: set.K, N: *n, Levels: set.Levels, Seed: seed})
					if err != nil {
						return fmt.Errorf("setup %d:%d:%d seed %d: %w", set.P, set.K, set.Levels, seed, err)
					}
				}
				run, err := paperRunOne(sim, sum, arm)
				if err != nil {
					return fmt.Errorf("setup %d:%d:%d seed %d arm %s: %w", set.P, set.K, set.Levels, seed, arm.name, err)
				}
				if path != "" {
					if err := writeJSONFile(path, run); err != nil {
						return err
					}
				}
				if err := table.write(run.paperSummary); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// cells implements benchRow.
func (r paperSummary) cells() []string {
	head := []string{r.Arm, strconv.Itoa(r.P), strconv.Itoa(r.K), strconv.Itoa(r.Levels), strconv.FormatUint(r.Seed, 10), strconv.Itoa(r.Iter)}
	if r.Skipped != "" {
		return append(head, "-", "-", "-", "-", "-", "skipped: "+r.Skipped)
	}
	return append(head, fmt.Sprintf("%.2f", r.ElapsedSeconds/60), fmt.Sprintf("%.2f", r.MinESSPerSec), fmt.Sprintf("%.2f", r.MedianESSPerSec),
		fmt.Sprintf("%.4f", r.RMSEMean), fmt.Sprintf("%.4f", r.RMSEMCSE), "")
}

// paperRunOne runs one chain of arm on sim from the start that the seed
// determines (the same for every arm: the samplers build their start from
// the chain's stream the same way) and measures it.
func paperRunOne(sim *inference.Simulated, sum paperSummary, arm paperArm) (*paperRun, error) {
	spec := inference.Spec{Columns: sim.Columns, Names: sim.Names, Model: inference.FactorModel{K: sum.K}, Method: arm.method,
		BFADefect: arm.bfaDefect, PaperSamplers: true, Warmup: sum.Burn, Iter: sum.Iter - sum.Burn, Seed: sum.Seed, KeepWarmup: true}
	res, err := inference.Run(context.Background(), spec, nil)
	if err != nil {
		return nil, err
	}
	run := &paperRun{paperSummary: sum}
	run.GOMAXPROCS = runtime.GOMAXPROCS(0)
	if arm.method == inference.Interweave {
		run.TravelTime = math.Pi / 2 // Spec.TravelTime 0 means π/2
	}
	secs := res.Elapsed.Seconds()
	run.ElapsedSeconds = secs
	run.Bounces, run.Rejections = res.Stats[0].Bounces, res.Stats[0].Rejections
	p := sum.P
	for j := 0; j < p; j++ {
		for l := j + 1; l < p; l++ {
			run.Truth = append(run.Truth, sim.C[j*p+l])
		}
	}
	ess := make([]float64, 0, len(run.Truth))
	for _, s := range res.Summary() {
		run.Entries = append(run.Entries, s.Name)
		run.Mean = append(run.Mean, s.Mean)
		run.SD = append(run.SD, s.SD)
		run.ESSBulk = append(run.ESSBulk, s.ESSBulk)
		ess = append(ess, s.ESSBulk)
	}
	slices.Sort(ess)
	run.MinESSPerSec = ess[0] / secs
	run.MedianESSPerSec = median(ess) / secs
	trace := append(slices.Clone(res.WarmupC[0]), res.C[0]...)
	run.RMSE = inference.RMSETrace(trace, sim.C)
	post := [][]float64{run.RMSE[sum.Burn:]}
	run.RMSEMean = mean(post[0])
	run.RMSEESS = inference.ESS(post)
	run.RMSEMCSE = inference.MCSEMean(post)
	for i, v := range run.RMSE {
		run.RMSE[i] = math.Round(v*1e6) / 1e6
	}
	return run, nil
}

// writeJSONFile writes v as JSON to path through a temporary file and a
// rename, so that a killed run leaves no partial file behind to be skipped.
func writeJSONFile(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// mean is the arithmetic mean of x (NaN if x is empty).
func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// median is the median of sorted x (NaN if x is empty).
func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
