package inference

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// heldOutTestData draws ordinal data of n rows (4 columns, 10% of cells
// missing) from the PCG seeded with seed, and two observed cells to hold out.
func heldOutTestData(t testing.TB, seed uint64, n int) ([][]float64, []HeldOutCell) {
	rng := rand.New(rand.NewPCG(seed, seed))
	cols, _ := ordinalData(rng, d1Truth, []int{3, 4, 2, 5}, n, 0.1)
	held := []HeldOutCell{{Row: 3, Col: 0, Value: cols[0][3]}, {Row: 7, Col: 2, Value: cols[2][7]}}
	for _, hc := range held {
		if hc.Value != hc.Value {
			t.Fatal("a held-out cell is missing in the data; pick another")
		}
	}
	return cols, held
}

// saveTestData is the small data set of the save tests and its held-out
// cells.
func saveTestData(t testing.TB) ([][]float64, []HeldOutCell) { return heldOutTestData(t, 41, 60) }

// wideTestData is four columns of 400 rows, 10% of the cells missing,
// whose first has about 360 distinct values: more levels than one byte
// numbers.
func wideTestData() [][]float64 {
	wide, _ := ordinalData(rand.New(rand.NewPCG(8, 9)), d1Truth, []int{3, 4, 2, 5}, 400, 0.1)
	for i, v := range wide[0] {
		if v == v {
			wide[0][i] = float64(i)
		}
	}
	return wide
}

