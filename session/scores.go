package session

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/copulang/copulang/inference"
)

// This file keeps what compare computed: each model's pointwise held-out
// scores, by the cells held out and everything its refits depend on. A
// refit is a deterministic function of those (the settings include the
// seed), so a later compare of the same cells — the same models again, or
// with one more — refits only the models it has no scores for, and gets,
// for the others, the numbers their refits would give. A model whose fit
// is kept in a file (fit's file setting) keeps its scores there too, so
// that they outlive the kernel, as brms keeps criteria with a fit
// (keepScores, in fitfile.go with the rest of the file's handling).

// scoreCacheFloats bounds the scores a session keeps: about 128 MiB. With
// folds every observed cell is scored once, so one model's scores hold a
// number per observed cell.
const scoreCacheFloats = 1 << 24

// scoreCache is a session's kept scores, the oldest dropped first once
// they hold more than scoreCacheFloats numbers.
type scoreCache struct {
	byKey map[string]keptScore
	order []string // keys, oldest first
	size  int      // numbers held
	limit int      // numbers held at most; 0 means scoreCacheFloats
}

// keptScore is one model's pointwise scores, the chain totals of each
// fold's refit (inference.CrossValidation, for their Monte Carlo error;
// nil when read from a fit file written before they were kept), and where
// they came from, for compare to say.
type keptScore struct {
	lp          []float64
	chainTotals [][]float64
	from        string // "" when this session computed them, else the fit file's name
}

func (c *scoreCache) get(key string) (keptScore, bool) {
	k, ok := c.byKey[key]
	return k, ok
}

// put keeps k under key, replacing what key held, and drops the oldest
// scores while they hold more than the limit (the newest are always kept).
func (c *scoreCache) put(key string, k keptScore) {
	if c.byKey == nil {
		c.byKey = map[string]keptScore{}
	}
	if old, ok := c.byKey[key]; ok {
		c.size -= len(old.lp)
		for i, o := range c.order {
			if o == key {
				c.order = append(c.order[:i], c.order[i+1:]...)
				break
			}
		}
	}
	c.byKey[key] = k
	c.order = append(c.order, key)
	c.size += len(k.lp)
	limit := c.limit
	if limit == 0 {
		limit = scoreCacheFloats
	}
	for c.size > limit && len(c.order) > 1 {
		c.size -= len(c.byKey[c.order[0]].lp)
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
}

// withPrefix returns the kept scores whose keys start with prefix (a
// settingsKey), in the order they were kept.
func (c *scoreCache) withPrefix(prefix string) []fileScore {
	var out []fileScore
	for _, key := range c.order {
		if strings.HasPrefix(key, prefix) {
			k := c.byKey[key]
			out = append(out, fileScore{Key: key, LP: k.lp, ChainTotals: k.chainTotals})
		}
	}
	return out
}

// settingsKey fingerprints everything a refit of spec depends on but the
// cells it holds out: the data, the model and the sampler's settings.
func settingsKey(spec inference.Spec) string {
	h := sha256.New()
	writeColumns(h, spec)
	fmt.Fprintf(h, "model %#v\nmethod %v columns on exact HMC %v adaptive %v T %v\niter %d warmup %d thin %d chains %d seed %d keep warm-up %v bfa %v paper %v\n",
		spec.Model, spec.Method, spec.ColumnHMC, spec.Adapt, spec.TravelTime,
		spec.Iter, spec.Warmup, spec.Thin, spec.Chains, spec.Seed, spec.KeepWarmup, spec.BFADefect, spec.PaperSamplers)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// scoreKey is the key of the scores of refits of spec holding out each
// fold of folds in turn: settingsKey(spec), a slash, and a digest of the
// folds' cells.
func scoreKey(spec inference.Spec, folds [][]inference.HeldOutCell) string {
	h := sha256.New()
	var word [8]byte
	fmt.Fprintf(h, "%d folds\n", len(folds))
	for _, cells := range folds {
		fmt.Fprintf(h, "fold of %d\n", len(cells))
		for _, c := range cells {
			binary.LittleEndian.PutUint64(word[:], uint64(c.Row))
			h.Write(word[:])
			binary.LittleEndian.PutUint64(word[:], uint64(c.Col))
			h.Write(word[:])
			binary.LittleEndian.PutUint64(word[:], math.Float64bits(c.Value))
			h.Write(word[:])
		}
	}
	return settingsKey(spec) + "/" + fmt.Sprintf("%x", h.Sum(nil))
}

// compareSpec is the spec compare refits m with: its fit's settings,
// without the warm-up draws.
func compareSpec(m *Model) inference.Spec {
	spec := fitSpec(m, m.FitStmt, m.Plan)
	spec.KeepWarmup = false
	return spec
}
