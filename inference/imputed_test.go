package inference

// imputedValues is every imputation of r as a value, as Result.Imputed held
// them before they were kept as level codes: [chain][draw][cell], nil for a
// chain without imputed draws.
func imputedValues(r *Result) [][][]float64 {
	out := make([][][]float64, len(r.imputed))
	for c, ch := range r.imputed {
		for d := range ch {
			v := make([]float64, len(r.Missing))
			r.ImputedTo(v, c, d)
			out[c] = append(out[c], v)
		}
	}
	return out
}