// TestResultRoundTrip checks that UnmarshalResult gives back, for every
// method, with thinning, warm-up draws, missing and held-out cells, an
// adaptive schedule, an extended run and an interrupted one, every exported
// field MarshalBinary was given, and that the Result read back extends as
// the original would have: the same draws, bit for bit. Imputations are
// written as level numbers, 2 bytes wide for a column of more than 256
// levels; the same result written as format 2 (imputations as values,
// before format 3) or 3 (the draws inside the gob, before format 4) reads
// back the same.
func TestResultRoundTrip(t *testing.T) {
	t.Parallel()
	cols, held := saveTestData(t)
	wide := wideTestData()
	for _, tc := range []struct {
		name      string
		spec      Spec
		extend    int
		interrupt bool
		cols      [][]float64 // nil: cols
		width     int         // of the imputations: 0 means 1
	}{
		{name: "gibbs", spec: Spec{Method: Gibbs, KeepWarmup: true}},
		{name: "hmc thin 3", spec: Spec{Method: HMC, Thin: 3}},
		{name: "adaptive", spec: Spec{Method: HMC, Adapt: true}},
		{name: "px", spec: Spec{Model: FactorModel{K: 2}, Method: PX, Thin: 2}},
		{name: "interweave", spec: Spec{Model: FactorModel{K: 1}, Method: Interweave}},
		{name: "interweave, px columns", spec: Spec{Model: FactorModel{K: 2}, Method: Interweave, ColumnHMC: []bool{true, false, true, false}}},
		{name: "gdp", spec: Spec{Model: FactorModel{K: 2, Loadings: GDPLoadings{}}, Method: PX}},
		{name: "lkj", spec: Spec{Model: FullCorrelation{Prior: LKJ{Eta: 2}}, Method: Gibbs}},
		{name: "held-out", spec: Spec{Method: Gibbs, HeldOut: held}},
		{name: "extended", spec: Spec{Method: Gibbs}, extend: 9},
		{name: "interrupted", spec: Spec{Method: Gibbs}, interrupt: true},
		{name: "interrupted, extended", spec: Spec{Method: Gibbs, Thin: 2}, interrupt: true, extend: 7},
		{name: "thinned imputations, extended", spec: Spec{Method: Gibbs, MaxImputed: 100}, extend: 6},
		{name: "imputations of many levels", spec: Spec{Method: Gibbs}, cols: wide, width: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Columns, spec.Warmup, spec.Iter, spec.Chains, spec.Seed = cols, 20, 12, 2, 3
			if tc.cols != nil {
				spec.Columns = tc.cols
			}
			if spec.HeldOut != nil {
				spec.Columns = MaskCells(cols, held)
			}
			ctx := context.Background()
			var progress func(Progress)
			if tc.interrupt {
				// Stop once every chain has been seen past its warm-up
				// (a timeout here once stopped a chain that had not yet
				// run on a loaded machine).
				var stop context.CancelFunc
				ctx, stop = context.WithCancel(ctx)
				defer stop()
				spec.Iter = 100_000_000
				done := make([]int, spec.Chains)
				progress = func(p Progress) {
					done[p.Chain] = max(done[p.Chain], p.Done)
					if slices.Min(done) > spec.Warmup {
						stop()
					}
				}
			}
			res, err := Run(ctx, spec, progress)
			if tc.interrupt && (!res.Interrupted || slices.Min(res.Iterations) <= spec.Warmup) {
				t.Fatalf("want a run interrupted after warm-up, got %v (iterations %v)", err, res.Iterations)
			} else if !tc.interrupt && err != nil {
				t.Fatal(err)
			}
			if spec.MaxImputed > 0 && res.ImputeThin < 2 {
				t.Fatalf("MaxImputed %d with %d missing cells: imputations thinned by %d", spec.MaxImputed, len(res.Missing), res.ImputeThin)
			}
			if tc.extend > 0 {
				if res, err = res.Extend(context.Background(), tc.extend, nil); err != nil {
					t.Fatal(err)
				}
			}
			b, err := res.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			got, err := UnmarshalResult(b, spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := exportedDifferences(res, got); diff != "" {
				t.Errorf("read back differs: %s", diff)
			}
			var width int
			format2 := reencoded(t, b, func(s *savedResult) {
				width = s.ImputedWidth
				s.Format, s.Imputed, s.ImputedCodes = 2, imputedValues(res), nil
			})
			if want := max(tc.width, 1); width != want {
				t.Errorf("imputations written %d bytes wide, want %d", width, want)
			}
			if got2, err := UnmarshalResult(format2, spec); err != nil {
				t.Errorf("format 2: %v", err)
			} else if diff := exportedDifferences(res, got2); diff != "" {
				t.Errorf("format 2 read back differs: %s", diff)
			}
			// Format 3 kept the draws inside the gob.
			format3 := reencoded(t, b, func(s *savedResult) { s.Format = 3 })
			if got3, err := UnmarshalResult(format3, spec); err != nil {
				t.Errorf("format 3: %v", err)
			} else if diff := exportedDifferences(res, got3); diff != "" {
				t.Errorf("format 3 read back differs: %s", diff)
			}
			// Printed, so that NaN diagnostics (4 draws a chain) compare equal.
			if a, b := fmt.Sprint(res.Summary()), fmt.Sprint(got.Summary()); a != b {
				t.Errorf("the summaries differ:\n%s\n%s", a, b)
			}
			// The Result read back extends as the original does, bit for bit.
			want, err := res.Extend(context.Background(), 5, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, err = got.Extend(context.Background(), 5, nil); err != nil {
				t.Fatalf("extending a Result read back: %v", err)
			}
			got.Elapsed = want.Elapsed
			if diff := exportedDifferences(want, got); diff != "" {
				t.Errorf("extended after reading back, it differs from the original extended: %s", diff)
			}
		})
	}
}

// exportedDifferences names the exported fields of a and b that differ (a
// nil and an empty slice count as equal), or returns "".
func exportedDifferences(a, b *Result) string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var diff []string
	for i := 0; i < va.NumField(); i++ {
		f := va.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		x, y := va.Field(i), vb.Field(i)
		if x.Kind() == reflect.Slice && x.Len() == 0 && y.Len() == 0 {
			continue
		}
		if !reflect.DeepEqual(normaliseEmpty(x.Interface()), normaliseEmpty(y.Interface())) {
			diff = append(diff, f.Name)
		}
	}
	if !reflect.DeepEqual(normaliseEmpty(imputedValues(a)), normaliseEmpty(imputedValues(b))) {
		diff = append(diff, "imputations")
	}
	return strings.Join(diff, ", ")
}

// normaliseEmpty replaces the empty per-chain slices of draws (which gob
// reads back as nil) by nil.
func normaliseEmpty(v any) any {
	if chains, ok := v.([][][]float64); ok {
		out := make([][][]float64, len(chains))
		for c, ch := range chains {
			if len(ch) > 0 {
				out[c] = ch
			}
		}
		return out
	}
	return v
}

