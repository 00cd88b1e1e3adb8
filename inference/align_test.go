package inference

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomOrthogonal is the Q of the QR decomposition of a k×k Gaussian matrix.
func randomOrthogonal(rng *rand.Rand, k int) []float64 {
	g := mat.NewDense(k, k, nil)
	for a := range k {
		for b := range k {
			g.Set(a, b, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	out := make([]float64, k*k)
	for a := range k {
		for b := range k {
			out[a*k+b] = q.At(a, b)
		}
	}
	return out
}

// randomSignedPermutation is a k×k signed permutation matrix.
func randomSignedPermutation(rng *rand.Rand, k int) []float64 {
	out := make([]float64, k*k)
	for a, b := range rng.Perm(k) {
		out[a*k+b] = float64(1 - 2*rng.IntN(2))
	}
	return out
}

// turned returns l (p×k) times the k×k matrix g.
func turned(l, g []float64, p, k int) []float64 {
	out := make([]float64, p*k)
	for i := range p {
		for b := range k {
			for a := range k {
				out[i*k+b] += l[i*k+a] * g[a*k+b]
			}
		}
	}
	return out
}

// gram is ΛΛᵀ, which determines C.
func gram(l []float64, p, k int) []float64 {
	out := make([]float64, p*p)
	for i := range p {
		for j := range p {
			for a := range k {
				out[i*p+j] += l[i*k+a] * l[j*k+a]
			}
		}
	}
	return out
}

// TestAlignLoadings draws loadings around a truth Λ0, each draw turned by
// a random orthogonal matrix (or signed permutation), as a sampler of a
// rotation-invariant posterior may leave them. After alignment: every draw
// still gives the same ΛΛᵀ (so the same C); the aligned draws do not depend
// on how the draws arrived (turning each again changes nothing); and they
// spread about one point by the noise alone, where the draws as they
// arrived spread by the loadings' own size.
func TestAlignLoadings(t *testing.T) {
	const p, k, chains, draws, noise = 7, 3, 2, 150, 0.02
	rng := rand.New(rand.NewPCG(3, 4))
	truth := make([]float64, p*k)
	for j := range truth {
		truth[j] = rng.NormFloat64()
	}
	for _, how := range []Alignment{Rotation, SignedPermutation} {
		move := randomOrthogonal
		if how == SignedPermutation {
			move = randomSignedPermutation
		}
		arrived := make([][][]float64, chains)
		again := make([][][]float64, chains)
		for c := range chains {
			for range draws {
				l := make([]float64, p*k)
				for j := range l {
					l[j] = truth[j] + noise*rng.NormFloat64()
				}
				l = turned(l, move(rng, k), p, k)
				arrived[c] = append(arrived[c], l)
				again[c] = append(again[c], turned(l, move(rng, k), p, k))
			}
		}
		aligned := AlignLoadings(arrived, p, k, how)
		realigned := AlignLoadings(again, p, k, how)
		worstGram, worstAgain := 0.0, 0.0
		for c := range chains {
			for d := range draws {
				g0, g1 := gram(arrived[c][d], p, k), gram(aligned[c][d], p, k)
				for j := range g0 {
					worstGram = math.Max(worstGram, math.Abs(g0[j]-g1[j]))
				}
				for j := range aligned[c][d] {
					worstAgain = math.Max(worstAgain, math.Abs(aligned[c][d][j]-realigned[c][d][j]))
				}
			}
		}
		if worstGram > 1e-12 {
			t.Errorf("%v: alignment changed ΛΛᵀ by %.3g", how, worstGram)
		}
		if worstAgain > 1e-9 {
			t.Errorf("%v: turning the draws again changed the aligned draws by %.3g", how, worstAgain)
		}
		// The spread about the mean, per entry: the noise (0.02) for the
		// aligned draws; of the order of the loadings (about 1) as they arrived.
		spread := func(ds [][][]float64) float64 {
			mean := make([]float64, p*k)
			for _, ch := range ds {
				for _, l := range ch {
					for j, x := range l {
						mean[j] += x / (chains * draws)
					}
				}
			}
			ss := 0.0
			for _, ch := range ds {
				for _, l := range ch {
					for j, x := range l {
						ss += (x - mean[j]) * (x - mean[j])
					}
				}
			}
			return math.Sqrt(ss / (chains * draws * p * k))
		}
		if s := spread(aligned); s > 2*noise {
			t.Errorf("%v: aligned draws spread %.3f, want about the noise %.2f", how, s, noise)
		}
		if s := spread(arrived); s < 0.3 {
			t.Errorf("%v: the draws as they arrived spread only %.3f: the test does not turn them", how, s)
		}
	}
}

// TestAlignLoadingsCanonical: after a rotation alignment the mean's first
// k rows are lower triangular with a positive diagonal.
func TestAlignLoadingsCanonical(t *testing.T) {
	const p, k = 5, 2
	rng := rand.New(rand.NewPCG(5, 6))
	var chain [][]float64
	for range 20 {
		l := make([]float64, p*k)
		for j := range l {
			l[j] = float64(j%3) - 0.7 + 0.01*rng.NormFloat64()
		}
		chain = append(chain, turned(l, randomOrthogonal(rng, k), p, k))
	}
	aligned := AlignLoadings([][][]float64{chain}, p, k, Rotation)
	mean := make([]float64, p*k)
	for _, l := range aligned[0] {
		for j, x := range l {
			mean[j] += x / float64(len(aligned[0]))
		}
	}
	if math.Abs(mean[0*k+1]) > 1e-9 || mean[0] <= 0 || mean[1*k+1] <= 0 {
		t.Errorf("mean's first rows %v, want lower triangular with a positive diagonal", mean[:2*k])
	}
}

// TestResidualTurns: draws that are a base loadings matrix turned by known
// angles in one plane, symmetric about 0 so that their mean is the base
// (shrunk), come back as those angles; a single loading gives none.
func TestResidualTurns(t *testing.T) {
	const p = 5
	base := []float64{0.8, 0.1, 0.7, -0.2, 0.1, 0.75, 0.3, 0.6, -0.5, 0.4}
	turned := func(l []float64, deg float64, a, b, k int) []float64 {
		th := deg * math.Pi / 180
		out := slices.Clone(l)
		for i := range p {
			x, y := l[i*k+a], l[i*k+b]
			out[i*k+a] = x*math.Cos(th) - y*math.Sin(th)
			out[i*k+b] = x*math.Sin(th) + y*math.Cos(th)
		}
		return out
	}
	angles := []float64{0, 5, -5, 20, -20, 40, -40}
	var chain [][]float64
	for _, a := range angles {
		chain = append(chain, turned(base, a, 0, 1, 2))
	}
	got := ResidualTurns([][][]float64{chain[:3], chain[3:]}, p, 2)
	if len(got) != len(angles) {
		t.Fatalf("%d turns for %d draws", len(got), len(angles))
	}
	for i, a := range angles {
		if math.Abs(got[i]-math.Abs(a)) > 1e-9 {
			t.Errorf("draw turned by %g°: ResidualTurns says %.12g°", a, got[i])
		}
	}
	// k = 3, turns in the plane of factors 2 and 3. Their mean shrinks
	// factors 2 and 3 by cos 12° and not factor 1, so the rotation closest
	// to it is not quite the turn: within 0.1° (0.046° here).
	base3 := make([]float64, 0, 3*p)
	for i := range p {
		base3 = append(base3, base[2*i], base[2*i+1], 0.3*float64(i)-0.5)
	}
	got = ResidualTurns([][][]float64{{turned(base3, 12, 1, 2, 3), turned(base3, -12, 1, 2, 3)}}, p, 3)
	for i, g := range got {
		if math.Abs(g-12) > 0.1 {
			t.Errorf("k = 3, draw %d turned by ±12°: ResidualTurns says %.12g°", i, g)
		}
	}
	if got := ResidualTurns([][][]float64{{base[:p]}}, p, 1); got != nil {
		t.Errorf("k = 1: %v, want nil", got)
	}
}
