package figure

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// plotFixture holds inputs shared by the plot tests, made from fixed seeds.
type plotFixture struct {
	chains  [][]float64 // 4 chains × 1000 draws of an AR(1) process
	labels8 []string
	corr8   []float64 // an 8×8 correlation-like matrix
	names   []string
	draws   [][]float64 // 4 quantities × 2000 draws, correlated
	y, z    []float64   // 3000 rows: ordinal y cut from latent z, some missing
}

func newPlotFixture() *plotFixture {
	rng := rand.New(rand.NewPCG(11, 12))
	f := &plotFixture{}
	f.chains = make([][]float64, 4)
	for m := range f.chains {
		f.chains[m] = make([]float64, 1000)
		v := 0.0
		for i := range f.chains[m] {
			v = 0.9*v + 0.1*rng.NormFloat64()
			f.chains[m][i] = 0.3 + v
		}
	}
	p := 8
	f.labels8 = make([]string, p)
	f.corr8 = make([]float64, p*p)
	for i := range p {
		f.labels8[i] = fmt.Sprintf("Q%d", i+1)
		for j := range p {
			f.corr8[i*p+j] = math.Pow(-0.7, math.Abs(float64(i-j)))
		}
	}
	f.names = []string{"a", "b", "c", "d"}
	f.draws = make([][]float64, 4)
	for k := range f.draws {
		f.draws[k] = make([]float64, 2000)
	}
	for i := range 2000 {
		common := rng.NormFloat64()
		for k := range f.draws {
			f.draws[k][i] = common + float64(k)*rng.NormFloat64()
		}
	}
	f.y = make([]float64, 3000)
	f.z = make([]float64, 3000)
	for i := range f.y {
		f.z[i] = rng.NormFloat64()
		switch {
		case i%50 == 0:
			f.y[i] = math.NaN()
		case f.z[i] < -0.5:
			f.y[i] = 1
		case f.z[i] < 0.5:
			f.y[i] = 2
		default:
			f.y[i] = 3
		}
	}
	return f
}

// figureCase is one call of a plot function.
type figureCase struct {
	name    string
	title   string
	make    func() (*Figure, error)
	wantErr string // non-empty: the call must fail with an error containing it
	width   int    // expected width in pixels (0: the default 640)
	height  int
	text    string // a substring the text description must contain
}

