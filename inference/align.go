package inference

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Alignment is how AlignLoadings matches draws of the loadings Λ.
type Alignment int

const (
	// Rotation aligns each draw by the orthogonal k×k matrix that brings it
	// closest to the reference (orthogonal Procrustes). It suits loadings
	// priors that are invariant to rotations, as N(0, var·I) rows are: the
	// posterior of Λ is then invariant to Λ → ΛR for every orthogonal R,
	// since C depends on Λ only through ΛΛᵀ.
	Rotation Alignment = iota
	// SignedPermutation aligns each draw by reordering its factors and
	// flipping their signs only, for priors such as GDP whose density is
	// invariant to those moves alone.
	SignedPermutation
)

// String names the alignment in a sentence.
func (a Alignment) String() string {
	if a == Rotation {
		return "rotation"
	}
	return "signed permutation"
}

// alignIterations bounds the rounds of generalised Procrustes alignment.
const alignIterations = 50

// AlignLoadings returns the draws of the loadings (lambda[chain][draw], p×k
// row-major) aligned to a common reference, so that their summaries mean
// something: the loadings of a factor model are identified only up to
// rotation and sign (C = D^(-1/2)(ΛΛᵀ + I)D^(-1/2) is unchanged by
// Λ → ΛR for orthogonal R), so chains, and draws within a chain, may sit in
// different but equivalent orientations.
//
// It is generalised Procrustes analysis (Gower 1975) as used for the ex-post
// identification of factor models (Aßmann, Boysen-Hogrefe and Pape 2016):
// starting from the last draw of the first chain as the reference, every
// draw Λ_t is replaced by Λ_t R_t, with R_t the orthogonal matrix (or, for
// SignedPermutation, the signed permutation) that minimises ‖Λ_t R_t − ref‖_F;
// the reference becomes the mean of the aligned draws, and this is repeated
// until the reference stops moving. Finally every draw is turned by the one
// move that puts the mean in a canonical orientation (see canonical). Each
// aligned draw gives the same C as the draw it came from, and the result
// does not depend on the orientation in which any draw arrived. lambda is
// not modified.
func AlignLoadings(lambda [][][]float64, p, k int, how Alignment) [][][]float64 {
	out := make([][][]float64, len(lambda))
	var ref []float64
	for c, chain := range lambda {
		out[c] = make([][]float64, len(chain))
		for t, l := range chain {
			out[c][t] = append([]float64(nil), l...)
		}
		if c == 0 && len(chain) > 0 {
			ref = append([]float64(nil), chain[len(chain)-1]...)
		}
	}
	if ref == nil || k < 1 {
		return out
	}
	mean := make([]float64, p*k)
	rot := make([]float64, k*k)
	pr := newProcrustes(k)
	for range alignIterations {
		clear(mean)
		count := 0
		for c, chain := range lambda {
			for t, l := range chain {
				pr.crossWith(l, ref, p)
				if how == Rotation {
					if !pr.rotation(rot) {
						copy(out[c][t], l)
						continue
					}
				} else {
					signedPermutation(pr.cross, rot, k)
				}
				dst := out[c][t]
				turn(dst, l, rot, p, k)
				for j, x := range dst {
					mean[j] += x
				}
				count++
			}
		}
		moved, size := 0.0, 0.0
		for j := range mean {
			mean[j] /= float64(count)
			moved += (mean[j] - ref[j]) * (mean[j] - ref[j])
			size += mean[j] * mean[j]
		}
		copy(ref, mean)
		if moved <= 1e-24*math.Max(size, 1) {
			break
		}
	}
	// Turn every draw by the one move that puts the mean in a canonical
	// orientation, so that the result does not depend on the first
	// reference.
	canonical(ref, rot, p, k, how)
	for _, chain := range out {
		for _, dst := range chain {
			copy(ref, dst)
			turn(dst, ref, rot, p, k)
		}
	}
	return out
}

// procrustes finds the orthogonal k×k matrix R that brings loadings l
// closest to a reference ref, min ‖l·R − ref‖_F, with its workspace.
type procrustes struct {
	k       int
	cross   *mat.Dense // lᵀ·ref, k×k
	svd     mat.SVD
	u, v, r mat.Dense
}

func newProcrustes(k int) *procrustes {
	return &procrustes{k: k, cross: mat.NewDense(k, k, nil)}
}

// crossWith sets cross to lᵀ·ref for p×k row-major l and ref.
func (pr *procrustes) crossWith(l, ref []float64, p int) {
	k := pr.k
	for a := range k {
		for b := range k {
			s := 0.0
			for i := range p {
				s += l[i*k+a] * ref[i*k+b]
			}
			pr.cross.Set(a, b, s)
		}
	}
}

// rotation writes into rot (k×k row-major) the R = U Vᵀ, for cross =
// U Σ Vᵀ, that maximises tr(Rᵀ cross); false if the SVD failed.
func (pr *procrustes) rotation(rot []float64) bool {
	if !pr.svd.Factorize(pr.cross, mat.SVDFull) {
		return false
	}
	pr.svd.UTo(&pr.u)
	pr.svd.VTo(&pr.v)
	pr.r.Mul(&pr.u, pr.v.T())
	for a := range pr.k {
		for b := range pr.k {
			rot[a*pr.k+b] = pr.r.At(a, b)
		}
	}
	return true
}

