package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkJointHMCDriftBound measures how loose the drift term ‖G_i‖B of
// jointHMC's windows is, on the column of BenchmarkJointHMCColumn
// (sampling.md §4.4, "Why not further"). It records the kicks of 6 full-scan
// trajectories (scanJointHMC: the same bounces) and, with δ(t) the sum of the
// kicks since a window's start rotated to t (jointHMC's δ), reports for
// windows of S = 8 and 24 mean bounce spacings:
//
//   - over windows starting at every 4th bounce and every 7th row, the means
//     of max_t |G_iᵀδ(t)| (exact), of Σ_m |g_im|·max_t |δ_m(t)| in u's
//     coordinates (coordU) and in the principal axes of G (coordPC), each
//     as a fraction of ‖G_i‖·max_t ‖δ(t)‖ (cs): what a bound could gain if
//     it knew the window's δ in advance;
//   - jointHMC's budget rule replayed on the kicks (a budget B = βS, β up by
//     10% when δ leaves the budget, which ends the window, down by 3% when S
//     does), with one budget on ‖δ‖ (norm) and with one per coordinate of
//     δ (coordU, coordPC): the mean window length as a fraction of S (len)
//     and the mean drift bound over the rows, ‖G_i‖B or Σ_m |g_im|B_m, in
//     units of S·mean ‖G_i‖ (bound).
//
// It also reports the smallest over the largest eigenvalue of GᵀG
// (Geig-min/max): 1 when G's rows have no preferred direction.
//
// The sub-benchmark "prior" takes the column's prior precisions (P = I under
// the default prior); "anisotropic" takes P = diag(1, 3, 10, 30, 100)
// instead, so that G's rows and the kicks concentrate in few directions. It
// measures the trajectories once, whatever b.N.
func BenchmarkJointHMCDriftBound(b *testing.B) {
	s, _ := factorBenchSampler(b, 1000, 20, 5, 5, Interweave, 200)
	const j = 3
	k := s.k
	b.Run("prior", func(b *testing.B) { driftBound(b, s, j, s.prec[j*k:j*k+k]) })
	b.Run("anisotropic", func(b *testing.B) { driftBound(b, s, j, []float64{1, 3, 10, 30, 100}) })
}

