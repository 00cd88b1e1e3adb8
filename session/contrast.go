package session

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// A difference A − B of parts of fitted models (summary, plot and a value
// of older.C[income, degree] - young.C[income, degree]): its draws are A's
// minus B's, paired draw by draw in each chain.

// contrast is the difference a − b: its scalars, with their paired draws,
// and what a reader needs to know of the pairing.
type contrast struct {
	a, b *Model
	ps   []param
	// chains and draws count the paired chains and the draws of each.
	chains, draws int
	// label is the difference as written with column names:
	// older.C[income, degree] − young.C[income, degree].
	label string
	// notes say which draws were paired and how far the pairing is a
	// posterior (one fit's draws: exactly; two fits: as independent).
	notes []string
}

// contrastParams pairs the scalars a and b select, one by one, and their
// draws, chain by chain. Both come from one fit (then the draws pair
// exactly, and the difference's posterior is exact) or from two fits with
// the same number of chains; where two fits' chains differ in length, the
// last draws of the longer pair with the shorter's.
func (s *Session) contrastParams(a, b *compiler.Ref) (*contrast, error) {
	ma, pa, err := s.params(a)
	if err != nil {
		return nil, err
	}
	mb, pb, err := s.params(b)
	if err != nil {
		return nil, err
	}
	la, lb := partLabel(ma, a), partLabel(mb, b)
	if len(pa) != len(pb) {
		return nil, fmt.Errorf("%s selects %d and %s %d: a difference pairs them one by one; select the same entries of both", la, len(pa), lb, len(pb))
	}
	x := &contrast{a: ma, b: mb, label: la + " − " + lb}
	symmetric := a.Part() == "C" || a.Member == "partial"
	if a.Name != b.Name {
		// Two fits whose models order their columns differently (data
		// old = gss[degree, income, age], young = gss[income, degree,
		// age]): old.C - young.C pairs each correlation with the same
		// one, not the one in its place.
		pb = pairedByScalar(pa, pb, symmetric)
	}
	ps := make([]param, len(pa))
	for k := range pa {
		ca, cb := inference.NonEmptyShortest(pa[k].draws), inference.NonEmptyShortest(pb[k].draws)
		if len(ca) == 0 {
			return nil, fmt.Errorf("%s has no draws yet", a.Name)
		}
		if len(cb) == 0 {
			return nil, fmt.Errorf("%s has no draws yet", b.Name)
		}
		if len(ca) != len(cb) {
			return nil, fmt.Errorf("%s has %s with draws and %s %d: a difference pairs the chains of the two fits; fit both with the same chains",
				a.Name, plural(len(ca), "chain"), b.Name, len(cb))
		}
		n := min(len(ca[0]), len(cb[0]))
		if k == 0 {
			x.chains, x.draws = len(ca), n
			if la, lb := len(ca[0]), len(cb[0]); la != lb {
				longer, shorter := a.Name, b.Name
				if lb > la {
					longer, shorter = b.Name, a.Name
				}
				x.notes = append(x.notes, fmt.Sprintf("%s has %d draws per chain and %s %d: the last %d of %s's are paired with %s's", a.Name, la, b.Name, lb, n, longer, shorter))
			}
		}
		diff := make([][]float64, len(ca))
		for c := range ca {
			da, db := ca[c][len(ca[c])-n:], cb[c][len(cb[c])-n:]
			d := make([]float64, n)
			for i := range d {
				d[i] = da[i] - db[i]
			}
			diff[c] = d
		}
		// same: the same scalar of two fits (of their columns, not of
		// their places), which the key and label name once.
		same := a.Name != b.Name && scalarOf(pa[k], symmetric) == scalarOf(pb[k], symmetric)
		p := param{
			label: pa[k].label + " − " + pb[k].label,
			key:   pa[k].key,
			name:  pa[k].name + "-" + pb[k].name,
			draws: diff,
			truth: pa[k].truth - pb[k].truth, // NaN unless both are known
		}
		switch {
		case len(pa) == 1:
			// One scalar each: named with its model, and a regression's
			// with its formula (h.regress(income ~ degree)[R2]).
			p.label = scalarLabel(a, ma, pa[k]) + " − " + scalarLabel(b, mb, pb[k])
		case same:
			// The same entry of two fits: the caption or title names
			// the fits (ma.C − mb.C), a row or tick the entry. (Within
			// one fit both sides are named: C[Y1, Y2] − C[Y1, Y2] of
			// ma.C[Y1] - ma.C[Y2] is 0, not that correlation.)
			p.label = pa[k].label
		case a.Name != b.Name:
			p.label = a.Name + "." + pa[k].label + " − " + b.Name + "." + pb[k].label
		}
		if !same {
			p.key = pa[k].key + "-" + pb[k].key
		}
		if scalarOf(pa[k], symmetric) == scalarOf(pb[k], symmetric) {
			// Of the same columns: plot graph draws it between them.
			p.row, p.column = pa[k].row, pa[k].column
		}
		p.title = p.label
		ps[k] = p
	}
	x.ps = ps
	if n := zeroNote(x.label, ps, a, b, symmetric); n != "" {
		x.notes = append(x.notes, n)
	}
	if a.Name != b.Name {
		x.notes = append(x.notes, independenceNote(a.Name, b.Name, ma.Data, mb.Data))
	}
	return x, nil
}