// TestUnmarshalResultRejects checks that input UnmarshalResult cannot
// trust is an error that says what is wrong, not a Result: foreign bytes,
// a cut encoding, another format, another run's settings or data, and each
// kind of inconsistent content.
func TestUnmarshalResultRejects(t *testing.T) {
	t.Parallel()
	cols, _ := saveTestData(t)
	spec := Spec{Columns: cols, Method: Gibbs, Warmup: 10, Iter: 8, Chains: 2, Seed: 4, KeepWarmup: true}
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	good, err := res.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// edited re-encodes the good result after edit changes it.
	edited := func(edit func(s *savedResult)) []byte { return reencoded(t, good, edit) }
	otherCols := slices.Clone(cols)
	otherCols[0] = append(slices.Clone(cols[0]), 1)
	for j := 1; j < len(otherCols); j++ {
		otherCols[j] = append(slices.Clone(cols[j]), 1)
	}
	for _, tc := range []struct {
		name string
		data []byte
		spec Spec
		want string
	}{
		{"foreign bytes", []byte("income,degree\n1,2\n"), spec, "reading a result"},
		{"cut short", good[:len(good)/2], spec, "reading a result"},
		{"the imputations after the gob cut", good[:len(good)-1], spec, "bytes of imputations after the gob, want"},
		{"bytes after the imputations", append(slices.Clone(good), 0), spec, "bytes of imputations after the gob, want"},
		{"imputations inside the gob", func() []byte {
			s, err := decodeSaved(bytes.NewReader(good), int64(len(good)))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			s.ImputedSize = 0
			if err := gob.NewEncoder(&b).Encode(s); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		}(), spec, "imputations inside the gob"},
		{"arrays inside the gob", gobOnly(t, good, func(s *savedResult) { s.ImputedCodes, s.ImputedSize = nil, 0 }), spec, "float64 arrays inside the gob of format 4"},
		{"more draws than bytes", headEdited(t, good, func(s *savedResult) { s.Raw[0][1][0] = 1 << 40 }), spec, "arrays of 1099511627776 values after the gob"},
		{"latent values of a chain missing", headEdited(t, good, func(s *savedResult) { s.Raw[4] = s.Raw[4][:1] }), spec, "latent values of 1 and 2 chains after the gob for 2 chains' states"},
		{"the arrays after the gob cut", good[:len(good)-len(res.Missing)*16-1], spec, "values after the gob, where"},
		{"another format", edited(func(s *savedResult) { s.Format = 99 }), spec, "format 99"},
		{"other data", good, Spec{Columns: otherCols, Method: Gibbs, Warmup: 10, Iter: 8, Chains: 2, Seed: 4}, "rows"},
		{"other seed", good, func() Spec { s := spec; s.Seed = 5; return s }(), "seed = 4"},
		{"a chain missing", edited(func(s *savedResult) { s.C = s.C[:1] }), spec, "chains"},
		{"a draw missing", edited(func(s *savedResult) { s.C[1] = s.C[1][:3] }), spec, "chain 2 holds 3 draws of C"},
		{"not a correlation", edited(func(s *savedResult) { s.C[0][2][1] = 1.5 }), spec, "chain 1, draw 3 of C"},
		{"asymmetric", edited(func(s *savedResult) { s.WarmupC[1][0][1] += 0.01 }), spec, "chain 2, draw 1 of C"},
		{"an imputation off the levels", edited(func(s *savedResult) { s.ImputedCodes[0] = 200 }), spec, "is level 201 of"},
		{"imputations cut", edited(func(s *savedResult) { s.ImputedCodes = s.ImputedCodes[1:] }), spec, "bytes of imputations"},
		{"imputations 3 bytes wide", edited(func(s *savedResult) { s.ImputedWidth = 3 }), spec, "in 3 bytes each"},
		{"imputations both ways", edited(func(s *savedResult) { s.Imputed = imputedValues(res) }), spec, "format 3 with imputations as numbers"},
		{"a format-2 imputation off the levels", edited(func(s *savedResult) {
			s.Format, s.ImputedCodes = 2, nil
			s.Imputed = imputedValues(res)
			s.Imputed[0][0][0] = 0.5
		}), spec, "not an observed value"},
		{"imputations of fewer draws than said", edited(func(s *savedResult) { s.ImputeThin = 3 }), spec, "imputations"},
		{"latent means cut", edited(func(s *savedResult) { s.ZMean[2] = s.ZMean[2][:5] }), spec, "latent means of column 3"},
		{"too many iterations kept", edited(func(s *savedResult) { s.Iterations = []int{10, 10} }), spec, "ran 10 iterations"},
		{"negative counts", edited(func(s *savedResult) { s.Stats[0].Bounces = -1 }), spec, "not counts"},
		{"loadings for a full model", edited(func(s *savedResult) { s.Lambda = s.C }), spec, "loadings"},
		{"a chain's state missing", edited(func(s *savedResult) { s.States = s.States[:1] }), spec, "the state of 1 chains"},
		{"a random stream damaged", edited(func(s *savedResult) { s.States[0].RNG = s.States[0].RNG[:3] }), spec, "chain 1's random stream"},
		{"latent values out of order", edited(func(s *savedResult) {
			z := s.States[1].State.Z[0]
			lo, hi := 0, 0
			for i, v := range cols[0] {
				if v < cols[0][lo] || cols[0][lo] != cols[0][lo] {
					lo = i
				}
				if v > cols[0][hi] || cols[0][hi] != cols[0][hi] {
					hi = i
				}
			}
			z[lo], z[hi] = z[hi]+1, z[lo]-1
		}), spec, "latent column 1 breaks its order"},
		{"not a permutation", edited(func(s *savedResult) { s.States[0].State.Perm[0] = s.States[0].State.Perm[1] }), spec, "not a permutation"},
		{"precision not the covariance's", edited(func(s *savedResult) { s.States[0].State.Omega[0] *= 2 }), spec, "not the inverse"},
		{"running sums cut", edited(func(s *savedResult) { s.States[1].ZSum = s.States[1].ZSum[:1] }), spec, "running sums"},
		{"loadings that do not give C", specEdited(t, factorSpec(cols), func(s *savedResult) { s.Lambda[1][2][3] = 1e200 }), factorSpec(cols), "chain 2, draw 3 of the loadings does not give"},
		{"running sums of other iterations", edited(func(s *savedResult) { s.States[0].ZCount-- }), spec, "chain 1's running sums"},
		{"a collapsed loadings step out of range", specEdited(t, factorSpec(cols), func(s *savedResult) { s.States[0].State.LoadingsStep = -1 }), factorSpec(cols), "collapsed loadings step -1"},
		{"a collapsed loadings step too large", specEdited(t, factorSpec(cols), func(s *savedResult) { s.States[1].State.LoadingsStep = 101 }), factorSpec(cols), "collapsed loadings step 101"},
		{"a collapsed loadings step not a number", specEdited(t, factorSpec(cols), func(s *savedResult) { s.States[0].State.LoadingsStep = math.NaN() }), factorSpec(cols), "collapsed loadings step NaN"},
		{"an infinite collapsed loadings step", specEdited(t, factorSpec(cols), func(s *savedResult) { s.States[0].State.LoadingsStep = math.Inf(1) }), factorSpec(cols), "collapsed loadings step +Inf"},
		{"a collapsed loadings step for the paper's interweave", specEdited(t, paperJointSpec(cols), func(s *savedResult) { s.States[0].State.LoadingsStep = 0.5 }), paperJointSpec(cols), "collapsed loadings step 0.5"},
		{"factors' Gram matrix not theirs", specEdited(t, factorSpec(cols), func(s *savedResult) { s.States[1].State.GroupS[0] *= 100 }), factorSpec(cols), "Gram matrix is not theirs"},
		// A whole latent column moved far out keeps its order but would make
		// the exact-HMC trajectories bounce to their caps.
		{"latent values far from their conditional means", edited(func(s *savedResult) {
			for i := range s.States[1].State.Z[2] {
				s.States[1].State.Z[2][i] *= 1e4
			}
		}), spec, "chain 2: latent value 1 of column 1 lies over 50 standard deviations from its conditional mean"},
		{"latent values far from their means given the factors", specEdited(t, jointSpec(cols), func(s *savedResult) {
			for i := range s.States[0].State.Z[1] {
				s.States[0].State.Z[1][i] += 60
			}
		}), jointSpec(cols), "latent value 1 of column 2 lies over 50 standard deviations from its mean given the factors"},
		{"factors far from their prior", specEdited(t, factorSpec(cols), func(s *savedResult) { s.States[1].State.Eta[7] = -51; s.States[1].State.GroupFresh = false }), factorSpec(cols), "factors lie over 50"},
		{"a trial K that would crawl", specEdited(t, jointSpec(cols), func(s *savedResult) { s.States[0].State.Joint[1].KGuess = 1e-9 }), jointSpec(cols), "column 2's joint step state"},
		{"another slot order", specEdited(t, jointSpec(cols), func(s *savedResult) {
			row := s.States[0].State.Joint[0].Row
			row[0], row[len(row)-1] = row[len(row)-1], row[0]
		}), jointSpec(cols), "column 1's joint step state"},
		{"a schedule not followed", specEdited(t, adaptSpec(cols), func(s *savedResult) {
			g := s.States[1].State.GibbsOnly
			g[0] = !g[0]
		}), adaptSpec(cols), "chain 2: column 1's update is not the one its schedule chose"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := UnmarshalResult(tc.data, tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want an error containing %q", r, err, tc.want)
			}
		})
	}
}