func figureCases(fx *plotFixture) []figureCase {
	nan, inf := math.NaN(), math.Inf(1)
	withBad := [][]float64{{1, nan, 3, 4, inf, 2}, {2, 2, -inf, 1, 0, 1}}
	constant := [][]float64{{0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}}
	single := [][]float64{{0.25}}
	allNaN := [][]float64{{nan, nan}, {nan, nan}}
	long := [][]float64{make([]float64, 100000)}
	for i := range long[0] {
		long[0][i] = math.Sin(float64(i) / 1000)
	}
	series := map[string][]float64{"gibbs": make([]float64, 500), "hmc": make([]float64, 400)}
	for i := range 500 {
		series["gibbs"][i] = 0.01 + math.Exp(-float64(i)/50)
		if i < 400 {
			series["hmc"][i] = 0.01 + math.Exp(-float64(i)/30)
		}
	}
	flat := map[string][]float64{"x": {0.2, 0.1, nan, 0.1, 0}}
	corrNaN := []float64{1, nan, nan, 1}
	big := make([]float64, 60*60)
	for i := range 60 {
		for j := range 60 {
			big[i*60+j] = math.Cos(float64(i-j) / 7)
		}
	}
	bigLabels := make([]string, 60)

	return []figureCase{
		{name: "trace", title: "C[1, 2]", make: func() (*Figure, error) { return Trace("C[1, 2]", fx.chains, 500) },
			text: "4 chains × 1000 draws (first 500 warmup)"},
		{name: "trace no warmup", title: "x", make: func() (*Figure, error) { return Trace("x", fx.chains[:1], 0) },
			text: "1 chain × 1000 draws, values in"},
		{name: "trace warmup beyond draws", title: "x", make: func() (*Figure, error) { return Trace("x", constant, 10) }},
		{name: "trace non-finite", title: "t", make: func() (*Figure, error) { return Trace("t", withBad, 2) },
			text: "3 non-finite values not drawn"},
		{name: "trace constant", title: "c", make: func() (*Figure, error) { return Trace("c", constant, 0) }},
		{name: "trace single draw", title: "s", make: func() (*Figure, error) { return Trace("s", single, 0) }},
		{name: "trace all NaN", title: "n", make: func() (*Figure, error) { return Trace("n", allNaN, 0) }},
		{name: "trace long chain", title: "long", make: func() (*Figure, error) { return Trace("long", long, 0) }},
		{name: "trace escaped title", title: `a<b & "c"`, make: func() (*Figure, error) { return Trace(`a<b & "c"`, single, 0) }},
		{name: "trace control characters in title", title: "", make: func() (*Figure, error) { return Trace("a\x01b\xff\uFFFE", single, 0) },
			text: `"a\x01b\xff\ufffe"`}, // %q in the text; the SVG must still parse
		{name: "trace thinned", title: "x", make: func() (*Figure, error) { return TraceThinned("x", fx.chains, 100, 5, math.NaN()) },
			text: "4 chains × 1000 draws (every 5th iteration) (first 100 warmup)"},
		{name: "trace truth", title: "x", make: func() (*Figure, error) { return TraceThinned("x", fx.chains, 100, 1, 0.3) },
			text: "(first 100 warmup), values in [-0.5127, 1.123], truth 0.3"},
		{name: "trace truth outside", title: "x", make: func() (*Figure, error) { return TraceThinned("x", fx.chains[:1], 0, 1, 5) },
			text: "truth 5"},
		{name: "trace thin 0", make: func() (*Figure, error) { return TraceThinned("x", fx.chains, 0, 0, math.NaN()) }, wantErr: "thin 0"},
		{name: "trace no chains", make: func() (*Figure, error) { return Trace("x", nil, 0) }, wantErr: "no chains"},
		{name: "trace empty chain", make: func() (*Figure, error) { return Trace("x", [][]float64{{}}, 0) }, wantErr: "no draws"},
		{name: "trace ragged", make: func() (*Figure, error) { return Trace("x", [][]float64{{1, 2}, {1}}, 0) },
			wantErr: "chain 2 has 1 draws but chain 1 has 2"},
		{name: "trace negative warmup", make: func() (*Figure, error) { return Trace("x", single, -1) }, wantErr: "negative warmup"},

		{name: "hist", title: "C[1, 2]", make: func() (*Figure, error) { return Histogram("C[1, 2]", fx.chains, 0.3) }, text: "truth 0.3"},
		{name: "hist truth outside", title: "h", make: func() (*Figure, error) { return Histogram("h", fx.chains[:1], 5) },
			text: "1 chain × 1000 draws"},
		{name: "hist non-finite", title: "h", make: func() (*Figure, error) { return Histogram("h", withBad, nan) }},
		{name: "hist constant", title: "h", make: func() (*Figure, error) { return Histogram("h", constant, 0.5) }},
		{name: "hist single", title: "h", make: func() (*Figure, error) { return Histogram("h", single, nan) }},
		{name: "hist all NaN", title: "h", make: func() (*Figure, error) { return Histogram("h", allNaN, inf) }},
		{name: "hist ragged", make: func() (*Figure, error) { return Histogram("x", [][]float64{{1}, {1, 2}}, 0) }, wantErr: "chain 2"},
		{name: "hist empty", make: func() (*Figure, error) { return Histogram("x", [][]float64{}, 0) }, wantErr: "no chains"},

		{name: "acf", title: "C[1, 2]", make: func() (*Figure, error) { return ACF("C[1, 2]", fx.chains, 30) }, text: "lags 0..30"},
		{name: "acf default lags", title: "a", make: func() (*Figure, error) { return ACF("a", fx.chains, 0) }, text: "lags 0..40"},
		{name: "acf lags capped", title: "a", make: func() (*Figure, error) { return ACF("a", withBad[1:], 100) },
			text: "not drawn: chain 1 (non-finite draws)"},
		{name: "acf constant", title: "a", make: func() (*Figure, error) { return ACF("a", constant, 5) }, text: "chain 2 (constant)"},
		{name: "acf single", title: "a", make: func() (*Figure, error) { return ACF("a", single, 5) }, text: "lags 0..0"},
		{name: "acf ragged", make: func() (*Figure, error) { return ACF("a", [][]float64{{1, 2}, {}}, 5) }, wantErr: "chain 2"},

		{name: "rank", title: "C[1, 2]", make: func() (*Figure, error) { return Rank("C[1, 2]", fx.chains, 0) },
			text: "4 chains × 1000 draws ranked together, 20 bins; farthest from the expected 50 per bin: chain "},
		{name: "rank bins", title: "r", make: func() (*Figure, error) { return Rank("r", fx.chains, 7) }, text: "7 bins"},
		{name: "rank one chain", title: "r", make: func() (*Figure, error) { return Rank("r", fx.chains[:1], 0) },
			text: "uniform by construction"},
		{name: "rank short", title: "r", make: func() (*Figure, error) { return Rank("r", withBad, 0) },
			text: "6 draws ranked together, 2 bins; farthest from the expected 3 per bin: chain 1 with 1 in ranks 1–6; with fewer than 20 draws per chain it says little; NaN draws not ranked: 1"},
		{name: "rank constant", title: "r", make: func() (*Figure, error) {
			c := make([]float64, 100)
			for i := range c {
				c[i] = 0.5
			}
			return Rank("r", [][]float64{c, c}, 4)
		}, text: "every draw is the same value"},
		{name: "rank apart", title: "r", make: func() (*Figure, error) {
			a, b := make([]float64, 100), make([]float64, 100)
			for i := range a {
				a[i], b[i] = float64(i), float64(100+i)
			}
			return Rank("r", [][]float64{a, b}, 4)
		}, text: "farthest from the expected 25 per bin: chain 1 with 50 in ranks 1–50; for independent draws from one distribution a chain's count falls in ["},
		{name: "rank all NaN", title: "r", make: func() (*Figure, error) { return Rank("r", allNaN, 0) }, text: "not ranked: 4"},
		{name: "rank ragged", make: func() (*Figure, error) { return Rank("r", [][]float64{{1}, {1, 2}}, 0) }, wantErr: "chain 2"},

		{name: "heatmap", title: "posterior mean of C", width: heatmapWidth, height: heatmapHeight,
			make: func() (*Figure, error) { return Heatmap("posterior mean of C", fx.labels8, fx.corr8) },
			text: "largest off-diagonal |value| 0.7 at [Q1, Q2]"},
		{name: "heatmap 1×1", title: "one", width: heatmapWidth, height: heatmapHeight,
			make: func() (*Figure, error) { return Heatmap("one", []string{"x"}, []float64{1}) }},
		{name: "heatmap NaN and out of range", title: "odd", width: heatmapWidth, height: heatmapHeight,
			make: func() (*Figure, error) { return Heatmap("odd", []string{"a", "b"}, corrNaN) }, text: "2 NaN cells"},
		{name: "heatmap clamps", title: "clamp", width: heatmapWidth, height: heatmapHeight,
			make: func() (*Figure, error) { return Heatmap("clamp", []string{"a", "b"}, []float64{inf, -3, 2, -inf}) }},
		{name: "heatmap large unlabelled", title: "big", width: heatmapWidth, height: heatmapHeight,
			make: func() (*Figure, error) { return Heatmap("big", bigLabels, big) }, text: "|value| 1 at [1, 23]"}, // cos(22/7) ≈ −1,
		{name: "heatmap no labels", make: func() (*Figure, error) { return Heatmap("x", nil, nil) }, wantErr: "no labels"},
		{name: "heatmap wrong size", make: func() (*Figure, error) { return Heatmap("x", []string{"a", "b"}, []float64{1, 0, 1}) },
			wantErr: "need a 2×2 matrix of 4 values, got 3"},

		{name: "rmse", title: "RMSE of C", make: func() (*Figure, error) { return RMSE("RMSE of C", series, 100) }, text: "log scale"},
		{name: "rmse linear with zero and NaN", title: "r", make: func() (*Figure, error) { return RMSE("r", flat, 0) },
			text: "x final 0"},
		{name: "rmse thinned", title: "r", make: func() (*Figure, error) { return RMSEThinned("r", series, 100, 3) },
			text: "2 series over 1500 iterations (a draw every 3rd) (first 300 warmup)"},
		{name: "rmse one iteration", title: "r", make: func() (*Figure, error) { return RMSE("r", map[string][]float64{"m": {0.3}}, 0) },
			text: "1 series over 1 iteration;"},
		{name: "rmse long label", title: "r", make: func() (*Figure, error) {
			return RMSE("r", map[string][]float64{strings.Repeat("very long label ", 40): {1, 2}}, 0)
		}},
		{name: "rmse empty", make: func() (*Figure, error) { return RMSE("r", nil, 0) }, wantErr: "no series"},
		{name: "rmse empty series", make: func() (*Figure, error) { return RMSE("r", map[string][]float64{"a": nil}, 0) },
			wantErr: `series "a" is empty`},

		{name: "rmse panels", title: "10:3:2 seed 1", width: 760, height: 3*170 + 40, make: func() (*Figure, error) {
			return RMSEPanels("10:3:2 seed 1", []string{"interweave", "px", "bfa"}, fx.chains[:3], 100)
		}, text: "3 traces over 1000 iterations (first 100 burn-in); after burn-in interweave mean"},
		{name: "rmse panels constant and NaN", title: "r", width: 760, height: 2*170 + 40, make: func() (*Figure, error) {
			return RMSEPanels("r", []string{"a", "b"}, [][]float64{{1, 1, 1}, {nan, nan, 2}}, 1)
		}, text: "a mean 1 sd 0 range [1, 1], b mean 2"},
		{name: "rmse panels short", make: func() (*Figure, error) { return RMSEPanels("r", []string{"a"}, [][]float64{{1, 2}}, 2) },
			wantErr: `trace "a" has 2 values, want more than the burn-in 2`},
		{name: "rmse panels mismatched", make: func() (*Figure, error) { return RMSEPanels("r", []string{"a"}, nil, 0) },
			wantErr: "1 labels but 0 traces"},
		{name: "compare", title: "sd of C", width: 560, make: func() (*Figure, error) {
			return Compare("sd of C", "interweave", "px", []string{"px", "bfa"},
				[][]float64{{0.1, 0.2, 0.3}, {0.1, 0.2}}, [][]float64{{0.09, 0.21, 0.3}, {0.2, nan}})
		}, text: "px: 3 points, 1 below y = x, geometric mean y/x 0.9813; bfa: 1 points, 0 below y = x, geometric mean y/x 2; 1 non-finite"},
		{name: "compare log", title: "c", width: 560, make: func() (*Figure, error) {
			return Compare("c", "x", "y", []string{"s"}, [][]float64{{0.01, 1}}, [][]float64{{0.02, 0.5}})
		}, text: "s: 2 points, 1 below y = x, geometric mean y/x 1; log scales"},
		{name: "compare mismatched", make: func() (*Figure, error) {
			return Compare("c", "x", "y", []string{"s"}, [][]float64{{1}}, [][]float64{{}})
		}, wantErr: `series "s" has 1 x values but 0 y values`},

		{name: "pairs", title: "pairs of C", width: 610, height: 610,
			make: func() (*Figure, error) { return Pairs("pairs of C", fx.names, fx.draws) }, text: "strongest correlation"},
		{name: "pairs one", title: "p", width: 400, height: 400,
			make: func() (*Figure, error) { return Pairs("p", []string{"a"}, [][]float64{{1, 2, 3}}) }},
		{name: "pairs non-finite and constant", title: "p", width: 400, height: 400,
			make: func() (*Figure, error) {
				return Pairs("p", []string{"a", "b"}, [][]float64{{1, 1, 1}, {nan, inf, 2}})
			}},
		{name: "pairs too many", make: func() (*Figure, error) {
			return Pairs("p", make([]string, 7), make([][]float64, 7))
		}, wantErr: "7 quantities, at most 6"},
		{name: "pairs mismatched names", make: func() (*Figure, error) { return Pairs("p", []string{"a"}, nil) }, wantErr: "1 names but 0"},
		{name: "pairs ragged", make: func() (*Figure, error) {
			return Pairs("p", []string{"a", "b"}, [][]float64{{1, 2}, {1}})
		}, wantErr: "b has 1 draws but a has 2"},
		{name: "pairs none", make: func() (*Figure, error) { return Pairs("p", nil, nil) }, wantErr: "no quantities"},

		{name: "latent", title: "latent z", make: func() (*Figure, error) { return Latent("latent z", fx.y, fx.z) },
			text: "3000 rows, 3 levels, 60 missing; z respects the order of y"},
		{name: "latent overlap", title: "z", make: func() (*Figure, error) {
			return Latent("z", []float64{1, 1, 2, 2}, []float64{0, 1, 0.5, 2})
		}, text: "z overlaps between levels 1/2"},
		{name: "latent non-finite", title: "z", make: func() (*Figure, error) {
			return Latent("z", []float64{1, nan, 2}, []float64{nan, inf, 0})
		}, text: "2 non-finite values not drawn"},
		{name: "latent mismatched", make: func() (*Figure, error) { return Latent("z", []float64{1}, nil) },
			wantErr: "1 ordinal values but 0 latent values"},

		{name: "intervals", title: "check of m", make: func() (*Figure, error) {
			return Intervals("check of m", "", "Spearman's rho", []string{"A–B", "A–C", "B–C"},
				[]float64{0.5, 0.1, -0.4}, []float64{0.45, 0.3, -0.35}, []float64{0.4, 0.25, -0.45}, []float64{0.55, 0.35, -0.3}, []bool{false, true, false})
		}, text: "3 items, 1 observed outside their replicated 90% interval, 1 flagged"},
		{name: "intervals many and non-finite", title: "i", width: 1600, make: func() (*Figure, error) {
			n := 190
			labels, obs, lo, hi := make([]string, n), make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range n {
				obs[i], lo[i], hi[i] = math.Sin(float64(i)), math.Sin(float64(i))-0.1, math.Sin(float64(i))+0.1
			}
			obs[3] = nan
			return Intervals("i", "", "", labels, obs, obs, lo, hi, make([]bool, n))
		}, text: "1 non-finite values not drawn"},
		{name: "intervals empty", make: func() (*Figure, error) { return Intervals("i", "", "", nil, nil, nil, nil, nil, nil) }, wantErr: "no items"},
		{name: "intervals mismatched", make: func() (*Figure, error) {
			return Intervals("i", "", "", []string{"a"}, []float64{1}, []float64{1}, []float64{1}, nil, []bool{false})
		}, wantErr: "1 labels but 0 hi values"},

		{name: "posterior intervals", title: "posterior of m.C", make: func() (*Figure, error) {
			// Items 1 and 2 lie above and below 0; item 3 straddles it, and
			// its truth, 2, lies outside its 90% interval.
			draws := [][][]float64{{ramp(100, 0.2, 0.6), ramp(100, 0.3, 0.5)}, {ramp(100, -0.9, -0.5), ramp(100, -0.8, -0.6)}, {ramp(100, -0.3, 0.3), ramp(100, -0.2, 0.2)}}
			return PosteriorIntervals("posterior of m.C", "entry of C", []string{"C[a, b]", "C[a, c]", "C[b, c]"}, draws, []float64{0.4, nan, 2})
		}, text: "3 items, median and central 50% and 90% intervals; 1 with the 90% interval above 0, 1 below; 1 of 2 true values outside their 90% interval"},
		{name: "posterior intervals many, one empty", title: "d", width: 1600, make: func() (*Figure, error) {
			n := 190
			labels, draws := make([]string, n), make([][][]float64, n)
			for i := range n {
				draws[i] = [][]float64{ramp(20, math.Sin(float64(i)), math.Sin(float64(i))+0.2)}
			}
			draws[5] = [][]float64{{nan, inf}} // sin(i) + 0.01 > 0 for 97 of the others, sin(i) + 0.19 < 0 for 83
			return PosteriorIntervals("d", "difference", labels, draws, nil)
		}, text: "190 items, median and central 50% and 90% intervals; 97 with the 90% interval above 0, 83 below; 1 item with no finite draw left out"},
		{name: "graph", title: "graph of m.partial", width: graphWidth, height: graphHeight, make: func() (*Figure, error) {
			// a–b positive, a–c negative, b–c straddles 0: two edges of three.
			return Graph("graph of m.partial", "partial correlation", []string{"a", "b", "c"}, []GraphPair{
				{I: 0, J: 1, Mean: 0.4, Lo: 0.2, Hi: 0.6, Truth: nan},
				{I: 0, J: 2, Mean: -0.3, Lo: -0.5, Hi: -0.1, Truth: nan},
				{I: 1, J: 2, Mean: 0.05, Lo: -0.1, Hi: 0.2, Truth: nan},
			}, 0.9)
		}, text: `Graph of m.partial: 3 nodes, 2 of 3 pairs are edges (their central 90% interval excludes 0), 1 positive and 1 negative; strongest a–b 0.40`},
		{name: "graph with truth", title: "g", width: graphWidth, height: graphHeight, make: func() (*Figure, error) {
			// a–b found, a–c drawn where the truth is 0, b–c missed, c–d
			// rightly left out.
			return Graph("g", "entry of C", []string{"a", "b", "c", "d"}, []GraphPair{
				{I: 0, J: 1, Mean: 0.4, Lo: 0.2, Hi: 0.6, Truth: 0.5},
				{I: 0, J: 2, Mean: -0.3, Lo: -0.5, Hi: -0.1, Truth: 1e-12},
				{I: 1, J: 2, Mean: 0.05, Lo: -0.1, Hi: 0.2, Truth: 0.1},
				{I: 2, J: 3, Mean: 0.05, Lo: -0.1, Hi: 0.2, Truth: 0},
			}, 0.95)
		}, text: "2 of 4 pairs are edges (their central 95% interval excludes 0), 1 positive and 1 negative; strongest a–b 0.40; 2 true edges (truth not 0): 1 drawn, 1 missed; 1 drawn where the truth is 0"},
		{name: "graph one node", title: "one", width: graphWidth, height: graphHeight, make: func() (*Figure, error) {
			return Graph("one", "partial correlation", []string{"x"}, nil, 0.9)
		}, text: "1 node, 0 of 0 pairs are edges"},
		{name: "graph non-finite", title: "g", width: graphWidth, height: graphHeight, make: func() (*Figure, error) {
			return Graph("g", "difference", []string{"a", "b", "c"}, []GraphPair{
				{I: 0, J: 1, Mean: nan, Lo: 0.2, Hi: 0.6, Truth: nan},
				{I: 0, J: 2, Mean: -0.3, Lo: -inf, Hi: -0.1, Truth: nan},
				{I: 1, J: 2, Mean: 2, Lo: 1.5, Hi: 2.5, Truth: inf},
			}, 0.5)
		}, text: "1 of 3 pairs is an edge (its central 50% interval excludes 0), 1 positive and 0 negative; strongest b–c 2.00; 2 pairs with non-finite values not drawn"},
		{name: "graph one edge", title: "g", width: graphWidth, height: graphHeight, make: func() (*Figure, error) {
			return Graph("g", "partial correlation", []string{"a", "b"}, []GraphPair{{I: 1, J: 0, Mean: -0.5, Lo: -0.6, Hi: -0.4, Truth: nan}}, 0.9)
		}, text: "2 nodes, 1 of 1 pair is an edge (its central 90% interval excludes 0), 0 positive and 1 negative; strongest a–b -0.50"},
		{name: "graph numbered past 50", title: "big", width: graphWidth, height: graphHeight, make: func() (*Figure, error) {
			p := 120
			nodes := make([]string, p)
			var pairs []GraphPair
			for i := range p {
				nodes[i] = fmt.Sprintf("item%d", i+1)
				m := 0.3 * math.Sin(float64(i))
				pairs = append(pairs, GraphPair{I: i, J: (i + 1) % p, Mean: m, Lo: m - 0.1, Hi: m + 0.1, Truth: nan})
			}
			return Graph("big", "partial correlation", nodes, pairs, 0.9)
		}, text: "120 nodes"},
		{name: "graph no nodes", make: func() (*Figure, error) { return Graph("g", "", nil, nil, 0.9) }, wantErr: "no nodes"},
		{name: "graph pair out of range", make: func() (*Figure, error) {
			return Graph("g", "", []string{"a", "b"}, []GraphPair{{I: 0, J: 2}}, 0.9)
		}, wantErr: "pair (1, 3) is not two of the 2 nodes"},
		{name: "graph pair twice", make: func() (*Figure, error) {
			return Graph("g", "", []string{"a", "b"}, []GraphPair{{I: 0, J: 1}, {I: 1, J: 0}}, 0.9)
		}, wantErr: "pair (1, 2) given twice"},
		{name: "posterior intervals empty", make: func() (*Figure, error) { return PosteriorIntervals("i", "", nil, nil, nil) }, wantErr: "no items"},
		{name: "posterior intervals mismatched", make: func() (*Figure, error) {
			return PosteriorIntervals("i", "", []string{"a", "b"}, [][][]float64{{{1}}}, nil)
		}, wantErr: "2 labels but 1 draws"},
		{name: "posterior intervals ragged chains", make: func() (*Figure, error) {
			return PosteriorIntervals("i", "", []string{"a"}, [][][]float64{{{1, 2}, {1}}}, nil)
		}, wantErr: "a: "},
	}
}