// driftBound is BenchmarkJointHMCDriftBound for column j with prior
// precisions prec.
func driftBound(b *testing.B, s *factorSampler, j int, prec []float64) {
	k := s.k
	n := len(s.z[j])
	h := newScanJointHMC(s.d.levels[j], k)
	rng := rand.New(rand.NewPCG(7, 7))
	z := append([]float64(nil), s.z[j]...)
	lam := append([]float64(nil), s.lambda[j*k:j*k+k]...)
	if _, err := h.step(rng, z, lam, s.eta, prec, 0); err != nil {
		b.Fatal(err)
	}
	type kick struct {
		t float64
		d []float64
	}
	var trajs [][]kick
	h.kicked = func(t float64, d []float64) {
		kd := make([]float64, k)
		for c := range kd {
			kd[c] = -d[c]
		}
		trajs[len(trajs)-1] = append(trajs[len(trajs)-1], kick{t, kd})
	}
	bounces := 0
	for range 6 {
		trajs = append(trajs, nil)
		st, err := h.step(rng, z, lam, s.eta, prec, 0)
		if err != nil || st.Rejections != 0 {
			b.Fatal(err, st.Rejections)
		}
		bounces += st.Bounces
	}
	sp := float64(len(trajs)) * math.Pi / 2 / float64(bounces)
	b.ReportMetric(float64(bounces), "bounces")

	// G by row, its principal axes, and the mean of ‖G_i‖ and of |g_im| in
	// each basis.
	G := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		for c := 0; c < k; c++ {
			G.Set(i, c, s.eta[i*k+c]/math.Sqrt(prec[c]))
		}
	}
	var gram mat.SymDense
	gram.SymOuterK(1, G.T())
	var eig mat.EigenSym
	if !eig.Factorize(&gram, true) {
		b.Fatal("eigendecomposition failed")
	}
	var pc mat.Dense
	eig.VectorsTo(&pc)
	ev := eig.Values(nil) // ascending
	b.ReportMetric(ev[0]/ev[k-1], "Geig-min/max")
	var gpc mat.Dense
	gpc.Mul(G, &pc)
	bases := []struct {
		name string
		g    *mat.Dense // rows of G in the basis
		q    *mat.Dense // δ in the basis is qᵀδ
	}{{"coordU", G, nil}, {"coordPC", &gpc, &pc}}
	inBasis := func(q *mat.Dense, d, out []float64) {
		if q == nil {
			copy(out, d)
			return
		}
		for m := range out {
			out[m] = 0
			for c := range d {
				out[m] += q.At(c, m) * d[c]
			}
		}
	}
	gnorm := make([]float64, n)
	meanG := 0.0
	for i := range gnorm {
		gnorm[i] = mat.Norm(G.RowView(i), 2)
		meanG += gnorm[i] / float64(n)
	}
	meanAbs := func(g *mat.Dense) []float64 {
		m := make([]float64, k)
		for i := 0; i < n; i++ {
			for c := 0; c < k; c++ {
				m[c] += math.Abs(g.At(i, c)) / float64(n)
			}
		}
		return m
	}
	// delta sets d to δ(t) of a window starting at tA within trajectory tr.
	delta := func(tr []kick, tA, t float64, d []float64) {
		clear(d)
		for _, kk := range tr {
			if kk.t <= tA {
				continue
			}
			if kk.t > t {
				break
			}
			sn := math.Sin(t - kk.t)
			for c := range d {
				d[c] += kk.d[c] * sn
			}
		}
	}
	d, db := make([]float64, k), make([]float64, k)
	for _, W := range []float64{8, 24} {
		S := W * sp
		grid := sp / 8
		// What a bound knowing the window's δ could gain.
		var nr int
		var sumEx float64
		sumCo := make([]float64, len(bases))
		var ds [][]float64
		for _, tr := range trajs {
			for q := 0; q < len(tr); q += 4 {
				tA := tr[q].t
				if tA+S > math.Pi/2 {
					break
				}
				ds = ds[:0]
				mnorm := 0.0
				for t := tA; t <= tA+S; t += grid {
					delta(tr, tA, t, d)
					ds = append(ds, append([]float64(nil), d...))
					mnorm = math.Max(mnorm, math.Sqrt(dotK(d, d)))
				}
				if mnorm == 0 {
					continue
				}
				mcoord := make([][]float64, len(bases))
				for bi, bs := range bases {
					mcoord[bi] = make([]float64, k)
					for _, dd := range ds {
						inBasis(bs.q, dd, db)
						for m := range db {
							mcoord[bi][m] = math.Max(mcoord[bi][m], math.Abs(db[m]))
						}
					}
				}
				for i := 0; i < n; i += 7 {
					gi := G.RawRowView(i)
					cs := gnorm[i] * mnorm
					ex := 0.0
					for _, dd := range ds {
						ex = math.Max(ex, math.Abs(dotK(gi, dd)))
					}
					sumEx += ex / cs
					for bi, bs := range bases {
						co := 0.0
						for m := 0; m < k; m++ {
							co += math.Abs(bs.g.At(i, m)) * mcoord[bi][m]
						}
						sumCo[bi] += co / cs
					}
					nr++
				}
			}
		}
		b.ReportMetric(sumEx/float64(nr), fmt.Sprintf("exact/cs-%v", W))
		for bi, bs := range bases {
			b.ReportMetric(sumCo[bi]/float64(nr), fmt.Sprintf("%s/cs-%v", bs.name, W))
		}
		// The budget rule replayed: policy −1 is the norm, otherwise a basis.
		for pol := -1; pol < len(bases); pol++ {
			nb, name := 1, "norm"
			var q *mat.Dense
			var ga []float64
			if pol >= 0 {
				nb, name, q, ga = k, bases[pol].name, bases[pol].q, meanAbs(bases[pol].g)
			}
			beta := make([]float64, nb)
			var sumLen, sumBound float64
			var nwin int
			for pass := 0; pass < 2; pass++ { // the first pass settles β
				for c := range beta {
					if pass == 0 {
						beta[c] = 2.5 / math.Sqrt(float64(nb))
					}
				}
				sumLen, sumBound, nwin = 0, 0, 0
				for _, tr := range trajs {
					for tA := 0.0; tA+S <= math.Pi/2; {
						bound := 0.0 // the window's drift bound, from its budget
						if pol < 0 {
							bound = beta[0] * meanG
						} else {
							for m := range beta {
								bound += beta[m] * ga[m]
							}
						}
						end, hit := tA+S, false
						for t := tA + grid; t <= tA+S && !hit; t += grid {
							delta(tr, tA, t, d)
							if pol < 0 {
								if math.Sqrt(dotK(d, d)) > beta[0]*S {
									hit = true
									beta[0] *= 1.1
								}
							} else {
								inBasis(q, d, db)
								for m := range db {
									if math.Abs(db[m]) > beta[m]*S {
										hit = true
										beta[m] *= 1.1
									}
								}
							}
							if hit {
								end = t
							}
						}
						if !hit {
							for m := range beta {
								beta[m] *= 0.97
							}
						}
						sumLen += (end - tA) / S
						sumBound += bound / meanG
						nwin++
						tA = end
					}
				}
			}
			b.ReportMetric(sumLen/float64(nwin), fmt.Sprintf("len-%s-%v", name, W))
			b.ReportMetric(sumBound/float64(nwin), fmt.Sprintf("bound-%s-%v", name, W))
		}
	}
	for range b.N {
	}
}