// factorSpec, jointSpec and adaptSpec are small runs of cols: px, then
// interweave, on a factor model; an adaptive full-model run.
func factorSpec(cols [][]float64) Spec {
	return Spec{Columns: cols, Model: FactorModel{K: 2}, Method: PX, Warmup: 10, Iter: 8, Chains: 2, Seed: 4}
}

func jointSpec(cols [][]float64) Spec {
	return Spec{Columns: cols, Model: FactorModel{K: 1}, Method: Interweave, Warmup: 4, Iter: 4, Chains: 1, Seed: 4}
}

// paperJointSpec is jointSpec as bench paper runs it, without the collapsed
// loadings step and the factor group moves.
func paperJointSpec(cols [][]float64) Spec {
	s := jointSpec(cols)
	s.PaperSamplers = true
	return s
}

func adaptSpec(cols [][]float64) Spec {
	return Spec{Columns: cols, Method: HMC, Adapt: true, Warmup: 40, Iter: 4, Chains: 2, Seed: 4}
}

// specEdited runs spec and returns its encoding after edit changes it.
func specEdited(t testing.TB, spec Spec, edit func(s *savedResult)) []byte {
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return reencoded(t, b, edit)
}

// reencoded decodes an encoded result, lets edit change it and encodes it
// again.
func reencoded(t testing.TB, encoded []byte, edit func(s *savedResult)) []byte {
	s, err := decodeSaved(bytes.NewReader(encoded), int64(len(encoded)))
	if err != nil {
		t.Fatal(err)
	}
	s.ImputedCodes = slices.Clone(s.ImputedCodes) // edits must not change encoded
	edit(s)
	codes := s.ImputedCodes
	e, err := encodeSaved(s, [][][]byte{{codes}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := e.WriteTo(&out); err != nil || out.Len() != e.Size() {
		t.Fatalf("wrote %d bytes of %d: %v", out.Len(), e.Size(), err)
	}
	return out.Bytes()
}

// gobOnly decodes an encoded result, lets edit change it and returns its
// gob alone, with nothing after it: draws and imputations as edit leaves
// them inside it.
func gobOnly(t testing.TB, encoded []byte, edit func(s *savedResult)) []byte {
	s, err := decodeSaved(bytes.NewReader(encoded), int64(len(encoded)))
	if err != nil {
		t.Fatal(err)
	}
	edit(s)
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// headEdited decodes the gob at the start of an encoded result, lets edit
// change it as it is (in format 4, without the arrays that follow it) and
// returns it encoded again with the bytes that followed it.
func headEdited(t testing.TB, encoded []byte, edit func(s *savedResult)) []byte {
	var s savedResult
	rd := bytes.NewReader(encoded)
	if err := gob.NewDecoder(rd).Decode(&s); err != nil {
		t.Fatal(err)
	}
	edit(&s)
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&s); err != nil {
		t.Fatal(err)
	}
	return append(b.Bytes(), encoded[len(encoded)-rd.Len():]...)
}

// FuzzUnmarshalResult checks that UnmarshalResult never panics, and that
// whatever it accepts is a Result whose draws hold the invariants and can
// be summarised.
func FuzzUnmarshalResult(f *testing.F) {
	cols, held := saveTestData(f)
	specs := []Spec{
		{Columns: cols, Model: FactorModel{K: 1}, Method: PX, Warmup: 6, Iter: 6, Chains: 2, Seed: 4, KeepWarmup: true},
		jointSpec(cols),
		{Columns: MaskCells(cols, held), Model: FullCorrelation{Prior: LKJ{Eta: 2}}, Method: HMC, Warmup: 4, Iter: 4, Chains: 2, Seed: 4, HeldOut: held},
		adaptSpec(cols),
	}
	for k, spec := range specs {
		good := specEdited(f, spec, func(*savedResult) {})
		f.Add(uint8(k), good)
		f.Add(uint8(k), good[:len(good)-7])
		// The same result in format 2, imputations as values.
		r, err := UnmarshalResult(good, spec)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(k), reencoded(f, good, func(s *savedResult) { s.Format, s.Imputed, s.ImputedCodes = 2, imputedValues(r), nil }))
	}
	f.Add(uint8(0), []byte{})
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		spec := specs[int(which)%len(specs)]
		r, err := UnmarshalResult(data, spec)
		if err != nil {
			return
		}
		stats := r.Stats
		r.Stats = nil // Invariants' rejection check is about samplers, not files
		if err := r.Invariants(); err != nil {
			t.Fatalf("accepted a result that breaks the invariants: %v", err)
		}
		r.Stats = stats
		r.Summary()
		r.Impute()
		r.ImputeLevels(0.9)
		// A restored chain state must be one the samplers can go on from:
		// no panic (which Run reports as an internal error) and draws that
		// hold the invariants.
		// Well inside the 10 s after which the fuzzing engine kills a worker
		// as deadlocked, so that a slow input is reported as this failure.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		more, err := r.Extend(ctx, 2, nil)
		switch {
		case err != nil && strings.Contains(err.Error(), "internal error"):
			t.Fatalf("extending an accepted result: %v", err)
		case errors.Is(err, context.DeadlineExceeded):
			t.Fatal("extending an accepted result by 2 iterations took over 3 s")
		case err == nil:
			more.Stats = nil
			if err := more.Invariants(); err != nil {
				t.Fatalf("extending an accepted result broke the invariants: %v", err)
			}
		}
	})
}

