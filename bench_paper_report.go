package main

// `copulang bench paper --report DIR`: reads the runs' files back and
// compares the arms with interweave, which serves as the reference: every
// comparison is made within a pair (the same setup and seed, so the same
// data, truth and start) and then summarised across pairs.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/copulang/copulang/figure"
)

// Markers delimit the report section that --doc replaces.
const (
	paperDocBegin = "<!-- begin: copulang bench paper --report -->"
	paperDocEnd   = "<!-- end: copulang bench paper --report -->"
)

// paperMinutes are the elapsed minutes of 10,000 iterations that Kalaitzis &
// Silva (2013) report on a 4-core desktop, by (p, k, levels); their table and
// figure caption disagree on the levels of (20, 5, ·), so both get its times.
var paperMinutes = map[samplersSetup]struct{ hmc, px float64 }{
	{20, 5, 5}: {115, 8},
	{20, 5, 2}: {115, 8},
	{10, 3, 2}: {80, 6},
	{10, 3, 5}: {203, 16},
}

// paperPair is one arm's run beside interweave's on the same setup and seed.
type paperPair struct {
	setup     samplersSetup
	seed      uint64
	iw, other *paperRun
	// sdRatio is the geometric mean over the entries of C of the posterior
	// sd ratio other/interweave.
	sdRatio float64
	// rmseDiff is the difference of the post-burn-in RMSE means,
	// other − interweave, and rmseSE its standard error from the two MCSEs.
	rmseDiff, rmseSE float64
	// spreadRatio is the ratio of the post-burn-in RMSE traces' standard
	// deviations, other/interweave: below 1 the other arm's RMSE draws are
	// the more concentrated, the paper's observation about PX.
	spreadRatio float64
	// reachIW and reachOther are the iterations each arm took to first
	// bring the RMSE down to the 90% quantile of interweave's post-burn-in
	// RMSE draws (0 if it never did): how soon it reached the region of
	// small error, the paper's other observation.
	reachIW, reachOther int
}

// paperExperiment is every run read from DIR/results.
type paperExperiment struct {
	runs   []*paperRun
	setups []samplersSetup // in report order: p, then levels, descending
	byKey  map[paperKey]*paperRun
}

type paperKey struct {
	setup samplersSetup
	seed  uint64
	arm   string
}

func (r *paperRun) setup() samplersSetup { return samplersSetup{P: r.P, K: r.K, Levels: r.Levels} }

// readPaperRuns reads DIR/results/*.json.
func readPaperRuns(dir string) (*paperExperiment, error) {
	files, err := filepath.Glob(filepath.Join(dir, "results", "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no runs in %s", filepath.Join(dir, "results"))
	}
	ex := &paperExperiment{byKey: map[paperKey]*paperRun{}}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r paperRun
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(r.SD) == 0 || len(r.SD) != len(r.Mean) || len(r.RMSE) != r.Iter {
			return nil, fmt.Errorf("%s: incomplete run (%d sds, %d means, %d RMSE values for %d iterations)", f, len(r.SD), len(r.Mean), len(r.RMSE), r.Iter)
		}
		ex.runs = append(ex.runs, &r)
		ex.byKey[paperKey{r.setup(), r.Seed, r.Arm}] = &r
		if !slices.Contains(ex.setups, r.setup()) {
			ex.setups = append(ex.setups, r.setup())
		}
	}
	slices.SortFunc(ex.setups, func(a, b samplersSetup) int {
		return cmp.Or(cmp.Compare(b.P, a.P), cmp.Compare(b.K, a.K), cmp.Compare(b.Levels, a.Levels))
	})
	slices.SortFunc(ex.runs, func(a, b *paperRun) int {
		return cmp.Or(slices.Index(ex.setups, a.setup())-slices.Index(ex.setups, b.setup()), cmp.Compare(a.Seed, b.Seed),
			paperArmIndex(a.Arm)-paperArmIndex(b.Arm))
	})
	return ex, nil
}

func paperArmIndex(name string) int {
	for i, a := range paperArms {
		if a.name == name {
			return i
		}
	}
	return len(paperArms)
}

// seeds returns the seeds run for setup with arm, in order.
func (ex *paperExperiment) seeds(setup samplersSetup, arm string) []uint64 {
	var out []uint64
	for _, r := range ex.runs {
		if r.setup() == setup && r.Arm == arm {
			out = append(out, r.Seed)
		}
	}
	return out
}

