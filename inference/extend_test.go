package inference

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestExtendMatchesLongerRun checks Extend's promise: a run of Iter a
// followed by Extend(b) makes, bit for bit, the draws, latent means,
// held-out probabilities and step counts of a run of Iter a+b — for every
// method, with thinning, missing cells, held-out cells and an adaptive
// schedule — and extending twice is the same as once.
func TestExtendMatchesLongerRun(t *testing.T) {
	t.Parallel()
	cols, held := heldOutTestData(t, 31, 80)
	for _, tc := range []struct {
		name string
		spec Spec
	}{
		{"gibbs", Spec{Method: Gibbs, Thin: 1}},
		{"gibbs thin 3", Spec{Method: Gibbs, Thin: 3}},
		{"hmc, two columns", Spec{Method: HMC, ColumnHMC: []bool{true, false, false, true}}},
		{"adaptive", Spec{Method: HMC, Adapt: true}},
		{"px", Spec{Model: FactorModel{K: 1}, Method: PX, Thin: 2}},
		{"interweave", Spec{Model: FactorModel{K: 2}, Method: Interweave}},
		{"held-out cells", Spec{Method: Gibbs, HeldOut: held}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.spec
			base.Columns, base.Warmup, base.Chains, base.Seed, base.KeepWarmup = cols, 24, 2, 5, true
			if base.HeldOut != nil {
				base.Columns = MaskCells(cols, held)
			}
			long := base
			long.Iter = 30
			want, err := Run(context.Background(), long, nil)
			if err != nil {
				t.Fatal(err)
			}
			short := base
			short.Iter = 12
			got, err := Run(context.Background(), short, nil)
			if err != nil {
				t.Fatal(err)
			}
			first := got
			firstC := cloneDraws(got.C)
			for _, more := range []int{7, 11} {
				if got, err = got.Extend(context.Background(), more, nil); err != nil {
					t.Fatal(err)
				}
			}
			if first.Iter != 12 || !equalDraws(first.C, firstC) {
				t.Errorf("the extended Result changed: Iter %d, its draws equal before %v", first.Iter, equalDraws(first.C, firstC))
			}
			if _, err := first.Extend(context.Background(), 1, nil); err == nil || !strings.Contains(err.Error(), "extended already") {
				t.Errorf("extending a Result twice: %v", err)
			}
			if got.Iter != 30 || !slices.Equal(got.Iterations, want.Iterations) {
				t.Errorf("Iter %d, iterations %v; want 30, %v", got.Iter, got.Iterations, want.Iterations)
			}
			for _, d := range []struct {
				what       string
				got, wantD [][][]float64
			}{{"C", got.C, want.C}, {"Lambda", got.Lambda, want.Lambda}, {"warm-up C", got.WarmupC, want.WarmupC}, {"imputations", imputedValues(got), imputedValues(want)}} {
				if !equalDraws(d.got, d.wantD) {
					t.Errorf("%s differ from the longer run's", d.what)
				}
			}
			for j := range want.ZMean {
				if !slices.Equal(got.ZMean[j], want.ZMean[j]) {
					t.Errorf("ZMean of column %d differs", j+1)
				}
			}
			if !slices.Equal(got.HeldOutProb, want.HeldOutProb) {
				t.Errorf("held-out probabilities %v, want %v", got.HeldOutProb, want.HeldOutProb)
			}
			if !slices.Equal(got.Stats, want.Stats) {
				t.Errorf("stats %+v, want %+v", got.Stats, want.Stats)
			}
			if (got.Schedule == nil) != (want.Schedule == nil) || got.Schedule != nil && !slices.Equal(got.Schedule.HMC, want.Schedule.HMC) {
				t.Errorf("schedule %+v, want %+v", got.Schedule, want.Schedule)
			}
			if err := got.Invariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestExtendRefuses checks the results Extend cannot continue, and that it
// says why.
// cloneDraws copies the per-chain lists of draws (not the draws, which are
// never written once stored).
func cloneDraws(chains [][][]float64) [][][]float64 {
	out := make([][][]float64, len(chains))
	for c, ch := range chains {
		out[c] = slices.Clone(ch)
	}
	return out
}

func TestExtendRefuses(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(32, 32))
	cols, _ := ordinalData(rng, d1Truth, []int{3, 4, 2, 5}, 60, 0)
	spec := Spec{Columns: cols, Warmup: 10, Iter: 10, Chains: 2, Seed: 1}
	res, err := Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.Extend(context.Background(), 0, nil); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("extend by 0: %v", err)
	}
	if _, err := (&Result{}).Extend(context.Background(), 5, nil); err == nil || !strings.Contains(err.Error(), "not made by Run") {
		t.Errorf("a Result not made by Run: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	warm, err := Run(ctx, Spec{Columns: cols, Warmup: 10, Iter: 10, Chains: 2, Seed: 1}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if _, err := warm.Extend(context.Background(), 5, nil); err == nil || !strings.Contains(err.Error(), "warm-up") {
		t.Errorf("a run stopped in warm-up: %v", err)
	}
	res.run.failed = errors.New("planted failure")
	if _, err := res.Extend(context.Background(), 5, nil); err == nil || !strings.Contains(err.Error(), "planted failure") {
		t.Errorf("a run whose chain failed: %v", err)
	}
}

// TestExtendInterrupted interrupts an extension and extends the interrupted
// run: the draws so far are kept, the chains stay equally long, and the
// result still satisfies every invariant.
func TestExtendInterrupted(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 33))
	cols, _ := ordinalData(rng, d1Truth, []int{3, 4, 2, 5}, 200, 0.05)
	res, err := Run(context.Background(), Spec{Columns: cols, Warmup: 5, Iter: 5, Chains: 2, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The extension is interrupted once every chain has reported 20
	// iterations (15 post-warm-up draws), not after a time: under a loaded
	// machine 200 ms once passed before either chain had gone past 5.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reached := map[int]bool{}
	res, err = res.Extend(ctx, 100_000_000, func(p Progress) {
		if p.Done >= 20 {
			reached[p.Chain] = true
		}
		if len(reached) == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !res.Interrupted || len(res.C[0]) <= 5 || len(res.C[0]) != len(res.C[1]) {
		t.Fatalf("interrupted %v, draws per chain %d and %d: want more than 5, equal", res.Interrupted, len(res.C[0]), len(res.C[1]))
	}
	before := len(res.C[0])
	if res, err = res.Extend(context.Background(), 20, nil); err != nil {
		t.Fatal(err)
	}
	if res.Interrupted || len(res.C[0]) != before+20 || len(res.C[1]) != before+20 {
		t.Errorf("interrupted %v, draws per chain %d and %d; want %d each", res.Interrupted, len(res.C[0]), len(res.C[1]), before+20)
	}
	if err := res.Invariants(); err != nil {
		t.Error(err)
	}
}

// TestExtendLeavesResultReadable reads the Result being extended while the
// extension runs, as a kernel's inspection may: under -race this shows
// that Extend writes nothing r's readers see.
func TestExtendLeavesResultReadable(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(34, 34))
	cols, _ := ordinalData(rng, d1Truth, []int{3, 4, 2, 5}, 60, 0.1)
	res, err := Run(context.Background(), Spec{Columns: cols, Warmup: 10, Iter: 20, Chains: 2, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := res.MeanC()
	stop := make(chan struct{})
	read := make(chan bool)
	go func() {
		same := true
		for {
			select {
			case <-stop:
				read <- same
				return
			default:
			}
			same = same && slices.Equal(res.MeanC(), want) && len(res.Summary()) == 6 && len(res.Impute()) > 0
		}
	}()
	nr, err := res.Extend(context.Background(), 200, nil)
	close(stop)
	if !<-read {
		t.Error("the Result changed while it was extended")
	}
	if err != nil || len(nr.C[0]) != 220 {
		t.Errorf("extension: %v, %d draws per chain", err, len(nr.C[0]))
	}
}