// TestRestoreOldLoadingsStep: a px or interweave state saved before the
// collapsed loadings step existed (LoadingsStep 0) reads back with the
// first step size, and one saved since with its adapted step.
func TestRestoreOldLoadingsStep(t *testing.T) {
	t.Parallel()
	cols, _ := saveTestData(t)
	for _, spec := range []Spec{factorSpec(cols), jointSpec(cols)} {
		res, err := Run(context.Background(), spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		adapted := res.run.samplers[0].(*factorSampler).collapsed.step
		if adapted == collapsedFirstStep {
			t.Fatalf("%v: warm-up left the step at %v", spec.Method, adapted)
		}
		good, err := res.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		old := reencoded(t, good, func(s *savedResult) {
			for c := range s.States {
				s.States[c].State.LoadingsStep = 0
			}
		})
		for _, tc := range []struct {
			name string
			data []byte
			want float64
		}{{"saved since", good, adapted}, {"saved before", old, collapsedFirstStep}} {
			back, err := UnmarshalResult(tc.data, spec)
			if err != nil {
				t.Fatalf("%v, %s: %v", spec.Method, tc.name, err)
			}
			if got := back.run.samplers[0].(*factorSampler).collapsed.step; got != tc.want {
				t.Errorf("%v, %s: step %v, want %v", spec.Method, tc.name, got, tc.want)
			}
		}
	}
}

// TestJointPassCap checks that a trial K far too small (which restore
// refuses, but which only the cap stops once set) ends the joint step's
// trajectory with an error instead of letting it crawl without end.
func TestJointPassCap(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 610,000 passes of the event search: about 3 s")
	}
	t.Parallel()
	cols, _ := saveTestData(t)
	res, err := Run(context.Background(), jointSpec(cols), nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := res.run.samplers[0].(*factorSampler)
	for j := range fs.cols {
		if fs.cols[j].hmc != nil {
			fs.cols[j].hmc.kGuess = 1e-12
		}
	}
	if _, err := res.Extend(context.Background(), 1, nil); err == nil || !strings.Contains(err.Error(), "passes of its event search") {
		t.Errorf("extending with a crawling trial K: %v", err)
	}
}

// TestImputeThin checks the bound on a run's imputed values: with
// Spec.MaxImputed below the missing cells times the kept draws, only every
// ImputeThin-th kept draw of each chain (from the first) keeps its
// imputations, those are exactly the unbounded run's at the same draws, and
// the bound holds give or take a draw per chain; an extension that would
// pass it thins by a multiple of the thinning so far, keeping the
// imputations of the draws that are multiples of the new one. The draws of
// C are unchanged.
func TestImputeThin(t *testing.T) {
	t.Parallel()
	cols, _ := heldOutTestData(t, 12, 120)
	base := Spec{Columns: cols, Method: Gibbs, Warmup: 20, Iter: 60, Chains: 2, Seed: 9}
	full, err := Run(context.Background(), base, nil)
	if err != nil {
		t.Fatal(err)
	}
	cells := len(full.Missing)
	if cells < 10 || full.ImputeThin != 1 {
		t.Fatalf("%d missing cells, thinning %d: want at least 10 and 1", cells, full.ImputeThin)
	}
	bounded := base
	bounded.MaxImputed = cells * 25 // 25 of the 120 kept draws
	got, err := Run(context.Background(), bounded, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (120 + 24) / 25; got.ImputeThin != want {
		t.Fatalf("thinning %d, want %d", got.ImputeThin, want)
	}
	check := func(stage string, full, got *Result) {
		t.Helper()
		thin := got.ImputeThin
		if !equalDraws(full.C, got.C) {
			t.Errorf("%s: the bound changed the draws of C", stage)
		}
		gotImputed, fullImputed := imputedValues(got), imputedValues(full)
		for c := range gotImputed {
			kept := len(got.C[c])
			if n := got.ImputedDraws(c); n != imputedDraws(kept, thin) {
				t.Errorf("%s: chain %d keeps %d imputations of %d draws thinned by %d", stage, c+1, n, kept, thin)
			}
			for d, v := range gotImputed[c] {
				if !slices.Equal(v, fullImputed[c][d*thin]) {
					t.Fatalf("%s: chain %d, imputation %d is not the unbounded run's draw %d", stage, c+1, d+1, d*thin+1)
				}
			}
		}
		if err := got.Invariants(); err != nil {
			t.Errorf("%s: %v", stage, err)
		}
	}
	within := func(stage string, got *Result) {
		t.Helper()
		if n := got.ImputedDraws(0) * len(got.C) * cells; n > bounded.MaxImputed+len(got.C)*cells {
			t.Errorf("%s: %d imputed values kept, bound %d", stage, n, bounded.MaxImputed)
		}
	}
	check("run", full, got)
	within("run", got)
	// 17 more iterations: 154 draws need a thinning of 7, so 10 (2 × 5);
	// 3 more fit within it.
	for _, ext := range []struct {
		stage      string
		more, thin int
	}{{"extended", 17, 10}, {"extended again", 3, 10}} {
		if full, err = full.Extend(context.Background(), ext.more, nil); err != nil {
			t.Fatal(err)
		}
		if got, err = got.Extend(context.Background(), ext.more, nil); err != nil {
			t.Fatal(err)
		}
		if got.ImputeThin != ext.thin {
			t.Errorf("%s: thinning %d, want %d", ext.stage, got.ImputeThin, ext.thin)
		}
		check(ext.stage, full, got)
		within(ext.stage, got)
	}
	if len(got.Impute()[0].Draws) != len(got.C)*got.ImputedDraws(0) {
		t.Errorf("Impute gives %d draws per cell", len(got.Impute()[0].Draws))
	}
}

// TestEncodeAfter: an extension's Encoding held all the draws of the
// Result it extends, so that a fit extended three times kept its first
// draws four times over. EncodeAfter keeps only what the extension does
// not share with the Result it extends, and ReadResultAfter rebuilds the
// extension from that Result, bit for bit, extension after extension, with
// imputations thinned anew and the loadings of a factor model too; the
// bytes of neither encoding are read as the other's, nor after another
// Result.
func TestEncodeAfter(t *testing.T) {
	t.Parallel()
	cols, _ := saveTestData(t)
	for _, tc := range []struct {
		name string
		spec Spec
	}{
		{"gibbs", Spec{Method: Gibbs, KeepWarmup: true}},
		{"px", Spec{Model: FactorModel{K: 2}, Method: PX, Thin: 2}},
		{"thinned imputations", Spec{Method: Gibbs, MaxImputed: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Columns, spec.Warmup, spec.Iter, spec.Chains, spec.Seed = cols, 20, 40, 2, 3
			fit, err := Run(context.Background(), spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := fit.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			read, err := UnmarshalResult(b, spec)
			if err != nil {
				t.Fatal(err)
			}
			prev, prevRead := fit, read
			for _, more := range []int{40, 20} {
				ext, err := prev.Extend(context.Background(), more, nil)
				if err != nil {
					t.Fatal(err)
				}
				whole, err := ext.Encode()
				if err != nil {
					t.Fatal(err)
				}
				after, err := ext.EncodeAfter(prev)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if _, err := after.WriteTo(&buf); err != nil {
					t.Fatal(err)
				}
				if buf.Len() != after.Size() {
					t.Fatalf("EncodeAfter wrote %d bytes, said %d", buf.Len(), after.Size())
				}
				// What the extension shares with prev is not stored: the
				// draws of C alone of prev's kept draws are 8 p² bytes each.
				shared := 8 * len(prev.C) * len(prev.C[0]) * ext.P * ext.P
				if saved := whole.Size() - after.Size(); saved < shared {
					t.Errorf("extension of %d: %d bytes whole, %d after the result it extends; want at least the %d bytes of its first draws of C saved", more, whole.Size(), after.Size(), shared)
				}
				if _, err := UnmarshalResult(buf.Bytes(), spec); err == nil || !strings.Contains(err.Error(), "draws of an extension only") {
					t.Errorf("UnmarshalResult of an extension's bytes: %v", err)
				}
				if _, err := ReadResultAfter(prevRead, bytes.NewReader(b), int64(len(b)), spec); err == nil || !strings.Contains(err.Error(), "not the draws of an extension") {
					t.Errorf("ReadResultAfter of a whole result's bytes: %v", err)
				}
				if prev != fit {
					if _, err := ReadResultAfter(read, bytes.NewReader(buf.Bytes()), int64(buf.Len()), spec); err == nil || !strings.Contains(err.Error(), "another result") && !strings.Contains(err.Error(), "does not hold") {
						t.Errorf("ReadResultAfter after another result: %v", err)
					}
				}
				got, err := ReadResultAfter(prevRead, bytes.NewReader(buf.Bytes()), int64(buf.Len()), spec)
				if err != nil {
					t.Fatal(err)
				}
				if diff := exportedDifferences(ext, got); diff != "" {
					t.Errorf("extension of %d read back differs: %s", more, diff)
				}
				if !reflect.DeepEqual(ext.imputed, got.imputed) {
					t.Errorf("extension of %d: imputations read back differ", more)
				}
				prev, prevRead = ext, got
			}
			// The extensions read back extend as those sampled do.
			want, err := prev.Extend(context.Background(), 5, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := prevRead.Extend(context.Background(), 5, nil)
			if err != nil {
				t.Fatal(err)
			}
			got.Elapsed = want.Elapsed
			if diff := exportedDifferences(want, got); diff != "" {
				t.Errorf("extended after reading back, it differs: %s", diff)
			}
		})
	}
}

// TestReadResultStreams: ReadResult decodes the bytes as a reader gives
// them, a few at a time, into the Result UnmarshalResult makes of them
// whole.
func TestReadResultStreams(t *testing.T) {
	t.Parallel()
	cols, _ := saveTestData(t)
	spec := Spec{Columns: cols, Model: FactorModel{K: 2}, Method: PX, Warmup: 10, Iter: 20, Chains: 2, Seed: 5}
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadResult(iotest.HalfReader(bytes.NewReader(b)), int64(len(b)), spec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := exportedDifferences(res, got); diff != "" {
		t.Errorf("read as a stream, it differs: %s", diff)
	}
	if _, err := ReadResult(bytes.NewReader(b[:len(b)-9]), int64(len(b)), spec); err == nil {
		t.Error("a stream that ends early was read")
	}
}

// FuzzReadResultAfter: ReadResultAfter of any bytes after a result either
// refuses them or gives a Result that holds the invariants, which reads,
// summarises and extends without a panic.
func FuzzReadResultAfter(f *testing.F) {
	cols, _ := saveTestData(f)
	specs := []Spec{
		{Columns: cols, Model: FactorModel{K: 1}, Method: PX, Warmup: 6, Iter: 6, Chains: 2, Seed: 4},
		{Columns: cols, Method: Gibbs, Warmup: 6, Iter: 6, Chains: 2, Seed: 4, KeepWarmup: true, MaxImputed: 40},
	}
	bases := make([]*Result, len(specs))
	for k, spec := range specs {
		fit, err := Run(context.Background(), spec, nil)
		if err != nil {
			f.Fatal(err)
		}
		b, err := fit.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		if bases[k], err = UnmarshalResult(b, spec); err != nil {
			f.Fatal(err)
		}
		ext, err := fit.Extend(context.Background(), 6, nil)
		if err != nil {
			f.Fatal(err)
		}
		e, err := ext.EncodeAfter(fit)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := e.WriteTo(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(k), buf.Bytes())
		f.Add(uint8(k), buf.Bytes()[:buf.Len()-5])
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		k := int(which) % len(specs)
		r, err := ReadResultAfter(bases[k], bytes.NewReader(data), int64(len(data)), specs[k])
		if err != nil {
			return
		}
		stats := r.Stats
		r.Stats = nil // Invariants' rejection check is about samplers, not files
		if err := r.Invariants(); err != nil {
			t.Fatalf("accepted a result that breaks the invariants: %v", err)
		}
		r.Stats = stats
		r.Summary()
		r.Impute()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if _, err := r.Extend(ctx, 2, nil); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("extending an accepted result: %v", err)
		}
	})
}