// ramp is n draws evenly spaced from lo to hi.
func ramp(n int, lo, hi float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return out
}

// TestPlots renders every case and checks the PNG (decodes, declared
// size, within the size budget), the SVG (well-formed XML with the title)
// and the text fallback, or the error of an invalid input.
func TestPlots(t *testing.T) {
	fx := newPlotFixture()
	for _, tc := range figureCases(fx) {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.make()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w, h := tc.width, tc.height
			if w == 0 {
				w = defaultWidth
			}
			if h == 0 {
				h = defaultHeight
			}
			checkFigure(t, f, tc.title, w, h)
			if !strings.Contains(f.Text, tc.text) {
				t.Errorf("text %q does not contain %q", f.Text, tc.text)
			}
		})
	}
}

// checkFigure checks the invariants every figure must satisfy.
func checkFigure(t *testing.T, f *Figure, title string, w, h int) {
	t.Helper()
	if f.Width != w || f.Height != h {
		t.Errorf("declared size %d×%d, want %d×%d", f.Width, f.Height, w, h)
	}
	img, err := png.Decode(bytes.NewReader(f.PNG))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if b := img.Bounds(); b.Dx() != f.Width || b.Dy() != f.Height {
		t.Errorf("PNG is %d×%d, declared %d×%d", b.Dx(), b.Dy(), f.Width, f.Height)
	}
	if len(f.PNG) > 100<<10 {
		t.Errorf("PNG is %d bytes, budget 100 KiB", len(f.PNG))
	}
	dec := xml.NewDecoder(bytes.NewReader(f.SVG))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("SVG root element %q, want svg", root)
	}
	if title != "" && !bytes.Contains(f.SVG, []byte(html.EscapeString(title))) {
		t.Errorf("SVG does not contain the title %q", title)
	}
	if strings.TrimSpace(f.Text) == "" || strings.Contains(f.Text, "\n") {
		t.Errorf("text fallback %q is not one non-empty line", f.Text)
	}
}