// turn writes l·rot into dst: l and dst are p×k, rot is k×k, all
// row-major; dst must not alias l.
func turn(dst, l, rot []float64, p, k int) {
	for i := range p {
		for b := range k {
			s := 0.0
			for a := range k {
				s += l[i*k+a] * rot[a*k+b]
			}
			dst[i*k+b] = s
		}
	}
}

// canonical writes into rot the move G that puts the mean loadings m in a
// canonical orientation. For Rotation, m·G is positive lower triangular in
// its first k rows (G from the QR decomposition of their transpose), the
// usual identification of factor models (Geweke and Zhou 1996): the first
// k columns of the data define the factors. For SignedPermutation, the
// factors of m·G are ordered by decreasing sum of squared loadings, and the
// largest loading of each in absolute value is positive.
func canonical(m, rot []float64, p, k int, how Alignment) {
	clear(rot)
	if how == Rotation {
		top := mat.NewDense(k, k, nil)
		for a := range k {
			for b := range k {
				top.Set(b, a, m[a*k+b]) // the transpose of the first k rows
			}
		}
		var qr mat.QR
		qr.Factorize(top)
		var q, r mat.Dense
		qr.QTo(&q)
		qr.RTo(&r)
		for a := range k {
			for b := range k {
				s := 1.0
				if r.At(b, b) < 0 {
					s = -1
				}
				rot[a*k+b] = q.At(a, b) * s
			}
		}
		return
	}
	order := make([]int, k)
	ss := make([]float64, k)
	for b := range k {
		order[b] = b
		for i := range p {
			ss[b] += m[i*k+b] * m[i*k+b]
		}
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(ss[y], ss[x]) })
	for b, a := range order {
		big := 0.0
		for i := range p {
			if math.Abs(m[i*k+a]) > math.Abs(big) {
				big = m[i*k+a]
			}
		}
		s := 1.0
		if big < 0 {
			s = -1
		}
		rot[a*k+b] = s
	}
}

// signedPermutation writes into rot (k×k row-major) the signed permutation
// matrix R maximising tr(Rᵀ cross) = Σ_b s_b cross[π(b), b]: factor π(b) of
// the draw becomes factor b, with the sign of cross[π(b), b]. The
// assignment maximising Σ_b |cross[π(b), b]| is found by the Hungarian
// method (O(k³)).
func signedPermutation(cross *mat.Dense, rot []float64, k int) {
	// Minimise the cost −|cross[a, b]| of giving draw factor a to slot b
	// (e-maxx's potentials formulation, 1-based with a dummy row 0).
	inf := math.Inf(1)
	uPot := make([]float64, k+1)
	vPot := make([]float64, k+1)
	owner := make([]int, k+1) // owner[b]: the row assigned to column b
	way := make([]int, k+1)
	for a := 1; a <= k; a++ {
		owner[0] = a
		b0 := 0
		minv := make([]float64, k+1)
		used := make([]bool, k+1)
		for b := range minv {
			minv[b] = inf
		}
		for {
			used[b0] = true
			a0, delta, b1 := owner[b0], inf, 0
			for b := 1; b <= k; b++ {
				if used[b] {
					continue
				}
				cur := -math.Abs(cross.At(a0-1, b-1)) - uPot[a0] - vPot[b]
				if cur < minv[b] {
					minv[b], way[b] = cur, b0
				}
				if minv[b] < delta {
					delta, b1 = minv[b], b
				}
			}
			for b := 0; b <= k; b++ {
				if used[b] {
					uPot[owner[b]] += delta
					vPot[b] -= delta
				} else {
					minv[b] -= delta
				}
			}
			b0 = b1
			if owner[b0] == 0 {
				break
			}
		}
		for b0 != 0 {
			b1 := way[b0]
			owner[b0] = owner[b1]
			b0 = b1
		}
	}
	clear(rot)
	for b := 1; b <= k; b++ {
		a := owner[b] - 1
		s := 1.0
		if cross.At(a, b-1) < 0 {
			s = -1
		}
		rot[a*k+b-1] = s
	}
}

// ResidualTurns returns, for every draw of aligned (lambda[chain][draw],
// p×k row-major, as AlignLoadings returns them), the angle in degrees by
// which the draw is turned away from the mean of all the draws: the
// rotation R that brings the draw closest to the mean (orthogonal
// Procrustes), measured as the angle θ of a turn in one plane that moves as
// far from the identity, ‖R − I‖²_F = 4(1 − cos θ). After a Rotation
// alignment the angles are those the fit left; after a SignedPermutation
// alignment they say how firmly the prior pins the rotation: a GDP prior
// fixes it in principle, but its posterior may still spread along
// rotations, which summaries of single loadings then blur. Chains are
// concatenated in order; nil for k < 2, where a turn is a sign.
func ResidualTurns(aligned [][][]float64, p, k int) []float64 {
	if k < 2 {
		return nil
	}
	mean, count := MeanDraw(aligned, p*k)
	if count == 0 {
		return nil
	}
	turns := make([]float64, 0, count)
	pr := newProcrustes(k)
	rot := make([]float64, k*k)
	for _, chain := range aligned {
		for _, l := range chain {
			pr.crossWith(l, mean, p)
			if !pr.rotation(rot) {
				turns = append(turns, math.NaN())
				continue
			}
			dist := 0.0
			for a := range k {
				for b := range k {
					d := rot[a*k+b]
					if a == b {
						d--
					}
					dist += d * d
				}
			}
			turns = append(turns, math.Acos(math.Max(1-dist/4, -1))*180/math.Pi)
		}
	}
	return turns
}
