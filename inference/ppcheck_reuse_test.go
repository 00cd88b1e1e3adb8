package inference

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/copulang/copulang/hough"
)

// withoutKeptChecks returns a copy of r that keeps no earlier check, so
// that its next check runs from scratch.
func withoutKeptChecks(r *Result) *Result {
	c := *r
	c.checks = new(checkMemo)
	return &c
}

// checkText prints a check in full: %v writes every float64 in its
// shortest exact form, so two texts are equal when every number is
// bitwise equal (NaN included), Reused left out.
func checkText(ck *CheckResult) string {
	c := *ck
	c.Reused = false
	return fmt.Sprintf("%+v", c)
}

// TestDrawColumnsMatchesDraw: the columns drawColumns makes are draw's bit
// for bit, and it leaves the replication's stream where draw does, for
// small columns (partitioned in full), columns of many rows (levels from
// their windows), columns of many levels, and missing cells.
func TestDrawColumnsMatchesDraw(t *testing.T) {
	for _, set := range []struct {
		n, p, levels int
		missing      float64
	}{{150, 5, 3, 0.05}, {2500, 6, 5, 0.1}, {1200, 4, 300, 0}} {
		sim, err := Simulate(SimSpec{P: set.p, K: 2, N: set.n, Levels: set.levels, Seed: 3, Missing: set.missing})
		if err != nil {
			t.Fatal(err)
		}
		lvs := make([]*hough.Levels, set.p)
		for j, col := range sim.Columns {
			if lvs[j], err = hough.NewLevels(col); err != nil {
				t.Fatal(err)
			}
		}
		full, part := newReplicator(lvs), newReplicator(lvs)
		for _, cols := range [][]int{{0, 1}, {1, set.p - 1}, {set.p - 2, set.p - 1}, {2}} {
			for seed := range uint64(3) {
				a, b := replicaRNG(seed, 5), replicaRNG(seed, 5)
				if !full.draw(a, sim.C) || !part.drawColumns(b, sim.C, cols) {
					t.Fatal("C is not positive definite")
				}
				for _, j := range cols {
					if !slices.Equal(full.codes[j], part.codes[j]) {
						t.Errorf("n = %d, L = %d, columns %v, seed %d: column %d's replicated levels differ from draw's", set.n, set.levels, cols, seed, j)
					}
					if !slices.Equal(full.z[j], part.z[j]) {
						t.Errorf("n = %d, L = %d, columns %v, seed %d: column %d's latent values differ from draw's", set.n, set.levels, cols, seed, j)
					}
				}
				if x, y := a.Uint64(), b.Uint64(); x != y {
					t.Errorf("n = %d, columns %v: the stream after drawColumns is not where draw leaves it", set.n, cols)
				}
			}
		}
	}
}