// TestPlotsDeterministic renders each valid case twice: the same input
// gives the same bytes.
func TestPlotsDeterministic(t *testing.T) {
	fx := newPlotFixture()
	for _, tc := range figureCases(fx) {
		if tc.wantErr != "" {
			continue
		}
		a, errA := tc.make()
		b, errB := tc.make()
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", tc.name, errA, errB)
		}
		if !bytes.Equal(a.SVG, b.SVG) {
			t.Errorf("%s: SVG differs between two renderings", tc.name)
		}
		if !bytes.Equal(a.PNG, b.PNG) {
			t.Errorf("%s: PNG differs between two renderings", tc.name)
		}
	}
}

func TestSegments(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name      string
		y         []float64
		maxPoints int
		want      []plotter.XYs
	}{
		{"short", []float64{3, 1, 2}, 10, []plotter.XYs{{{X: 1, Y: 3}, {X: 2, Y: 1}, {X: 3, Y: 2}}}},
		{"break at NaN", []float64{1, nan, 2, 3}, 10, []plotter.XYs{{{X: 1, Y: 1}}, {{X: 3, Y: 2}, {X: 4, Y: 3}}}},
		{"break at Inf", []float64{math.Inf(1), 5}, 10, []plotter.XYs{{{X: 2, Y: 5}}}},
		{"all NaN", []float64{nan, nan}, 10, nil},
		// 8 values into 2 buckets of 4: each gives its min and max in order.
		{"decimate", []float64{0, 5, -1, 2, 7, 7, 1, 3}, 4, []plotter.XYs{{
			{X: 2, Y: 5}, {X: 3, Y: -1}, {X: 5, Y: 7}, {X: 7, Y: 1},
		}}},
		// 8 values into buckets of 3; the all-NaN middle bucket breaks the line.
		{"decimate empty bucket", []float64{1, 2, nan, nan, nan, nan, 4, 0}, 6,
			[]plotter.XYs{{{X: 1, Y: 1}, {X: 2, Y: 2}}, {{X: 7, Y: 4}, {X: 8, Y: 0}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := segments(tc.y, tc.maxPoints)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("segments(%v, %d) = %v, want %v", tc.y, tc.maxPoints, got, tc.want)
			}
		})
	}
}

