package hough

// selectRanks partially sorts a so that a[r−base] holds the order statistic
// of rank r (0-based, within a) for every r in ranks (ascending, distinct),
// with smaller values before it and larger after: quickselect on the middle
// rank, then each side for the ranks that fall in it. O(len(a)·log len(ranks)).
func selectRanks(a []float64, ranks []int32, base int32) {
	for len(ranks) > 0 {
		m := len(ranks) / 2
		k := int(ranks[m] - base)
		quickselect(a, k)
		selectRanks(a[:k], ranks[:m], base)
		a, ranks, base = a[k+1:], ranks[m+1:], base+int32(k)+1
	}
}

// quickselect rearranges a so that a[k] is the k-th smallest, a[:k] ≤ a[k] ≤
// a[k+1:] (Wirth's selection, with a median-of-three pivot value; equal
// values do not make it quadratic).
func quickselect(a []float64, k int) {
	lo, hi := 0, len(a)-1
	for lo < hi {
		x, y, z := a[lo], a[lo+(hi-lo)/2], a[hi]
		pv := max(min(x, y), min(max(x, y), z))
		i, j := lo, hi
		for i <= j {
			for a[i] < pv {
				i++
			}
			for pv < a[j] {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		if j < k {
			lo = i
		}
		if k < i {
			hi = j
		}
	}
}
