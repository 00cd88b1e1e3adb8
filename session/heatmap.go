package session

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/figure"
)

// plot heatmap: the posterior mean of a fit's C or partial, a
// simulation's true C, or the posterior mean of a difference of two fits'
// (with the cells whose interval excludes 0 framed); in column order, by
// dependence, or in the order another fit's (or simulation's) matrix takes
// by dependence, so that two heatmaps share it.

// heatmapStrongest is the most framed cells the text beside a
// difference's heatmap lists.
const heatmapStrongest = 8

// plotHeatmap draws plot heatmap x.
func (s *Session) plotHeatmap(x *compiler.PlotStmt, name string, out Output) error {
	if x.Minus != nil {
		return s.plotHeatmapDifference(x, out)
	}
	names, m, what, err := s.heatmapMatrix(&x.Target)
	if err != nil {
		return err
	}
	title := "posterior mean of " + what
	if s.data[x.Target.Name] != nil {
		title = what
	}
	opts := figure.HeatmapOptions{ByDependence: x.Order == "dependence"}
	if x.OrderOf != nil {
		note, err := s.sharedOrder(x.OrderOf, names, &opts)
		if err != nil {
			return err
		}
		if note != "" {
			out.Stream("stdout", "note: "+note+"\n")
		}
	}
	f, err := figure.HeatmapWith(title, names, m, opts)
	if err != nil {
		return err
	}
	return s.emit(name, f, out)
}

// heatmapMatrix is the matrix a heatmap of ref draws, with its columns and
// what it is: a simulation's true C ("true C of sim"), or the posterior
// mean of a fit's C or partial ("m.C").
func (s *Session) heatmapMatrix(ref *compiler.Ref) (names []string, m []float64, what string, err error) {
	if d, ok := s.data[ref.Name]; ok {
		if d.Truth == nil {
			return nil, nil, "", fmt.Errorf("data %s was loaded, not simulated: it has no true C to show; plot heatmap of a fitted model's C instead", d.Name)
		}
		return d.Names, d.Truth.C, "true C of " + d.Name, nil
	}
	fit, err := s.fitted(ref.Name)
	if err != nil {
		return nil, nil, "", err
	}
	switch ref.Part() {
	case "C":
		m = fit.Fit.MeanC()
	case "partial":
		if m, err = meanPartial(fit.Fit); err != nil {
			return nil, nil, "", err
		}
	default:
		return nil, nil, "", fmt.Errorf("plot heatmap shows a correlation matrix: use %s.C or %s.partial", ref.Name, ref.Name)
	}
	return fit.Names(), m, ref.Name + "." + ref.Part(), nil
}

// sharedOrder sets opts to draw a heatmap of the columns names in the
// order other's matrix takes by dependence (figure.OrderMatrix, as plot
// heatmap OTHER, order = dependence orders it), matched by column name.
// It returns a note when that matrix keeps column order, which the title
// then names instead.
func (s *Session) sharedOrder(other *compiler.Ref, names []string, opts *figure.HeatmapOptions) (string, error) {
	otherNames, m, what, err := s.heatmapMatrix(other)
	if err != nil {
		return "", err
	}
	at := make(map[string]int, len(names))
	for i, n := range names {
		at[n] = i
	}
	same := len(otherNames) == len(names)
	for _, n := range otherNames {
		if _, ok := at[n]; !ok {
			same = false
		}
	}
	if !same {
		return "", fmt.Errorf("order = %s takes the order of the columns of %s (%s), which are not those drawn (%s): a heatmap shares the order of another of the same columns",
			refText(other), what, strings.Join(columnTexts(otherNames), ", "), strings.Join(columnTexts(names), ", "))
	}
	o := figure.OrderMatrix(len(otherNames), m)
	opts.Order = make([]int, len(names))
	for k, c := range o.Order {
		opts.Order[k] = at[otherNames[c]]
	}
	// The description's mean |value| of neighbouring columns is of the
	// matrix the order raised, the other's (as its own heatmap gives it),
	// not of the matrix drawn: of a difference, near 0 in any order.
	p := len(names)
	opts.OrderBasis = make([]float64, p*p)
	for i, a := range otherNames {
		for j, b := range otherNames {
			opts.OrderBasis[at[a]*p+at[b]] = m[i*p+j]
		}
	}
	if o.Reordered() {
		opts.OrderedBy = "by dependence in " + what
		return "", nil
	}
	opts.OrderedBy = "as " + what + "'s columns"
	return fmt.Sprintf("%s keeps its column order, which no order by dependence betters (mean |value| of neighbouring columns %s): the heatmap takes that order", what, tableNum("%.2f", o.ColumnNeighbours)), nil
}