func TestBinsAndDensity(t *testing.T) {
	tests := []struct {
		name      string
		values    []float64
		wantBins  int
		wantEdge0 float64
		wantEdgeK float64
	}{
		{"spread", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5, 0, 10},
		{"many", make([]float64, 10000), 1, -0.5, 0.5}, // constant zero
		{"constant large", []float64{100, 100}, 1, 95, 105},
		{"sqrt rule", append(make([]float64, 99), 1), 10, 0, 1},
		{"capped", func() []float64 {
			v := make([]float64, 4000)
			for i := range v {
				v[i] = float64(i)
			}
			return v
		}(), 40, 0, 3999},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, n, _ := valueRange(tc.values)
			edges := binEdges(lo, hi, n)
			if len(edges)-1 != tc.wantBins || edges[0] != tc.wantEdge0 || edges[len(edges)-1] != tc.wantEdgeK {
				t.Fatalf("edges %v…%v (%d bins), want %v…%v (%d bins)", edges[0], edges[len(edges)-1], len(edges)-1,
					tc.wantEdge0, tc.wantEdgeK, tc.wantBins)
			}
			bins := density(edges, tc.values)
			area, count := 0.0, 0.0
			for _, b := range bins {
				area += b.Weight * (b.Max - b.Min)
			}
			count = float64(len(tc.values))
			if math.Abs(area-1) > 1e-12 || count == 0 {
				t.Errorf("density area %v, want 1", area)
			}
		})
	}
	if e := binEdges(math.Inf(1), math.Inf(-1), 0); e != nil {
		t.Errorf("no finite values: edges %v, want none", e)
	}
}

