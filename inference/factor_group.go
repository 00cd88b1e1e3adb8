package inference

import (
	"math"
	"math/rand/v2"
)

// factorGroup holds the workspace of the factor model's group moves
// (moveFactors): S = ηᵀη and the accumulated transform A, both k×k. fresh
// says that S is ηᵀη of the current η (moveFactors sets it, stepEta
// clears it), so that gramEta can take it instead of summing over the rows.
type factorGroup struct {
	s, a, tmp []float64
	fresh     bool
}

func newFactorGroup(k int) factorGroup {
	return factorGroup{s: make([]float64, k*k), a: make([]float64, k*k), tmp: make([]float64, k)}
}

// moveFactors makes the group moves of the factor model given Z
// (sampling.md §4.5). The map η_i ← Aη_i, λ_j ← A⁻ᵀλ_j (A invertible k×k)
// leaves every λ_jᵀη_i, and so the likelihood of Z, unchanged; only the
// priors η_i ~ N(0, I) and λ_j ~ N(0, P_j⁻¹) see it. Gibbs updates of η
// given Λ and of Λ given η move along these directions in small steps when
// the loadings are strong (η is then nearly fixed by Λ and Z), and the
// scale and shear of the factors that they change are directions of C. So
// after η's draw each iteration makes, for one-parameter subgroups of
// GL(k), the generalised Gibbs step of Liu and Sabatti (2000): with
// S = ηᵀη,
//
//   - scale factor h by a > 0 (η_·h ← aη_·h, Λ_·h ← Λ_·h/a): Jacobian
//     a^(n−p), Haar measure da/a, so p(a) ∝ a^(n−p−1)·exp(−S_hh a²/2 −
//     R_h/(2a²)) with R_h = Σ_j P_jh λ_jh²; w = a² is generalised inverse
//     Gaussian, drawn by one independence Metropolis–Hastings step in log w
//     from the normal at its mode (scaleDraw);
//   - shear factor a by b (η_·a ← η_·a + cη_·b, Λ_·b ← Λ_·b − cΛ_·a) for
//     every ordered pair a ≠ b: Jacobian 1, Haar measure dc, so c is normal
//     with precision S_bb + Σ_j P_jb λ_ja² and mean
//     −(S_ab − Σ_j P_jb λ_ja λ_jb)/precision, drawn exactly.
//
// Λ is updated in place, S in closed form, and the product A of the moves
// is applied to η once at the end; S then stays ηᵀη (up to rounding) until
// the next draw of η, and gramEta uses it. It does not allocate.
func (s *factorSampler) moveFactors(rng *rand.Rand) {
	n, p, k := s.n, s.p, s.k
	g := &s.group
	sm, am := g.s, g.a
	gramRows(sm, s.eta, n, k)
	clear(am)
	for x := 0; x < k; x++ {
		am[x*k+x] = 1
	}
	nu := float64(n - p)
	if s.bug == bugFactorScaleJacobian {
		nu = float64(n)
	}
	for h := 0; h < k; h++ {
		r := 0.0
		for j := 0; j < p; j++ {
			l := s.lambda[j*k+h]
			r += s.prec[j*k+h] * l * l
		}
		if !(r > 0) { // all of factor h's loadings 0: no orbit to move along
			continue
		}
		w := scaleDraw(rng, nu/2, sm[h*k+h], r)
		if w == 1 {
			continue
		}
		a := math.Sqrt(w)
		for j := 0; j < p; j++ {
			s.lambda[j*k+h] /= a
		}
		for y := 0; y < k; y++ {
			sm[h*k+y] *= a
			sm[y*k+h] *= a
			am[h*k+y] *= a
		}
	}
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			if a == b {
				continue
			}
			prec, lin := sm[b*k+b], sm[a*k+b]
			for j := 0; j < p; j++ {
				pb := s.prec[j*k+b]
				if s.bug == bugFactorShearPrior {
					pb = 1
				}
				la := s.lambda[j*k+a]
				prec += pb * la * la
				lin -= pb * la * s.lambda[j*k+b]
			}
			if !(prec > 0) || math.IsNaN(lin) || math.IsInf(prec+lin, 0) {
				continue // degenerate or non-finite state: leave it to the steps that report it
			}
			sd := 1 / math.Sqrt(prec)
			if s.bug == bugFactorShearSD {
				sd *= 1.5
			}
			c := -lin/prec + sd*rng.NormFloat64()
			for j := 0; j < p; j++ {
				s.lambda[j*k+b] -= c * s.lambda[j*k+a]
			}
			// Row a of S gains c·(row b); S_aa, which that gives c·S_ab,
			// needs c·S_ab + c²S_bb more (old S_ab and S_bb).
			sab, sbb := sm[a*k+b], sm[b*k+b]
			for y := 0; y < k; y++ {
				sm[a*k+y] += c * sm[b*k+y]
				am[a*k+y] += c * am[b*k+y]
			}
			for y := 0; y < k; y++ {
				if y != a {
					sm[y*k+a] = sm[a*k+y]
				}
			}
			sm[a*k+a] += c*sab + c*c*sbb
		}
	}
	tmp := g.tmp
	for i := 0; i < n; i++ {
		e := s.eta[i*k : i*k+k]
		for x := range tmp {
			tmp[x] = dotK(am[x*k:x*k+k], e)
		}
		copy(e, tmp)
	}
	g.fresh = true
}

// scaleDraw returns w = a² for the factor scale move of moveFactors: the
// target density of w is proportional to w^(nu−1)·exp(−(s·w + r/w)/2), a
// generalised inverse Gaussian, and the current value is w = 1. In
// x = log w the log-density f(x) = nu·x − (s·eˣ + r·e⁻ˣ)/2 is concave; the
// step proposes x' from the normal at its mode with variance −1/f”(mode)
// and accepts with the independence Metropolis–Hastings ratio. Both the mode
// and the variance are the same from every point of the orbit, so the step
// keeps the orbit's distribution invariant. It returns 1 when it rejects.
func scaleDraw(rng *rand.Rand, nu, s, r float64) float64 {
	f := func(x float64) float64 { return nu*x - (s*math.Exp(x)+r*math.Exp(-x))/2 }
	// Newton's method on the concave f, steps capped at 1 in x.
	x := 0.0
	for range 100 {
		ex := math.Exp(x)
		d1 := nu - (s*ex-r/ex)/2
		d2 := -(s*ex + r/ex) / 2
		dx := max(-1, min(1, -d1/d2))
		x += dx
		if math.Abs(dx) < 1e-12 {
			break
		}
	}
	ex := math.Exp(x)
	sd := 1 / math.Sqrt((s*ex+r/ex)/2)
	xp := x + sd*rng.NormFloat64()
	logq := func(y float64) float64 { d := (y - x) / sd; return -d * d / 2 }
	if math.Log(rng.Float64()) < f(xp)-f(0)-logq(xp)+logq(0) {
		return math.Exp(xp)
	}
	return 1
}
