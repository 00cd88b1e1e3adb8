package session

import (
	"fmt"
	"math"
	"strconv"

	"github.com/copulang/copulang/compiler"
)

// param is one scalar of a fit: its label in figures, its name in tables
// (no spaces, so that a text table splits on whitespace), its CmdStan-style
// name, and its draws per chain.
type param struct {
	label string // C[income, degree]
	// title names the parameter in a figure of it alone, where label
	// (with the model's name) may not say enough ("R2 of
	// m.regress(income ~ degree + age)"); empty: the model's name, a dot
	// and label.
	title string
	key   string // C[income,degree]
	name  string // C.1.2
	draws [][]float64
	truth float64 // NaN when unknown
	// entry is 1 + the index of an entry of C or a loading in the fit's
	// EntrySummaries; 0 for a derived quantity.
	entry int
	// row and column are what the column sidecar of an export says the
	// scalar is of (WriteColumns): the two model columns of an entry of
	// C or partial, a column and a factor number for Lambda, a column for
	// communality, the response and a predictor for regress (R2: the
	// response alone).
	row, column string
}

// figureTitle is the name of p, a parameter of model, in a figure of it
// alone: m.C[income, degree]. It names the model, so that the figures of
// two fits in one notebook tell which is which.
func (p param) figureTitle(model string) string {
	if p.title != "" {
		return p.title
	}
	return model + "." + p.label
}

// entry is one selected entry of a matrix member: row and column, 0-based.
type entry struct{ i, j int }

// selectEntries turns a reference's index into the entries it selects.
// For C (p×p): none selects every i < j; one index i selects row i
// without the diagonal; two select one entry. For Lambda (p×k) the same
// with columns 0..k-1.
func selectEntries(ref *compiler.Ref, rows, cols int, square bool) ([]entry, error) {
	idx := ref.Index
	var out []entry
	switch len(idx) {
	case 0:
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				if !square || j > i {
					out = append(out, entry{i, j})
				}
			}
		}
	case 1:
		for j := 0; j < cols; j++ {
			if !square || j != idx[0] {
				out = append(out, entry{idx[0], j})
			}
		}
	case 2:
		if square && idx[0] == idx[1] {
			return nil, fmt.Errorf("%s is 1 by definition: a correlation matrix has a unit diagonal", refText(ref))
		}
		out = append(out, entry{idx[0], idx[1]})
	default:
		return nil, fmt.Errorf("%s has %d indices; a matrix takes at most 2", refText(ref), len(idx))
	}
	for _, e := range out {
		if e.i < 0 || e.i >= rows || e.j < 0 || e.j >= cols {
			return nil, fmt.Errorf("%s: index out of range (%d×%d)", refText(ref), rows, cols)
		}
	}
	return out, nil
}

// partLabel names what a reference to a part of fitted model m selects,
// by column names, as summaries' captions and figures do: m.C[income],
// m.partial, m.regress(income ~ degree + age)[R2].
func partLabel(m *Model, ref *compiler.Ref) string {
	reg := ref.Regress
	if reg == nil {
		return refLabel(ref, columnTexts(m.Names()))
	}
	s := ref.Name + "." + regressText(m, reg)
	if len(ref.Index) == 1 {
		switch a := ref.Index[0]; {
		case a >= 0 && a < len(reg.Predictors):
			s += "[" + columnText(m.Names()[reg.Predictors[a]]) + "]"
		case a == len(reg.Predictors):
			s += "[R2]"
		}
	}
	return s
}

// refText prints a reference with positions for its indices, for
// messages and figure names: m.C[1,2].
func refText(ref *compiler.Ref) string { return refLabel(ref, nil) }

// params returns the scalars a reference to a fitted model selects, with
// their draws.
func (s *Session) params(ref *compiler.Ref) (*Model, []param, error) {
	return s.selectParams(ref, true)
}

// summaryParams is params for a summary of the default interval: the
// entries of C and the loadings come without their draws, which their
// summaries (the fit's EntrySummaries) do not need (at p = 100, gathering
// them was 160 MB and half a second) — unless the fit's EntrySummaries
// are not computed yet and few are selected.
func (s *Session) summaryParams(ref *compiler.Ref) (*Model, []param, error) {
	m, ps, err := s.selectParams(ref, false)
	// A derived quantity (entry 0) has its draws already.
	if err != nil || len(ps) == 0 || ps[0].entry < 1 || m.Fit.EntrySummariesDone() || len(ps) > fewEntries {
		return m, ps, err
	}
	return s.selectParams(ref, true)
}