// TestRankCounts checks the ranking and binning behind Rank: chains that
// never overlap fill opposite ends, tied draws share their average rank,
// NaN draws are left out, and chains of the same values count alike.
func TestRankCounts(t *testing.T) {
	seq := func(from, n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(from + i)
		}
		return v
	}
	nan := math.NaN()
	tests := []struct {
		name     string
		chains   [][]float64
		bins     int
		want     [][]int
		total    int
		nan      int
		distinct int
	}{
		{"apart", [][]float64{seq(0, 100), seq(100, 100)}, 4, [][]int{{50, 50, 0, 0}, {0, 0, 50, 50}}, 200, 0, 200},
		{"interleaved", [][]float64{{0, 2, 4, 6}, {1, 3, 5, 7}}, 2, [][]int{{2, 2}, {2, 2}}, 8, 0, 8},
		// Six equal draws hold ranks 1..6, average 3.5, position ½: bin 1 of 2.
		{"ties", [][]float64{{5, 5, 5}, {5, 5, 5}}, 2, [][]int{{0, 3}, {0, 3}}, 6, 0, 1},
		// Ranks of {1, 2, 2, 3}: 1, 2.5, 2.5, 4; positions 1/8, 1/2, 1/2, 7/8.
		{"some ties", [][]float64{{1, 2}, {2, 3}}, 4, [][]int{{1, 0, 1, 0}, {0, 0, 1, 1}}, 4, 0, 3},
		{"NaN left out", [][]float64{{nan, 1}, {2, nan}}, 2, [][]int{{1, 0}, {0, 1}}, 2, 2, 2},
		{"infinities rank", [][]float64{{math.Inf(-1)}, {math.Inf(1)}}, 2, [][]int{{1, 0}, {0, 1}}, 2, 0, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, total, nans, distinct := rankCounts(tc.chains, tc.bins)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || total != tc.total || nans != tc.nan || distinct != tc.distinct {
				t.Errorf("rankCounts = %v, %d ranked, %d NaN, %d distinct; want %v, %d, %d, %d",
					got, total, nans, distinct, tc.want, tc.total, tc.nan, tc.distinct)
			}
		})
	}
}

// TestHypergeometricInterval compares hypergeometricInterval with the
// quantiles of exact probabilities (math/big binomial coefficients) for
// totals up to 60, including empty and full draws.
func TestHypergeometricInterval(t *testing.T) {
	choose := func(a, b int) *big.Int { return new(big.Int).Binomial(int64(a), int64(b)) }
	for _, total := range []int{1, 2, 7, 20, 60} {
		for marked := 0; marked <= total; marked += max(1, total/6) {
			for n := 0; n <= total; n += max(1, total/5) {
				all := new(big.Rat).SetInt(choose(total, n))
				quantile := func(q float64) int {
					sum := new(big.Rat)
					for x := max(0, n+marked-total); x <= min(n, marked); x++ {
						p := new(big.Rat).SetInt(new(big.Int).Mul(choose(marked, x), choose(total-marked, n-x)))
						sum.Add(sum, p.Quo(p, all))
						if f, _ := sum.Float64(); f >= q*(1-1e-12) {
							return x
						}
					}
					return min(n, marked)
				}
				lo, hi := hypergeometricInterval(total, marked, n, 0.99)
				if wlo, whi := quantile(0.005), quantile(0.995); lo != wlo || hi != whi {
					t.Errorf("total %d, marked %d, n %d: [%d, %d], want [%d, %d]", total, marked, n, lo, hi, wlo, whi)
				}
			}
		}
	}
}

// TestRankBandCoverage: for independent draws from one distribution a
// chain's count in a bin must fall outside the rank plot's band at most
// about 1% of the time. 200 plots of 4 chains × 1000 standard normal draws
// (20 bins: 16,000 counts) with a fixed seed. The law is discrete, so the
// rate is below 1% (0.68% with this seed); its Monte Carlo sd is about
// 0.07%, and the test accepts 0.3% to 1.3%. A binomial band, which ignores
// that a bin's ranks are shared by the chains, is too wide and fails it
// (0.18%).
func TestRankBandCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const reps, chains, n = 200, 4, 1000
	bins := rankBins(n)
	lo, hi := hypergeometricInterval(chains*n, chains*n/bins, n, 0.99)
	outside, all := 0, 0
	draws := make([][]float64, chains)
	for range reps {
		for m := range draws {
			draws[m] = make([]float64, n)
			for i := range draws[m] {
				draws[m][i] = rng.NormFloat64()
			}
		}
		counts, _, _, _ := rankCounts(draws, bins)
		for _, c := range counts {
			for _, k := range c {
				all++
				if k < lo || k > hi {
					outside++
				}
			}
		}
	}
	if rate := float64(outside) / float64(all); rate < 0.003 || rate > 0.013 {
		t.Errorf("%d of %d counts (%.2f%%) outside the band [%d, %d], want 0.3%% to 1.3%%", outside, all, 100*rate, lo, hi)
	}
}

