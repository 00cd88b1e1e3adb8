package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/copulang/copulang/hough"
)

// houghResult is one line of `copulang bench hough --json`. Levels is the
// number of levels; "--levels n" (all values distinct) reports it as n.
type houghResult struct {
	Method               string  `json:"method"`
	N                    int     `json:"n"`
	Levels               int     `json:"levels"`
	NsPerTransition      float64 `json:"ns_per_transition,omitempty"`
	BouncesPerTransition float64 `json:"bounces_per_transition,omitempty"`
	EventsPerTransition  float64 `json:"events_per_transition,omitempty"`
	Transitions          int     `json:"transitions,omitempty"`
	Rejections           int     `json:"rejections"`
	Skipped              string  `json:"skipped,omitempty"`
}

// benchHough runs `copulang bench hough`: for each method, n and number of
// levels it builds a column of n rows in equally sized levels, μ = 0,
// σ² = 0.5 (sampling.md §9), starts from sorted normal draws (feasible),
// burns in --burn-in transitions (3) and times transitions for at least
// --min-time and --min-transitions. A configuration whose predicted run time exceeds
// --max-seconds is reported as skipped with the prediction.
func benchHough(args []string, stdout io.Writer) error {
	fs := newBenchFlags("hough", stdout)
	nList := fs.String("n", "1000", "comma-separated numbers of rows")
	levelList := fs.String("levels", "5", `comma-separated numbers of levels; "n" means all values distinct`)
	methodList := fs.String("method", "kinetic", "comma-separated searches: kinetic, hough, walk (the kinetic search's walk for levels of any size)")
	minTime := fs.Duration("min-time", 500*time.Millisecond, "minimum timed duration per configuration")
	minTrans := fs.Int("min-transitions", 5, "minimum timed transitions per configuration")
	maxSeconds := fs.Float64("max-seconds", 120, "skip configurations predicted to take longer than this")
	burnIn := fs.Int("burn-in", 3, "untimed transitions before timing")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *burnIn < 0 {
		return fmt.Errorf("--burn-in: %d is negative", *burnIn)
	}
	ns, err := parseInts(*nList, "n", false)
	if err != nil {
		return err
	}
	levels, err := parseInts(*levelList, "levels", true)
	if err != nil {
		return err
	}
	var methods []hough.Search
	for _, m := range strings.Split(*methodList, ",") {
		switch strings.TrimSpace(m) {
		case "kinetic":
			methods = append(methods, hough.Kinetic)
		case "hough", "envelope":
			methods = append(methods, hough.Envelope)
		case "walk":
			methods = append(methods, hough.Walk)
		default:
			return fmt.Errorf("unknown method %q (want kinetic, hough or walk)", m)
		}
	}
	table, err := newBenchTable(stdout, fs, benchColumn{"method", 8}, benchColumn{"n", 7}, benchColumn{"levels", 6},
		benchColumn{"ms/transition", 0}, benchColumn{"bounces", 9}, benchColumn{"events", 9}, benchColumn{"transitions", 0},
		benchColumn{"rejections", 0}, benchColumn{"note", 0})
	if err != nil {
		return err
	}
	for _, m := range methods {
		for _, n := range ns {
			for _, L := range levels {
				if L <= 0 || L > n {
					L = n
				}
				r := runHoughConfig(m, n, L, *burnIn, *minTime, *minTrans, *maxSeconds, fs.seed)
				if err := table.write(r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// cells implements benchRow.
func (r houghResult) cells() []string {
	if r.Skipped != "" {
		return []string{r.Method, strconv.Itoa(r.N), strconv.Itoa(r.Levels), "-", "-", "-", "-", "-", "skipped: " + r.Skipped}
	}
	return []string{r.Method, strconv.Itoa(r.N), strconv.Itoa(r.Levels), fmt.Sprintf("%.3f", r.NsPerTransition/1e6),
		fmt.Sprintf("%.0f", r.BouncesPerTransition), fmt.Sprintf("%.0f", r.EventsPerTransition),
		strconv.Itoa(r.Transitions), strconv.Itoa(r.Rejections), ""}
}

// predictSeconds is a rough cost model of one transition, fitted to runs at
// n = 1000 and 10⁴: about 0.35·n·(L−1) bounces for few levels and 0.25·n² for
// all distinct, each costing about 0.3 µs + 0.25 µs·log₂(n/L) with the kinetic
// search and 0.3 µs + 100 ns·n/L with the envelope search.
func predictSeconds(m hough.Search, n, L int) float64 {
	fn, fl := float64(n), float64(L)
	b := math.Min(0.35*fn*(fl-1), 0.25*fn*fn)
	if m != hough.Envelope {
		return b * (0.3e-6 + 0.25e-6*math.Log2(fn/fl))
	}
	return b * (0.3e-6 + 100e-9*fn/fl)
}

func runHoughConfig(m hough.Search, n, L, burnIn int, minTime time.Duration, minTrans int, maxSeconds float64, seed uint64) houghResult {
	r := houghResult{Method: m.String(), N: n, Levels: L}
	per := predictSeconds(m, n, L)
	if total := per * float64(burnIn+minTrans); total > maxSeconds {
		r.Skipped = fmt.Sprintf("predicted %.3g s per transition, %.3g s in all > --max-seconds %g", per, total, maxSeconds)
		return r
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(i * L / n)
	}
	lv, err := hough.NewLevels(y)
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)*1000003+uint64(L)))
	sigma := math.Sqrt(0.5)
	x := make([]float64, n)
	for i := range x {
		x[i] = sigma * rng.NormFloat64()
	}
	sort.Float64s(x) // rows are in level order, so sorted draws are feasible
	mu := make([]float64, n)
	s := hough.NewSampler(lv, hough.Options{Search: m, MaxBounces: 1000*n + 1000 + n*n})
	for k := 0; k < burnIn; k++ {
		if _, err := s.Transition(rng, x, mu, sigma); err != nil {
			r.Skipped = "burn-in: " + err.Error()
			return r
		}
	}
	var bounces, events int
	start := time.Now()
	for r.Transitions < minTrans || time.Since(start) < minTime {
		st, err := s.Transition(rng, x, mu, sigma)
		if err != nil {
			r.Skipped = err.Error()
			return r
		}
		r.Transitions++
		bounces += st.Bounces
		events += st.Events
		r.Rejections += st.Rejections
	}
	el := time.Since(start)
	t := float64(r.Transitions)
	r.NsPerTransition = float64(el.Nanoseconds()) / t
	r.BouncesPerTransition = float64(bounces) / t
	r.EventsPerTransition = float64(events) / t
	return r
}

// parseInts parses a comma-separated list of positive integers; with
// allowN, the word "n" stands for 0 (all distinct).
func parseInts(s, name string, allowN bool) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if allowN && f == "n" {
			out = append(out, 0)
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v < 1 || v != math.Trunc(v) || v > math.MaxInt32 {
			return nil, fmt.Errorf("--%s: %q is not a positive integer", name, f)
		}
		out = append(out, int(v))
	}
	return out, nil
}
