package compiler

import "strings"

// Word lists for completion and inspection in the kernel. They are read
// only; do not modify them.
var (
	// Keywords are the words that start a statement.
	Keywords = []string{"data", "model", "explain", "fit", "summary", "plot", "impute", "export", "show"}
	// Distributions are the names that may follow ~ in a model, and the
	// loadings priors of FactorModel.
	Distributions = []string{"GaussianCopula", "InverseWishart", "LKJ", "FactorModel", "Normal", "GDP"}
	// Methods are the samplers a fit may name after with.
	Methods = []string{"auto", "gibbs", "hmc", "px", "interweave"}
	// PlotKinds are the kinds of plot.
	PlotKinds = []string{"trace", "hist", "acf", "heatmap", "rmse", "pairs", "latent"}
)

// Doc returns the documentation of a keyword, distribution, method, plot
// kind or other word of the language, for the kernel's inspection.
func Doc(word string) (string, bool) {
	d, ok := docs[word]
	if !ok {
		return "", false
	}
	return strings.TrimSpace(d), true
}

// docs is read only.
var docs = map[string]string{
	// statements
	"data": `
data NAME = load("PATH" [, order = {COLUMN: ["low", ..., "high"]}])
data NAME = simulate(FactorCopula(p = P, k = K) | FullCopula(p = P), n = N, levels = L [, seed = S, missing = M])

Binds a data set. load reads a CSV file with a header row; numeric cells are
ordered by value, a text column needs its labels in order; empty cells, NA
and NaN are missing. simulate draws ordinal data from a known copula (columns
Y1..Yp); the truth stays attached for plot rmse and plot heatmap.`,
	"model": `
model NAME {
  Y = DATA                     # or Y = DATA[COL, COL, ...]
  Z ~ GaussianCopula(C)
  Y ordinal Z                  # the extended rank likelihood link
  C ~ InverseWishart(df = p + 2)   # or LKJ(eta = 2) or FactorModel(k = 3)
}

Declares a Gaussian copula model of ordinal data; nothing runs yet. Inside a
model, p is the number of columns of Y and n its number of rows. Items are
separated by newlines or ';'.`,
	"explain": `
explain NAME

Prints the inference plan for a model: each step, which columns it updates,
why it was chosen and its cost per iteration.`,
	"fit": `
fit NAME [with METHOD[(T = TIME)]] [, iter = 1000, warmup = iter/2, chains = 4, seed = 1, thin = 1]

Runs the plan. METHOD is auto (default), gibbs, hmc, px or interweave. iter
counts the iterations kept per chain after warmup; chains run in parallel;
thin keeps every thin-th draw. An interrupt stops cleanly and keeps the
draws so far.`,
	"summary": `
summary EXPR

Table of posterior summaries (mean, sd, 5%, 50%, 95% quantiles, bulk and tail
ESS, split R-hat) of m.C, m.C[i, j], m.C[COL, COL], m.Lambda; or a summary of
a data set's columns.`,
	"plot": `
plot KIND EXPR [vs DATA]

KIND is trace, hist, acf (one parameter, as in m.C[1, 2]), pairs (several),
heatmap (m.C, or a simulation's true C), rmse (m vs sim: RMSE of C to the
truth per iteration; [m1, m2] compares fits) or latent (m.Z[COL]).`,
	"impute": `
impute NAME

Posterior predictive values for the missing cells of a fitted model's data,
mapped back through each column's observed values.`,
	"export": `
export NAME to "PATH"

Writes the post-warm-up draws of a fitted model as CSV: chain, draw, then
C.i.j for i < j (and Lambda.i.h for factor models).`,
	"show": `
show NAME

A readable view of a binding: the head of a data set, a model's statements,
a fit's settings.`,
	// distributions
	"GaussianCopula": `
Z ~ GaussianCopula(C)

The latent rows z_i ~ N(0, C); C is a correlation matrix whose prior is given
by a statement C ~ PRIOR.`,
	"InverseWishart": `
C ~ InverseWishart(df = p + 2, scale = p + 2)

Hoff's prior: the working covariance V ~ IW(df, scale·I) and C = Δ⁻¹VΔ⁻¹.
The defaults are sbgcop's (df = p + 2, scale = p + 2), which make every C_jk a
Beta(3/2, 3/2) variable on (-1, 1). df must exceed p - 1.`,
	"LKJ": `
C ~ LKJ(eta = 1)

π(C) ∝ |C|^(eta - 1); eta = 1 is uniform over correlation matrices, larger
eta shrinks towards the identity. Sampled exactly by an independence
Metropolis–Hastings correction of the inverse-Wishart draw.`,
	"FactorModel": `
C ~ FactorModel(k = K [, loadings = Normal(var = 1) | GDP(alpha = 3, beta = 1)])

The copula factor model of Murray et al. (2013): z_i = Λη_i + ε_i with K
factors, C = D^(-1/2)(ΛΛᵀ + I)D^(-1/2). 1 <= K < p.`,
	"Normal": `
loadings = Normal(var = 1)

Loadings prior λ_jh ~ N(0, var).`,
	"GDP": `
loadings = GDP(alpha = 3, beta = 1)

Generalised double Pareto loadings prior of bfa: density
(alpha/2beta)(1 + |λ|/beta)^-(alpha+1), a shrinkage prior.`,
	// methods
	"auto": `
fit m with auto

The default. Full correlation: exact HMC for coarse ordinal columns (at most
10 levels), Hoff's Gibbs update for columns with many distinct values.
Factor model: interweave.`,
	"gibbs": `
fit m with gibbs

Hoff's univariate Gibbs sampler: each level of each column is drawn from its
truncated normal given the neighbouring levels. O(n p) per column per
iteration; mixes slowly for coarse columns at large n. On a factor model it
means px.`,
	"hmc": `
fit m with hmc(T = pi/2)

Exact HMC of Kalaitzis & Silva (2013) for whole columns: a Gaussian bouncing
off the order constraints between adjacent levels, found by a kinetic
collision search. T is the travel time. On a factor model it means
interweave.`,
	"px": `
fit m with px

Parameter-expanded Gibbs sampler of the factor model (Murray et al. 2013):
loadings, factor scores and latent columns in turn, with a scale expansion
that preserves the order constraints. Factor models only.`,
	"interweave": `
fit m with interweave(T = pi/2)

Joint exact HMC of each column's loadings and latent values (K&S §5),
interweaved with a Gibbs sweep of the latent columns. Factor models only.`,
	// plot kinds
	"trace":   "plot trace m.C[1, 2]\n\nDraws of one parameter against iteration, one line per chain.",
	"hist":    "plot hist m.C[1, 2]\n\nHistogram of the post-warm-up draws of one parameter.",
	"acf":     "plot acf m.C[1, 2]\n\nAutocorrelation of the draws of one parameter, by lag.",
	"heatmap": "plot heatmap m.C\n\nThe posterior mean of C as a heat map; plot heatmap sim shows a simulation's true C.",
	"rmse":    "plot rmse m vs sim\n\nRMSE of each draw of C to the simulation's true C, iteration by iteration (warm-up included); plot rmse [m1, m2] vs sim compares fits.",
	"pairs":   "plot pairs m.C\n\nScatter plots of the draws of pairs of parameters (at most four).",
	"latent":  "plot latent m.Z[COL]\n\nPosterior mean of a latent column against the observed levels of its column.",
	// other words
	"load":         `load("PATH" [, order = {COLUMN: ["low", ..., "high"]}]): read a CSV file with a header row (see data).`,
	"simulate":     `simulate(SPEC, n = N, levels = L [, seed = 1, missing = 0]): draw ordinal data from a known copula (see data).`,
	"FactorCopula": `FactorCopula(p = P, k = K): a simulation spec, a random factor-model correlation with K factors over P columns.`,
	"FullCopula":   `FullCopula(p = P): a simulation spec, a random unstructured correlation over P columns.`,
	"ordinal":      `Y ordinal Z: the extended rank likelihood link; only the order of each column's values is used.`,
	"pi":           `pi: the number π.`,
	"p":            `p: inside a model, the number of columns of Y.`,
	"n":            `n: inside a model, the number of rows of Y.`,
	"C":            `m.C: the copula correlation matrix of a model; m.C[i, j] or m.C[COL, COL] one entry.`,
	"Lambda":       `m.Lambda: the loadings of a factor model (p × k); m.Lambda[COL, h] one entry.`,
	"Z":            `m.Z[COL]: a latent column (running means only; see plot latent).`,
	"with":         `fit m with METHOD: choose the sampler (see fit).`,
	"vs":           `plot rmse m vs sim: the simulated data whose truth is compared.`,
	"to":           `export m to "PATH": the file to write.`,
}