// zeroNote says which scalars of the difference label, whose scalars are
// ps, are 0 in every draw, and why: within one fit, both sides select the
// same scalar (a.C[x, y] - a.C[y, x] of a symmetric C, a.C - a.C); across
// two, the fits drew the same values. "" when none is. Such a difference
// is no finding, and its table of zeros (P(>0) 0) says so only to a reader
// who looks twice.
func zeroNote(label string, ps []param, a, b *compiler.Ref, symmetric bool) string {
	var zero []string
	for _, p := range ps {
		if allZero(p.draws) {
			zero = append(zero, p.label)
		}
	}
	if len(zero) == 0 {
		return ""
	}
	why := fmt.Sprintf("the two fits drew the same values of %s", plural(len(zero), "scalar"))
	if a.Name == b.Name {
		why = fmt.Sprintf("both sides select the same scalar of %s's fit", a.Name)
		if len(zero) > 1 {
			why = fmt.Sprintf("both sides select the same scalars of %s's fit", a.Name)
		}
		if symmetric {
			why += fmt.Sprintf(" (%s is symmetric: %s[x, y] is %s[y, x])", a.Part(), a.Part(), a.Part())
		}
	}
	if len(zero) == len(ps) {
		if len(ps) == 1 {
			return fmt.Sprintf("%s is 0 in every draw: %s, so the difference says nothing", label, why)
		}
		return fmt.Sprintf("every scalar of %s is 0 in every draw: %s, so the difference says nothing", label, why)
	}
	shown := zero
	more := ""
	if len(zero) > 3 {
		shown, more = zero[:3], fmt.Sprintf(" and %d more", len(zero)-3)
	}
	verb := "is"
	if len(zero) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("%s%s %s 0 in every draw: %s", strings.Join(shown, ", "), more, verb, why)
}

