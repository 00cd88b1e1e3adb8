package session

import (
	"fmt"
	"math"
	"strings"
)

// chainSpread is where the chains of a fit sit on one quantity: each
// chain's mean and the posterior standard deviation over all their draws.
// A fit's R-hat warning gives it for the entry it names, so that the user
// sees whether one chain sits apart or all of them are spread, and how far
// apart on the posterior's own scale, without a plot.
type chainSpread struct {
	means []float64
	// chains are the chains the means are of, numbered from 0: those with
	// draws (an interrupted fit may have a chain without any).
	chains []int
	sd     float64
}

// spreadOf returns the spread of chains (chain, draw); chains without
// draws are left out of it, and with fewer than two chains of draws it is
// empty (no means).
func spreadOf(chains [][]float64) chainSpread {
	var s chainSpread
	var sum float64
	var n int
	for i, c := range chains {
		if len(c) == 0 {
			continue
		}
		s.chains = append(s.chains, i)
		var m float64
		for _, v := range c {
			m += v
		}
		sum += m
		n += len(c)
		s.means = append(s.means, m/float64(len(c)))
	}
	if len(s.means) < 2 || n < 2 {
		return chainSpread{}
	}
	mean := sum / float64(n)
	var ss float64
	for _, c := range chains {
		for _, v := range c {
			ss += (v - mean) * (v - mean)
		}
	}
	s.sd = math.Sqrt(ss / float64(n-1))
	return s
}

// maxListedChains is the most chains whose means a warning lists one by
// one; with more it gives the least and the greatest and their chains.
const maxListedChains = 4

// meansText lists the chains' means in order ("0.66, 0.97, 0.58 and
// 0.62"; "0.66 (chain 1) and 0.58 (chain 3)" when a chain without draws is
// left out), or, with more than maxListedChains chains, the range they span
// and the chains at its ends ("from 0.58 (chain 3) to 0.97 (chain 2)"),
// each number with format.
func (s chainSpread) meansText(format string) string {
	num := func(v float64) string { return strings.Replace(fmt.Sprintf(format, v), "-", "−", 1) }
	if len(s.means) > maxListedChains {
		lo, hi := 0, 0
		for c, m := range s.means {
			if m < s.means[lo] {
				lo = c
			}
			if m > s.means[hi] {
				hi = c
			}
		}
		return fmt.Sprintf("from %s (chain %d) to %s (chain %d)", num(s.means[lo]), s.chains[lo]+1, num(s.means[hi]), s.chains[hi]+1)
	}
	// In order of the chains, each named when a chain without draws is
	// left out.
	named := s.chains[len(s.chains)-1] != len(s.chains)-1
	parts := make([]string, len(s.means))
	for c, m := range s.means {
		parts[c] = num(m)
		if named {
			parts[c] += fmt.Sprintf(" (chain %d)", s.chains[c]+1)
		}
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// chainsNote is what the R-hat warning on C's entry of worst R-hat adds:
// that entry's chain means against its posterior sd and, when even the
// least-mixed chain alone has a bulk ESS below settledESS on it, that
// chains this short disagree by chance (modesNote speaks of chains that
// each mixed). "" when there are no chain means (one chain: its R-hat
// compares its halves).
func (d diagnostics) chainsNote() string {
	s := d.cSpread
	if len(s.means) < 2 {
		return ""
	}
	note := fmt.Sprintf(": its chain means are %s (posterior sd %.2g)", s.meansText("%.3f"), s.sd)
	if d.chainESS > 0 && d.chainESS < settledESS {
		note += fmt.Sprintf(", and one chain alone has a bulk ESS of only %.0f on it: chains this short for how slowly it moves are not expected to agree", math.Floor(d.chainESS))
	}
	return note
}

// communalitySpreadNote is what the R-hat warning on C adds for a factor
// model whose chains plainly disagree on a column's communality (its R-hat
// above farApart), which no rotation changes. When the largest such R-hat
// is above C's too, it gives that column's chain means and says that the
// split of the columns' latent variance between the factors and their own
// noise moves slowly, and C's entries with it. When, of the columns whose
// communality's R-hat is above farApart, one chain's mean communality of a
// column is nearHeywood or more, it says that the chain sits near a
// Heywood case (the highest such mean). Below farApart it says nothing:
// a well-mixed fit's communalities, like C's entries, have R-hats a little
// above 1.01 by chance (1.028 on a one-factor fit of 500 rows whose C gave
// 1.017). On the shipped GSS data with k = 3 (sampling.md §9.6) C's worst
// R-hat, 1.16 to 1.25 over five seeds at the default length, came with
// communality R-hats of 1.40 to 1.63: the chains trade the variance of
// degree, pdegree and pincome between the factors, and 20,000 iterations
// per chain bring C's R-hat to 1.006 or less; with GDP loadings one chain of 1,000 draws stayed
// at degree's communality 0.97. "" when neither applies.
func (d diagnostics) communalitySpreadNote() string {
	if len(d.communalityDiag) == 0 || len(d.communalitySpread) != len(d.communalityDiag) || d.column == nil {
		return ""
	}
	worst, high, highChain := -1, -1, -1
	for j, s := range d.communalityDiag {
		if !(s.RHat > farApart) || len(d.communalitySpread[j].means) < 2 {
			continue
		}
		if s.RHat > d.c.maxRHat && (worst < 0 || s.RHat > d.communalityDiag[worst].RHat) {
			worst = j
		}
		for c, m := range d.communalitySpread[j].means {
			if m >= nearHeywood && (high < 0 || m > d.communalitySpread[high].means[highChain]) {
				high, highChain = j, c
			}
		}
	}
	var note string
	if worst >= 0 {
		note = fmt.Sprintf("; the communalities, which no rotation changes, disagree more, most %s's (R-hat %.3f; chain means %s): how the factors split the columns' latent variance from their own noise moves slowly, and C's entries move with it (`summary %s.communality`)",
			d.column(worst), d.communalityDiag[worst].RHat, d.communalitySpread[worst].meansText("%.2f"), d.model)
	}
	if high >= 0 {
		h := fmt.Sprintf("%.2f", d.communalitySpread[high].means[highChain])
		if h == "1.00" { // a communality is below 1: do not print it as 1
			h = "above 0.99"
		}
		means := ""
		if high != worst {
			means = fmt.Sprintf(" (R-hat %.3f; chain means %s)", d.communalityDiag[high].RHat, d.communalitySpread[high].meansText("%.2f"))
		}
		note += fmt.Sprintf("; in chain %d %s's communality%s is %s, near 1: that chain sits near a Heywood case, where %s has almost no unique variance", d.communalitySpread[high].chains[highChain]+1, d.column(high), means, h, d.column(high))
	}
	return note
}