// TestCheckReusesPairStatistics: a check with a table after a check of the
// same settings (check m[A, B] after check m, or after check m[C, D])
// takes the pairs' statistics from it and is, bit for bit, the check made
// from scratch, for both statistics and for data with missing cells, in
// columns of many rows too (whose levels come from windows).
func TestCheckReusesPairStatistics(t *testing.T) {
	sim, err := Simulate(SimSpec{P: 5, K: 1, N: 1500, Levels: 4, Seed: 9, Missing: 0.08})
	if err != nil {
		t.Fatal(err)
	}
	fit, err := Run(context.Background(), Spec{Columns: sim.Columns, Model: FactorModel{K: 1}, Method: PX, Iter: 40, Warmup: 40, Chains: 2, Seed: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, stat := range RankStats() {
		for _, earlier := range [][][2]int{nil, {{0, 1}}} {
			base := CheckOptions{Draws: 30, Reps: 29, Stat: stat, Seed: 11}
			withTable := base
			withTable.Tables = [][2]int{{3, 1}, {2, 4}}
			cold, err := withoutKeptChecks(fit).Check(context.Background(), withTable)
			if err != nil {
				t.Fatal(err)
			}
			r := withoutKeptChecks(fit)
			first := base
			first.Tables = earlier
			if _, err := r.Check(context.Background(), first); err != nil {
				t.Fatal(err)
			}
			if !r.CheckReuses(withTable) {
				t.Fatalf("%v after a check with tables %v: CheckReuses is false", stat, earlier)
			}
			var replicated int
			withTable.Progress = func(int, int) { replicated++ }
			warm, err := r.Check(context.Background(), withTable)
			if err != nil {
				t.Fatal(err)
			}
			if cold.Reused || !warm.Reused {
				t.Errorf("%v: Reused %v from scratch and %v after a check of the same settings, want false and true", stat, cold.Reused, warm.Reused)
			}
			if got, want := checkText(warm), checkText(cold); got != want {
				t.Errorf("%v after a check with tables %v: the check differs from the one made from scratch:\n%s\nwant\n%s", stat, earlier, got, want)
			}
			if replicated != 59 {
				t.Errorf("%v: %d replications reported, want 59, as from scratch", stat, replicated)
			}
		}
	}
}

// TestCheckKeepsOnlyWhatDependsOnItsSettings: a check of other settings
// (draws, reps, stat or seed), of an extension of the fit, or of a fit
// from scratch does not reuse an earlier one; an interrupted check keeps
// nothing; and a Result keeps at most maxKeptChecks checks, the latest.
func TestCheckKeepsOnlyWhatDependsOnItsSettings(t *testing.T) {
	res := checkFixture(t)
	opt := CheckOptions{Draws: 30, Reps: 19, Seed: 5}
	if res.CheckReuses(opt) {
		t.Fatal("a new fit reuses a check")
	}
	if _, err := res.Check(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if !res.CheckReuses(opt) || !res.CheckReuses(CheckOptions{Draws: 30, Reps: 19, Seed: 5, Tables: [][2]int{{0, 1}}}) {
		t.Fatal("the same settings do not reuse the check")
	}
	for _, other := range []CheckOptions{{Draws: 31, Reps: 19, Seed: 5}, {Draws: 30, Reps: 20, Seed: 5},
		{Draws: 30, Reps: 19, Seed: 5, Stat: Kendall}, {Draws: 30, Reps: 19, Seed: 6}} {
		if res.CheckReuses(other) {
			t.Errorf("a check of %+v reuses one of %+v", other, opt)
		}
	}
	ext, err := res.Extend(context.Background(), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ext.CheckReuses(opt) {
		t.Error("the extended fit reuses a check of the fit it extends")
	}
	again := checkFixture(t)
	if again.CheckReuses(opt) {
		t.Error("a fit made again reuses a check of the first")
	}

	r := withoutKeptChecks(res)
	ctx := &countdownCtx{Context: context.Background(), left: 40}
	if _, err := r.Check(ctx, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted check: error %v, want context.Canceled", err)
	}
	if r.CheckReuses(opt) {
		t.Error("an interrupted check was kept")
	}
	if _, err := r.Check(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	ctx = &countdownCtx{Context: context.Background(), left: 5}
	withTable := opt
	withTable.Tables = [][2]int{{0, 1}}
	if _, err := r.Check(ctx, withTable); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted check of a table after a check: error %v, want context.Canceled", err)
	}
	if !r.CheckReuses(opt) {
		t.Error("an interrupted check of a table lost the check it reused")
	}

	for seed := range uint64(maxKeptChecks + 1) {
		if _, err := r.Check(context.Background(), CheckOptions{Draws: 20, Reps: 9, Seed: 100 + seed}); err != nil {
			t.Fatal(err)
		}
	}
	if r.CheckReuses(CheckOptions{Draws: 20, Reps: 9, Seed: 100}) || !r.CheckReuses(CheckOptions{Draws: 20, Reps: 9, Seed: 101}) ||
		!r.CheckReuses(CheckOptions{Draws: 20, Reps: 9, Seed: 100 + maxKeptChecks}) {
		t.Errorf("after %d checks, the Result should keep the latest %d", maxKeptChecks+1, maxKeptChecks)
	}
	if n := len(r.checks.kept); n != maxKeptChecks {
		t.Errorf("%d checks kept, want %d", n, maxKeptChecks)
	}
}
