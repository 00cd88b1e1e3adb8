package main

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/copulang/copulang/inference"
)

func TestBenchDispatch(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{nil, "which benchmark? cost, hough, mixing, paper or samplers"},
		{[]string{"nope"}, `unknown benchmark "nope" (want cost, hough, mixing, paper or samplers)`},
		{[]string{"hough", "extra"}, `unexpected arguments ["extra"]`},
		{[]string{"hough", "--burn-in", "-1"}, "--burn-in: -1 is negative"},
		{[]string{"hough", "--n", "0"}, `--n: "0" is not a positive integer`},
		{[]string{"hough", "--method", "fast"}, `unknown method "fast"`},
		{[]string{"samplers", "--methods", "gibbs,fast"}, `--methods: unknown method "fast" (want gibbs, hmc, px, interweave or auto)`},
		{[]string{"samplers", "--setups", "4:1"}, `--setups: "4:1" is not p:k:levels`},
		{[]string{"samplers", "--iter", "0"}, "--iter 0: want at least 1"},
		{[]string{"samplers", "--seeds", "0"}, "--seeds 0: want at least 1"},
		{[]string{"cost", "--setups", "4:1:3"}, `--setups: "4:1:3" is not p:k:levels:n[:missing]`},
		{[]string{"cost", "--setups", "4:0:3:100"}, `k = 0 (independent columns) is for gibbs only`},
		{[]string{"cost", "--setups", "4:4:3:100"}, `k must be below p`},
		{[]string{"cost", "--methods", "hmc"}, `--methods: unknown method "hmc" (want gibbs or px)`},
		{[]string{"mixing", "--rho", "1"}, `--rho: "1" is not a correlation in [0, 1)`},
		{[]string{"mixing", "--methods", "px"}, `--methods: "px" is not gibbs or hmc`},
		{[]string{"paper", "--arms", "px,gibbs"}, `--arms: unknown arm "gibbs" (want interweave, px or bfa)`},
		{[]string{"paper", "--setups", "6:0:3"}, "--setups: 6:0:3: the factor model needs 1 <= k < p"},
		{[]string{"paper", "--iter", "10", "--burn", "8"}, "--iter 10: want more than --burn + 3 = 11"},
		{[]string{"paper", "--doc", "x.md"}, "--doc needs --report"},
		{[]string{"paper", "--report", "testdata/no-such-dir"}, "no runs in testdata/no-such-dir/results"},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		err := runBench(tc.args, &out)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("bench %q: error %v, want one containing %q", tc.args, err, tc.wantErr)
		}
	}
}

