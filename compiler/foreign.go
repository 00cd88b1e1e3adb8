package compiler

import (
	"fmt"
	"slices"
)

// Words of other tools. People come to copulang from R (sbgcop, brms,
// lavaan), Stan, PyMC and NumPyro, and on a first day they write those
// tools' names for the same things: draws and tune for iter and warmup,
// nfactors for k, lkj_corr for LKJ. Edit distance finds none of these
// (draws is as far from iter as from chains), so an unknown word of a
// setting, argument, method, distribution or plot kind is looked up here
// first, and the hint names copulang's word.

// foreignWords maps another tool's word to copulang's. A word is suggested
// only where copulang's word is one of the candidates, so one table serves
// every statement and call: draws is check's own setting, and only fit's
// and extend's unknown draws become iter.
var foreignWords = map[string]string{
	// iterations kept per chain (PyMC, NumPyro, sbgcop, rstan, JAGS)
	"draws": "iter", "samples": "iter", "num_samples": "iter", "n_samples": "iter", "nsamp": "iter",
	"n_iter": "iter", "niter": "iter", "iterations": "iter", "n_iterations": "iter", "ndraws": "iter",
	"n_draws": "iter", "iter_sampling": "iter", "num_draws": "iter",
	// warm-up
	"tune": "warmup", "num_warmup": "warmup", "n_warmup": "warmup", "iter_warmup": "warmup",
	"burnin": "warmup", "burn": "warmup", "burn_in": "warmup", "nburn": "warmup", "n_burnin": "warmup",
	"n_adapt": "warmup", "warm_up": "warmup",
	// chains
	"num_chains": "chains", "n_chains": "chains", "nchains": "chains", "chain": "chains",
	// seed
	"random_seed": "seed", "rng_seed": "seed", "set_seed": "seed", "rng": "seed",
	// thinning (sbgcop's odens: save every odens-th iteration)
	"odens": "thin", "thinning": "thin", "thin_by": "thin", "num_thin": "thin", "n_thin": "thin",
	// an ESS target
	"n_eff": "ess", "min_ess": "ess", "target_ess": "ess",
	// FactorModel's number of factors (psych, lavaan, bfa, sklearn)
	"nfactors": "k", "n_factors": "k", "nfac": "k", "factors": "k", "num_factors": "k", "nfact": "k",
	"n_components": "k",
	// InverseWishart's degrees of freedom, LKJ's shape
	"nu": "df", "dof": "df", "degrees_of_freedom": "df",
	"shape": "eta", "concentration": "eta",
	// simulate
	"nobs": "n", "n_obs": "n", "nrow": "n", "rows": "n", "size": "n",
	"ncat": "levels", "nlevels": "levels", "n_levels": "levels", "categories": "levels", "ncats": "levels",
	// load
	"na_values": "na", "na_strings": "na", "missing_values": "na", "delimiter": "sep", "delim": "sep",
	// summary's interval, check's replications, compare's folds
	"probs": "prob", "ci": "prob", "level": "prob", "hdi_prob": "prob", "cred_mass": "prob", "ci_prob": "prob",
	"statistic": "stat", "nreps": "reps", "n_reps": "reps", "nsim": "reps",
	"nfolds": "folds", "n_folds": "folds", "k_folds": "folds", "kfold": "folds",
	// distributions (Stan, PyMC, R)
	"lkj_corr": "LKJ", "lkj_corr_cholesky": "LKJ", "LKJCorr": "LKJ", "LKJCholeskyCov": "LKJ", "LKJCholesky": "LKJ",
	"inv_wishart": "InverseWishart", "InvWishart": "InverseWishart", "inverse_wishart": "InverseWishart",
	"invwishart": "InverseWishart", "IW": "InverseWishart", "riwish": "InverseWishart",
	"multi_normal": "GaussianCopula", "MvNormal": "GaussianCopula", "MultivariateNormal": "GaussianCopula",
	"mvnorm": "GaussianCopula", "MVN": "GaussianCopula", "multi_normal_cholesky": "GaussianCopula",
	"Factor": "FactorModel", "factanal": "FactorModel", "FactorAnalysis": "FactorModel",
	// plot kinds (bayesplot, ArviZ)
	"traceplot": "trace", "mcmc_trace": "trace", "plot_trace": "trace",
	"density": "hist", "dens": "hist", "histogram": "hist", "mcmc_hist": "hist", "plot_posterior": "hist",
	"autocorr": "acf", "autocorrelation": "acf", "mcmc_acf": "acf", "plot_autocorr": "acf",
	"rank_overlay": "rank", "mcmc_rank_overlay": "rank", "plot_rank": "rank",
	"corrplot": "heatmap", "mcmc_pairs": "pairs", "plot_pair": "pairs",
}

