// Package inference samples the posterior of Gaussian copula models of
// ordinal data under Hoff's extended rank likelihood: the full-correlation
// model with an inverse-Wishart or LKJ prior (Hoff's Gibbs sweep and the exact
// HMC column step of package hough) and the copula factor model of Murray et
// al. (parameter-expanded Gibbs, and joint loadings+column exact HMC
// interweaved with Gibbs, both followed by group moves that rescale and
// shear the factors against the loadings). It runs chains in parallel, one RNG stream each,
// continues them from where they stopped (Result.Extend: the draws of one
// longer run), stores draws, imputes missing cells, computes diagnostics
// (split and rank-normalised R-hat, bulk and tail ESS, MCSE; DiagnoseAll for
// the first three alone) and simulates data with a known truth. The maths is
// in docs/sampling.md.
package inference