// TestBenchOutput runs each benchmark on a tiny problem: --json gives one
// object per configuration, the table a header and one row each.
func TestBenchOutput(t *testing.T) {
	tests := []struct {
		args    []string
		methods []string // in the order of the rows
		skipped []bool
	}{
		{[]string{"hough", "--n", "60", "--levels", "3,n", "--method", "kinetic,hough", "--min-time", "1ms", "--min-transitions", "1"},
			[]string{"kinetic", "kinetic", "hough", "hough"}, []bool{false, false, false, false}},
		{[]string{"samplers", "--n", "60", "--iter", "20", "--setups", "4:0:3"},
			[]string{"gibbs", "hmc", "px", "interweave", "auto"}, []bool{false, false, true, true, false}},
		{[]string{"samplers", "--n", "60", "--iter", "20", "--setups", "4:0:3", "--methods", "auto", "--seeds", "2"},
			[]string{"auto", "auto"}, []bool{false, false}},
		{[]string{"samplers", "--iter", "20", "--setups", "3:0:c:50:0.1,gss:1", "--methods", "gibbs,px"},
			[]string{"gibbs", "px", "gibbs", "px"}, []bool{false, true, false, false}},
		{[]string{"cost", "--setups", "4:1:3:60,5:2:mixed:80:0.1", "--reps", "1", "--target", "0.0001", "--warmup", "1"},
			[]string{"gibbs", "px", "gibbs", "px"}, []bool{false, false, false, false}},
		{[]string{"cost", "--setups", "4:0:3:60,5:0:mixed:80:0.1", "--methods", "gibbs", "--reps", "1", "--target", "0.0001", "--warmup", "1"},
			[]string{"gibbs", "gibbs"}, []bool{false, false}},
		{[]string{"mixing", "--n", "60", "--p", "3", "--levels", "3", "--rho", "0.5", "--iter", "50", "--warmup", "10"},
			[]string{"gibbs", "hmc"}, []bool{false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.args[0], func(t *testing.T) {
			var out bytes.Buffer
			if err := runBench(append(tc.args, "--json"), &out); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != len(tc.methods) {
				t.Fatalf("%d JSON lines, want %d:\n%s", len(lines), len(tc.methods), out.String())
			}
			for i, l := range lines {
				var row struct {
					Method  string `json:"method"`
					Skipped string `json:"skipped"`
				}
				if err := json.Unmarshal([]byte(l), &row); err != nil {
					t.Fatalf("line %d: %v: %s", i+1, err, l)
				}
				if row.Method != tc.methods[i] || (row.Skipped != "") != tc.skipped[i] {
					t.Errorf("line %d: method %q skipped %q, want %q skipped %v", i+1, row.Method, row.Skipped, tc.methods[i], tc.skipped[i])
				}
			}

			out.Reset()
			if err := runBench(tc.args, &out); err != nil {
				t.Fatal(err)
			}
			lines = strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != len(tc.methods)+1 || !strings.HasPrefix(lines[0], "method") || !strings.HasSuffix(lines[0], "note") {
				t.Fatalf("table:\n%s\nwant a header and %d rows", out.String(), len(tc.methods))
			}
			for i, l := range lines[1:] {
				if f := strings.Fields(l); f[0] != tc.methods[i] || strings.Contains(l, "skipped:") != tc.skipped[i] {
					t.Errorf("row %d: %q, want method %s (skipped %v)", i+1, l, tc.methods[i], tc.skipped[i])
				}
			}
		})
	}
}

// TestBenchPaper runs `bench paper` at a tiny size into a directory, checks
// the files and that a second run skips them, then runs --report with --doc.
func TestBenchPaper(t *testing.T) {
	dir := t.TempDir()
	args := []string{"paper", "--iter", "30", "--burn", "10", "--seeds", "2", "--setups", "6:2:3", "--n", "100", "--out", dir, "--json"}
	var out bytes.Buffer
	if err := runBench(args, &out); err != nil {
		t.Fatal(err)
	}
	arms := []string{"interweave", "px", "bfa", "interweave", "px", "bfa"}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(arms) {
		t.Fatalf("%d JSON lines, want %d:\n%s", len(lines), len(arms), out.String())
	}
	for i, l := range lines {
		var row paperSummary
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if row.Arm != arms[i] || row.Seed != uint64(1+i/3) || row.Skipped != "" || row.BFADefect != (row.Arm == "bfa") {
			t.Errorf("line %d: arm %q seed %d defect %v skipped %q, want %s seed %d", i+1, row.Arm, row.Seed, row.BFADefect, row.Skipped, arms[i], 1+i/3)
		}
		if !(row.ElapsedSeconds > 0 && row.RMSEMean > 0 && row.RMSEMCSE > 0 && row.MinESSPerSec > 0) {
			t.Errorf("line %d: missing measurements: %s", i+1, l)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "results", "6-2-3-seed2-bfa.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run paperRun
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.RMSE) != 30 || len(run.SD) != 15 || len(run.Truth) != 15 || len(run.ESSBulk) != 15 || run.Entries[14] != "C.5.6" {
		t.Errorf("run file: %d RMSE values, %d sds, %d truths, %d ESS, entries %q; want 30 and 15 of each", len(run.RMSE), len(run.SD), len(run.Truth), len(run.ESSBulk), run.Entries)
	}

	// px and bfa share the data and the start, and the defect first acts
	// on z after the first draw of Λ, so their first draws of C coincide.
	var px paperRun
	if b, err = os.ReadFile(filepath.Join(dir, "results", "6-2-3-seed2-px.json")); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &px); err != nil {
		t.Fatal(err)
	}
	if px.RMSE[0] != run.RMSE[0] || px.RMSE[len(px.RMSE)-1] == run.RMSE[len(run.RMSE)-1] {
		t.Errorf("RMSE of px and bfa: first %v and %v (want equal), last %v and %v (want different)",
			px.RMSE[0], run.RMSE[0], px.RMSE[len(px.RMSE)-1], run.RMSE[len(run.RMSE)-1])
	}

	out.Reset()
	if err := runBench(args[:len(args)-1], &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "skipped: file exists"); n != len(arms) {
		t.Errorf("second run skipped %d runs, want %d:\n%s", n, len(arms), out.String())
	}

	doc := filepath.Join(dir, "doc.md")
	if err := os.WriteFile(doc, []byte("# Doc\n\n"+paperDocBegin+"\nold\n"+paperDocEnd+"\n\ntail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runBench([]string{"paper", "--report", dir, "--doc", doc}, &out); err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| (6, 2, 3) | 2 (seeds 1–2) | 2 (seeds 1–2) | 2 (seeds 1–2) |", "## px against interweave", "## bfa against interweave",
		"| **pooled** | 2 |", "## Per seed", "reach, seconds: interweave / px", "![rmse-6-2-3-seed1](rmse-6-2-3-seed1.svg)", "![sd-vs-interweave](sd-vs-interweave.svg)"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q:\n%s", want, report)
		}
	}
	for _, f := range []string{"rmse-6-2-3-seed1.svg", "rmse-6-2-3-seed1.png", "sd-vs-interweave.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	d, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(d); strings.Contains(s, "old") || !strings.Contains(s, "### px against interweave") || !strings.HasSuffix(s, paperDocEnd+"\n\ntail\n") ||
		!strings.Contains(s, "](./rmse-6-2-3-seed1.svg)") && !strings.Contains(s, "](rmse-6-2-3-seed1.svg)") {
		t.Errorf("doc after --doc:\n%s", s)
	}
}

func TestSignTestP(t *testing.T) {
	// binom.test(k, n)$p.value in R.
	for _, tc := range []struct {
		k, n int
		want float64
	}{{10, 18, 0.8145294}, {18, 18, 7.629395e-06}, {0, 5, 0.0625}, {2, 4, 1}, {3, 10, 0.34375}} {
		if got := signTestP(tc.k, tc.n); math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("signTestP(%d, %d) = %.7g, want %.7g", tc.k, tc.n, got, tc.want)
		}
	}
}

func TestOrList(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := orList(tc.words); got != tc.want {
			t.Errorf("orList(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
}

// TestConvergedAt: two chains of a 2×2 C that sit apart for their first 150
// draws and then mix as iid noise converge at the first checkpoint whose
// second half lies past 150 (400: draws 200 to 399), and chains that never
// agree never converge.
func TestConvergedAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	res := func(apart int) *inference.Result {
		r := &inference.Result{P: 2, WarmupC: make([][][]float64, 2), C: make([][][]float64, 2)}
		for c := range 2 {
			for it := range 1000 {
				x := 0.1 * rng.NormFloat64()
				if it < apart {
					x += float64(c)
				}
				d := []float64{1, x, x, 1}
				if it < 300 {
					r.WarmupC[c] = append(r.WarmupC[c], d)
				} else {
					r.C[c] = append(r.C[c], d)
				}
			}
		}
		return r
	}
	if got := convergedAt(res(150)); got != 400 {
		t.Errorf("chains apart for 150 draws converged at %d, want 400", got)
	}
	if got := convergedAt(res(1000)); got != 0 {
		t.Errorf("chains that never agree converged at %d, want 0", got)
	}
}

func TestParseSamplersSetups(t *testing.T) {
	tests := []struct {
		in   string
		want []samplersCase
		err  bool
	}{
		{in: "20:5:5", want: []samplersCase{{samplersSetup: samplersSetup{P: 20, K: 5, Levels: 5}}}},
		{in: "5:1:c:300, 10:0:2:1000:0.2", want: []samplersCase{
			{samplersSetup: samplersSetup{P: 5, K: 1}, N: 300},
			{samplersSetup: samplersSetup{P: 10, Levels: 2}, N: 1000, Missing: 0.2}}},
		{in: "gss,gss:3", want: []samplersCase{{samplersSetup: samplersSetup{K: 2}, GSS: true}, {samplersSetup: samplersSetup{K: 3}, GSS: true}}},
		{in: "4:1", err: true},
		{in: "4:1:1", err: true},       // one level
		{in: "4:1:3:1", err: true},     // one row
		{in: "4:1:3:100:1", err: true}, // every cell missing
		{in: "4:1:x", err: true},
		{in: "gss:2:3", err: true},
		{in: "gss:x", err: true},
		{in: "4:1:3:100:0.1:9", err: true},
	}
	for _, tc := range tests {
		got, err := parseSamplersSetups("--setups", tc.in)
		if (err != nil) != tc.err {
			t.Errorf("%q: error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if !tc.err && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestCompareWithBest checks which row carries auto's comparison and with
// what: auto against gibbs and hmc, px against interweave, nothing when
// the only method of its model that ran is auto's own choice.
func TestCompareWithBest(t *testing.T) {
	rows := []samplersResult{
		{Method: "gibbs", MinESSPerSec: 10, MinESSPerCPUSec: 6}, {Method: "hmc", MinESSPerSec: 40, MinESSPerCPUSec: 20},
		{Method: "auto", MinESSPerSec: 30, MinESSPerCPUSec: 25},
		{Method: "px", MinESSPerSec: 8}, {Method: "interweave", MinESSPerSec: 2},
	}
	compareWithBest(rows)
	if r := rows[2]; r.Best != "hmc" || r.VsBest != 0.75 || r.VsBestCPU != 1.25 {
		t.Errorf("auto: %.2f× best (%s), %.2f× by CPU time, want 0.75× hmc, 1.25×", r.VsBest, r.Best, r.VsBestCPU)
	}
	if r := rows[3]; r.Best != "px" || r.VsBest != 1 {
		t.Errorf("px: %.2f× best (%s), want 1× px", r.VsBest, r.Best)
	}
	for _, i := range []int{0, 1, 4} {
		if rows[i].Best != "" {
			t.Errorf("%s carries a comparison", rows[i].Method)
		}
	}
	// auto kept Gibbs: the same draws, timed apart; the ratio is Gibbs's.
	same := []samplersResult{
		{Method: "gibbs", MinESSPerSec: 10, MinESSPerCPUSec: 4, MinESS: 100, MedianESS: 300}, {Method: "hmc", MinESSPerSec: 20, MinESSPerCPUSec: 16, MinESS: 400},
		{Method: "auto", Choice: "gibbs", MinESSPerSec: 15, MinESSPerCPUSec: 5, MinESS: 100, MedianESS: 300},
	}
	compareWithBest(same)
	if r := same[2]; r.SameAs != "gibbs" || r.Best != "hmc" || r.VsBest != 0.5 || r.VsBestCPU != 0.25 {
		t.Errorf("auto with Gibbs's draws: same as %q, %.2f× best (%s), %.2f× by CPU time, want gibbs, 0.5× hmc, 0.25×", r.SameAs, r.VsBest, r.Best, r.VsBestCPU)
	}
	same[2].MedianESS, same[2].SameAs = 301, ""
	compareWithBest(same)
	if r := same[2]; r.SameAs != "" || r.VsBest != 0.75 {
		t.Errorf("auto with other draws: same as %q, %.2f× best, want none, 0.75×", r.SameAs, r.VsBest)
	}
	alone := []samplersResult{{Method: "px", MinESSPerSec: 8}, {Method: "interweave", Skipped: "no"}}
	compareWithBest(alone)
	if alone[0].Best != "" {
		t.Errorf("px alone compared with %s", alone[0].Best)
	}
}

// TestPaperRunsReproduceCommitted checks that `bench paper` still makes the
// committed runs of docs/paper/results (the paper's samplers, without the
// factor group moves that fit's px and interweave have since gained): the
// first 60 iterations of (10, 3, 2), seed 1, of every arm give the committed
// RMSE trace to the last bit.
func TestPaperRunsReproduceCommitted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the paper's samplers at n = 1000; skipped under -short")
	}
	const iters = 60
	set := samplersSetup{P: 10, K: 3, Levels: 2}
	sim, err := inference.Simulate(inference.SimSpec{P: set.P, K: set.K, N: 1000, Levels: set.Levels, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, arm := range paperArms {
		t.Run(arm.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("docs", "paper", "results", paperFile(set, 1, arm.name)))
			if err != nil {
				t.Fatal(err)
			}
			var committed paperRun
			if err := json.Unmarshal(b, &committed); err != nil {
				t.Fatal(err)
			}
			sum := paperSummary{Arm: arm.name, Method: arm.method.String(), BFADefect: arm.bfaDefect, P: set.P, K: set.K,
				Levels: set.Levels, N: 1000, Seed: 1, Iter: iters + 4, Burn: iters}
			run, err := paperRunOne(sim, sum, arm)
			if err != nil {
				t.Fatal(err)
			}
			for i := range iters {
				if run.RMSE[i] != committed.RMSE[i] {
					t.Fatalf("iteration %d: RMSE %v, committed %v", i+1, run.RMSE[i], committed.RMSE[i])
				}
			}
		})
	}
}

// TestParseCostSetups checks `bench cost`'s --setups and the levels of a
// mixed setup: items of 2 to 11 levels, then 78 and 1,169 (at most n).
func TestParseCostSetups(t *testing.T) {
	got, err := parseCostSetups("30:3:mixed:50000:0.075, 20:4:5:5000")
	want := []costSetup{{P: 30, K: 3, N: 50000, Missing: 0.075}, {P: 20, K: 4, N: 5000, Levels: 5}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("parseCostSetups = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"4:1:3", "4:1:1:100", "4:1:3:1", "4:1:3:100:1", "4:1:x:100", "4:1:3:100:0.1:9"} {
		if _, err := parseCostSetups(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if got, err := parseCostSetups("30:0:mixed:50000"); err != nil || got[0].K != 0 {
		t.Errorf("parseCostSetups(k = 0) = %+v, %v; want k = 0, independent columns", got, err)
	}
	levels := mixedLevels(30, 50000)
	if levels[0] != 2 || levels[27] != 7 || levels[28] != 78 || levels[29] != 1169 || slices.Max(levels[:28]) != 11 || slices.Min(levels[:28]) != 2 {
		t.Errorf("mixedLevels(30, 50000) = %v", levels)
	}
	if got := mixedLevels(4, 100); !reflect.DeepEqual(got, []int{2, 5, 78, 100}) {
		t.Errorf("mixedLevels(4, 100) = %v, want [2 5 78 100]", got)
	}
}

// TestBenchCostRestoresGOMAXPROCS: bench cost measures on one core but
// leaves the process's GOMAXPROCS as it found it, for the tests after it.
func TestBenchCostRestoresGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	var out bytes.Buffer
	if err := runBench([]string{"cost", "--setups", "4:1:3:60", "--methods", "gibbs", "--reps", "1", "--target", "0.0001", "--warmup", "1"}, &out); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("GOMAXPROCS = %d after bench cost, want 3", got)
	}
}

// TestIndependentCostData: bench cost's k = 0 data have the setup's levels,
// every level used, about the share of missing cells asked for (within 4
// standard errors, 0.0011 at n·p = 80,000) and columns uncorrelated (within
// 4/√n = 0.028 of 0).
func TestIndependentCostData(t *testing.T) {
	set := costSetup{P: 4, K: 0, N: 20000, Missing: 0.1}
	d, err := costData(set, 1)
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for j, l := range mixedLevels(set.P, set.N) {
		seen := make([]bool, l)
		for _, v := range d.Columns[j] {
			if math.IsNaN(v) {
				missing++
				continue
			}
			if v != math.Trunc(v) || v < 1 || v > float64(l) {
				t.Fatalf("column %d: %v is not a level 1..%d", j, v, l)
			}
			seen[int(v)-1] = true
		}
		if slices.Contains(seen, false) {
			t.Errorf("column %d: a level of 1..%d unused", j, l)
		}
	}
	share := float64(missing) / float64(set.N*set.P)
	if se := math.Sqrt(0.1 * 0.9 / float64(set.N*set.P)); math.Abs(share-0.1) > 4*se {
		t.Errorf("missing share %.4f, want 0.1 ± %.4f", share, 4*se)
	}
	var n, sx, sy, sxx, syy, sxy float64
	for i := range set.N {
		x, y := d.Columns[0][i], d.Columns[1][i]
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		n++
		sx, sy, sxx, syy, sxy = sx+x, sy+y, sxx+x*x, syy+y*y, sxy+x*y
	}
	r := (sxy/n - sx/n*sy/n) / math.Sqrt((sxx/n-sx/n*sx/n)*(syy/n-sy/n*sy/n))
	if math.Abs(r) > 4/math.Sqrt(n) {
		t.Errorf("correlation of columns 1 and 2 %.4f, want 0 ± %.4f", r, 4/math.Sqrt(n))
	}
}
