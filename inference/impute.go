package inference

import (
	"math"

	"github.com/copulang/copulang/hough"
)

// Imputed is the posterior predictive distribution of one missing cell.
type Imputed struct {
	// Row and Col are 0-based.
	Row, Col int
	// Mean and Median are the posterior predictive mean and median (R's
	// type-7 quantile) of the imputed values.
	Mean, Median float64
	// Draws are the imputed values of every kept draw that has them (see
	// Result.ImputeThin), chains in order.
	Draws []float64
}

// Impute returns the posterior predictive distribution of every missing
// cell, in the order of r.Missing.
//
// A missing cell's latent z_ij is unconstrained: the sampler draws it from its
// conditional N(μ_ij, σ_j²) given the row's other latents. At each kept draw
// it is mapped to the data scale as sbgcop does, through the column's
// empirical distribution: with s_j the marginal standard deviation of the
// latent column under that draw (sqrt(V_jj) in the full model), u = Φ(z_ij/s_j)
// and the imputed value is the type-1 quantile of the column's N_j observed
// values at u, that is the observed value v_ℓ whose empirical rank interval
// (F(v_{ℓ−1}), F(v_ℓ)] contains u, F being the empirical CDF. The imputed
// value is therefore always one of the column's observed values, and the
// relation between columns is carried by C through z.
func (r *Result) Impute() []Imputed {
	out := make([]Imputed, len(r.Missing))
	rows := r.imputedRows()
	total := len(rows)
	// One array holds every cell's draws, cell after cell: the transpose of
	// the kept draws (each one value per cell), made in tiles of 64 cells
	// by 64 draws so that what a tile reads and writes stays in cache.
	all := make([]float64, len(r.Missing)*total)
	const tile = 64
	var vals [tile]float64
	for m0 := 0; m0 < len(r.Missing); m0 += tile {
		m1 := min(m0+tile, len(r.Missing))
		for i0 := 0; i0 < total; i0 += tile {
			for i, codes := range rows[i0:min(i0+tile, total)] {
				r.imputedRangeTo(vals[:m1-m0], codes, m0)
				for m, v := range vals[:m1-m0] {
					all[(m0+m)*total+i0+i] = v
				}
			}
		}
	}
	for m, cell := range r.Missing {
		im := Imputed{Row: cell.Row, Col: cell.Col, Mean: math.NaN(), Median: math.NaN()}
		if total > 0 {
			draws := all[m*total : (m+1)*total : (m+1)*total]
			s := 0.0
			for _, v := range draws {
				s += v
			}
			values, counts := tally(draws)
			im.Draws = draws
			im.Mean = s / float64(total)
			im.Median = tallyQuantileType7(values, counts, total, 0.5)
		}
		out[m] = im
	}
	return out
}

// imputer maps the latent values of the missing cells to the data scale, as
// level codes of width bytes (codeWidth); it does not allocate.
type imputer struct {
	levels []*hough.Levels
	cells  []Cell
	width  int
}

func newImputer(levels []*hough.Levels, cells []Cell, width int) *imputer {
	return &imputer{levels: levels, cells: cells, width: width}
}

// impute writes the level code of the data-scale value of every missing
// cell under the sampler's current state into dst (len(cells)·width bytes).
func (im *imputer) impute(dst []byte, cs chainSampler) {
	z := cs.latent()
	scaler, hasScale := cs.(latentScaler)
	col, sd := -1, 1.0
	for m, cell := range im.cells {
		if cell.Col != col {
			col = cell.Col
			if hasScale {
				sd = scaler.latentSD(col)
			} else {
				sd = sampleSD(z[col])
			}
		}
		u := stdNormalCDF(z[col][cell.Row] / sd)
		putCode(dst, im.width, m, levelIndexAtProb(im.levels[col], u))
	}
}

// levelAtProb is the type-1 quantile at probability u of the column's
// observed values: the smallest value v_ℓ whose empirical CDF
// (Start[ℓ+1]/N) is at least u.
func levelAtProb(lv *hough.Levels, u float64) float64 {
	return lv.Values[levelIndexAtProb(lv, u)]
}

// levelIndexAtProb is the ℓ of levelAtProb's v_ℓ.
func levelIndexAtProb(lv *hough.Levels, u float64) int {
	nObs := float64(len(lv.Order))
	lo, hi := 0, lv.NumLevels()-1
	for lo < hi {
		mid := (lo + hi) / 2
		if float64(lv.Start[mid+1]) >= u*nObs {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// sampleSD is the standard deviation of x about its mean.
func sampleSD(x []float64) float64 {
	if len(x) < 2 {
		return 1
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(len(x)-1))
	if !(sd > 0) {
		return 1
	}
	return sd
}