// pairs returns the runs of arm paired with interweave's, in run order.
func (ex *paperExperiment) pairs(arm string) ([]paperPair, error) {
	var out []paperPair
	for _, r := range ex.runs {
		if r.Arm != arm {
			continue
		}
		iw := ex.byKey[paperKey{r.setup(), r.Seed, "interweave"}]
		if iw == nil {
			continue
		}
		if !slices.Equal(iw.Truth, r.Truth) || iw.Burn != r.Burn || iw.Iter != r.Iter || iw.N != r.N {
			return nil, fmt.Errorf("%s and interweave on %d:%d:%d seed %d: different truths or settings", arm, r.P, r.K, r.Levels, r.Seed)
		}
		pr := paperPair{setup: r.setup(), seed: r.Seed, iw: iw, other: r}
		logs := 0.0
		for e := range r.SD {
			logs += math.Log(r.SD[e] / iw.SD[e])
		}
		pr.sdRatio = math.Exp(logs / float64(len(r.SD)))
		pr.rmseDiff = r.RMSEMean - iw.RMSEMean
		pr.rmseSE = math.Hypot(r.RMSEMCSE, iw.RMSEMCSE)
		pr.spreadRatio = sampleSD(r.RMSE[r.Burn:]) / sampleSD(iw.RMSE[iw.Burn:])
		post := slices.Sorted(slices.Values(iw.RMSE[iw.Burn:]))
		q90 := post[int(0.9*float64(len(post)-1))]
		pr.reachIW, pr.reachOther = firstAtMost(iw.RMSE, q90), firstAtMost(r.RMSE, q90)
		out = append(out, pr)
	}
	return out, nil
}

// firstAtMost is the 1-based index of the first value of x at most t, or 0.
func firstAtMost(x []float64, t float64) int {
	for i, v := range x {
		if v <= t {
			return i + 1
		}
	}
	return 0
}

// ratioSummary summarises positive ratios across pairs: their geometric
// mean with a t-based 95% interval computed on the log scale, and an exact
// two-sided sign test of "as many ratios below 1 as above".
type ratioSummary struct {
	n          int
	geoMean    float64
	lo, hi     float64 // NaN with fewer than 2 ratios
	below      int
	signP      float64
	meanLogRat float64
}

func summariseRatios(ratios []float64) ratioSummary {
	s := ratioSummary{n: len(ratios), lo: math.NaN(), hi: math.NaN(), geoMean: math.NaN(), signP: math.NaN()}
	if s.n == 0 {
		return s
	}
	logs := make([]float64, s.n)
	for i, r := range ratios {
		logs[i] = math.Log(r)
		if r < 1 {
			s.below++
		}
	}
	m := mean(logs)
	s.meanLogRat = m
	s.geoMean = math.Exp(m)
	if s.n > 1 {
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(s.n - 1)}.Quantile(0.975) * sampleSD(logs) / math.Sqrt(float64(s.n))
		s.lo, s.hi = math.Exp(m-half), math.Exp(m+half)
	}
	s.signP = signTestP(s.below, s.n)
	return s
}