func TestDivergingColor(t *testing.T) {
	tests := []struct {
		v    float64
		want color.NRGBA
	}{
		{-1, color.NRGBA{R: 0x21, G: 0x66, B: 0xAC, A: 0xFF}},
		{-5, color.NRGBA{R: 0x21, G: 0x66, B: 0xAC, A: 0xFF}},
		{math.Inf(-1), color.NRGBA{R: 0x21, G: 0x66, B: 0xAC, A: 0xFF}},
		{0, color.NRGBA{R: 0xFF, G: 0xFF, B: 0xFF, A: 0xFF}},
		{1, color.NRGBA{R: 0xB2, G: 0x18, B: 0x2B, A: 0xFF}},
		{math.Inf(1), color.NRGBA{R: 0xB2, G: 0x18, B: 0x2B, A: 0xFF}},
		{0.25, color.NRGBA{R: 0xFA, G: 0xD2, B: 0xC1, A: 0xFF}}, // halfway white → F4A582
		{math.NaN(), color.NRGBA{R: 0xBD, G: 0xBD, B: 0xBD, A: 0xFF}},
	}
	for _, tc := range tests {
		if got := divergingColor(tc.v); got != tc.want {
			t.Errorf("divergingColor(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	// Negative values are bluer than red, positive redder than blue.
	for _, v := range []float64{-0.9, -0.5, -0.1} {
		if c := divergingColor(v); c.B <= c.R {
			t.Errorf("divergingColor(%v) = %v is not blue", v, c)
		}
		if c := divergingColor(-v); c.R <= c.B {
			t.Errorf("divergingColor(%v) = %v is not red", -v, c)
		}
	}
}

func TestQuantize(t *testing.T) {
	// An image with 300 colours: the 192 most frequent are kept exactly,
	// and every pixel maps to its nearest palette colour.
	img := image.NewRGBA(image.Rect(0, 0, 300, 2))
	for x := range 300 {
		c := color.RGBA{R: uint8(x % 256), G: uint8(x / 256 * 100), B: 0, A: 255}
		img.SetRGBA(x, 0, c)
		if x < 256 {
			img.SetRGBA(x, 1, c) // frequent: twice
		} else {
			img.SetRGBA(x, 1, color.RGBA{A: 255})
		}
	}
	q := quantize(img)
	if len(q.Palette) != 256 {
		t.Fatalf("palette of %d colours, want 256", len(q.Palette))
	}
	for x := range frequentColours - 1 { // black, 44 more pixels, is the most frequent
		if got := color.RGBAModel.Convert(q.At(x, 0)); got != img.RGBAAt(x, 0) {
			t.Fatalf("pixel %d: %v, want %v kept exactly", x, got, img.RGBAAt(x, 0))
		}
	}
	d := func(a, b color.RGBA) int {
		dr, dg, db := int(a.R)-int(b.R), int(a.G)-int(b.G), int(a.B)-int(b.B)
		return dr*dr + dg*dg + db*db
	}
	for x := range 300 {
		c := img.RGBAAt(x, 0)
		got := color.RGBAModel.Convert(q.At(x, 0)).(color.RGBA)
		for _, p := range q.Palette {
			if d(c, p.(color.RGBA)) < d(c, got) {
				t.Errorf("pixel %d %v: %v, but %v is nearer", x, c, got, p)
				break
			}
		}
	}
}

// TestQuantizeKeepsARareColour: a colour few pixels have, far from every
// frequent one, keeps a palette entry. The palette was the 256 most
// frequent colours, and a graph of 120 translucent edges, 5 of them blue
// among hundreds of shades of red, lost its blue, legend and all: every
// blue pixel mapped to a grey.
func TestQuantizeKeepsARareColour(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 400, 11))
	for x := range 400 {
		for y := range 10 {
			img.SetRGBA(x, y, color.RGBA{R: uint8(100 + x%150), G: uint8(x / 150 * 40), B: uint8(x / 150 * 40), A: 255})
		}
	}
	blue := color.RGBA{R: 0x21, G: 0x66, B: 0xAC, A: 255}
	for x := range 5 {
		img.SetRGBA(x, 10, blue)
	}
	if got := color.RGBAModel.Convert(quantize(img).At(0, 10)); got != blue {
		t.Errorf("the blue of 5 pixels is drawn %v, want %v", got, blue)
	}
}

func TestCorrelation(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		{"perfect", []float64{1, 2, 3}, []float64{2, 4, 6}, 1},
		{"negative", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// Pairs (1,1), (2,3), (3,2): r = 0.5.
		{"half, NaN pair skipped", []float64{1, 2, 3, nan}, []float64{1, 3, 2, 7}, 0.5},
		{"constant", []float64{1, 1, 1}, []float64{1, 2, 3}, nan},
		{"one pair", []float64{1, nan}, []float64{1, 2}, nan},
	}
	for _, tc := range tests {
		got := correlation(tc.x, tc.y)
		if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12) {
			t.Errorf("%s: correlation %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDistinctLevels(t *testing.T) {
	nan := math.NaN()
	levels, counts, missing := distinctLevels([]float64{3, 1, nan, 3, 2.5, 1, nan, 3})
	if fmt.Sprint(levels, counts, missing) != "[1 2.5 3] [2 1 3] 2" {
		t.Errorf("distinctLevels = %v %v %v", levels, counts, missing)
	}
	for _, tc := range []struct {
		v    float64
		want string
	}{{3, "3"}, {1.5, "1.5"}, {0, "0"}} {
		if got := levelName(tc.v); got != tc.want {
			t.Errorf("levelName(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func BenchmarkHeatmap(b *testing.B) {
	const p = 20
	labels := make([]string, p)
	m := make([]float64, p*p)
	for i := range p {
		labels[i] = fmt.Sprintf("V%d", i+1)
		for j := range p {
			m[i*p+j] = math.Pow(0.8, math.Abs(float64(i-j)))
		}
	}
	for b.Loop() {
		if _, err := Heatmap("C", labels, m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTrace(b *testing.B) {
	fx := newPlotFixture() // 4 chains × 1000 draws
	for b.Loop() {
		if _, err := Trace("C[1, 2]", fx.chains, 500); err != nil {
			b.Fatal(err)
		}
	}
}

// svgTickLabels returns the text and x start of each label on the x axis
// of an SVG figure: the texts on the line of the label named first (gonum
// writes each label as a <text> element at its start point).
func svgTickLabels(t *testing.T, svg []byte, first string) (labels []string, xs []float64, fontSize float64) {
	t.Helper()
	type text struct {
		x, y, size float64
		s          string
	}
	var texts []text
	re := regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*font-size:([0-9.]+)px">([^<]*)</text>`)
	for _, m := range re.FindAllSubmatch(svg, -1) {
		var tx text
		tx.x, _ = strconv.ParseFloat(string(m[1]), 64)
		tx.y, _ = strconv.ParseFloat(string(m[2]), 64)
		tx.size, _ = strconv.ParseFloat(string(m[3]), 64)
		tx.s = html.UnescapeString(string(m[4]))
		texts = append(texts, tx)
	}
	line := math.NaN()
	for _, tx := range texts {
		if tx.s == first {
			line = tx.y
			break
		}
	}
	if math.IsNaN(line) {
		t.Fatalf("no label %q in the SVG", first)
	}
	for _, tx := range texts {
		if tx.y == line {
			labels, xs, fontSize = append(labels, tx.s), append(xs, tx.x), tx.size
		}
	}
	return labels, xs, fontSize
}

// TestLatentManyLevels: a latent plot of a column of many levels (age in
// the GSS has 60, a continuous column as many as its rows) labelled every
// level on the x axis, the labels drawn over each other into a black band,
// and drew a dashed gap line between every two levels, a grey wall over the
// points. Now at most about 15 levels are labelled, none overlapping
// (a digit of Liberation Sans is 0.556 em wide; the test allows 0.6), the
// missing rows' "NA" always, and the gap lines are drawn for at most 20
// gaps.
func TestLatentManyLevels(t *testing.T) {
	for _, n := range []int{8, 60, 358} {
		t.Run(fmt.Sprint(n, " levels"), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(n), 3))
			rows := 3 * n
			y, z := make([]float64, rows), make([]float64, rows)
			for i := range y {
				z[i] = rng.NormFloat64()
			}
			sorted := slices.Clone(z)
			slices.Sort(sorted)
			for i := range y {
				r, _ := slices.BinarySearch(sorted, z[i])
				y[i] = float64(18 + r*n/rows) // levels 18, 19, …: three rows each
			}
			y[0] = math.NaN()
			f, err := Latent("latent z", y, z)
			if err != nil {
				t.Fatal(err)
			}
			checkFigure(t, f, "latent z", defaultWidth, defaultHeight)
			labels, xs, size := svgTickLabels(t, f.SVG, "NA")
			if labels[len(labels)-1] != "NA" {
				t.Errorf("last label %q, want NA", labels[len(labels)-1])
			}
			if len(labels) > 16 || (n <= 15 && len(labels) != n+1) {
				t.Errorf("%d levels: %d labels %v, want every level up to 15, at most 16", n, len(labels), labels)
			}
			for k := 1; k < len(labels); k++ {
				if w := 0.6 * size * float64(len(labels[k-1])); xs[k]-xs[k-1] < w {
					t.Errorf("labels %q at %.1f and %q at %.1f overlap (width %.1f)", labels[k-1], xs[k-1], labels[k], xs[k], w)
				}
			}
			lines := bytes.Count(f.SVG, []byte("stroke-dasharray"))
			if want := n - 1 + 1; n <= 21 && lines != want { // the gaps and the legend's sample
				t.Errorf("%d levels: %d dashed lines, want %d", n, lines, want)
			} else if n > 21 && lines > 0 {
				t.Errorf("%d levels: %d dashed lines, want none", n, lines)
			}
		})
	}
}

// TestIntervalsNumberedItemsSayWhat: past 40 items the interval plot
// numbers its items instead of naming them, and a check's pairs are drawn
// sorted by their observed statistic, not in the order of its table: the
// axis said "item (1..66)", which named no order to find a pair by. The
// caller now says what the numbers count.
func TestIntervalsNumberedItemsSayWhat(t *testing.T) {
	n := 66
	labels, obs := make([]string, n), make([]float64, n)
	for i := range n {
		labels[i], obs[i] = fmt.Sprintf("Y%d–Y%d", i, i+1), float64(i)/100
	}
	f, err := Intervals("check f", "pair, from the smallest observed ρ", "ρ", labels, obs, obs, obs, obs, make([]bool, n))
	if err != nil {
		t.Fatal(err)
	}
	if want := html.EscapeString("pair, from the smallest observed ρ (1..66)"); !bytes.Contains(f.SVG, []byte(want)) {
		t.Errorf("the x axis does not say what its numbers count (want %q)", want)
	}
}

// TestSVGLabelsEmbeddedImagesAsPNG checks that every image embedded in a
// figure's SVG (a heatmap's colour bar, and its matrix from minRasterCells
// columns on) is labelled with the format of its bytes, PNG: gonum's vgsvg
// labels its PNGs image/jpg, and rsvg-convert (librsvg, which pandoc and
// others convert SVG with) then left them out: every heatmap lost its
// colour bar, and one of 41 columns or more its cells.
func TestSVGLabelsEmbeddedImagesAsPNG(t *testing.T) {
	embedded := regexp.MustCompile(`xlink:href="data:([^;"]+);base64,([^"]+)"`)
	for _, p := range []int{3, minRasterCells} {
		labels := make([]string, p)
		m := make([]float64, p*p)
		for i := range p {
			labels[i] = fmt.Sprintf("Y%d", i+1)
			for j := range p {
				m[i*p+j] = math.Cos(float64(i - j))
			}
		}
		f, err := Heatmap("C", labels, m)
		if err != nil {
			t.Fatal(err)
		}
		images := embedded.FindAllSubmatch(f.SVG, -1)
		if want := 1 + min(p/minRasterCells, 1); len(images) != want {
			t.Errorf("p = %d: %d images in the SVG, want %d", p, len(images), want)
		}
		for _, im := range images {
			b, err := base64.StdEncoding.DecodeString(string(im[2]))
			if err != nil {
				t.Fatalf("p = %d: %v", p, err)
			}
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("p = %d: an embedded image is not a PNG: %v", p, err)
			}
			if string(im[1]) != "image/png" {
				t.Errorf("p = %d: an embedded PNG is labelled %s", p, im[1])
			}
		}
	}
}
