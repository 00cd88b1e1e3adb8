package compiler

import (
	"slices"
	"strings"

	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// The words of the language. Each list is defined once and returned as a
// fresh slice: the checker, Doc (every word needs an entry in docs) and the
// kernel's completion all read them from here. Statement keywords come from
// the grammar (dsl.StatementKeywords) and methods from inference.Methods, so
// adding a statement or a method is done there; a distribution or a plot
// kind is added to its list below (and given a meaning in the checker, the
// plan or the session).

// Keywords returns the words that start a statement.
func Keywords() []string { return dsl.StatementKeywords() }

// Distributions returns the names that may follow ~ in a model, and the
// loadings priors of FactorModel.
func Distributions() []string {
	return slices.Concat([]string{"GaussianCopula"}, correlationPriors(), loadingsPriors())
}

// correlationPriors are the distributions a model's C may have.
func correlationPriors() []string { return []string{"InverseWishart", "LKJ", "FactorModel"} }

// loadingsPriors are the priors of a factor model's loadings.
func loadingsPriors() []string { return []string{"Normal", "GDP"} }

// Methods returns the samplers a fit may name after with: auto, which lets
// Plan choose, and every inference.Method.
func Methods() []string {
	out := []string{"auto"}
	for _, m := range inference.Methods() {
		out = append(out, m.String())
	}
	return out
}

// PlotKinds returns the kinds of plot.
func PlotKinds() []string {
	return []string{"trace", "hist", "acf", "rank", "heatmap", "graph", "rmse", "pairs", "intervals", "latent"}
}

// dataSources are the calls a data statement may bind.
func dataSources() []string { return []string{"load", "simulate"} }

// simulationSpecs are the copulas simulate draws from.
func simulationSpecs() []string { return []string{"FactorCopula", "FullCopula"} }

// SimulationSpecs returns the copulas simulate draws from, which its first
// argument names (simulate(FactorCopula(p = 8, k = 2), ...)).
func SimulationSpecs() []string { return simulationSpecs() }

// members are the parts of a fitted model a reference may select.
func members() []string {
	return []string{"C", "Lambda", "Z", "partial", "communality", "regress"}
}

// TargetMembers returns the members of a fitted model that statement stmt
// takes in its target, as its check accepts them: stmt is a statement's
// keyword, "plot KIND" for a plot, and "print" for print and a line that
// is an expression. A member a full-correlation model lacks (Lambda,
// communality) is listed all the same: the model decides. It returns nil
// for a statement that takes no member (fit, impute, check, plot rmse,
// ...). The checks read these lists, and the kernel's completion offers
// them after NAME.
func TargetMembers(stmt string) []string {
	switch stmt {
	case "summary", "export", "print", "plot trace", "plot hist", "plot acf", "plot rank", "plot pairs", "plot intervals":
		// Everything drawn, but Z, whose draws are not kept.
		return []string{"C", "Lambda", "partial", "communality", "regress"}
	case "plot heatmap", "plot graph":
		return []string{"C", "partial"} // whole matrices
	case "plot latent":
		return []string{"Z"}
	}
	return nil
}

// DifferenceMembers returns the members that statement stmt (as
// TargetMembers names it) takes on the sides of a difference A - B, both
// sides selecting the same member: those of TargetMembers whose
// difference has a meaning (not Lambda, since two fits' factors are not
// the same factors), or nil for a statement that takes no difference
// (export, plot latent, ...).
func DifferenceMembers(stmt string) []string {
	switch stmt {
	case "export", "plot latent":
		return nil
	}
	var out []string
	for _, m := range TargetMembers(stmt) {
		if slices.Contains(differences(), m) {
			out = append(out, m)
		}
	}
	return out
}

// differences are the members whose differences have a meaning: not Z,
// whose draws are not kept, nor Lambda.
func differences() []string { return []string{"C", "partial", "communality", "regress"} }

// takesMember reports whether stmt (as TargetMembers names it) takes
// member in its target; on a side of a difference, when difference is set.
func takesMember(stmt, member string, difference bool) bool {
	if difference {
		return slices.Contains(DifferenceMembers(stmt), member)
	}
	return slices.Contains(TargetMembers(stmt), member)
}

// parameters returns the parameters of a call of the language: the data
// sources, the simulation specs, the priors and the methods that take
// arguments. The checks bind arguments against these lists, and Arguments
// (which the language reference must follow) reads them too.
func parameters(call string) []param {
	switch call {
	case "load":
		return []param{{"path", true, true}, {"sep", false, false}, {"na", false, false}, {"order", false, false}, {"drop", false, false}}
	case "simulate":
		return []param{{"spec", true, true}, {"n", false, true}, {"levels", false, true}, {"seed", false, false}, {"missing", false, false}}
	case "FullCopula":
		return []param{{"p", false, true}}
	case "FactorCopula":
		return []param{{"p", false, true}, {"k", false, true}}
	case "InverseWishart":
		return []param{{"df", false, false}, {"scale", false, false}}
	case "LKJ":
		return []param{{"eta", true, false}}
	case "FactorModel":
		return []param{{"k", true, true}, {"loadings", false, false}}
	case "Normal":
		return []param{{"var", true, false}}
	case "GDP":
		return []param{{"alpha", false, false}, {"beta", false, false}}
	case "auto", "hmc", "interweave":
		return []param{{"T", true, false}}
	}
	panic("compiler: no parameters for " + call)
}

// settingsOf returns the NAME = VALUE settings a statement takes after its
// target, as in fit m, iter = 2000 or summary m.C, prob = 0.8.
func settingsOf(stmt string) []string {
	switch stmt {
	case "fit":
		return []string{"iter", "warmup", "chains", "seed", "thin", "ess", "file"}
	case "extend":
		return []string{"iter", "ess"}
	case "summary":
		return []string{"prob", "sort", "columns", "layout", "width"}
	case "impute":
		return []string{"draws", "prob"}
	case "predict":
		return []string{"prob", "reps", "seed"}
	case "check":
		return []string{"draws", "reps", "stat", "seed"}
	case "compare":
		return []string{"holdout", "folds", "seed"}
	case "plot graph":
		return []string{"prob", "edges"}
	case "plot heatmap":
		return []string{"order", "prob"}
	}
	panic("compiler: no settings for " + stmt)
}

// Arguments returns, for every call and statement that takes named
// arguments or settings, their names in order: load, simulate and its
// specs, the priors, the methods that take a travel time, and the settings
// of fit (and explain fit), extend, summary, impute, check, compare, plot
// graph and plot heatmap (named with their kind, as the plots that take
// one). The language reference
// lists exactly these (a test compares them).
func Arguments() map[string][]string {
	out := map[string][]string{}
	for _, call := range []string{"load", "simulate", "FullCopula", "FactorCopula", "InverseWishart", "LKJ", "FactorModel",
		"Normal", "GDP", "auto", "hmc", "interweave"} {
		for _, p := range parameters(call) {
			out[call] = append(out[call], p.name)
		}
	}
	for _, stmt := range []string{"fit", "extend", "summary", "impute", "predict", "check", "compare", "plot graph", "plot heatmap"} {
		out[stmt] = settingsOf(stmt)
	}
	return out
}

// SettingValues returns the words a setting or parameter takes as its
// value, for completion after NAME =: sort's columns, check's statistics,
// the loadings' priors, plot heatmap's orders (load's order is a map, which
// completion tells by its open parenthesis); nil for the others, which take
// numbers, strings or expressions.
func SettingValues(name string) []string {
	switch name {
	case "order":
		return HeatmapOrders()
	case "sort":
		return SummarySorts()
	case "layout":
		return SummaryLayouts()
	case "columns":
		return SummaryStatistics()
	case "stat":
		return Stats()
	case "loadings":
		return loadingsPriors()
	}
	return nil
}

// HelpTopics returns the words help and inspection document, sorted.
func HelpTopics() []string {
	out := helpTopics()
	slices.Sort(out)
	return out
}

// OtherWords returns the remaining words a cell may use: the data sources,
// the simulation specs, pi, the ordinal link, the words with, vs, to,
// where, and, or, not, in and given,
// the derived members of a fit, the statistics of check, the columns a
// summary sorts by, the orders of a heatmap, and the layouts and
// statistics of a summary's table.
func OtherWords() []string {
	all := slices.Concat(dataSources(), simulationSpecs(), []string{"pi", "ordinal", "with", "vs", "to", "where", "and", "or", "not", "in", "given"},
		[]string{"partial", "communality", "regress"}, Stats(), SummarySorts(), HeatmapOrders(), SummaryLayouts(), SummaryStatistics(), LoadingsMatrixColumns())
	var out []string // each once: the columns sort by are statistics too
	for _, w := range all {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// Doc returns the documentation of a keyword, distribution, method, plot
// kind or other word of the language, for the kernel's inspection.
func Doc(word string) (string, bool) {
	// plot graph, which owns a setting, is documented as its kind.
	d, ok := docs[strings.TrimPrefix(word, "plot ")]
	if !ok {
		return "", false
	}
	return strings.TrimSpace(d), true
}

// docs is read only.
var docs = map[string]string{
	// statements
	"data": `
data NAME = load("PATH" [, sep = ",", na = ["-99"], order = {COLUMN: ["low", ..., "high"]}, drop = [COLUMN, ...]])
data NAME = simulate(FactorCopula(p = P, k = K) | FullCopula(p = P), n = N, levels = L [, seed = S, missing = M])
data NAME = DATA[COL, ...] [where CONDITION]

Binds a data set. load reads a CSV file with a header row; numeric cells are
ordered by value, a text column needs its labels in order (a key [a, b] gives
several columns one order, * every other text column); empty cells, NA, NaN
and the texts of na are missing; sep sets the separator; drop leaves out
columns not to model (identifiers, free text). simulate draws
ordinal data from a known copula (columns Y1..Yp); the truth stays attached
for plot rmse and plot heatmap. DATA[COL, ...] where CONDITION derives a
data set from another: its columns (names, quoted names or positions, as an
index takes them; DATA alone keeps them all) and the rows that meet the
condition (see where), as R's subset() does. Simulated data keep the truth of
the columns chosen, but not once rows are chosen by their values.`,
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
explain fit NAME with METHOD, iter = ..., chains = ...

Prints the inference plan for a model, with the fit's defaults or with the
fit written after explain: in one line what will run and roughly how long,
then each step, which columns it updates, why it was chosen and its cost.`,
	"fit": `
fit NAME [with METHOD[(T = TIME)]] [, iter = 1000, warmup = iter/2, chains = 4, seed = 1, thin = 1, ess = E, file = "m.fit"]

Runs the plan. METHOD is auto (default), gibbs, hmc, px or interweave. iter
counts the iterations kept per chain after warmup; chains run in parallel;
thin keeps every thin-th draw (at most iter). With ess, the fit goes on after
iter until every entry of C has bulk and tail ESS of at least E (all chains
together) and R-hat at most 1.01, at most 20 × iter in all. With file, a
fit that file holds of the same model, data and settings is read instead of
sampled (after a restart, say); otherwise the fit is sampled and written
there. An interrupt stops the fit and keeps the draws so far.`,
	"extend": `
extend NAME [, iter = N, ess = E]

Runs every chain of a fitted model for N more post-warm-up iterations,
each from where it stopped, and adds their draws to the fit: the same draws
as a fit with the larger iter, without its time (a factor model's loadings,
aligned again, agree up to rounding). The report covers all the draws.
Without iter or ess it runs as many as the fit ran, doubling the draws; with
ess it runs on until every entry of C has bulk and tail ESS of at least E
and R-hat at most 1.01, as fit's ess does.`,
	"summary": `
summary EXPR [to "PATH"] [, prob = 0.9, sort = rhat, columns = [...], layout = matrix, width = 345]

Table of posterior summaries (mean, sd, the central prob interval and the
median, bulk and tail ESS, split R-hat, Monte Carlo standard errors of the
mean and sd) of m.C, m.C[i, j], m.C[COL, COL], m.Lambda (aligned loadings);
or a summary of a data set's columns (DATA[COL, ...]: the count of each
level of those columns, rare answers included). sort = rhat, ess_bulk, ess_tail or
mcse_mean puts the worst rows first (largest R-hat or MCSE, least ESS). A
notebook shows the first and last 500 rows of a table of more than 1,000,
jupyter console the first 15 and last 5 of more than 60 (the first 20 when
sorted). A difference, as in summary older.C[INC, DEG] - young.C[INC, DEG]
or m.C[INC, DEG] - m.C[INC, AGE], summarises the paired draws' differences,
with P(>0), the share of them above 0. to "PATH" also writes the table, by
the file's extension: .csv (every number in full, one row per scalar:
label,row,column,mean,...), .tex (a booktabs tabular, rounded as shown) or
.md (a Markdown table); the .tex and .md files hold the columns a paper
prints (mean, sd, the interval, rhat; P(>0) of a difference),
and columns = [mean, interval, rhat] chooses others (in the table shown
too). layout = matrix lays out a whole m.C or m.partial (or a difference
of two) as a paper prints a correlation matrix: its lower triangle, the
columns named across the top, each posterior mean (two decimals) above its
interval; a .tex file splits it into blocks of columns that fit an
article's text width, a .csv file writes the p x p matrix of means.
summary m.Lambda, layout = matrix lays out a factor model's aligned
loadings as factor analyses print them: a row per column, a column per
factor, each mean loading above its interval, then the communality (h2,
m.communality); columns = [mean, communality, uniqueness] chooses. width =
240 fits a .tex file's tabulars to a text width of 240 pt (a column of a
two-column page) where they fit an article's at 10pt (345 pt).`,
	"plot": `
plot KIND EXPR [vs DATA] [to "PATH"] [, prob = 0.9 | order = dependence]

KIND is trace, hist, acf, rank (one parameter, as in m.C[1, 2]), pairs
(several), intervals (medians and 50% and 90% intervals of any number, as in
m.C or m.communality), heatmap (m.C, or a simulation's true C; order =
dependence puts columns that depend side by side, order = old takes old's
order, so that two heatmaps share it; old.C - young.C draws the differences
of two fits' means, framing those whose interval excludes 0), graph
(m.partial or m.C as a network: an edge where the central interval excludes
0; plot graph m.partial, prob = 0.95), rmse (m vs sim: RMSE of C to the
truth per iteration; [m1, m2] compares fits) or latent (m.Z[COL]). All but
rmse and latent also draw a difference, as in
plot hist m1.C[1, 2] - m2.C[1, 2]. to "PATH" also writes the figure, by
the file's extension: .pdf (fonts embedded), .svg or .png; copulang run
then writes only that file.`,
	"impute": `
impute NAME [to "PATH"] [, draws = "PATH", prob = 0.9]

The posterior predictive distribution of every missing cell of a fitted
model's data on its column's levels: mode and its probability, type-1
quantiles, mean. to writes one row per cell (with each level's probability),
draws every kept draw (of one draw in every few when the cells times the
draws pass 2²⁵ values). A notebook shows the first and last 500 cells of
more than 1,000, jupyter console the first 20 of more than 60 and copulang
run the first 20; to writes them all. For derived data each cell also
gives source_row, its row in the source file, to join it back.`,
	"predict": `
predict NAME[COL, ...] given COL = VALUE, ... [, prob = 0.9, reps = 200, seed = S]

The model's distribution of each column in brackets (every column not given
when there are none), on its observed levels, for a new row whose given
columns have the given values: observed values of theirs (a text column's
label as a string, as where takes it). For each level, the posterior mean of
P(level | given, C) over the kept draws of C, its central interval (prob =)
and MCSE; the level's share in the data; and, when rows of the data have all
the given values, their count and the level's share among them (the raw
crosstab the model smooths). Exact with nothing or one column given
(bivariate normal rectangles); with more, GHK with 200 replicates per draw
(reps =), 10 random shifts of a lattice (seed = S, default the fit's seed),
whose Monte Carlo error, from the shifts' spread, is stated. Draws of C
under which the given values have probability 0 in floating point are
left out, and counted.
A figure follows: each level's probability with its interval, its share
over all rows (circles) and among the matching rows (crosses).`,
	"given": `predict m[degree] given income = 5, pdegree = 3: the values of the new row's other columns (see predict).`,
	"export": `
export NAME to "PATH"
export NAME.PART to "PATH"
export DATA to "PATH"

Writes the post-warm-up draws of a fitted model as CSV: chain, draw, then
C.i.j for i < j (and Lambda.i.h for factor models), and beside it
PATH.columns.csv naming each column (param,label,row,column) and
PATH.provenance.csv saying what made the draws. A part writes only its
draws, as summary names them: m.C[income], m.Lambda, m.partial,
m.communality, m.regress(income ~ degree + age) (beta.j and R2). A
data set writes its cells (NA where missing), which load reads back;
derived data first give each row's row in their source file, source_row.`,
	"show": `
show NAME

A readable view of a binding: the head of a data set, a model's statements,
a fit's settings.`,
	"check": `
check NAME [, draws = 200, reps = 200, stat = spearman, seed = FIT'S SEED]
check NAME[COL, COL]

Posterior predictive check of the dependence a fitted model reproduces.
Data sets are replicated from the posterior with the observed marginals,
and the rank correlation of every pair of columns (Spearman's rho, or
Kendall's tau_b with stat = kendall) is compared with the data's: a table
(observed, replicated mean and 90% interval, classical ppp, calibrated p,
max-T adjusted p, flag), a plot, and a verdict resting on the calibrated
omnibus p-value. check m[A, B] adds the two-way table of A and B. A fit
keeps every pair's statistics from its latest checks, so check m[A, B]
after check m with the same settings replicates only A and B, and shows
what it would from scratch.`,
	"compare": `
compare M1, M2, ... [, holdout = 0.1 | folds = K, seed = 1]

Compares fitted models of the same data by held-out cells: observed cells
are held out, each model is refitted with its fit's settings, and each cell
is scored by the log posterior predictive probability of its value. Prints
the sum of the log scores (elpd), differences to the best model and their
standard errors. A model's scores are kept (in its fit file too, when its
fit has one), so comparing the same cells again refits only new models.`,
	"print": `
print EXPR [, EXPR ...]

Writes the values to standard output, separated by spaces: strings as they
are, numbers, bindings as one-line descriptions, and parts of a fitted model
(m.C[1, 2]) as posterior means.`,
	"help": `
help [WORD]

The documentation of a statement, distribution, method or plot kind, written
into the cell's output (a saved notebook keeps it); help alone lists the
statements. In a notebook, a cell of only WORD? (or ?WORD) shows the same text
in the pager, as IPython's ? does.`,
	"clear": `
clear

Clears what the cell has shown so far.`,
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
factors, C = D^(-1/2)(ΛΛᵀ + I)D^(-1/2). 1 <= K < p. C is identified for
every such K; the loadings and communalities only up to the Ledermann
bound, the largest K with (p - K)² >= p + K (3 for 7 columns, 4 for 8).
Identified is not always well determined: with K = 3 on the GSS's 7
columns the chains trade the columns' variance between the factors so
slowly that C's R-hat is about 1.2 after 1,000 iterations and 1.006 after
20,000, though compare scores 3 factors above 2. A fit's R-hat warning on C
gives the chain means of its worst entry and, when a communality's chains
disagree more than C's, of that communality.`,
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

The default: the sampler that gave the most effective draws per second of
C's worst-mixing entry on most data sets measured (docs/sampling.md §9.1).
Full correlation: gibbs. Factor model: px. explain shows the other
candidate, its predicted time and its measured efficiency. Where coarse
columns are strongly correlated hmc mixes better; a Gibbs fit whose R-hat
or ESS warns says so. auto(T = pi/2) sets the exact-HMC travel time of the
columns it moves to hmc.`,
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
	"trace":     "plot trace m.C[1, 2]\n\nDraws of one parameter against iteration, one line per chain.",
	"hist":      "plot hist m.C[1, 2]\n\nHistogram of the post-warm-up draws of one parameter.",
	"acf":       "plot acf m.C[1, 2]\n\nAutocorrelation of the draws of one parameter, by lag.",
	"rank":      "plot rank m.C[1, 2]\n\nRank plot of one parameter: the draws of all chains ranked together, and a histogram of each chain's ranks. Chains that agree give flat histograms within the shaded band; a chain stuck in one region is high at one end and low at the other.",
	"heatmap":   "plot heatmap m.C [, order = dependence | order = NAME]\nplot heatmap a.C - b.C [, prob = 0.9, order = ...]\n\nThe posterior mean of C (or of m.partial) as a heat map; plot heatmap sim shows a simulation's true C. order = columns (the default) keeps column order; order = dependence orders the rows and columns so that columns that depend on each other sit side by side and blocks show along the diagonal (a spectral seriation of |value|, as plot graph orders its nodes, then local moves), kept only when neighbouring columns depend more than in column order; the title and the text say so, and the text lists the columns in the order. order = NAME (a fitted model, NAME.C or NAME.partial, or a simulation) takes the order plot heatmap NAME, order = dependence would pick, so that heatmaps of two subgroups can be compared by position. a.C - b.C (or a.partial - b.partial: two fits of the same columns) draws the posterior mean of each difference, paired as summary a.C - b.C pairs them, on a colour scale symmetric about 0 at the largest |mean difference| (the bar says it), and frames each cell whose central prob interval (0.9 unless given) excludes 0; order = dependence orders it by both fits' mean |value|.",
	"graph":     "plot graph m.partial [, prob = 0.9, edges = N]\n\nThe conditional-dependence graph of a fit: one node per column on a circle, ordered by dependence (columns joined by edges side by side, so that fewer edges cross than in column order; else column order), and an edge for each pair whose central prob interval (0.9, as summary's, unless given) excludes 0, its width growing with |posterior mean|, red when positive and blue when negative; pairs whose interval holds 0 are not drawn. When the data were simulated, a true edge (true value not 0) that is missed is a black dashed line (up to 25 columns) and an edge where the truth is 0 is crossed. The text counts the edges and lists the eight strongest with their means and intervals. An edge is not a posterior edge probability: copulang has no prior over graphs (BDgraph's graphs have one). It takes m.partial, m.C (marginal dependence) or a difference of two of them over the same columns, as in older.partial - younger.partial; past 50 columns the nodes are numbered. At most edges = N edges are drawn, the strongest (by default 3 per column, at least 30), and the text says how many there are.",
	"rmse":      "plot rmse m vs sim\n\nRMSE of each draw of C to the simulation's true C, iteration by iteration (warm-up included), in the first chain; plot rmse [m1, m2] vs sim compares fits.",
	"pairs":     "plot pairs m.C\n\nScatter plots of the draws of pairs of parameters (at most four).",
	"intervals": "plot intervals m.C\n\nThe posterior of several parameters side by side: each one's median, and its central 50% and 90% intervals, against a dashed line at 0, with the true value when the data were simulated. It takes what summary takes: m.C, m.C[COL], m.partial, m.communality, m.regress(Y ~ X), m.Lambda, or a difference such as older.C - younger.C.",
	"latent":    "plot latent m.Z[COL]\n\nPosterior mean of a latent column against the observed levels of its column.",
	// other words
	"load":         `load("PATH" [, sep = ",", na = ["-99"], order = {COLUMN: ["low", ..., "high"]}, drop = [COLUMN, ...]]): read a CSV file with a header row (see data).`,
	"simulate":     `simulate(SPEC, n = N, levels = L [, seed = 1, missing = 0]): draw ordinal data from a known copula (see data).`,
	"FactorCopula": `FactorCopula(p = P, k = K): a simulation spec, a random factor-model correlation with K factors over P columns.`,
	"FullCopula":   `FullCopula(p = P): a simulation spec, a random unstructured correlation over P columns.`,
	"ordinal":      `Y ordinal Z: the extended rank likelihood link; only the order of each column's values is used.`,
	"pi":           `pi: the number π.`,
	"p":            `p: inside a model, the number of columns of Y; FactorCopula(p = 8, k = 2) and FullCopula(p = 8): the columns of a simulated copula.`,
	"n":            `n: inside a model, the number of rows of Y; simulate(SPEC, n = 1000, levels = 5): the rows to draw.`,
	"C":            `m.C: the copula correlation matrix of a model; m.C[i, j] or m.C[COL, COL] one entry.`,
	"Lambda":       `m.Lambda: the loadings of a factor model (p × k) on the correlation scale, aligned across draws (identified only up to rotation and sign: summary m.Lambda says how); m.Lambda[COL, h] one entry.`,
	"Z":            `m.Z[COL]: a latent column (running means only; see plot latent).`,
	"partial":      `m.partial: partial correlations of the latent columns given all the others, per draw; m.partial[COL, COL] one entry.`,
	"communality":  `m.communality: for a factor model, the share of each column's latent variance the factors explain, per draw; m.communality[COL] one column. summary m.Lambda, layout = matrix, columns = [mean, communality]: the column of communalities after the loadings' (there by default).`,
	"uniqueness":   `summary m.Lambda, layout = matrix, columns = [mean, interval, communality, uniqueness]: after the loadings and communalities, each column's uniqueness 1 - communality, the share of its latent variance the factors leave.`,
	"regress":      `m.regress(Y ~ X1 + X2): the regression of latent Y on latent X1, X2 implied by each draw of C (coefficients beta and R2); [X1] or [R2] selects one.`,
	"spearman":     `check m, stat = spearman: compare Spearman's rank correlations (the default).`,
	"kendall":      `check m, stat = kendall: compare Kendall's tau_b.`,
	"columns":      `plot heatmap m.C, order = columns: the rows and columns in column order, the default. summary m.C to "C.tex", columns = [mean, interval, rhat]: the statistics of the table shown and of a .tex or .md file, in that order: mean, sd, interval (the two bounds prob sets), q50, ess_bulk, ess_tail, rhat, mcse_mean, mcse_sd, p_positive (a difference's P(>0)); with layout = matrix, mean or q50 and perhaps interval (and, for m.Lambda, communality and uniqueness). A .csv file holds every column.`,
	"dependence":   `plot heatmap m.C, order = dependence: the rows and columns ordered so that columns that depend on each other sit side by side (kept only when neighbouring columns depend more than in column order).`,
	"rhat":         `summary m.C, sort = rhat: the rows with the largest split R-hat first (the chains disagree most there).`,
	"ess_bulk":     `summary m.C, sort = ess_bulk: the rows with the least bulk ESS first.`,
	"ess_tail":     `summary m.C, sort = ess_tail: the rows with the least tail ESS first.`,
	"mcse_mean":    `summary m.C, sort = mcse_mean: the rows with the largest Monte Carlo standard error of the mean first.`,
	"mcse_sd":      `summary m.C, columns = [sd, mcse_sd]: the Monte Carlo standard error of the posterior sd.`,
	"mean":         `summary m.C, columns = [mean, interval]: the posterior mean.`,
	"sd":           `summary m.C, columns = [mean, sd]: the posterior standard deviation.`,
	"interval":     `summary m.C, columns = [mean, interval]: the bounds of the central interval prob sets (q5 and q95 by default).`,
	"q50":          `summary m.C, columns = [q50, interval]: the posterior median.`,
	"p_positive":   `summary a.C - b.C, columns = [mean, interval, p_positive]: the share of a difference's draws above 0, P(>0).`,
	"long":         `summary m.C, layout = long (the default): one row per entry.`,
	"matrix":       `summary m.C to "C.tex", layout = matrix: the lower triangle of the matrix, each posterior mean above its interval (see layout); summary m.Lambda, layout = matrix: the loadings, a row per column and a column per factor, and the communalities.`,
	// settings and parameters, by name (several statements share some)
	"iter":     `fit m, iter = 1000: the iterations each chain keeps after warm-up (default 1000); extend m, iter = N: N more per chain (default: as many as the fit ran after warm-up).`,
	"warmup":   `fit m, warmup = 500: the iterations each chain runs first and does not keep (default iter/2).`,
	"chains":   `fit m, chains = 4: the number of chains, run in parallel on the cores (default 4).`,
	"seed":     `fit m, seed = 1: the seed of the chains' random streams (default 1); in simulate, check and compare, the seed of their own draws (default 1); in predict, of its GHK replicates (default the fit's seed).`,
	"thin":     `fit m, thin = 2: keep every second of the iter iterations (default 1); thin may not exceed iter.`,
	"ess":      `fit m, ess = 1000 (or extend m, ess = 1000): after iter, go on in rounds until C's least bulk and tail ESS reach 1000 and R-hat is at most 1.01, or the chains have run 20 times iter.`,
	"file":     `fit m, file = "m.fit": keep the fit in that file, and read it from there instead of fitting when the file holds a fit of the same data, model and settings.`,
	"prob":     `summary m.C, prob = 0.8 (or impute m, prob = 0.8, predict m[degree] given income = 5, prob = 0.8): the central interval shown (default 0.9, the 5% and 95% quantiles). plot graph m.partial, prob = 0.95 and plot heatmap a.C - b.C, prob = 0.95: the interval whose exclusion of 0 makes an edge or frames a cell.`,
	"sort":     `summary m.C, sort = rhat: the rows that mix worst first; also ess_bulk, ess_tail, mcse_mean.`,
	"layout":   `summary m.C to "C.tex", layout = matrix: a whole correlation or partial correlation matrix (or a difference of two) as a paper prints it, its lower triangle with the columns named across the top, each mean above its interval; summary m.Lambda, layout = matrix: a factor model's loadings as factor analyses print them, a row per column and a column per factor, then the communality; layout = long (the default): one row per entry.`,
	"width":    `summary m.C to "C.tex", width = 240: the text width in pt that a .tex file's tabulars fit (default 345, an article's at 10pt; 240 to 250 a column of a two-column page, 550 a landscape supplement), as \the\linewidth prints it in the document, at 10pt type (at 11pt or 12pt, give the width times 10/11 or 10/12): the columns of a matrix's blocks, and the width of names set as ragged-right paragraphs.`,
	"draws":    `check m, draws = 200: the posterior draws whose replicated data give the table's intervals and classical ppp (default 200, at least 20; the calibrated p-values and the verdict come from reps); impute m, draws = "cell_draws.csv": write every kept draw of the missing cells there.`,
	"reps":     `check m, reps = 200: the data sets replicated from one posterior draw for the calibrated p-values (default 200); a p-value is at least 1/(reps + 1). predict m[degree] given income = 5, age = 40, reps = 1000: the GHK replicates per draw with two or more given columns (default 200; a multiple of 10, the random shifts of the lattice, up to 100000).`,
	"stat":     `check m, stat = spearman: the rank correlation compared, spearman (the default) or kendall.`,
	"holdout":  `compare m1, m2, holdout = 0.1: the share of observed cells held out (default 10%, at least 100 cells).`,
	"folds":    `compare m1, m2, folds = 5: hold every cell out once, over 5 refits of each model.`,
	"T":        `fit m with hmc(T = pi/2): the exact-HMC travel time (default π/2); also auto(T = ...) and interweave(T = ...).`,
	"df":       `InverseWishart(df = p + 2, scale = p + 2): the degrees of freedom of Hoff's working covariance prior (default p + 2; must exceed p − 1).`,
	"scale":    `InverseWishart(df = p + 2, scale = p + 2): the scale of Hoff's working covariance prior, scale·I (default p + 2).`,
	"eta":      `LKJ(eta = 2): π(C) ∝ |C|^(eta − 1); eta = 1 (the default) is uniform over correlation matrices.`,
	"k":        `FactorModel(k = 2): the number of factors; FactorCopula(p = 8, k = 2): the factors of a simulated copula.`,
	"loadings": `FactorModel(k = 2, loadings = GDP(alpha = 3, beta = 1)): the loadings' prior, Normal(var = 1) (the default) or GDP.`,
	"var":      `Normal(var = 1): the variance of the loadings' normal prior (default 1).`,
	"alpha":    `GDP(alpha = 3, beta = 1): the shape of the generalised double Pareto shrinkage prior of the loadings (default 3).`,
	"beta":     `GDP(alpha = 3, beta = 1): the scale of the generalised double Pareto shrinkage prior of the loadings (default 1).`,
	"sep":      `load("x.csv", sep = ";"): the field separator, one character ("," by default, ";", "\t", "|").`,
	"na":       `load("x.csv", na = ["-99", "."]): more texts of missing cells; empty cells, NA and NaN always are.`,
	"order":    `load("x.csv", order = {COLUMN: ["low", "mid", "high"]}): the order of a text column's labels; {*: [...]} for every text column. plot heatmap m.C, order = dependence: rows and columns ordered by dependence (order = columns, the default, keeps column order); order = old takes the order of old's by dependence, so that two heatmaps share it.`,
	"drop":     `load("x.csv", drop = [id, comment]): columns of the file to leave out, such as identifiers and free text; their cells are not read.`,
	"levels":   `simulate(SPEC, n = 1000, levels = 5): the levels of every simulated column, cut at its sample quantiles.`,
	"missing":  `simulate(SPEC, n = 1000, levels = 5, missing = 0.1): the share of cells made missing at random (default 0).`,
	"where": `
data NAME = DATA[COL, ...] where CONDITION

Keeps the rows of DATA that meet CONDITION: comparisons of a column with a
number (age >= 50, degree != 0), or, for a text column loaded with order =,
with one of its labels, compared by that order (sat >= "agree"); COL in
[V, ...] for any of several values; or with another column of the row
(income > pincome; two text columns need one order); joined with and, or, not and
parentheses. The column may be one that the brackets leave out. A row whose
tested cell is missing is left out unless the rest of the condition decides
it (R's NA logic, as subset() keeps rows), and the statement says how many.
A condition no row meets is an error; a column it makes constant is warned
of. A column named where, and, or, not or in is reached quoted ("where" > 1).`,
	"and":  `data d = gss where age >= 50 and degree != 0: both tests (see where).`,
	"or":   `data d = gss where degree == 0 or degree == 4: either test (see where).`,
	"not":  `data d = gss where not (age < 30): the rows that do not meet the test (see where).`,
	"in":   `data d = gss where degree in [1, 2]: the rows whose cell is one of the values (see where).`,
	"with": `fit m with METHOD: choose the sampler (see fit).`,
	"vs":   `plot rmse m vs sim: the simulated data whose truth is compared.`,
	"to":   `export m to "PATH", summary m.C to "C.tex", plot heatmap m.C to "C.pdf": the file to write.`,
}
