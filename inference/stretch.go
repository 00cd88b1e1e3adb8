package inference

import (
	"math"
	"math/rand/v2"

	"github.com/copulang/copulang/hough"
)

// maxStretches bounds the level stretches of one column update: a column
// of more levels (a continuous one has a level per row) is stretched at
// about this many of its boundaries, a different set each time.
const maxStretches = 32

// levelStretch holds what the level stretches of one column update need
// (sampling.md §1.4): per level, the sums of the column's latent values,
// recorded by gibbsLevels as it draws them or by sumLevels, and per
// boundary the stretch drawn. A chain keeps one, grown to its largest
// column; it is not safe for concurrent use.
type levelStretch struct {
	levels []levelSums
	total  levelSums // over every level
	// kinks are the boundaries stretched by the last draw, top down.
	kinks []int
	// bug, in tests only, is added to every stretch's exponent n_b − 1
	// (+1 leaves out the Haar measure's 1/a).
	bug float64
	// limit, in tests only, replaces maxStretches when positive.
	limit int
}

// levelSums are one level's sums, and the stretch drawn at the boundary
// below it: z ← c + a·(z − c) on this level and those above (a = 1: none).
type levelSums struct {
	n, sz, szz, szm, sm float64 // rows, Σz, Σz², Σzμ, Σμ
	top                 float64 // max z
	a, c                float64
}

// reset sizes w for a column of L levels and clears its sums.
func (w *levelStretch) reset(L int) {
	if cap(w.levels) < L {
		w.levels = make([]levelSums, L)
	}
	w.levels = w.levels[:L]
	w.total = levelSums{}
	w.kinks = w.kinks[:0]
}

// record sets level l's sums (with no stretch below it yet) and adds them
// to the total. Levels are recorded in ascending order, so the total is
// summed level by level from the bottom.
func (w *levelStretch) record(l, rows int, sz, szz, szm, sm, top float64) {
	n := float64(rows)
	ls := &w.levels[l]
	ls.n, ls.sz, ls.szz, ls.szm, ls.sm, ls.top = n, sz, szz, szm, sm, top
	ls.a, ls.c = 1, 0
	t := &w.total
	t.n += n
	t.sz += sz
	t.szz += szz
	t.szm += szm
	t.sm += sm
}

// sumLevels records every level's sums from z, in one pass over the
// observed rows (for a column that gibbsLevels did not draw).
func (w *levelStretch) sumLevels(lv *hough.Levels, z, mu []float64) {
	L := lv.NumLevels()
	w.reset(L)
	for l := 0; l < L; l++ {
		var sz, szz, szm, sm float64
		top := math.Inf(-1)
		rows := lv.Rows(l)
		for _, i := range rows {
			x, m := z[i], mu[i]
			sz += x
			szz += x * x
			szm += x * m
			sm += m
			if x > top {
				top = x
			}
		}
		w.record(l, len(rows), sz, szz, szm, sm, top)
	}
}