// signTestP is the exact two-sided p-value of k successes in n fair coin
// flips: the probability of a count at least as far from n/2.
func signTestP(k, n int) float64 {
	lo := min(k, n-k)
	tail := 0.0
	for i := 0; i <= lo; i++ {
		tail += math.Exp(lgammaInt(n+1) - lgammaInt(i+1) - lgammaInt(n-i+1) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

func lgammaInt(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

// sampleSD is the standard deviation (n − 1) of x.
func sampleSD(x []float64) float64 {
	m := mean(x)
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}

func (s ratioSummary) String() string {
	if s.n == 0 {
		return "no pairs"
	}
	if s.n == 1 {
		return fmt.Sprintf("%.3f (one pair, no interval)", s.geoMean)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", s.geoMean, s.lo, s.hi)
}

// paperReport runs `copulang bench paper --report DIR [--doc FILE]`.
func paperReport(dir, doc string, stdout io.Writer) error {
	ex, err := readPaperRuns(dir)
	if err != nil {
		return err
	}
	figs, err := paperFigures(ex, dir)
	if err != nil {
		return err
	}
	md, err := ex.markdown(figs, "")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d runs read; wrote %s and %d figures\n", len(ex.runs), filepath.Join(dir, "report.md"), len(figs))
	if doc == "" {
		return nil
	}
	rel, err := filepath.Rel(filepath.Dir(doc), dir)
	if err != nil {
		return err
	}
	section, err := ex.markdown(figs, filepath.ToSlash(rel)+"/")
	if err != nil {
		return err
	}
	old, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	i, j := bytes.Index(old, []byte(paperDocBegin)), bytes.Index(old, []byte(paperDocEnd))
	if i < 0 || j < i {
		return fmt.Errorf("--doc %s: want the markers %q and %q, in that order", doc, paperDocBegin, paperDocEnd)
	}
	var b bytes.Buffer
	b.Write(old[:i+len(paperDocBegin)])
	b.WriteString("\n\n" + shiftHeadings(section) + "\n")
	b.Write(old[j:])
	if err := os.WriteFile(doc, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "replaced the report section of %s\n", doc)
	return nil
}

// shiftHeadings turns the report's "## " headings into "### " for the doc.
func shiftHeadings(md string) string {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			lines[i] = "#" + l
		}
	}
	return strings.Join(lines, "\n")
}

// paperFigure is a figure written to DIR: its file name without extension
// and its caption.
type paperFigure struct{ name, caption string }

// paperFigures writes, for each setup, the RMSE panels of its lowest seed
// run by every arm, and the scatter of per-entry posterior sds against
// interweave's over all pairs; each as SVG and PNG.
func paperFigures(ex *paperExperiment, dir string) ([]paperFigure, error) {
	var figs []paperFigure
	write := func(name, caption string, f *figure.Figure) error {
		for ext, b := range map[string][]byte{".svg": f.SVG, ".png": f.PNG} {
			if err := os.WriteFile(filepath.Join(dir, name+ext), b, 0o644); err != nil {
				return err
			}
		}
		figs = append(figs, paperFigure{name, caption})
		return nil
	}
	for _, set := range ex.setups {
		var labels []string
		var traces [][]float64
		var seed uint64
		burn := 0
		for _, s := range ex.seeds(set, paperArms[0].name) {
			labels, traces = nil, nil
			for _, a := range paperArms {
				if r := ex.byKey[paperKey{set, s, a.name}]; r != nil {
					labels = append(labels, a.name)
					traces = append(traces, r.RMSE)
					burn = r.Burn
				}
			}
			if len(labels) > 1 {
				seed = s
				break
			}
		}
		if len(labels) < 2 {
			continue
		}
		title := fmt.Sprintf("RMSE of C to the truth, (p, k, levels) = (%d, %d, %d), seed %d", set.P, set.K, set.Levels, seed)
		f, err := figure.RMSEPanels(title, labels, traces, burn)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("rmse-%d-%d-%d-seed%d", set.P, set.K, set.Levels, seed)
		caption := fmt.Sprintf("(%d, %d, %d), seed %d: RMSE of C's upper off-diagonal entries to the truth at every iteration (burn-in shaded) with the histogram of the post-burn-in values, one row per arm on a shared scale.", set.P, set.K, set.Levels, seed)
		if err := write(name, caption, f); err != nil {
			return nil, err
		}
	}
	var labels []string
	var xs, ys [][]float64
	for _, a := range paperArms[1:] {
		pairs, err := ex.pairs(a.name)
		if err != nil {
			return nil, err
		}
		if len(pairs) == 0 {
			continue
		}
		var x, y []float64
		for _, pr := range pairs {
			x = append(x, pr.iw.SD...)
			y = append(y, pr.other.SD...)
		}
		labels, xs, ys = append(labels, a.name), append(xs, x), append(ys, y)
	}
	if len(labels) > 0 {
		f, err := figure.Compare("Posterior sd of each entry of C", "sd under interweave", "sd under the arm", labels, xs, ys)
		if err != nil {
			return nil, err
		}
		if err := write("sd-vs-interweave", "Posterior sd of every entry of C under px and bfa against interweave's on the same data, all setups and seeds; below the dashed line the arm's posterior is narrower.", f); err != nil {
			return nil, err
		}
	}
	return figs, nil
}

// markdown renders the report; figures are linked with the prefix.
func (ex *paperExperiment) markdown(figs []paperFigure, prefix string) (string, error) {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	first := ex.runs[0]
	var procs []string
	for _, r := range ex.runs {
		if g := fmt.Sprint(r.GOMAXPROCS); !slices.Contains(procs, g) {
			procs = append(procs, g)
		}
	}
	w("## Runs\n\n")
	w("n = %d rows, %d iterations per run of which %d burn-in, one chain per run; interweave's exact-HMC travel time T = π/2. "+
		"Each process ran with GOMAXPROCS = %s. Seeds finished per setup and arm:\n\n", first.N, first.Iter, first.Burn, orList(procs))
	w("| (p, k, levels) |")
	for _, a := range paperArms {
		w(" %s |", a.name)
	}
	w("\n|---|")
	for range paperArms {
		w("---|")
	}
	w("\n")
	for _, set := range ex.setups {
		w("| (%d, %d, %d) |", set.P, set.K, set.Levels)
		for _, a := range paperArms {
			s := ex.seeds(set, a.name)
			w(" %d (%s) |", len(s), seedList(s))
		}
		w("\n")
	}

	w("\n## Elapsed time and ESS per second\n\n")
	w("Mean over seeds (range in brackets) of the minutes per run of %d iterations, beside the paper's minutes for 10,000 iterations "+
		"on a 4-core desktop; min and median over the entries of C of bulk ESS per second (mean over seeds).\n\n", first.Iter)
	w("| (p, k, levels) | arm | runs | minutes | paper (HMC / PX) | min ESS/s | median ESS/s |\n|---|---|---|---|---|---|---|\n")
	for _, set := range ex.setups {
		pm, hasPaper := paperMinutes[set]
		for _, a := range paperArms {
			var mins, minESS, medESS []float64
			for _, r := range ex.runs {
				if r.setup() == set && r.Arm == a.name {
					mins = append(mins, r.ElapsedSeconds/60)
					minESS = append(minESS, r.MinESSPerSec)
					medESS = append(medESS, r.MedianESSPerSec)
				}
			}
			if len(mins) == 0 {
				continue
			}
			paper := "–"
			if hasPaper {
				paper = fmt.Sprintf("%.0f", pm.px)
				if a.name == "interweave" {
					paper = fmt.Sprintf("%.0f", pm.hmc)
				}
			}
			w("| (%d, %d, %d) | %s | %d | %.2f [%.2f, %.2f] | %s | %.1f | %.1f |\n", set.P, set.K, set.Levels, a.name, len(mins),
				mean(mins), slices.Min(mins), slices.Max(mins), paper, mean(minESS), mean(medESS))
		}
	}

	if err := ex.perSeed(w); err != nil {
		return "", err
	}
	for _, a := range paperArms[1:] {
		pairs, err := ex.pairs(a.name)
		if err != nil {
			return "", err
		}
		if len(pairs) == 0 {
			continue
		}
		w("\n## %s against interweave\n\n", a.name)
		if a.bfaDefect {
			w("bfa is PX with the R package bfa's defect planted (the scale move does not rescale Z): not a correct sampler.\n\n")
		}
		w("Per pair (same setup and seed, hence the same data, truth and start): the geometric mean over the entries of C of "+
			"the posterior sd ratio %[1]s/interweave; the ratio of the standard deviations of the post-burn-in RMSE traces "+
			"(below 1: %[1]s's RMSE draws are more concentrated, the paper's observation about PX); and the difference of the "+
			"post-burn-in RMSE means %[1]s − interweave with its standard error from the two traces' ESS-based MCSEs. \"Reach\" is the iteration "+
			"at which each arm's RMSE first fell to the 90%% quantile of interweave's post-burn-in RMSE draws (the region of small error), in iterations and in seconds at the run's mean time per iteration.\n\n", a.name)
		w("| (p, k, levels) | pairs | sd ratio: geometric mean [95%% CI] | smaller sd | sign p | RMSE spread ratio [95%% CI] | smaller spread | sign p | reach, median: interweave / %s |\n|---|---|---|---|---|---|---|---|---|\n", a.name)
		groups := append(slices.Clone(ex.setups), samplersSetup{})
		for _, set := range groups {
			var sd, spread, reachIW, reachOther []float64
			for _, pr := range pairs {
				if set == (samplersSetup{}) || pr.setup == set {
					sd = append(sd, pr.sdRatio)
					spread = append(spread, pr.spreadRatio)
					reachIW = append(reachIW, float64(pr.reachIW))
					reachOther = append(reachOther, float64(pr.reachOther))
				}
			}
			slices.Sort(reachIW)
			slices.Sort(reachOther)
			if len(sd) == 0 {
				continue
			}
			name := fmt.Sprintf("(%d, %d, %d)", set.P, set.K, set.Levels)
			if set == (samplersSetup{}) {
				name = "**pooled**"
			}
			s, t := summariseRatios(sd), summariseRatios(spread)
			w("| %s | %d | %s | %d/%d | %.2g | %s | %d/%d | %.2g | %g / %g |\n", name, s.n, s, s.below, s.n, s.signP, t, t.below, t.n, t.signP,
				median(reachIW), median(reachOther))
		}
		w("\nPer pair:\n\n| (p, k, levels) | seed | sd ratio | RMSE spread ratio | RMSE mean interweave | RMSE mean %s | difference ± SE | z | reach: interweave / %[1]s | reach, seconds: interweave / %[1]s |\n|---|---|---|---|---|---|---|---|---|---|\n", a.name)
		higher, lower := 0, 0
		for _, pr := range pairs {
			z := pr.rmseDiff / pr.rmseSE
			if z > 2 {
				higher++
			} else if z < -2 {
				lower++
			}
			w("| (%d, %d, %d) | %d | %.3f | %.3f | %.4f ± %.4f | %.4f ± %.4f | %+.4f ± %.4f | %+.1f | %d / %d | %.2g / %.2g |\n", pr.setup.P, pr.setup.K, pr.setup.Levels, pr.seed,
				pr.sdRatio, pr.spreadRatio, pr.iw.RMSEMean, pr.iw.RMSEMCSE, pr.other.RMSEMean, pr.other.RMSEMCSE, pr.rmseDiff, pr.rmseSE, z, pr.reachIW, pr.reachOther,
				float64(pr.reachIW)*pr.iw.ElapsedSeconds/float64(pr.iw.Iter), float64(pr.reachOther)*pr.other.ElapsedSeconds/float64(pr.other.Iter))
		}
		w("\nThe post-burn-in mean RMSE of %s is more than 2 standard errors above interweave's in %d of %d pairs and more than 2 below in %d.\n",
			a.name, higher, len(pairs), lower)
	}

	if len(figs) > 0 {
		w("\n## Figures\n\n")
		for _, f := range figs {
			w("![%s](%s%s.svg)\n\n*%s*\n\n", f.name, prefix, f.name, f.caption)
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}

// perSeed writes the table of every setup and seed: each arm's minutes and
// post-burn-in mean RMSE, and the sd ratios of px and bfa to interweave.
func (ex *paperExperiment) perSeed(w func(string, ...any)) error {
	ratios := map[paperKey]float64{}
	for _, a := range paperArms[1:] {
		pairs, err := ex.pairs(a.name)
		if err != nil {
			return err
		}
		for _, pr := range pairs {
			ratios[paperKey{pr.setup, pr.seed, a.name}] = pr.sdRatio
		}
	}
	w("\n## Per seed\n\nMinutes per run, post-burn-in mean RMSE of C to the truth, and the geometric mean over the entries of C of " +
		"the posterior sd ratio to interweave on the same data (– where the run did not finish).\n\n")
	w("| (p, k, levels) | seed | minutes: interweave / px / bfa | RMSE: interweave / px / bfa | sd ratio px/iw | sd ratio bfa/iw |\n|---|---|---|---|---|---|\n")
	for _, set := range ex.setups {
		var seeds []uint64
		for _, r := range ex.runs {
			if r.setup() == set && !slices.Contains(seeds, r.Seed) {
				seeds = append(seeds, r.Seed)
			}
		}
		for _, seed := range seeds {
			var mins, rmse []string
			for _, a := range paperArms {
				if r := ex.byKey[paperKey{set, seed, a.name}]; r != nil {
					mins = append(mins, fmt.Sprintf("%.2f", r.ElapsedSeconds/60))
					rmse = append(rmse, fmt.Sprintf("%.4f", r.RMSEMean))
				} else {
					mins, rmse = append(mins, "–"), append(rmse, "–")
				}
			}
			ratio := func(arm string) string {
				if v, ok := ratios[paperKey{set, seed, arm}]; ok {
					return fmt.Sprintf("%.3f", v)
				}
				return "–"
			}
			w("| (%d, %d, %d) | %d | %s | %s | %s | %s |\n", set.P, set.K, set.Levels, seed, strings.Join(mins, " / "), strings.Join(rmse, " / "),
				ratio("px"), ratio("bfa"))
		}
	}
	return nil
}

// seedList writes seeds as "1–5" when consecutive, else "1, 2, 4".
func seedList(seeds []uint64) string {
	if len(seeds) == 0 {
		return "none"
	}
	if seeds[len(seeds)-1]-seeds[0] == uint64(len(seeds)-1) {
		if len(seeds) == 1 {
			return fmt.Sprintf("seed %d", seeds[0])
		}
		return fmt.Sprintf("seeds %d–%d", seeds[0], seeds[len(seeds)-1])
	}
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return "seeds " + strings.Join(parts, ", ")
}
