package session

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/copulang/copulang/inference"
)

func TestSpreadOf(t *testing.T) {
	tests := []struct {
		name   string
		chains [][]float64
		means  []float64
		sd     float64
		text   string
	}{
		{"two chains", [][]float64{{1, 3}, {-1, -3}}, []float64{2, -2}, math.Sqrt(20.0 / 3), "2.00 and −2.00"},
		// An interrupted fit may have a chain without draws: the others
		// keep their numbers.
		{"empty chain left out", [][]float64{{1, 1}, nil, {3, 3}}, []float64{1, 3}, math.Sqrt(4.0 / 3), "1.00 (chain 1) and 3.00 (chain 3)"},
		{"empty last chain", [][]float64{{1, 1}, {3, 3}, nil}, []float64{1, 3}, math.Sqrt(4.0 / 3), "1.00 and 3.00"},
		{"empty chain of five", [][]float64{nil, {0.5}, {0.25}, {0.75}, {1}, {-0.5}}, []float64{0.5, 0.25, 0.75, 1, -0.5}, 0, "from −0.50 (chain 6) to 1.00 (chain 5)"},
		{"four chains", [][]float64{{0.5}, {0.25}, {0.75}, {1}}, []float64{0.5, 0.25, 0.75, 1}, math.Sqrt(0.3125 / 3), "0.50, 0.25, 0.75 and 1.00"},
		{"more than four: the ends", [][]float64{{0.5}, {0.25}, {0.75}, {1}, {-0.5}}, []float64{0.5, 0.25, 0.75, 1, -0.5}, 0, "from −0.50 (chain 5) to 1.00 (chain 4)"},
		{"one chain", [][]float64{{1, 2, 3}}, nil, 0, ""},
		{"no draws", [][]float64{nil, nil}, nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := spreadOf(tt.chains)
			if len(s.means) != len(tt.means) {
				t.Fatalf("means %v, want %v", s.means, tt.means)
			}
			for c := range s.means {
				if math.Abs(s.means[c]-tt.means[c]) > 1e-12 {
					t.Errorf("chain %d: mean %v, want %v", c+1, s.means[c], tt.means[c])
				}
			}
			if tt.sd != 0 && math.Abs(s.sd-tt.sd) > 1e-12 {
				t.Errorf("sd %v, want %v", s.sd, tt.sd)
			}
			if len(s.means) > 0 {
				if got := s.meansText("%.2f"); got != tt.text {
					t.Errorf("meansText %q, want %q", got, tt.text)
				}
			}
		})
	}
}