// draw draws the level-boundary stretches of sampling.md §1.4 from the
// recorded sums of a column z_j | rest ~ N(μ, σ²I) on D_j, taken after the
// translation and scaling z ← a·(z − δ) (a = 1, δ = 0 for none). For each
// boundary b between levels b−1 and b, from the top boundary down, the
// stretch scales the observed rows of levels b and above about c_b, the
// largest z of level b−1: z ← c_b + a_b·(z − c_b), a_b > 0. Given the rows
// below b the map is a positive scaling of z − c_b on the rows above, which
// keeps them above c_b and in their order, so it maps D_j onto itself; a_b
// is drawn by drawScale from p(a) ∝ a^(n_b−1)·exp(−(A·a² − 2B·a)/2), with
// n_b the rows moved, A = Σ(z − c_b)²/σ² and B = Σ(z − c_b)(μ − c_b)/σ²
// over them (left Haar measure da/a times the Jacobian a^(n_b)): a
// generalised Gibbs step (Liu and Sabatti 2000) on the conditional of those
// rows given the rest. Composed over the boundaries they redraw a
// piecewise-linear warp of the column's latent scale with a kink at each
// boundary, which moves its thresholds relative to one another in one
// iteration, where Hoff's sweep moves them only by the gaps between
// neighbouring rows (§7.2). The sums of the rows above each boundary are
// transformed in closed form as the stretches are drawn; apply moves the
// rows.
func (w *levelStretch) draw(rng *rand.Rand, sigma, a, delta float64) {
	L := len(w.levels)
	s2 := sigma * sigma
	// A column of more than maxStretches boundaries is stretched at every
	// stride-th boundary from a random offset: a choice made independently
	// of z, so each iteration's stretches are still moves that keep the
	// conditional, at a cost bounded for continuous columns.
	most := maxStretches
	if w.limit > 0 {
		most = w.limit
	}
	stride, offset := 1, 0
	if L-1 > most {
		stride = (L - 1 + most - 1) / most
		offset = rng.IntN(stride)
	}
	// N, Z1, Z2, ZM and M are the sums over the rows above the last
	// boundary stretched, in their current values; n, sz, szz, szm and sm
	// gather the raw sums of the levels since, which get the translation
	// and scaling when they join (at the next boundary stretched).
	var N, Z1, Z2, ZM, M float64
	var n, sz, szz, szm, sm float64
	next := L - 1 - (L-2-offset)%stride // the highest boundary b with (b−1) % stride = offset
	for b := L - 1; b >= 1; b-- {
		lb := &w.levels[b]
		n += lb.n
		sz += lb.sz
		szz += lb.szz
		szm += lb.szm
		sm += lb.sm
		if b != next {
			continue
		}
		next -= stride
		N += n
		Z2 += a * a * (szz - 2*delta*sz + n*delta*delta)
		Z1 += a * (sz - n*delta)
		ZM += a * (szm - delta*sm)
		M += sm
		n, sz, szz, szm, sm = 0, 0, 0, 0, 0
		c := a * (w.levels[b-1].top - delta)
		A := (Z2 - 2*c*Z1 + N*c*c) / s2
		B := (ZM - c*M - c*Z1 + N*c*c) / s2
		s := drawScale(rng, A, B, N-1+w.bug)
		if s == 1 {
			continue
		}
		lb.a, lb.c = s, c
		w.kinks = append(w.kinks, b)
		// z ← s·z + (1 − s)·c on every row above b.
		t := (1 - s) * c
		Z2 = s*s*Z2 + 2*s*t*Z1 + t*t*N
		Z1 = s*Z1 + t*N
		ZM = s*ZM + t*M
	}
}

// apply sets every row of z to its value after the translation and scaling
// z ← a·(z − δ) and then, on the observed rows, after the stretches draw
// drew. Level l's rows end at T_1 ∘ T_2 ∘ … ∘ T_l (T_l applied first), an
// affine map built up from the bottom, which changes only at the boundaries
// stretched: each run of levels between them is one map, whose rounding
// keeps their order (it is monotone), and is clamped to the top of the run
// below, which rounding could otherwise cross. Missing rows carry no order
// constraint and are not stretched.
func (w *levelStretch) apply(lv *hough.Levels, z []float64, a, delta float64) {
	// F = T_1 ∘ … ∘ T_l is fα·x + fβ; the row's new value is F(a·(z − δ)).
	fAlpha, fBeta := 1.0, 0.0
	below := math.Inf(-1)
	L := len(w.levels)
	for k, from := len(w.kinks), 0; from < L; k-- {
		to := L
		if k > 0 {
			to = w.kinks[k-1]
		}
		alpha, beta := fAlpha*a, fBeta-fAlpha*a*delta
		top := math.Inf(-1)
		for _, i := range lv.Order[lv.Start[from]:lv.Start[to]] {
			x := alpha*z[i] + beta
			if x < below {
				x = below
			}
			z[i] = x
			if x > top {
				top = x
			}
		}
		below = top
		if to < L {
			s, c := w.levels[to].a, w.levels[to].c
			fBeta += fAlpha * (1 - s) * c
			fAlpha *= s
		}
		from = to
	}
	for _, i := range lv.Missing {
		z[i] = a * (z[i] - delta)
	}
}
