package session

// The members of a fit computed from its draws: m.partial, m.communality
// and m.regress(Y ~ X1 + X2). They are scalars with draws per chain like
// the entries of C, so summary and plot treat them alike.

import (
	"fmt"
	"math"
	"strings"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/inference"
)

// derivedParams returns the scalars a reference to a derived member
// selects, with the truth when the data were simulated.
func derivedParams(m *Model, ref *compiler.Ref) ([]param, error) {
	r := m.Fit
	names := columnTexts(m.Names())
	truthC := truthFor(m)
	switch ref.Member {
	case "partial":
		draws, err := r.Partial()
		if err != nil {
			return nil, err
		}
		es, err := selectEntries(ref, r.P, r.P, true)
		if err != nil {
			return nil, err
		}
		var truth []float64
		if truthC != nil {
			truth = make([]float64, r.P*r.P)
			if !inference.PartialCorrelation(truth, truthC, r.P) {
				truth = nil
			}
		}
		out := make([]param, len(es))
		for k, e := range es {
			i, j := min(e.i, e.j), max(e.i, e.j)
			a, b := asWritten(ref, i, j)
			out[k] = param{
				label:  fmt.Sprintf("partial[%s, %s]", names[a], names[b]),
				key:    fmt.Sprintf("partial[%s,%s]", names[a], names[b]),
				name:   fmt.Sprintf("partial.%d.%d", i+1, j+1),
				draws:  entryDraws(draws, i*r.P+j),
				truth:  at(truth, i*r.P+j),
				row:    r.Names[i],
				column: r.Names[j],
			}
		}
		return out, nil
	case "communality":
		draws, err := r.Communality()
		if err != nil {
			return nil, err
		}
		cols := ref.Index
		if len(cols) == 0 {
			for j := range r.P {
				cols = append(cols, j)
			}
		}
		truth := trueCommunality(m)
		out := make([]param, len(cols))
		for k, j := range cols {
			if j < 0 || j >= r.P {
				return nil, fmt.Errorf("%s: index out of range (%d columns)", refText(ref), r.P)
			}
			out[k] = param{
				label: fmt.Sprintf("communality[%s]", names[j]),
				key:   fmt.Sprintf("communality[%s]", names[j]),
				name:  fmt.Sprintf("communality.%d", j+1),
				draws: draws[j],
				truth: at(truth, j),
				row:   r.Names[j],
			}
		}
		return out, nil
	case "regress":
		reg := ref.Regress
		beta, r2, err := r.Regress(reg.Response, reg.Predictors)
		if err != nil {
			return nil, err
		}
		k := len(reg.Predictors)
		// Titles name the model and the regression, for the plots of its
		// rows.
		of := " of " + ref.Name + "." + regressText(m, reg)
		var truth []float64
		if truthC != nil {
			truth = make([]float64, k+1)
			if v, ok := inference.Regression(truthC, r.P, reg.Response, reg.Predictors, truth); ok {
				truth[k] = v
			} else {
				truth = nil
			}
		}
		var out []param
		for a, j := range reg.Predictors {
			out = append(out, param{
				label:  fmt.Sprintf("beta[%s]", names[j]),
				title:  fmt.Sprintf("beta[%s]%s", names[j], of),
				key:    fmt.Sprintf("beta[%s]", names[j]),
				name:   fmt.Sprintf("beta.%d", j+1),
				draws:  beta[a],
				truth:  at(truth, a),
				row:    r.Names[reg.Response],
				column: r.Names[j],
			})
		}
		out = append(out, param{label: "R2", title: "R2" + of, key: "R2", name: "R2", draws: r2, truth: at(truth, k), row: r.Names[reg.Response]})
		if len(ref.Index) == 1 {
			if a := ref.Index[0]; a >= 0 && a < len(out) {
				return out[a : a+1], nil
			}
			return nil, fmt.Errorf("%s: index out of range", refText(ref))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is not a derived member", ref.Member)
}

// regressText prints a regression as written: regress(Y ~ X1 + X2).
func regressText(m *Model, reg *compiler.Regression) string {
	names := columnTexts(m.Names())
	preds := make([]string, len(reg.Predictors))
	for a, j := range reg.Predictors {
		preds[a] = names[j]
	}
	return fmt.Sprintf("regress(%s ~ %s)", names[reg.Response], strings.Join(preds, " + "))
}

// entryDraws picks entry idx of every draw of a matrix member,
// out[chain][draw], from mats[chain][draw].
func entryDraws(mats [][][]float64, idx int) [][]float64 {
	out := make([][]float64, len(mats))
	for c, chain := range mats {
		out[c] = make([]float64, len(chain))
		for t, m := range chain {
			out[c][t] = m[idx]
		}
	}
	return out
}

// at is x[i], or NaN when x is nil.
func at(x []float64, i int) float64 {
	if x == nil {
		return math.NaN()
	}
	return x[i]
}

// trueCommunality is ‖λ_j‖²/(1 + ‖λ_j‖²) of the simulation's loadings for
// each of the model's columns, or nil when the data were not simulated
// from a factor copula.
func trueCommunality(m *Model) []float64 {
	t := m.Data.Truth
	if t == nil || m.Data.TruthK == 0 {
		return nil
	}
	k := m.Data.TruthK
	out := make([]float64, len(m.Cols))
	for a, j := range m.Cols {
		ss := 0.0
		for _, l := range t.Lambda[j*k : j*k+k] {
			ss += l * l
		}
		out[a] = ss / (1 + ss)
	}
	return out
}

// meanPartial is the posterior mean of the partial correlation matrix.
func meanPartial(r *inference.Result) ([]float64, error) {
	draws, err := r.Partial()
	if err != nil {
		return nil, err
	}
	mean, _ := inference.MeanDraw(draws, r.P*r.P)
	return mean, nil
}