// differenceHeatmap is what a heatmap of a difference draws: the
// posterior means of the paired differences of two fits' C or partial,
// in the first fit's column order, with the cells whose central interval
// excludes 0 framed, as summary A - B summarises them.
type differenceHeatmap struct {
	d     *contrast
	names []string
	// mean is p×p, row-major, 0 on the diagonal; framed marks the cells
	// whose central interval excludes 0.
	mean   []float64
	framed []bool
	// lo and hi bound the central interval of each pair, as mean.
	lo, hi []float64
	// pairs are the pairs of columns (i < j) by position in ps.
	pairs [][2]int
	// meanA and meanB are each fit's posterior mean, in names' order.
	meanA, meanB []float64
}

// heatmapDifference pairs the draws of x.Target − x.Minus as summary does
// and summarises each pair at x.Prob.
func (s *Session) heatmapDifference(x *compiler.PlotStmt) (*differenceHeatmap, error) {
	d, err := s.contrastParams(&x.Target, x.Minus)
	if err != nil {
		return nil, err
	}
	names := d.a.Names()
	p := len(names)
	at := make(map[string]int, p)
	for i, n := range names {
		at[n] = i
	}
	h := &differenceHeatmap{d: d, names: names, mean: make([]float64, p*p), framed: make([]bool, p*p),
		lo: make([]float64, p*p), hi: make([]float64, p*p)}
	for k := range h.lo {
		h.lo[k], h.hi[k] = math.NaN(), math.NaN()
	}
	sums := paramSummaries(d.a, d.ps, x.Prob)
	for k, pr := range d.ps {
		i, okI := at[pr.row]
		j, okJ := at[pr.column]
		if !okI || !okJ || i == j {
			// A difference whose two sides pair other columns
			// (compiler.Check refuses the models it knows of).
			return nil, fmt.Errorf("plot heatmap of %s: %s pairs entries of other columns; a heatmap of a difference needs the same columns on both sides", d.label, pr.label)
		}
		sm := sums[k]
		framed := sm.Q5 > 0 || sm.Q95 < 0
		for _, c := range [][2]int{{i, j}, {j, i}} {
			h.mean[c[0]*p+c[1]], h.lo[c[0]*p+c[1]], h.hi[c[0]*p+c[1]] = sm.Mean, sm.Q5, sm.Q95
			h.framed[c[0]*p+c[1]] = framed
		}
		h.pairs = append(h.pairs, [2]int{min(i, j), max(i, j)})
	}
	var bNames []string
	if _, h.meanA, _, err = s.heatmapMatrix(&x.Target); err != nil {
		return nil, err
	}
	var mb []float64
	if bNames, mb, _, err = s.heatmapMatrix(x.Minus); err != nil {
		return nil, err
	}
	h.meanB = make([]float64, p*p)
	for a, n := range bNames {
		for b, m := range bNames {
			h.meanB[at[n]*p+at[m]] = mb[a*p+b]
		}
	}
	return h, nil
}

// plotHeatmapDifference draws the heatmap of a difference of two fits'
// C or partial, with the text beside it: the difference's notes, the
// colour scale, how many pairs are framed and the strongest of them.
func (s *Session) plotHeatmapDifference(x *compiler.PlotStmt, out Output) error {
	h, err := s.heatmapDifference(x)
	if err != nil {
		return err
	}
	p := len(h.names)
	largest, li, lj := 0.0, -1, -1
	for _, pr := range h.pairs {
		if v := math.Abs(h.mean[pr[0]*p+pr[1]]); v > largest {
			largest, li, lj = v, pr[0], pr[1]
		}
	}
	scale := differenceScale(largest)
	legend := fmt.Sprintf("central %s%% interval excludes 0", percent(x.Prob))
	opts := figure.HeatmapOptions{Scale: scale, Framed: h.framed, FrameLegend: legend}
	var orderNote string
	switch {
	case x.OrderOf != nil:
		if orderNote, err = s.sharedOrder(x.OrderOf, h.names, &opts); err != nil {
			return err
		}
	case x.Order == "dependence":
		// Ordered by the dependence in both fits, not by the
		// differences: blocks of either stay together, and a
		// difference is read where its columns sit in them.
		both := make([]float64, p*p)
		for k := range both {
			both[k] = (math.Abs(h.meanA[k]) + math.Abs(h.meanB[k])) / 2
		}
		o := figure.OrderMatrix(p, both)
		what := x.Target.Name + "." + x.Target.Part() + " and " + x.Minus.Name + "." + x.Minus.Part()
		if o.Reordered() {
			opts.Order, opts.OrderedBy, opts.OrderBasis = o.Order, "by dependence in "+what, both
		} else {
			orderNote = fmt.Sprintf("in column order, which no order by the dependence in %s betters (their mean |value| of neighbouring columns %s)", what, tableNum("%.2f", o.ColumnNeighbours))
		}
	}
	var b strings.Builder
	for _, n := range h.d.notes {
		b.WriteString("note: " + n + "\n")
	}
	if orderNote != "" {
		b.WriteString("note: " + orderNote + "\n")
	}
	b.WriteString(h.text(x.Prob, largest, li, lj, scale))
	out.Stream("stdout", b.String())
	f, err := figure.HeatmapWith("posterior mean of "+h.d.label, h.names, h.mean, opts)
	if err != nil {
		return err
	}
	return s.emit(figureName(x.Kind, refText(&x.Target)+"-"+refText(x.Minus)), f, out)
}

