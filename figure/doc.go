// Package figure draws the plots of copulang with gonum/plot: trace,
// histogram and autocorrelation plots of MCMC draws, RMSE-to-truth traces,
// correlation heatmaps, conditional-dependence graphs, pairs plots,
// latent-against-observed plots and the
// RMSE panels and comparison scatter of `copulang bench paper`. Each
// returns a Figure: the same drawing as PNG and SVG bytes, with a one-line
// text description for readers who cannot see it. The package knows nothing
// of Jupyter or of the language; package session turns figures into display
// data or files.
package figure