// TestRHatWarningOnCSaysWhereTheChainsSit: when C's R-hat warns, the
// warning gives the named entry's chain means against its posterior sd,
// says when the chains are too short to agree, and, for a factor model
// whose communalities disagree more than C, which column's and whether a
// chain sits near a Heywood case. On the shipped GSS data with k = 3 the
// warning named C[pincome, pchildren] (R-hat 1.22) and nothing else; the
// per-chain analysis behind these notes found the chains trading the
// communalities of degree, pdegree and pincome (found by the k = 3
// review).
func TestRHatWarningOnCSaysWhereTheChainsSit(t *testing.T) {
	bad := diagStats{maxRHat: 1.22, minBulk: 40, minTail: 30, worst: 0, least: 0, leastESS: 30}
	good := diagStats{maxRHat: 1.004, minBulk: 900, minTail: 800, worst: 3, least: 2, leastESS: 800}
	spread := spreadOf([][]float64{{-0.18, -0.19}, {-0.23, -0.22}, {-0.18, -0.17}, {-0.17, -0.18}})
	slowComm := inference.Diagnostics{RHat: 1.58, ESSBulk: 30, ESSTail: 80}
	mildComm := inference.Diagnostics{RHat: 1.05, ESSBulk: 300, ESSTail: 800} // above 1.01, below farApart
	apartComm := inference.Diagnostics{RHat: 1.15, ESSBulk: 40, ESSTail: 80}  // above farApart, below C's 1.22
	fine := inference.Diagnostics{RHat: 1.003, ESSBulk: 900, ESSTail: 800}
	commSpread := func(means ...float64) chainSpread {
		return chainSpread{means: means, chains: []int{0, 1, 2, 3}[:len(means)], sd: 0.1}
	}
	mixed := commSpread(0.5, 0.52, 0.49, 0.51)
	traded := commSpread(0.73, 0.64, 0.78, 0.85)
	heywood := commSpread(0.64, 0.97, 0.58, 0.62)
	with := func(d diagnostics, diag []inference.Diagnostics, spreads ...chainSpread) diagnostics {
		d.entry = func(i int) string {
			return []string{"m.C[a, b]", "m.C[a, c]", "m.C[b, c]", "m.Lambda[a, 1]", "m.Lambda[b, 1]", "m.Lambda[c, 1]"}[i]
		}
		d.column = func(j int) string { return []string{"a", "b", "c"}[j] }
		d.model = "m"
		d.communalityDiag = diag
		d.communalitySpread = spreads
		return d
	}
	factor := diagnostics{all: bad, c: bad, lambda: bad, correlations: 3, loadings: 3, factors: 1, cSpread: spread}
	means := ": its chain means are −0.185, −0.225, −0.175 and −0.175 (posterior sd 0.023)"
	short := factor
	short.chainESS = 3.7
	settled := factor
	settled.chainESS = 140
	loadingsOnly := factor
	loadingsOnly.all.worst, loadingsOnly.c = 4, good
	tests := []struct {
		name     string
		d        diagnostics
		want     []string
		dontWant []string
	}{
		{"chain means", with(factor, nil), []string{"most on m.C[a, b] (1.220)" + means + "; run longer"}, []string{"ESS of only", "communalit"}},
		{"short chains", with(short, nil), []string{means + ", and one chain alone has a bulk ESS of only 3 on it: chains this short for how slowly it moves are not expected to agree; run longer"}, []string{"different modes"}},
		{"settled chains: the modes note instead", with(settled, nil), []string{means + "; run longer", "may sit in different modes"}, []string{"ESS of only"}},
		{"communalities disagree more", with(short, []inference.Diagnostics{fine, slowComm, mildComm}, mixed, traded, mixed),
			[]string{"not expected to agree; the communalities, which no rotation changes, disagree more, most b's (R-hat 1.580; chain means 0.73, 0.64, 0.78 and 0.85): how the factors split the columns' latent variance from their own noise moves slowly, and C's entries move with it (`summary m.communality`); run longer"},
			[]string{"Heywood"}},
		{"a chain near a Heywood case", with(short, []inference.Diagnostics{fine, slowComm, apartComm}, mixed, traded, heywood),
			[]string{"most b's (R-hat 1.580; chain means 0.73, 0.64, 0.78 and 0.85)", "(`summary m.communality`); in chain 2 c's communality (R-hat 1.150; chain means 0.64, 0.97, 0.58 and 0.62) is 0.97, near 1: that chain sits near a Heywood case, where c has almost no unique variance; run longer"}, nil},
		{"a chain near a Heywood case on the column that disagrees most", with(short, []inference.Diagnostics{fine, fine, slowComm}, mixed, mixed, heywood),
			[]string{"most c's (R-hat 1.580; chain means 0.64, 0.97, 0.58 and 0.62): how", "(`summary m.communality`); in chain 2 c's communality is 0.97, near 1"}, nil},
		{"a chain near a Heywood case after a chain without draws", with(short, []inference.Diagnostics{fine, fine, slowComm}, mixed, mixed, chainSpread{means: []float64{0.6, 0.97, 0.6}, chains: []int{0, 2, 3}, sd: 0.1}),
			[]string{"most c's (R-hat 1.580; chain means 0.60 (chain 1), 0.97 (chain 3) and 0.60 (chain 4))", "in chain 3 c's communality is 0.97"}, nil},
		{"near 1 in a chain of a column that mixes", with(short, []inference.Diagnostics{fine, slowComm, fine}, mixed, traded, heywood),
			[]string{"most b's"}, []string{"Heywood"}},
		{"near 1 in a chain of a column that disagrees by chance", with(short, []inference.Diagnostics{fine, slowComm, mildComm}, mixed, traded, heywood),
			[]string{"most b's"}, []string{"Heywood"}},
		{"a Heywood chain on a column no worse than C", with(short, []inference.Diagnostics{fine, mildComm, apartComm}, mixed, traded, heywood),
			[]string{"not expected to agree; in chain 2 c's communality (R-hat 1.150; chain means 0.64, 0.97, 0.58 and 0.62) is 0.97, near 1: that chain sits near a Heywood case"}, []string{"disagree more"}},
		{"communalities no worse than C", with(short, []inference.Diagnostics{fine, apartComm, apartComm}, mixed, traded, mixed),
			nil, []string{"communalit"}},
		{"communalities worse than C by chance", with(diagnostics{all: bad, c: diagStats{maxRHat: 1.017, minBulk: 400, minTail: 400}, lambda: bad, correlations: 3, loadings: 3, factors: 1, cSpread: spread},
			[]inference.Diagnostics{fine, mildComm, mildComm}, mixed, traded, heywood),
			nil, []string{"communalit", "Heywood"}},
		{"loadings only: no chain means", with(loadingsOnly, []inference.Diagnostics{fine, slowComm, fine}, mixed, traded, mixed),
			[]string{"on the aligned loadings only"}, []string{"chain means", "disagree more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkReport(t, tt.d, tt.want, tt.dontWant) })
	}
}

// constructedFactorResult is a hand-made fit of a one-factor model of
// three columns, four chains of n draws: each chain's correlation-scale
// loadings are its centre plus AR(1) noise of coefficient phi and sd 0.02,
// and C's entries are their products, as a fit's are.
func constructedFactorResult(centres [][3]float64, n int, phi float64) *inference.Result {
	rng := rand.New(rand.NewPCG(3, 5))
	r := &inference.Result{Names: []string{"a", "b", "c"}, N: 500, P: 3, K: 1, Iter: n, Thin: 1}
	for _, centre := range centres {
		var lambda, c [][]float64
		var noise [3]float64
		for range n {
			l := make([]float64, 3)
			for j := range l {
				noise[j] = phi*noise[j] + math.Sqrt(1-phi*phi)*0.02*rng.NormFloat64()
				l[j] = centre[j] + noise[j]
			}
			m := []float64{1, l[0] * l[1], l[0] * l[2], l[0] * l[1], 1, l[1] * l[2], l[0] * l[2], l[1] * l[2], 1}
			lambda, c = append(lambda, l), append(c, m)
		}
		r.Lambda, r.C = append(r.Lambda, lambda), append(r.C, c)
	}
	return r
}

// TestFitReportNamesAChainNearAHeywoodCase: a constructed fit whose second
// chain sits at a's communality 0.97 (a's loading 0.985) while the others
// sit at 0.49 (0.7), each chain mixing well on its own: the warning names
// C's worst entry, its chain means, the modes note, and chain 2 near a
// Heywood case. The same chains centred alike but mixing slowly (AR(1)
// coefficient 0.995): the chain means and the short chains, no Heywood
// case and no modes.
func TestFitReportNamesAChainNearAHeywoodCase(t *testing.T) {
	apart := constructedFactorResult([][3]float64{{0.7, 0.6, 0.5}, {0.985, 0.6, 0.5}, {0.7, 0.6, 0.5}, {0.7, 0.6, 0.5}}, 400, 0.5)
	_, _, warnings := fitReport("fit f", "f", apart, nil)
	text := strings.Join(warnings, "\n")
	for _, want := range []string{
		"R-hat above 1.01: the chains disagree, most on f.C[a, ",
		": its chain means are 0.35",
		"in chain 2 a's communality (R-hat 1.533; chain means 0.49, 0.97, 0.49 and 0.49) is 0.97, near 1: that chain sits near a Heywood case",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %q:\n%s", want, text)
		}
	}
	slow := constructedFactorResult([][3]float64{{0.7, 0.6, 0.5}, {0.7, 0.6, 0.5}, {0.7, 0.6, 0.5}, {0.7, 0.6, 0.5}}, 400, 0.995)
	_, _, warnings = fitReport("fit f", "f", slow, nil)
	text = strings.Join(warnings, "\n")
	if !strings.Contains(text, "R-hat above 1.01") {
		t.Fatalf("slowly mixing chains do not warn on R-hat: the test does not test:\n%s", text)
	}
	for _, want := range []string{"its chain means are 0.", "chains this short for how slowly it moves are not expected to agree"} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %q:\n%s", want, text)
		}
	}
	for _, dontWant := range []string{"Heywood", "different modes"} {
		if strings.Contains(text, dontWant) {
			t.Errorf("warnings say %q:\n%s", dontWant, text)
		}
	}
}