// text says what the heatmap of a difference shows: how many pairs are
// framed, the strongest of them with their intervals, and its colour
// scale.
func (h *differenceHeatmap) text(prob, largest float64, li, lj int, scale float64) string {
	p := len(h.names)
	var framed []int
	positive := 0
	for k, pr := range h.pairs {
		if at := pr[0]*p + pr[1]; h.framed[at] {
			framed = append(framed, k)
			if h.mean[at] > 0 {
				positive++
			}
		}
	}
	slices.SortStableFunc(framed, func(a, b int) int {
		pa, pb := h.pairs[a], h.pairs[b]
		return cmp.Compare(math.Abs(h.mean[pb[0]*p+pb[1]]), math.Abs(h.mean[pa[0]*p+pa[1]]))
	})
	var b strings.Builder
	verb, their := "are", "their"
	if len(framed) == 1 {
		verb, their = "is", "its"
	}
	fmt.Fprintf(&b, "heatmap of %s: the posterior mean of each paired difference; %d of %s %s %s, %s central %s%% interval excluding 0 (%d positive, %d negative)",
		h.d.label, len(framed), plural(len(h.pairs), "pair"), verb, figure.FrameMark(p), their, percent(prob), positive, len(framed)-positive)
	if len(framed) > 0 {
		if len(framed) > heatmapStrongest {
			fmt.Fprintf(&b, "; the strongest %d:\n", heatmapStrongest)
		} else {
			b.WriteString(":\n")
		}
		labels := make([]string, len(framed))
		width := 0
		for n, k := range framed[:min(len(framed), heatmapStrongest)] {
			labels[n] = h.d.ps[k].label
			width = max(width, len([]rune(labels[n])))
		}
		for n, k := range framed[:min(len(framed), heatmapStrongest)] {
			at := h.pairs[k][0]*p + h.pairs[k][1]
			fmt.Fprintf(&b, "  %-*s  %6s  [%6s, %6s]\n", width, labels[n], tableNum("%.3f", h.mean[at]), tableNum("%.3f", h.lo[at]), tableNum("%.3f", h.hi[at]))
		}
	} else {
		b.WriteString(".\n")
	}
	// A frame is no test, but a reader counts them as findings: with
	// no difference anywhere, each interval excludes 0 with probability
	// about 1 − prob. Fewer than half a pair expected is not "0".
	chance := "fewer than 1"
	if e := (1 - prob) * float64(len(h.pairs)); e >= 0.5 {
		chance = tableNum("%.0f", e)
	}
	fmt.Fprintf(&b, "Were there no difference at all, a central %s%% interval would exclude 0 in about %s%% of pairs (%s of %d) by chance.\n",
		percent(prob), percent(1-prob), chance, len(h.pairs))
	if li >= 0 {
		fmt.Fprintf(&b, "The colour scale runs from %s to %s, symmetric about 0 at the largest |mean difference| (%s, [%s, %s]) rounded up, so that typical differences show; a difference of two correlations may run from -2 to 2.\n",
			tableNum("%g", -scale), tableNum("%g", scale), tableNum("%.3f", largest), columnText(h.names[li]), columnText(h.names[lj]))
	}
	return b.String()
}

// differenceScale is the end of a difference heatmap's colour scale: the
// largest |mean difference| rounded up to 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8
// times a power of 10 (whose halves, the bar's other ticks, are short
// numbers too), at most 2 (the largest a difference of correlations can be), 1 when
// every mean is 0 (or none is finite).
func differenceScale(largest float64) float64 {
	if !(largest > 0) || math.IsInf(largest, 0) {
		return 1
	}
	if largest >= 2 {
		return 2
	}
	base := math.Pow(10, math.Floor(math.Log10(largest)))
	for _, step := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		// A hair of slack, so that 0.3 (0.30000000000000004 as
		// 3 × 0.1) is its own end.
		if v := step * base; v >= largest*(1-1e-12) {
			// Rounded to 12 digits, so that 3 × 0.1 is 0.3, as the
			// bar and the text write it.
			v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
			return min(v, 2)
		}
	}
	return 2
}
