package dsl

import "strings"

// Nearest returns the candidate closest to name by edit distance (case
// differences cost nothing extra beyond the letters that differ), or "" if
// none is close enough to be a plausible typo: the distance must be at most
// max(1, len(name)/3), or the candidate must equal name ignoring case.
// Ties go to the earlier candidate.
func Nearest(name string, candidates []string) string {
	best, bestD := "", -1
	limit := max(1, len([]rune(name))/3)
	for _, c := range candidates {
		if c == name {
			continue
		}
		if strings.EqualFold(c, name) {
			return c
		}
		d := levenshtein(strings.ToLower(name), strings.ToLower(c))
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// levenshtein is the edit distance between a and b (insertions, deletions,
// substitutions and transpositions of adjacent runes each cost 1).
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows of the optimal-string-alignment table.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