// fewEntries is the most entries of C or loadings a summary summarises from
// their own draws when the fit's EntrySummaries are not computed yet: a
// fit interrupted in its cell has had no report, and computing all of them
// for m.C[1, 2] took 3 s at p = 100.
const fewEntries = 64

// selectParams is params, leaving out the draws of entries of C and
// loadings unless withDraws.
func (s *Session) selectParams(ref *compiler.Ref, withDraws bool) (*Model, []param, error) {
	m, err := s.fitted(ref.Name)
	if err != nil {
		return nil, nil, err
	}
	r := m.Fit
	names := m.Names()
	truthC := truthFor(m)
	switch ref.Member {
	case "", "C":
		es, err := selectEntries(ref, r.P, r.P, true)
		if err != nil {
			return nil, nil, err
		}
		pairs := make([][2]int, len(es))
		for k, e := range es {
			pairs[k] = [2]int{min(e.i, e.j), max(e.i, e.j)}
		}
		draws := make([][][]float64, len(pairs))
		if withDraws {
			draws = r.DrawsOf(pairs)
		}
		out := make([]param, len(es))
		for k, e := range pairs {
			i, j := e[0], e[1]
			// One entry is named as written (m.C[degree, income]), so
			// that its summary's row and value line name what was asked;
			// the rows of a column or of all of C in the matrix's order.
			a, b := asWritten(ref, i, j)
			out[k] = param{
				label:  fmt.Sprintf("C[%s, %s]", columnText(names[a]), columnText(names[b])),
				key:    correlationKey(names, a, b),
				name:   fmt.Sprintf("C.%d.%d", i+1, j+1),
				draws:  draws[k],
				truth:  math.NaN(),
				entry:  1 + i*r.P - i*(i+1)/2 + j - i - 1,
				row:    names[i],
				column: names[j],
			}
			if truthC != nil {
				out[k].truth = truthC[i*r.P+j]
			}
		}
		return m, out, nil
	case "Lambda":
		if r.K == 0 || len(r.Lambda) == 0 {
			return nil, nil, fmt.Errorf("%s is a full-correlation model: it has no loadings Lambda", ref.Name)
		}
		es, err := selectEntries(ref, r.P, r.K, false)
		if err != nil {
			return nil, nil, err
		}
		out := make([]param, len(es))
		for k, e := range es {
			out[k] = param{
				label:  fmt.Sprintf("Lambda[%s, %d]", columnText(names[e.i]), e.j+1),
				key:    loadingKey(names, e.i, e.j),
				name:   fmt.Sprintf("Lambda.%d.%d", e.i+1, e.j+1),
				truth:  math.NaN(),
				entry:  1 + r.P*(r.P-1)/2 + e.i*r.K + e.j,
				row:    names[e.i],
				column: strconv.Itoa(e.j + 1),
			}
			if withDraws {
				out[k].draws = entryDraws(r.Lambda, e.i*r.K+e.j)
			}
		}
		return m, out, nil
	case "partial", "communality", "regress":
		out, err := derivedParams(m, ref)
		if err != nil {
			return nil, nil, err
		}
		return m, out, nil
	}
	return nil, nil, fmt.Errorf("%s has no draws to summarise; use %s.C or %s.Lambda", refText(ref), ref.Name, ref.Name)
}

// asWritten orders i < j, the entry of a symmetric matrix (C, partial)
// that ref selects, as ref writes them when it names one entry
// (m.C[degree, income]), and as i, j otherwise.
func asWritten(ref *compiler.Ref, i, j int) (int, int) {
	if len(ref.Index) == 2 && ref.Index[0] > ref.Index[1] {
		return j, i
	}
	return i, j
}

// correlationKey and loadingKey name C_ij and Λ_ih (0-based) in tables and
// in the export's column sidecar: C[income,degree], Lambda[income,1].
func correlationKey(names []string, i, j int) string {
	return fmt.Sprintf("C[%s,%s]", columnText(names[i]), columnText(names[j]))
}

func loadingKey(names []string, i, h int) string {
	return fmt.Sprintf("Lambda[%s,%d]", columnText(names[i]), h+1)
}

// truthFor returns the true C of a model's columns when its data were
// simulated, picking the model's columns out of the simulation's matrix.
func truthFor(m *Model) []float64 {
	t := m.Data.Truth
	if t == nil {
		return nil
	}
	P := len(m.Data.Names)
	p := len(m.Cols)
	out := make([]float64, p*p)
	for a, i := range m.Cols {
		for b, j := range m.Cols {
			out[a*p+b] = t.C[i*P+j]
		}
	}
	return out
}