// allZero reports whether every draw of every chain is 0.
func allZero(chains [][]float64) bool {
	for _, c := range chains {
		for _, v := range c {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// scalarOf names what a scalar is of, whichever model it belongs to:
// its columns (in either order for an entry of a symmetric matrix, C or
// partial), the response and a predictor of a regression's coefficient.
func scalarOf(p param, symmetric bool) string {
	if symmetric && p.column < p.row {
		return p.column + "\x00" + p.row
	}
	return p.row + "\x00" + p.column
}

// pairedByScalar returns pb in the order of the scalars of pa when both
// select the same scalars (each once) in another order, and pb as it is
// otherwise: scalars of other columns pair by position.
func pairedByScalar(pa, pb []param, symmetric bool) []param {
	at := make(map[string]int, len(pb))
	for k, p := range pb {
		at[scalarOf(p, symmetric)] = k
	}
	if len(at) != len(pb) {
		return pb
	}
	out := make([]param, len(pa))
	for k, p := range pa {
		j, ok := at[scalarOf(p, symmetric)]
		if !ok {
			return pb
		}
		out[k] = pb[j]
	}
	return out
}

// scalarLabel names the one scalar p that ref selects in m, with the
// model's name: m.C[income, degree], m.regress(income ~ degree)[R2].
func scalarLabel(ref *compiler.Ref, m *Model, p param) string {
	if ref.Regress != nil {
		return partLabel(m, ref)
	}
	return ref.Name + "." + p.label
}

// independenceNote says how far pairing the draws of fits a and b, of
// data da and db, gives the posterior of their difference: exactly when
// the data share no row, which it knows for data derived from one file or
// simulation and assumes otherwise.
func independenceNote(a, b string, da, db *Dataset) string {
	shared, all, known := sharedRows(da, db)
	switch {
	case !known:
		return fmt.Sprintf("pairing the draws of %s and %s treats their posteriors as independent, as they are when their data share no rows", a, b)
	case shared == 0:
		return fmt.Sprintf("the data of %s and %s share no row of %s, so their posteriors are independent, and the paired differences are the posterior of the difference", a, b, da.Source)
	case shared == all && slices.Equal(da.Names, db.Names) && da.LoadOptions == db.LoadOptions:
		// (Read with other options, na = [...] or order, the same rows
		// may hold other cells: said to share them, below.)
		return fmt.Sprintf("%s and %s fit the same data, so their posteriors are not independent: pairing their draws shows how the two models' estimates differ, not a posterior of the difference", a, b)
	}
	return fmt.Sprintf("the data of %s and %s share %s of %s, so their posteriors are not independent: pairing their draws shows how the two fits' estimates differ, not a posterior of the difference", a, b, plural(shared, "row"), da.Source)
}

// sharedRows counts the rows two data sets share, and the rows of each
// when they hold the same ones, when both come from one file read with
// the same separator, or one simulation (known); otherwise known is false.
// The other options of load (na, order, drop) change cells and columns,
// not which line of the file a row is.
func sharedRows(a, b *Dataset) (shared, all int, known bool) {
	if a == b {
		return a.N(), a.N(), true
	}
	switch {
	case a.SHA256 != "" || b.SHA256 != "":
		known = a.SHA256 == b.SHA256 && loadSep(a.LoadOptions) == loadSep(b.LoadOptions)
	default:
		known = a.Source != "" && a.Source == b.Source
	}
	if !known {
		return 0, 0, false
	}
	rows := func(d *Dataset) []int {
		if d.SourceRows != nil {
			return d.SourceRows
		}
		out := make([]int, d.N())
		for i := range out {
			out[i] = i
		}
		return out
	}
	ra, rb := rows(a), rows(b)
	in := make(map[int]bool, len(ra))
	for _, i := range ra {
		in[i] = true
	}
	for _, i := range rb {
		if in[i] {
			shared++
		}
	}
	if shared == len(ra) && shared == len(rb) {
		all = shared
	} else {
		all = -1
	}
	return shared, all, true
}

// loadSep is the separator that load options, as loadOptionsText writes
// them, give ("sep = \";\"" first when it is not a comma), or "".
func loadSep(options string) string {
	if !strings.HasPrefix(options, "sep = ") {
		return ""
	}
	sep, err := strconv.QuotedPrefix(strings.TrimPrefix(options, "sep = "))
	if err != nil {
		return options // not written by loadOptionsText: the options as they are
	}
	return sep
}

// positiveShare is the share of a scalar's draws above zero: the posterior
// probability that a difference is positive.
func positiveShare(chains [][]float64) float64 {
	above, all := 0, 0
	for _, c := range chains {
		for _, v := range c {
			if v > 0 {
				above++
			}
		}
		all += len(c)
	}
	if all == 0 {
		return math.NaN()
	}
	return float64(above) / float64(all)
}

// summaryContrast shows the posterior summary of a difference, with the
// share of its draws above zero.
func (s *Session) summaryContrast(ctx context.Context, x *compiler.Summary, out Output) error {
	d, err := s.contrastParams(&x.Target, x.Minus)
	if err != nil {
		return err
	}
	names := make([]string, len(d.ps))
	positive := make(map[string]float64, len(d.ps))
	for k, p := range d.ps {
		names[k] = p.key
		positive[p.key] = positiveShare(p.draws)
	}
	sums := paramSummaries(d.a, d.ps, x.Prob)
	if x.Sort != "" {
		names, sums = sortSummaries(names, sums, x.Sort)
	}
	t := posteriorTable(names, sums, x.Prob)
	t.Header = append(t.Header, "P(>0)")
	for i, name := range names {
		t.Rows[i] = append(t.Rows[i], tableNum("%.3f", positive[name]))
	}
	lo, hi := intervalColumns(x.Prob)
	t.Caption = fmt.Sprintf("posterior of %s, the difference of paired draws: %s in %s; %s and %s bound the central %s%% interval; P(>0) is the share of the differences above 0",
		d.label, plural(d.chains*d.draws, "draw"), plural(d.chains, "chain"), lo, hi, percent(x.Prob))
	if x.Sort != "" {
		t.Caption += "; rows ordered by " + x.Sort + ", worst first"
	}
	for _, n := range d.notes {
		t.Caption += "; " + n
	}
	f := &tableFile{statement: summaryStatement(x), textWidth: x.Width}
	if err := f.shape(t, x, d.ps, sums); err != nil {
		return err
	}
	out.Display(s.tableBundle(f.table, contrastWhole(&x.Target, x.Minus, d), x.Sort != ""), "")
	if x.Path == "" {
		return nil
	}
	f.made = []madeOf{{title: "fit of model " + x.Target.Name, rows: s.provenance(x.Target.Name, d.a)}}
	if x.Minus.Name != x.Target.Name {
		f.made = append(f.made, madeOf{title: "fit of model " + x.Minus.Name, rows: s.provenance(x.Minus.Name, d.b)})
	}
	f.csvHeader, f.csvRows = posteriorCSV(names, sums, d.ps, x.Prob, positive)
	return s.writeTable(ctx, f, x.Path, out)
}

// contrastWhole says where to find every row of a difference too long to
// show: one column's, for differences of whole matrices, of the first
// column of a that b's model has too.
func contrastWhole(a, b *compiler.Ref, d *contrast) string {
	member := a.Part()
	if len(a.Index) == 0 && len(b.Index) == 0 && (member == "C" || member == "partial") {
		for _, name := range d.a.Names() {
			if slices.Contains(d.b.Names(), name) {
				col := columnText(name)
				return fmt.Sprintf("summary %s.%s[%s] - %s.%s[%s] shows one column's", a.Name, member, col, b.Name, member, col)
			}
		}
	}
	return "copulang run prints every row"
}