// TestGSSChainsTradeCommunalities: on the shipped GSS data the default fit
// of three factors (px, 4 chains × 1000, seed 1) disagrees on C (R-hat
// 1.22 on C[pincome, pchildren]) because its chains trade the
// communalities of degree, pdegree, pincome and children (R-hats up to
// 1.58), and 20,000 iterations per chain bring C's R-hat to 1.005
// (sampling.md §9.6); its
// warning says so. The default fit of two factors mixes far better but sits
// near the warning's threshold: over seeds 1 to 4 C's largest R-hat was
// 1.005 to 1.013 before the level stretches (sampling.md §1.4) and 1.007 to
// 1.013 with them. With seed 3 (1.007) it says nothing of its chains
// disagreeing, and every communality's R-hat is below 1.02: the notes ride
// on the R-hat warning and, for the communalities, on R-hats above 1.1,
// which a well-mixed fit does not reach. (Its loadings' ESS sits near the
// 100 per chain of the ESS warning, which may fire: degree's communality
// had a bulk ESS of 64 to 81 per chain on the fits checked, before the
// stretches and with them.)
func TestGSSChainsTradeCommunalities(t *testing.T) {
	if testing.Short() {
		t.Skip("fits factor models of the GSS twice; skipped under -short")
	}
	s := New(Options{Dir: "../notebooks"})
	mustRun(t, s, `data gss = load("data/gss_hoff2007.csv")`)
	fit := func(k, seed string) (string, diagnostics) {
		out := mustRun(t, s, "model f"+k+" { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = "+k+") }\nfit f"+k+", seed = "+seed)
		_, d, _ := fitReport("fit", "f"+k, s.models["f"+k].Fit, nil)
		return out.stderr.String(), d
	}
	text, d := fit("3", "1")
	if !(d.c.maxRHat > 1.1) {
		t.Fatalf("k = 3: C's R-hat %.3f: the fit no longer shows the slow mixing", d.c.maxRHat)
	}
	for _, want := range []string{"the chains disagree, most on f3.C[pincome, pchildren]", ": its chain means are ", "one chain alone has a bulk ESS of only ",
		"; the communalities, which no rotation changes, disagree more, most "} {
		if !strings.Contains(text, want) {
			t.Errorf("k = 3: the warning lacks %q:\n%s", want, text)
		}
	}
	text, d = fit("2", "3")
	for _, dontWant := range []string{"R-hat above 1.01", "disagree"} {
		if strings.Contains(text, dontWant) {
			t.Errorf("k = 2 says %q:\n%s", dontWant, text)
		}
	}
	if note := d.chainsNote() + d.communalitySpreadNote(); note != "" {
		t.Errorf("k = 2: notes on its chains: %q", note)
	}
	for j, s := range d.communalityDiag {
		if s.RHat > 1.02 {
			t.Errorf("k = 2: column %d's communality R-hat %.3f", j+1, s.RHat)
		}
	}
}