// foreignNotes explains words of other tools that copulang has no
// counterpart for, where listing its own words would not say why. A note
// applies where its anchor is a candidate: a fit's setting where chains
// is one, load's argument where path is, a method where gibbs is.
var foreignNotes = map[string]struct{ anchor, note string }{
	"cores":         {"chains", noteCores},
	"n_cores":       {"chains", noteCores},
	"num_cores":     {"chains", noteCores},
	"n_jobs":        {"chains", noteCores},
	"method":        {"chains", noteMethod},
	"sampler":       {"chains", noteMethod},
	"algorithm":     {"chains", noteMethod},
	"adapt_delta":   {"chains", noteNUTSControl},
	"max_treedepth": {"chains", noteNUTSControl},
	"target_accept": {"chains", noteNUTSControl},
	"step_size":     {"chains", noteNUTSControl},
	"stepsize":      {"chains", noteNUTSControl},
	"control":       {"chains", noteNUTSControl},
	"refresh":       {"chains", noteProgress},
	"progressbar":   {"chains", noteProgress},
	"verbose":       {"chains", noteProgress},
	"header":        {"path", "the first row of the file is always its header, naming the columns"},
	"levels":        {"path", noteLevels},
	"labels":        {"path", noteLevels},
	"NUTS":          {"gibbs", noteNUTS},
	"nuts":          {"gibbs", noteNUTS},
}

const (
	noteCores       = "chains run in parallel on the machine's cores already; chains sets how many run"
	noteMethod      = "the sampler is named after with, as in fit m with hmc, iter = 1000"
	noteNUTSControl = "copulang's samplers are not NUTS and take no such control: exact HMC (hmc, interweave) takes only its travel time, as in fit m with hmc(T = pi/2)"
	noteProgress    = "a fit shows its progress by itself, as one line updated in place"
	noteLevels      = `the labels of a text column, lowest first (R's levels), are load's order = {COLUMN: ["low", "mid", "high"]}`
	noteNUTS        = "copulang has no NUTS: hmc is exact HMC (Kalaitzis & Silva 2013), which bounces off the order constraints and needs no step size; methods: auto, gibbs, hmc, px, interweave"
)

// suggestWord is the hint for an unknown word among candidates (settings,
// arguments, methods, distributions, plot kinds): another tool's name for
// one of them first, then the nearest candidate, then otherwise.
func suggestWord(name string, candidates []string, otherwise string) string {
	if ours, ok := foreignWords[name]; ok && slices.Contains(candidates, ours) {
		return "did you mean " + ours + "? (what other tools call " + name + ")"
	}
	if n, ok := foreignNotes[name]; ok && slices.Contains(candidates, n.anchor) {
		return n.note
	}
	return suggest(name, candidates, otherwise)
}

// Other languages' constants, which copulang has no use for: no setting is
// a switch, and a setting left out takes its default.
var (
	switchWords = []string{"True", "False", "TRUE", "FALSE", "true", "false"}
	noneWords   = []string{"None", "NULL", "null", "nil"}
)

// isNone reports whether name is Python's None or another language's
// spelling of it.
func isNone(name string) bool { return slices.Contains(noneWords, name) }

// literalHint says what to write instead of Python's True, False and None
// (and R's TRUE, FALSE and NULL, JSON's true, false and null), or "" for any
// other name.
func literalHint(name string) string {
	switch {
	case slices.Contains(switchWords, name):
		return "copulang has no " + name + ": no setting is a switch; give a setting its number or word, as in chains = 4 or stat = kendall, or leave it out for its default"
	case isNone(name):
		return "copulang has no " + name + ": leave the setting out for its default (help WORD lists a statement's settings and their defaults)"
	}
	return ""
}

// dataMemberHint is the hint for member of data set data (gss.head(),
// gss.describe(), gss.shape): what copulang shows instead of what pandas'
// (or R's) method of that name would.
func dataMemberHint(data, member string) string {
	switch member {
	case "head", "tail", "sample", "iloc", "loc", "values", "to_numpy", "columns", "shape", "info", "print", "show", "display":
		return fmt.Sprintf("show %s shows a data set's size, columns and first rows", data)
	case "describe", "summary", "dtypes", "nunique", "value_counts", "isna", "isnull", "count", "min", "max", "mean":
		return fmt.Sprintf("summary %s describes each column (its levels, missing cells, min and max), and summary %s[COLUMN, ...] counts each level", data, data)
	}
	return fmt.Sprintf("a data set has no members: show %s shows it, summary %s describes its columns, and %s[COLUMN, ...] selects columns", data, data, data)
}
