package inference

import (
	"encoding/binary"
	"fmt"

	"github.com/copulang/copulang/hough"
)

// A Result keeps its imputations as level codes: an imputed value is always
// one of its column's observed values (hough.Levels.Values), so each is held
// as the number of that value among them, in codeWidth bytes (1 when every
// column with missing cells has at most 256 levels; the fit file stores them
// alike). As float64s they were 251 MB of the 445 MB a fit of 10⁵ rows × 7
// columns with a tenth of its cells missing took at 2²⁵ imputed values.

// codeWidth is the bytes of a level code of the missing cells: the fewest of
// 1, 2 and 4 that number the levels of every column with missing cells.
func codeWidth(levels []*hough.Levels, missing []Cell) int {
	width := 1
	for _, c := range missing {
		switch n := levels[c.Col].NumLevels(); {
		case n > 1<<16:
			width = 4
		case n > 1<<8:
			width = max(width, 2)
		}
	}
	return width
}

// getCode returns the k-th level code of codes, of width bytes each.
func getCode(codes []byte, width, k int) int {
	switch width {
	case 1:
		return int(codes[k])
	case 2:
		return int(binary.LittleEndian.Uint16(codes[2*k:]))
	default:
		return int(binary.LittleEndian.Uint32(codes[4*k:]))
	}
}

// putCode sets the k-th level code of codes, of width bytes each, to l.
func putCode(codes []byte, width, k, l int) {
	switch width {
	case 1:
		codes[k] = byte(l)
	case 2:
		binary.LittleEndian.PutUint16(codes[2*k:], uint16(l))
	default:
		binary.LittleEndian.PutUint32(codes[4*k:], uint32(l))
	}
}

// ImputedDraws is the number of chain's kept draws that carry imputations:
// kept draws 0, ImputeThin, 2·ImputeThin, … of the chain (0-based). It is 0
// when the data have no missing cells.
func (r *Result) ImputedDraws(chain int) int {
	if chain < 0 || chain >= max(len(r.C), len(r.imputed)) {
		panic(fmt.Sprintf("inference: Result.ImputedDraws(%d) out of range for %d chains", chain, max(len(r.C), len(r.imputed))))
	}
	if chain >= len(r.imputed) {
		return 0
	}
	return len(r.imputed[chain])
}

// ImputedValue is the posterior predictive value of cell Missing[cell] at
// kept draw draw·ImputeThin of chain (0-based draw < ImputedDraws(chain)), on
// the data scale: one of the column's observed values (see Impute for the
// mapping). To read every cell of a draw, ImputedTo is quicker.
func (r *Result) ImputedValue(chain, draw, cell int) float64 {
	l := getCode(r.imputed[chain][draw], r.imputeWidth, cell)
	return r.levels[r.Missing[cell].Col].Values[l]
}

// ImputedTo writes into dst (len(Missing) values) the posterior predictive
// value of every missing cell at kept draw draw·ImputeThin of chain, in the
// order of Missing: what ImputedValue gives for each cell. It does not
// allocate.
func (r *Result) ImputedTo(dst []float64, chain, draw int) {
	if len(dst) != len(r.Missing) {
		panic(fmt.Sprintf("inference: Result.ImputedTo: %d values for %d missing cells", len(dst), len(r.Missing)))
	}
	r.imputedRangeTo(dst, r.imputed[chain][draw], 0)
}

// imputedRangeTo writes into dst the values of cells m0 … m0+len(dst)−1 of
// one draw's codes.
func (r *Result) imputedRangeTo(dst []float64, codes []byte, m0 int) {
	w := r.imputeWidth
	col := -1
	var values []float64
	for k := range dst {
		m := m0 + k
		if c := r.Missing[m].Col; c != col {
			col, values = c, r.levels[c].Values
		}
		dst[k] = values[getCode(codes, w, m)]
	}
}

// imputedAtTo sets dst[k] to the imputed value of the missing cell at[k]
// (an index of r.Missing) in the draw whose codes are given, as
// imputedRangeTo does for a run of cells.
func (r *Result) imputedAtTo(dst []float64, codes []byte, at []int) {
	w := r.imputeWidth
	for k, m := range at {
		dst[k] = r.levels[r.Missing[m].Col].Values[getCode(codes, w, m)]
	}
}

// ThinImputations returns a copy of r that keeps the imputations of every
// k-th of its imputed draws (k ≥ 1), as a fit bounded by a k times smaller
// Spec.MaxImputed would have: its ImputeThin is k times r's. The copy shares
// r's draws and cannot be extended.
func (r *Result) ThinImputations(k int) *Result {
	if k < 1 {
		panic(fmt.Sprintf("inference: Result.ThinImputations(%d)", k))
	}
	nr := *r
	nr.run = nil
	nr.imputed = make([][][]byte, len(r.imputed))
	for c, ch := range r.imputed {
		for d := 0; d < len(ch); d += k {
			nr.imputed[c] = append(nr.imputed[c], ch[d])
		}
	}
	nr.ImputeThin = max(r.ImputeThin, 1) * k
	return &nr
}

// imputedRows is every imputed draw's codes, chains in order.
func (r *Result) imputedRows() [][]byte {
	var rows [][]byte
	for _, ch := range r.imputed {
		rows = append(rows, ch...)
	}
	return rows
}
